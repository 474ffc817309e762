import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../shared/adapters/memory/memory-store';
import {
  CallbackTracker,
  runCallbackHealthCycle,
  trackingCallbacks,
} from '../../../shared/app/callbacks/callback-health';
import type { RelayMetrics } from '../../../shared/app/ports';
import { runPollCycle } from '../../../shared/app/reconciliation/poll-cycle';
import { runReconciliationTick } from '../../../shared/app/reconciliation/reconciliation-tick';
import type { ReconcileServices } from '../../../shared/app/reconciliation/reconcile';
import { storeReceipt } from '../../../shared/app/callbacks/receipts';
import { registerTransaction } from '../../../shared/app/transactions/register-transaction';
import { rescheduleUnscheduled } from '../../../shared/app/reconciliation/reschedule';
import { parseConfig } from '../../../shared/config/load';
import type { StatusQuery } from '../../../shared/providers/types';

const START = Date.parse('2026-11-23T10:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const silentLog = { debug() {}, info() {}, warn() {}, error() {} };
/** MoMo references are UUIDs: one per name the tests use. */
const REFS: Record<string, string> = {
  'a-demo': '6f1c2a9e-4b7d-4e2a-9c3b-1a2b3c4d5e01',
  'b-other': '6f1c2a9e-4b7d-4e2a-9c3b-1a2b3c4d5e02',
  young: '6f1c2a9e-4b7d-4e2a-9c3b-1a2b3c4d5e03',
  old: '6f1c2a9e-4b7d-4e2a-9c3b-1a2b3c4d5e04',
  paid: '6f1c2a9e-4b7d-4e2a-9c3b-1a2b3c4d5e05',
};
const txId = (name: string) => `momo#demo#${REFS[name]}`;

function setup(overrides: Record<string, unknown> = {}) {
  const config = parseConfig({
    management: { bearerToken: 'a-long-enough-token' },
    reconciliation: { callbackSilenceSeconds: { momo: 600 }, silencePollSeconds: 60, ...overrides },
    accounts: {
      momo: { demo: { pathSecret: 'momo-path-secret-0123' }, other: { pathSecret: 'momo-path-secret-4567' } },
    },
  });
  const raw = new MemoryStore();
  let now = START;
  const clock = { now: () => new Date(now) };
  const tracker = new CallbackTracker(raw, config, silentLog);
  const store = trackingCallbacks(raw, tracker);
  const counts: Record<string, number> = {};
  const metrics: RelayMetrics = {
    count: (name, value = 1) => void (counts[name] = (counts[name] ?? 0) + value),
    timing: () => {},
    flush: () => {},
  };
  const calls: (StatusQuery & { at: number })[] = [];
  const services: ReconcileServices = {
    config,
    store,
    clock,
    log: silentLog,
    scrub: (s) => s,
    metrics,
    // Every status call: still pending (the payer has not answered, or the answer never reached us).
    statusApi: (_provider, account) => ({
      async check(query) {
        calls.push({ ...query, at: now, account } as StatusQuery & { at: number });
        return { type: 'pending', providerCode: 'PENDING', detail: 'PENDING' };
      },
    }),
  };
  let n = 0;
  return {
    raw,
    store,
    tracker,
    services,
    counts,
    calls,
    at: () => now,
    advance: (seconds: number) => void (now += seconds * 1000),
    /** A callback of the account arrives (any transaction): what every callback stores first. */
    callback: (account: string) =>
      storeReceipt(
        store,
        { provider: 'momo', account, reference: `cb-${++n}` },
        {
          routeName: 'requesttopay',
          method: 'PUT',
          path: '/v1/momo/x',
          headers: {},
          sourceIp: '127.0.0.1',
          body: `{"n":${n}}`,
          rawBody: Buffer.from(`{"n":${n}}`),
          receivedAt: iso(now),
          verification: {},
        },
      ),
    register: (account: string, reference: string) =>
      registerTransaction(services, {
        provider: 'momo',
        account,
        kind: 'requesttopay',
        reference: REFS[reference]!,
        amount: '100',
        currency: 'EUR',
        externalId: `order-${reference}`,
      }),
    events: (type: string) => raw.published.filter((e) => e.metadata.type === type),
    /**
     * One poller tick as functions/poller and npm start run it: callback health, then the poll cycle, which
     * takes its due items from the due index as callback health read it (with the checks it hastened).
     */
    cycle: () => runReconciliationTick(services, { owner: 'p1' }),
  };
}

describe('callback health', () => {
  it('a callback outage on one account → one silence event, faster polls, one recovery event', async () => {
    // Prepare: both accounts called back at START; one transaction waits on each.
    const s = setup();
    await s.callback('demo');
    await s.callback('other');
    await s.register('demo', 'a-demo');
    await s.register('other', 'b-other');
    // Act: 40 minutes of one-minute cycles; "other" keeps getting callbacks (every 2 minutes), "demo" none.
    for (let minute = 1; minute <= 40; minute++) {
      s.advance(60);
      if (minute % 2 === 0) await s.callback('other');
      await s.cycle();
    }
    // Assess: one silence, about demo, at the first cycle 600 s after its last callback.
    const silence = s.events('CallbackSilence');
    expect(silence).toHaveLength(1);
    expect(silence[0]!.metadata).toMatchObject({
      correlationId: 'momo:demo:callbacks',
      origin: 'poll',
      occurredAt: iso(START + 600_000),
    });
    expect(silence[0]!.data).toEqual({
      provider: 'momo',
      account: 'demo',
      silentSince: iso(START),
      lastCallbackAt: iso(START),
      waitingTransactions: 1,
      silenceSeconds: 600,
      pollEverySeconds: 60,
      detectedAt: iso(START + 600_000),
    });
    expect(s.counts.CallbackSilenceStarted).toBe(1);
    // Faster polls: demo's waiting transaction is asked every minute once silent; other's on its backoff
    // (MoMo: 300 s, then 120, 300, 600, 1800 s).
    const demoCalls = s.calls.filter((c) => c.reference === REFS['a-demo']).map((c) => (c.at - START) / 1000);
    const otherCalls = s.calls
      .filter((c) => c.reference === REFS['b-other'])
      .map((c) => (c.at - START) / 1000);
    expect(otherCalls).toEqual([300, 420, 720, 1320]);
    expect(demoCalls.slice(0, 3)).toEqual([300, 420, 600]);
    expect(demoCalls.filter((t) => t >= 600)).toEqual(Array.from({ length: 31 }, (_, i) => 600 + 60 * i));
    expect(s.events('CallbacksResumed')).toHaveLength(0);

    // Act: demo's callbacks come back.
    s.advance(30);
    await s.callback('demo');
    const backAt = s.at();
    for (let minute = 1; minute <= 20; minute++) {
      s.advance(60);
      if (minute % 2 === 0) {
        await s.callback('demo');
        await s.callback('other');
      }
      await s.cycle();
    }
    // Assess: one recovery, and the waiting transaction is back on its own schedule.
    const resumed = s.events('CallbacksResumed');
    expect(resumed).toHaveLength(1);
    expect(resumed[0]!.data).toEqual({
      provider: 'momo',
      account: 'demo',
      silentFrom: iso(START),
      silentTo: iso(backAt),
      durationSeconds: (backAt - START) / 1000,
      detectedAt: iso(backAt + 60_000),
    });
    expect(s.counts.CallbacksResumed).toBe(1);
    expect(s.events('CallbackSilence')).toHaveLength(1);
    expect(s.calls.filter((c) => c.reference === REFS['a-demo'] && c.at > backAt + 60_000)).toHaveLength(0);
  });

  it('says so once when two pollers look at the same moment', async () => {
    // Prepare
    const s = setup();
    await s.callback('demo');
    await s.register('demo', 'a-demo');
    s.advance(601);
    // Act
    const [first, second] = await Promise.all([
      runCallbackHealthCycle(s.services),
      runCallbackHealthCycle(s.services),
    ]);
    await runCallbackHealthCycle(s.services);
    // Assess
    expect(s.events('CallbackSilence')).toHaveLength(1);
    expect([...first.started, ...second.started]).toEqual(['momo/demo']);
    expect(first.silent).toEqual(['momo/demo']);
  });

  it('a quiet account is not silent: no transaction waits for a callback', async () => {
    // Prepare: an old callback, a transaction registered only 5 minutes ago, one already final.
    const s = setup();
    await s.callback('demo');
    s.advance(3600);
    await s.register('demo', 'young');
    s.advance(300);
    // Act
    const result = await runCallbackHealthCycle(s.services);
    // Assess
    expect(result.silent).toEqual([]);
    expect(s.events('CallbackSilence')).toHaveLength(0);
  });

  it('is off for an account (or provider) set to 0: never silent, its callbacks still noted for its provider’s ticket', async () => {
    // Prepare
    const s = setup({ callbackSilenceSeconds: { momo: 600, 'momo/demo': 0 } });
    await s.register('demo', 'a-demo');
    s.advance(3600);
    // Act: a busy minute of callbacks, then a look.
    for (let i = 0; i < 60; i++) {
      await s.callback('demo');
      s.advance(1);
    }
    const result = await runCallbackHealthCycle(s.services);
    // Assess: not silent; one write (the first callback), not one per callback.
    expect(result.silent).toEqual([]);
    expect(s.tracker.writes).toBe(1);
  });

  it('tickets a provider none of whose accounts called back for its period (SilentProviders{provider}), only while it lasts', async () => {
    // Prepare: the provider ticket at an hour; "demo" left out of the per-account look (0).
    const s = setup({ callbackSilenceSeconds: { momo: 600, 'momo/demo': 0 } });
    const ticket = { providerSilenceSeconds: { momo: 3600 } };
    const look = () => runCallbackHealthCycle(s.services, ticket);
    // The first look is written once, not tried again (a conditional write billed) every cycle.
    const firstLookWrites: string[] = [];
    const store = s.services.store;
    const putIfAbsent = store.putRecordIfAbsent.bind(store);
    store.putRecordIfAbsent = (record, options) => {
      if (record.id === 'provider-first-look') firstLookWrites.push(record.createdAt);
      return putIfAbsent(record, options);
    };

    // Act / Assess: nobody has called back since the deployment: silent an hour after the first look.
    expect((await look()).silentProviders).toEqual([]);
    s.advance(3599);
    expect((await look()).silentProviders).toEqual([]);
    s.advance(1);
    expect((await look()).silentProviders).toEqual(['momo']);
    expect(s.counts.SilentProviders).toBe(1);
    expect(firstLookWrites).toEqual([iso(START)]);

    // Act / Assess: "demo" calls back (its own look is off, its provider's is not): not silent for an hour.
    await s.callback('demo');
    s.advance(3599);
    expect((await look()).silentProviders).toEqual([]);

    // Act / Assess: an hour without a callback from any account: silent, every look.
    s.advance(1);
    expect((await look()).silentProviders).toEqual(['momo']);
    s.advance(60);
    expect((await look()).silentProviders).toEqual(['momo']);
    expect(s.counts.SilentProviders).toBe(3);

    // Act / Assess: another account of the provider calls back: the provider is not silent any more.
    await s.callback('other');
    s.advance(60);
    expect((await look()).silentProviders).toEqual([]);
    expect(s.counts.SilentProviders).toBe(3);
  });

  it('writes no provider ticket metric without the periods the construct hands the poller (npm start)', async () => {
    // Prepare: nobody has called back.
    const s = setup();
    // Act
    const result = await runCallbackHealthCycle(s.services);
    // Assess
    expect(result.silentProviders).toEqual([]);
    expect(s.counts.SilentProviders).toBeUndefined();
  });

  it('costs one write per account per minute, not one per callback', async () => {
    // Prepare
    const s = setup();
    // Act: 600 callbacks over 10 minutes (one a second).
    for (let i = 0; i < 600; i++) {
      await s.callback('demo');
      s.advance(1);
    }
    // Assess
    expect(s.tracker.writes).toBe(10);
  });
});

describe('rescheduleUnscheduled', () => {
  it('gives transactions stored before reconciliation their schedule, once', async () => {
    // Prepare: one stored without a reconcile state (young), one past its window, one final.
    const s = setup();
    await s.register('demo', 'young');
    await s.register('demo', 'old');
    await s.register('demo', 'paid');
    const strip = (reference: string, patch: Record<string, unknown> = {}) => {
      const key = txId(reference);
      const { reconcile: _r, ...rest } = s.raw.transactions.get(key)!;
      s.raw.transactions.set(key, { ...rest, ...patch });
    };
    strip('young');
    strip('old', { createdAt: iso(START - 4 * 86_400_000), reconcileUntil: iso(START - 86_400_000) });
    strip('paid', { status: 'SUCCEEDED' });
    s.advance(10);
    // Act
    const deps = { config: s.services.config, store: s.raw, scan: s.raw, clock: s.services.clock };
    const first = await rescheduleUnscheduled(deps);
    const again = await rescheduleUnscheduled(deps);
    // Assess
    expect(first).toEqual({ found: 2, scheduled: 2, skipped: 0 });
    expect(again).toEqual({ found: 0, scheduled: 0, skipped: 0 });
    expect(s.raw.transactions.get(txId('young'))!.reconcile).toEqual({
      dueAt: iso(START + 300_000),
      checks: 0,
      recent: [],
    });
    expect(s.raw.transactions.get(txId('old'))!.reconcile!.dueAt).toBe(iso(START + 10_000));
    expect(s.raw.transactions.get(txId('paid'))!.reconcile).toBeUndefined();
    // The poller now checks the old one and expires it with the provider's answer.
    await runPollCycle(s.services, { owner: 'p1' });
    expect(s.raw.transactions.get(txId('old'))!.status).toBe('EXPIRED');
  });
});
