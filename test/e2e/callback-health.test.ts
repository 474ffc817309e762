/**
 * Issue 17, "Tests that must exist": a callback outage on one account → one silence event, faster polls,
 * one recovery event. End to end: the in-process relay (DynamoDB Local, its poller and stream) and the
 * simulator, on simulated time (timeScale 0.01), with momo/demo's silence time shortened to 3 s.
 *
 * The outage: two MoMo payments whose payer never answers and whose callbacks the simulator drops
 * (`--fault drop`), so they wait for a callback that does not come while the status API says PENDING,
 * until the payer's approval window ends. Meanwhile Airtel's callbacks keep arriving. Then a normal
 * `momo pay` whose callback reaches the relay ends the episode.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScenarioOptions, SimContext, Started } from '../../scripts/sim/core';
import { MOMO_ONGOING_MSISDN } from '../../scripts/sim/momo';
import { findScenario, runScenario } from '../../scripts/sim/run';
import type { RelayMetrics } from '../../shared/app/ports';
import type { RelayConfig } from '../../shared/config/schema';
import { nextCheckAt } from '../../shared/domain/reconcile-schedule';
import { scheduleFor } from '../../shared/app/reconciliation/reconcile-timing';
import type { EventEnvelope } from '../../shared/domain/events';
import type { Simulator } from '../../simulator/server';
import type { TestRelay } from '../helpers/relay';
import {
  type RelayWithSimulator,
  simContext,
  simulatedDemoConfig,
  startRelayWithSimulator,
  until as untilProbed,
} from '../helpers/relay-simulator';

const TIME_SCALE = 0.01;
/** momo/demo is silent after 300 s without a callback: 3 s here. */
const SILENCE_SECONDS = 300;
/** While silent, a waiting transaction is checked at least every 30 s: 0.3 s here. */
const SILENCE_POLL_SECONDS = 30;
/**
 * The payer's approval window (provider time): 10 minutes, 6 s here. Until then the status API answers
 * PENDING for the unanswered payments; after it, FAILED (the payer did not approve in time). Twice the
 * silence time: the account is silent (at 3 s) with the payments still waiting, and checked at the silent
 * pace (0.3 s) for about as long again before they fail (a 20-minute window only made the file wait
 * 6 s longer for the same outcome).
 */
const APPROVAL_WINDOW_MS = 10 * 60_000;
/**
 * A poll cycle every 0.3 s, the silent account's pace: each cycle reads every demo account's health, the
 * due index and the pull and balance turns whether anything is due or not (a few batched requests,
 * test/integration/idle-poll-cycle.test.ts); every 0.2 s gave no check sooner than the 0.3 s pace allows,
 * at half as many cycles again.
 */
const POLL_INTERVAL_SECONDS = 0.3;
/** Generous: the machine is small and busy; every wait below ends as soon as its condition holds. */
const DEADLINE_MS = 60_000;

let pair: RelayWithSimulator;
let relay: TestRelay;
let sim: Simulator;
let config: RelayConfig;
const eventsFile = join(mkdtempSync(join(tmpdir(), 'callback-health-')), 'events.ndjson');
/** Metrics the relay's poller counted, by name and dimensions. */
const counted: { name: string; value: number; dimensions: Record<string, string> }[] = [];

/** The demo config on this relay and simulator, with a short callback silence time for momo/demo. */
const healthConfig = (relayUrl: string, simUrl: string) =>
  simulatedDemoConfig(relayUrl, simUrl, {
    eventsFile,
    reconciliation: {
      timeScale: TIME_SCALE,
      pollIntervalSeconds: POLL_INTERVAL_SECONDS,
      callbackSilenceSeconds: { 'momo/demo': SILENCE_SECONDS },
      silencePollSeconds: SILENCE_POLL_SECONDS,
    },
  });

beforeAll(async () => {
  pair = await startRelayWithSimulator({
    eventsFile,
    configFor: healthConfig,
    simulator: (wired) => ({
      ...wired,
      momo: { ...wired.momo, approvalWindowMs: APPROVAL_WINDOW_MS },
      timeScale: TIME_SCALE,
    }),
  });
  ({ relay, sim, config } = pair);
  // The poller reads its services' metrics at every cycle: count what it reports.
  const metrics: RelayMetrics = {
    count: (name, value = 1, dimensions = {}) => void counted.push({ name, value, dimensions }),
    timing: () => {},
    flush: () => {},
  };
  relay.services.metrics = metrics;
});
afterAll(async () => {
  await sim?.close();
  await relay?.stop();
});

const context = (): SimContext => simContext(pair);

/** Waits until `probe` returns a value (what the relay published, counted or polled), at most DEADLINE_MS. */
const until = <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = DEADLINE_MS) =>
  untilProbed(what, probe, { timeoutMs, flush: () => relay.flush() });

const ofType = (type: string): EventEnvelope[] => relay.sink.ofType(type);
const dataOf = (e: EventEnvelope) => e.data as Record<string, any>;
const momoDemo = (e: EventEnvelope) => dataOf(e).provider === 'momo' && dataOf(e).account === 'demo';
const momoDemoOf = (type: string): EventEnvelope[] => ofType(type).filter(momoDemo);

async function view(started: Started) {
  const path = `/v1/transactions/${started.provider}/${started.account}/${started.reference}`;
  const response = await relay.admin('GET', path);
  expect(response.status).toBe(200);
  return response.body;
}

/** Starts a scenario (the simulator's request, the relay's registration) without waiting for its outcome. */
async function start(provider: string, name: string, options: ScenarioOptions): Promise<Started> {
  return findScenario(provider, name).start(context(), options);
}

/** How many status checks MoMo's normal schedule makes within `seconds` of creation (checks on time). */
function normalChecksWithin(seconds: number): number {
  const schedule = scheduleFor('momo', 'requesttopay', config.reconciliation.schedules);
  const createdAt = new Date(0).toISOString();
  const end = new Date(seconds * 1000).toISOString();
  let checks = 0;
  let at = nextCheckAt({
    schedule,
    createdAt,
    reconcileUntil: '9999-12-31T00:00:00.000Z',
    checksDone: 0,
    now: createdAt,
    timeScale: TIME_SCALE,
  });
  while (at <= end) {
    checks++;
    at = nextCheckAt({
      schedule,
      createdAt,
      reconcileUntil: '9999-12-31T00:00:00.000Z',
      checksDone: checks,
      now: at,
      timeScale: TIME_SCALE,
    });
  }
  return checks;
}

describe('callback health, end to end', () => {
  it('a callback outage on one account → one silence event, faster polls, one recovery event', async () => {
    // Prepare: both accounts call back normally.
    const before = await runScenario(context(), 'momo', 'pay', {});
    expect(before.problems).toEqual([]);
    const airtel = await runScenario(context(), 'airtel', 'pay', {});
    expect(airtel.problems).toEqual([]);
    // On a loaded machine the first payment's own callback can take longer than the (scaled) 3 s silence
    // time: an episode its callback then ends. Count from a closed book: every earlier silence resumed.
    await until('every earlier silence resumed', async () =>
      momoDemoOf('CallbacksResumed').length >= momoDemoOf('CallbackSilence').length ? true : undefined,
    );
    const silencesBefore = momoDemoOf('CallbackSilence').length;
    const resumedBefore = momoDemoOf('CallbacksResumed').length;
    const silences = () => momoDemoOf('CallbackSilence').slice(silencesBefore);
    const resumes = () => momoDemoOf('CallbacksResumed').slice(resumedBefore);
    const countedBefore = counted.length;
    const firstCallbackAt = new Date(Date.now()).toISOString();

    // Act: momo/demo's callbacks stop. Two payments the payer leaves unanswered, callbacks dropped.
    const waiting = await Promise.all([
      start('momo', 'pay', { msisdn: MOMO_ONGOING_MSISDN, fault: 'drop' }),
      start('momo', 'pay', { msisdn: MOMO_ONGOING_MSISDN, fault: 'drop' }),
    ]);
    const [watched] = waiting;

    // Assess: the relay says so once, about momo/demo.
    const silence = await until('CallbackSilence', async () => silences()[0]);
    expect(silence.metadata).toMatchObject({ origin: 'poll', correlationId: 'momo:demo:callbacks' });
    const created = (await view(watched!)).transaction.createdAt as string;
    expect(dataOf(silence)).toMatchObject({
      provider: 'momo',
      account: 'demo',
      silenceSeconds: SILENCE_SECONDS * TIME_SCALE,
      pollEverySeconds: SILENCE_POLL_SECONDS * TIME_SCALE,
    });
    // The last callback before the outage is the first payment's; the silence counts from the oldest waiter.
    expect(dataOf(silence).lastCallbackAt).not.toBeNull();
    expect(dataOf(silence).lastCallbackAt < created).toBe(true);
    expect(dataOf(silence).lastCallbackAt <= firstCallbackAt).toBe(true);
    expect([1, 2]).toContain(dataOf(silence).waitingTransactions);
    expect(
      Date.parse(dataOf(silence).detectedAt) - Date.parse(dataOf(silence).silentSince),
    ).toBeGreaterThanOrEqual(SILENCE_SECONDS * TIME_SCALE * 1000);

    // Airtel keeps calling back during the outage: it is not silent.
    const airtelDuring = await runScenario(context(), 'airtel', 'pay', {});
    expect(airtelDuring.problems).toEqual([]);

    // Faster polls: the waiting payments are checked every 0.3 s until the approval window ends and the
    // status API's FAILED settles them (origin poll, no callback ever came).
    const failed = await Promise.all(
      waiting.map((w) =>
        until(`TransactionFailed of ${w.reference}`, async () =>
          ofType('TransactionFailed').find((e) => dataOf(e).reference === w.reference),
        ),
      ),
    );
    for (const event of failed) {
      expect(event.metadata.origin).toBe('poll');
      expect(dataOf(event).reason).toMatchObject({ code: 'TIMED_OUT' });
    }
    const settled = await view(watched!);
    expect(settled.transaction.status).toBe('FAILED');
    const checks = settled.reconciliation.statusChecks as number;
    const finalAt = (settled.history as { type: string; to?: string; at: string }[]).find(
      (h) => h.type === 'transition' && h.to === 'FAILED',
    )!.at;
    const ageAtFinal = (Date.parse(finalAt) - Date.parse(created)) / 1000;
    // Faster polls, counted where the relay decides them: while silent, health cycles brought the waiting
    // payments' next checks forward (to 0.3 s after their last), which the normal schedule (checks at 3,
    // 4.2, 7.2, 13.2 s … here) never does. How many real checks that gives depends on the machine's speed,
    // so it is reported, not asserted (the pace itself is asserted in test/unit/app/callback-health.test.ts).
    const normal = normalChecksWithin(ageAtFinal);
    const hastened = counted
      .filter((m) => m.name === 'SilentTransactionsHastened')
      .reduce((sum, m) => sum + m.value, 0);
    expect(hastened).toBeGreaterThan(0);
    const recent = (settled.history as { type: string; at: string }[])
      .filter((h) => h.type === 'status-check')
      .map((h) => Date.parse(h.at));
    expect(recent.length).toBeGreaterThanOrEqual(1);
    console.info(
      `callback health e2e: watched payment checked ${checks} times in ${ageAtFinal.toFixed(1)} s ` +
        `(normal schedule: ${normal}; ${hastened} checks brought forward); gaps of the last checks ${recent
          .slice(1)
          .map((t, i) => ((t - recent[i]!) / 1000).toFixed(2))
          .join(', ')} s`,
    );

    // Every waiting transaction settled by a poll, yet no callback came: the account is still silent. A
    // health cycle after the settlements says so (it counts the silent accounts only while one is).
    const mark = counted.length;
    await until('a health cycle after the settlements', async () =>
      counted.slice(mark).find((m) => m.name === 'SilentAccounts'),
    );
    expect(resumes()).toEqual([]);

    // Act: callbacks are back; a normal payment's callback reaches the relay.
    const after = await runScenario(context(), 'momo', 'pay', {});
    expect(after.problems).toEqual([]);
    expect(after.callbacks.map((c) => c.status)).toEqual([200]);

    // Assess: one recovery event for the episode.
    const resumed = await until('CallbacksResumed', async () => resumes()[0]);
    expect(resumed.metadata).toMatchObject({ origin: 'poll', correlationId: 'momo:demo:callbacks' });
    expect(dataOf(resumed)).toMatchObject({
      provider: 'momo',
      account: 'demo',
      silentFrom: dataOf(silence).silentSince,
    });
    expect(dataOf(resumed).silentTo > dataOf(silence).detectedAt).toBe(true);

    // More poll cycles and another callback change nothing: one of each event, all about momo/demo.
    const cycles = relay.poller.totals.cycles;
    const more = await runScenario(context(), 'momo', 'pay', {});
    expect(more.problems).toEqual([]);
    await until('five more poll cycles', async () =>
      relay.poller.totals.cycles >= cycles + 5 ? true : undefined,
    );
    await relay.flush();
    expect(silences()).toEqual([silence]);
    expect(resumes()).toEqual([resumed]);
    expect(ofType('CallbackSilence').filter((e) => !momoDemo(e))).toEqual([]);
    expect(ofType('CallbacksResumed').filter((e) => !momoDemo(e))).toEqual([]);
    const since = counted.slice(countedBefore);
    const healthMetrics = since.filter((m) =>
      ['CallbackSilenceStarted', 'CallbacksResumed'].includes(m.name),
    );
    expect(healthMetrics).toEqual([
      { name: 'CallbackSilenceStarted', value: 1, dimensions: { provider: 'momo', account: 'demo' } },
      { name: 'CallbacksResumed', value: 1, dimensions: { provider: 'momo', account: 'demo' } },
    ]);
    // Counted once for each payment a poll settled while no callback had come: the two the payer left
    // unanswered, and any later normal payment (Airtel's during the outage, MoMo's after it) whose callback
    // a loaded machine delayed past its first status check (settled by the poll, its callback then a
    // duplicate; seen in a run at load average 22): which ones is read from their views.
    const noCallback = async (started: Started) =>
      !((await view(started)).history as { type: string; origin?: string }[]).some(
        (h) => h.type === 'transition' && (h.origin === 'callback' || h.origin === 'buffer'),
      );
    expect(await Promise.all(waiting.map(noCallback))).toEqual([true, true]);
    const others = [airtelDuring.started, after.started, more.started];
    const late = await Promise.all(others.map(noCallback));
    const settledByPoll = others.filter((_, i) => late[i]);
    const where = (m: { provider?: string; account?: string }) => `${m.provider}/${m.account}`;
    const withoutCallback = since.filter((m) => m.name === 'FinalizedWithoutCallback');
    expect(withoutCallback.map((m) => where(m.dimensions)).sort()).toEqual(
      [...waiting, ...settledByPoll].map(where).sort(),
    );
  }, 240_000);
});
