/**
 * Issue 31 "Done when", end to end on the real local relay (DynamoDB Local), the provider simulator and the
 * simulator's receiver (`npm run sim -- receiver`), which verifies every delivery with the Standard
 * Webhooks reference library: `momo pay` gives one verified delivery; 500 then 200 gives the same
 * webhook-id twice; 410 disables the destination (seen in GET /v1/destinations); a replay re-sends with the
 * same id after a dry-run count; a rotation sends both signatures; wrong TLS and 429 are logged as such;
 * a slow receiver times out (at a short injected `timeoutMs`) and is retried without delaying another.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runScenario } from '../../scripts/sim/run';
import type { RelayConfig } from '../../shared/config/schema';
import type { Simulator } from '../../simulator/server';
import { type ReceiverFault, type RunningReceiver, startReceiver } from '../../simulator/receiver/receiver';
import { relayEventFeed, simulatedDemoConfig, startRelayWithSimulator } from '../helpers/relay-simulator';
import { ADMIN_HEADERS, ADMIN_TOKEN, type TestRelay } from '../helpers/relay';

const WAIT_MS = 60_000;
const TOKENS = { ops: 'ops-operator-token-0123456789', viv: 'viv-viewer-token-0123456789' };
const ROTATED_ENV = `E2E_ROTATED_SECRET_${randomBytes(4).toString('hex')}`;
/** The relay's environment for `env:` secret references (its own, not process.env: the worker's other files share that). */
const environment = new Map<string, string>();
const secret = () => `whsec_${randomBytes(32).toString('base64')}`;

/** `slow`'s time-out, injected short; its receiver answers long after it (never within the test). */
const SLOW_TIMEOUT_MS = 1000;

/** One receiver per behaviour, each with its own secret and destination. */
const PLAN: Record<string, { fault: ReceiverFault; schedule: number[]; timeoutMs?: number }> = {
  healthy: { fault: 'none', schedule: [0] },
  flaky: { fault: '500', schedule: [0, 1] },
  gone: { fault: '410', schedule: [0, 1] },
  throttled: { fault: '429', schedule: [0, 0] },
  'wrong-tls': { fault: 'tls', schedule: [0] },
  slow: { fault: 'slow', schedule: [0, 1], timeoutMs: SLOW_TIMEOUT_MS },
};
const receivers: Record<string, RunningReceiver> = {};
const secrets: Record<string, string> = {};
let relay: TestRelay;
let sim: Simulator;
let config: RelayConfig;

beforeAll(async () => {
  for (const [name, plan] of Object.entries(PLAN)) {
    secrets[name] = secret();
    receivers[name] = await startReceiver({
      port: 0,
      secret: secrets[name]!,
      fault: plan.fault,
      retryAfterSeconds: 1,
      delayMs: 600_000,
      print: () => undefined,
    });
  }
  const eventsFile = join(mkdtempSync(join(tmpdir(), 'webhook-receiver-')), 'events.ndjson');
  ({ relay, sim, config } = await startRelayWithSimulator({
    eventsFile,
    env: (name) => environment.get(name),
    configFor: (relayUrl, simUrl) =>
      simulatedDemoConfig(relayUrl, simUrl, {
        eventsFile,
        reconciliation: { timeScale: 0.01, pollIntervalSeconds: 0.2 },
        edit: (demo) => {
          demo.management.tokens = [
            { name: 'ops', role: 'operator', token: TOKENS.ops },
            { name: 'viv', role: 'viewer', token: TOKENS.viv },
          ];
          demo.destinations = Object.fromEntries(
            Object.entries(PLAN).map(([name, plan]) => [
              name,
              {
                url: receivers[name]!.url,
                signingSecrets: [secrets[name]],
                allowPrivateAddresses: true,
                retryScheduleSeconds: plan.schedule,
                ...(plan.timeoutMs ? { timeoutMs: plan.timeoutMs } : {}),
                filter: { eventTypes: ['TransactionSucceeded'] },
              },
            ]),
          );
        },
      }),
  }));
});

afterAll(async () => {
  await sim?.close();
  await relay?.stop();
  for (const receiver of Object.values(receivers)) await receiver.stop();
});

/** `admin`: the shared token with the person acting named; `nobody`: the shared token alone. */
const as = (who: keyof typeof TOKENS | 'admin' | 'nobody') =>
  who === 'admin'
    ? ADMIN_HEADERS
    : { authorization: `Bearer ${who === 'nobody' ? ADMIN_TOKEN : TOKENS[who]}` };

async function momoPay() {
  return runScenario(
    {
      relayUrl: relay.url,
      simUrl: sim.url,
      adminToken: ADMIN_TOKEN,
      config,
      events: relayEventFeed(relay),
      // The scenario ends when its events arrive: this only bounds a hang on a loaded machine.
      timeoutMs: 60_000,
      pollMs: 25,
    },
    'momo',
    'pay',
    {},
  );
}

const ids = (name: string) => receivers[name]!.received.map((r) => r.id);

describe('webhook destinations against the simulator receiver', () => {
  it('delivers momo pay verified, retries 500 with the same id, disables on 410, replays after a dry-run count', async () => {
    // Prepare: the payment.
    const paid = await momoPay();
    expect(paid.problems).toEqual([]);
    const succeeded = paid.events.find((e) => e.envelope.metadata.type === 'TransactionSucceeded')!.envelope;
    const id = succeeded.metadata.id;
    const { provider, account, reference } = succeeded.data as Record<string, string>;

    // Act: wait for every destination's outcome.
    await vi.waitFor(
      () => {
        expect(ids('healthy')).toEqual([id]);
        expect(ids('flaky')).toEqual([id, id]);
        expect(ids('gone')).toEqual([id]);
        expect(ids('throttled')).toEqual([id, id]);
      },
      { timeout: WAIT_MS, interval: 100 },
    );
    const list = await vi.waitFor(
      async () => {
        const answer = await relay.request('GET', '/v1/destinations', undefined, as('viv'));
        const byId = Object.fromEntries(answer.body.destinations.map((d: { id: string }) => [d.id, d]));
        expect(byId['wrong-tls'].lastAttempt).not.toBeNull();
        return byId;
      },
      { timeout: WAIT_MS, interval: 200 },
    );
    const dryRun = await relay.request(
      'POST',
      '/v1/destinations/healthy/replay',
      { dryRun: true, transaction: { provider, account, reference } },
      as('ops'),
    );
    const countBefore = ids('healthy').length;
    const replayed = await relay.request(
      'POST',
      '/v1/destinations/healthy/replay',
      { dryRun: false, transaction: { provider, account, reference } },
      as('ops'),
    );
    await vi.waitFor(() => expect(ids('healthy')).toEqual([id, id]), { timeout: WAIT_MS, interval: 100 });

    // Assess: every delivery verified by the reference library, the same webhook-id throughout.
    const healthy = receivers.healthy!.received[0]!;
    expect(healthy.verified).toBe(true);
    expect(
      new Webhook(secrets.healthy!).verify(healthy.body, {
        'webhook-id': healthy.id,
        'webhook-timestamp': healthy.timestamp,
        'webhook-signature': healthy.signature,
      }),
    ).toEqual(JSON.parse(JSON.stringify(succeeded)));
    expect(receivers.flaky!.received.map((r) => [r.verified, r.answered])).toEqual([
      [true, 500],
      [true, 200],
    ]);
    expect(receivers.throttled!.received.map((r) => r.answered)).toEqual([429, 200]);
    expect(receivers.gone!.received.map((r) => r.answered)).toEqual([410]);
    expect(list.gone).toMatchObject({ state: 'disabled', disabledReason: '410 Gone', failureStreak: 1 });
    // The 410 told the operator: one DestinationDisabled on the relay's event stream, naming no URL.
    await relay.flush();
    const disabled = relay.sink.events.filter((e) => e.metadata.type === 'DestinationDisabled');
    expect(disabled.map((e) => e.data)).toEqual([
      expect.objectContaining({ destination: 'gone', reason: 'gone', detail: '410 Gone', lastStatus: 410 }),
    ]);
    expect(JSON.stringify(disabled)).not.toContain(receivers.gone!.url);
    expect(list.healthy).toMatchObject({ state: 'active', failureStreak: 0, lastAttempt: { status: 200 } });
    expect(list['wrong-tls']).toMatchObject({ state: 'active', lastAttempt: { status: null } });
    expect(receivers['wrong-tls']!.received).toEqual([]);
    // Never a secret in the list.
    expect(JSON.stringify(list)).not.toContain('whsec_');
    expect(dryRun.status).toBe(200);
    expect(dryRun.body).toMatchObject({ dryRun: true, count: 1 });
    expect(countBefore).toBe(1);
    expect(replayed.body).toMatchObject({ dryRun: false, count: 1 });
    expect(receivers.healthy!.received[1]!.verified).toBe(true);
    // The 429's Retry-After (1 s) was waited, though the schedule said 0.
    const throttledLog = await relay.request(
      'GET',
      '/v1/destinations/throttled/deliveries',
      undefined,
      as('viv'),
    );
    const [second, first] = throttledLog.body.attempts;
    expect(first).toMatchObject({ status: 429, outcome: 'retrying' });
    expect(Date.parse(first.nextAttemptAt) - Date.parse(first.at)).toBeGreaterThanOrEqual(1000);
    expect(second).toMatchObject({ status: 200, outcome: 'delivered' });
    const tlsLog = await relay.request('GET', '/v1/destinations/wrong-tls/deliveries', undefined, as('viv'));
    expect(tlsLog.body.attempts).toEqual([
      expect.objectContaining({
        status: null,
        outcome: 'dead-letter',
        excerpt: expect.stringMatching(/certificate/i),
      }),
    ]);
    // The transaction's story reads its deliveries per destination.
    const story = await relay.request(
      'GET',
      `/v1/transactions/${provider}/${account}/${reference}/deliveries`,
      undefined,
      as('viv'),
    );
    const flakyStory = story.body.deliveries.find((d: { destination: string }) => d.destination === 'flaky');
    expect(flakyStory.attempts.map((a: { outcome: string }) => a.outcome)).toEqual(['retrying', 'delivered']);
    // Both replay calls are in the audit log with the operator's name.
    const audit = await relay.request('GET', '/v1/audit?action=destination.replay', undefined, as('admin'));
    expect(
      audit.body.entries.map((e: { actor: { name: string }; detail: string }) => [
        e.actor.name,
        e.detail.split(' (')[0],
      ]),
    ).toEqual([
      ['ops', 'replayed 1 events to healthy'],
      ['ops', 'dry run: would replay 1 events to healthy'],
    ]);
  });

  it('pauses and resumes with the actor named, rotates to a secret by reference (both signatures sent), refuses the wrong role and bad input', async () => {
    // Prepare
    const rotated = secret();
    environment.set(ROTATED_ENV, rotated);
    const before = receivers.healthy!.received.length;

    // Act
    const viewerPause = await relay.request('POST', '/v1/destinations/healthy/pause', undefined, as('viv'));
    const paused = await relay.request('POST', '/v1/destinations/healthy/pause', undefined, as('ops'));
    const resumed = await relay.request('POST', '/v1/destinations/gone/resume', undefined, as('ops'));
    const operatorRotate = await relay.request(
      'POST',
      '/v1/destinations/healthy/rotate',
      { secretRef: `env:${ROTATED_ENV}` },
      as('ops'),
    );
    const unsetRotate = await relay.request(
      'POST',
      '/v1/destinations/healthy/rotate',
      { secretRef: 'env:NO_SUCH_VARIABLE_FOR_E2E' },
      as('admin'),
    );
    const unnamedRotate = await relay.request(
      'POST',
      '/v1/destinations/healthy/rotate',
      { secretRef: `env:${ROTATED_ENV}`, windowHours: 2 },
      as('nobody'),
    );
    const rotate = await relay.request(
      'POST',
      '/v1/destinations/healthy/rotate',
      { secretRef: `env:${ROTATED_ENV}`, windowHours: 2 },
      as('admin'),
    );
    const noSelector = await relay.request(
      'POST',
      '/v1/destinations/healthy/replay',
      { dryRun: true },
      as('ops'),
    );
    const unknown = await relay.request('POST', '/v1/destinations/nobody/pause', undefined, as('ops'));
    const range = {
      from: new Date(Date.now() - 3_600_000).toISOString(),
      to: new Date(Date.now() + 60_000).toISOString(),
      eventType: 'TransactionSucceeded',
    };
    const count = await relay.request(
      'POST',
      '/v1/destinations/healthy/replay',
      { dryRun: true, ...range },
      as('ops'),
    );
    await relay.request('POST', '/v1/destinations/healthy/replay', { dryRun: false, ...range }, as('ops'));
    const resumedAtSeconds = Math.floor(Date.now() / 1000);
    const resumeHealthy = await relay.request(
      'POST',
      '/v1/destinations/healthy/resume',
      undefined,
      as('ops'),
    );
    await vi.waitFor(() => expect(receivers.healthy!.received.length).toBe(before + count.body.count), {
      timeout: WAIT_MS,
      interval: 100,
    });

    // Assess
    expect(viewerPause.status).toBe(403);
    expect(viewerPause.body.error).toMatchObject({ code: 'FORBIDDEN_ROLE', requiredRole: 'operator' });
    expect(paused.body).toMatchObject({ state: 'paused', pausedBy: 'ops' });
    expect(resumed.body).toMatchObject({ state: 'active', failureStreak: 0 });
    expect(operatorRotate.status).toBe(403);
    expect(unsetRotate.status).toBe(400);
    expect(unsetRotate.body.error.code).toBe('SCHEMA_VALIDATION_FAILED');
    expect(unnamedRotate.status).toBe(400);
    expect(unnamedRotate.body.error.code).toBe('ACTOR_REQUIRED');
    expect(rotate.body.rotation).toMatchObject({
      rotatedBy: 'ada (shared token)',
      bothSigning: true,
    });
    expect(JSON.stringify(rotate.body)).not.toContain(rotated);
    expect(noSelector.status).toBe(400);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('DESTINATION_NOT_FOUND');
    expect(count.body.count).toBeGreaterThanOrEqual(1);
    expect(resumeHealthy.body.state).toBe('active');
    // Held while paused, sent after the resume: signed with the rotated secret and the replaced one.
    const sent = receivers.healthy!.received.slice(before);
    for (const delivery of sent) {
      const headers = {
        'webhook-id': delivery.id,
        'webhook-timestamp': delivery.timestamp,
        'webhook-signature': delivery.signature,
      };
      expect(delivery.signature.split(' ')).toHaveLength(2);
      expect(Number(delivery.timestamp)).toBeGreaterThanOrEqual(resumedAtSeconds);
      expect(delivery.verified).toBe(true);
      expect(() => new Webhook(rotated).verify(delivery.body, headers)).not.toThrow();
    }
    const audit = await relay.request('GET', '/v1/audit?target=destination/', undefined, as('admin'));
    const actions = audit.body.entries.map(
      (e: { action: string; outcome: string; actor: { name: string } | null }) =>
        `${e.action} ${e.outcome} ${e.actor?.name ?? '-'}`,
    );
    expect(actions).toEqual(
      expect.arrayContaining([
        'destination.pause refused viv',
        'destination.pause ok ops',
        'destination.resume ok ops',
        'destination.rotate refused ops',
        'destination.rotate refused ada (shared token)',
        'destination.rotate refused bearer-token (shared)',
        'destination.rotate ok ada (shared token)',
        'destination.replay refused ops',
      ]),
    );
    expect(JSON.stringify(audit.body)).not.toContain(rotated);
  });

  it('times out a slow receiver at its timeoutMs, retries it on the schedule, and delivers to another meanwhile', async () => {
    // Prepare: a payment both `healthy` and `slow` take.
    const paid = await momoPay();
    expect(paid.problems).toEqual([]);
    const succeeded = paid.events.find((e) => e.envelope.metadata.type === 'TransactionSucceeded')!.envelope;
    const id = succeeded.metadata.id;
    const { provider, account, reference } = succeeded.data as Record<string, string>;

    // Act: wait until `slow` has used its whole schedule (two attempts, then the dead-letter store).
    type Attempt = { eventId: string; at: string; latencyMs: number; status: number | null } & Record<
      string,
      unknown
    >;
    const story = await vi.waitFor(
      async () => {
        const answer = await relay.request(
          'GET',
          `/v1/transactions/${provider}/${account}/${reference}/deliveries`,
          undefined,
          as('viv'),
        );
        const byDestination = Object.fromEntries(
          answer.body.deliveries.map((d: { destination: string; attempts: Attempt[] }) => [
            d.destination,
            d.attempts.filter((a) => a.eventId === id),
          ]),
        ) as Record<string, Attempt[]>;
        expect(byDestination.slow?.map((a) => a.outcome)).toEqual(['retrying', 'dead-letter']);
        expect(byDestination.healthy?.map((a) => a.outcome)).toEqual(['delivered']);
        return byDestination;
      },
      { timeout: WAIT_MS, interval: 200 },
    );

    // Assess: each attempt reached the receiver and was cut at the injected time-out, logged as such.
    const [first, second] = story.slow!;
    for (const attempt of [first!, second!])
      expect(attempt).toMatchObject({
        status: null,
        excerpt: `no answer within ${SLOW_TIMEOUT_MS} ms`,
        latencyMs: expect.any(Number),
      });
    expect(first!.latencyMs).toBeGreaterThanOrEqual(SLOW_TIMEOUT_MS);
    expect(receivers.slow!.received.filter((r) => r.id === id).map((r) => r.verified)).toEqual([true, true]);
    // Retried on the schedule: the second attempt at (not before) the time the first one named.
    expect(Date.parse(first!.nextAttemptAt as string) - (Date.parse(first!.at) + first!.latencyMs)).toBe(
      1000,
    );
    expect(Date.parse(second!.at)).toBeGreaterThanOrEqual(Date.parse(first!.nextAttemptAt as string));
    // No head-of-line blocking: healthy's attempt started while slow's first one was still waiting.
    const [delivered] = story.healthy!;
    expect(delivered).toMatchObject({ status: 200, outcome: 'delivered' });
    expect(Date.parse(delivered!.at)).toBeLessThan(Date.parse(first!.at) + first!.latencyMs);
    expect(receivers.healthy!.received.filter((r) => r.id === id)).toHaveLength(1);
  });
});
