/**
 * Issue 27 item 9, over HTTP: a silent Daraja account stays silent while only the answers to the relay's
 * own status queries arrive, and is not checked sooner while its status API fails. The in-process relay
 * (DynamoDB Local, its poller and stream) and the simulator, the relay's reconciliation on simulated time
 * (timeScale 0.005: daraja/demo is silent after 3 s, its waiting payouts are then checked every 0.3 s, on
 * poll cycles every 0.15 s).
 *
 * The outage: a payout registered with the relay whose result Daraja never sends: no callback of the
 * account comes. The poller's transaction status queries are answered, each by a result the simulator
 * posts to the account's `status/result` route ("could not be found": the payout stays PENDING), and its
 * balance snapshots' Account Balance requests by results on `balance/result` (the route partners' own
 * balance requests are answered on). Those answers come because the relay asked: they must not end the
 * silence. A normal payout's result then does, once. Then the simulator's status API answers 503 (fault
 * `status-5xx=503`) during another silence.
 *
 * The wait is on conditions (events published, answers delivered, poll cycles run), never on a fixed sleep:
 * a slow machine only makes the run longer. Deterministic numbers: test/unit/app/callback-health-daraja.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimContext } from '../../scripts/sim/core';
import { runScenario } from '../../scripts/sim/run';
import type { EventEnvelope } from '../../shared/domain/events';
import { nextCheckAt } from '../../shared/domain/reconcile-schedule';
import { scheduleFor } from '../../shared/app/reconciliation/reconcile-timing';
import type { Simulator } from '../../simulator/server';
import type { TestRelay } from '../helpers/relay';
import {
  type DemoWithSimulator,
  simContext,
  startDemoWithSimulator,
  until as untilProbed,
} from '../helpers/relay-simulator';

/**
 * The relay's reconciliation clock: every period of the test (the silence time, the silent pace, the poll
 * cycle) on it, so the counts below (answers, cycles) keep their meaning at any scale. 0.005: the file
 * waits half as long as at 0.01, and a poll cycle (a few batched reads when nothing is due) every 0.15 s
 * still leaves a busy machine's cycles far apart enough to be counted.
 */
const TIME_SCALE = 0.005;
/**
 * A payout registered with the relay that Daraja never reports: it does not know its id (R000001). A new
 * reference each time: a retried test registers its own (the same one again is answered 200, not 201).
 */
let neverReported = 0;
const newNeverReported = () => `SIM-B2C-NEVER-REPORTED-${++neverReported}`;
/**
 * A poll cycle every 30 s of simulated time (0.15 s): the silent account's checks (every 60 s) fall on
 * every other cycle. Each cycle reads every demo account's health, its due transactions and its pull and
 * balance turns (a few batched DynamoDB Local requests) whether anything is due or not.
 */
const POLL_INTERVAL_SECONDS = 30 * TIME_SCALE;
/** Poll cycles to watch once silent with the status API down: two silence times (40 × 30 s ≥ 2 × 600 s). */
const CYCLES_WHILE_DOWN = 40;
/** Status answers to wait for once silent: more than a whole silence time's worth (600 s at 60 s each). */
const ANSWERS_WHILE_SILENT = 15;
/**
 * Balance snapshots of daraja/demo every 300 s of simulated time (1.5 s): two or more of their results
 * fall in the wait for the status answers above (15 at 60 s each).
 */
const BALANCE_INTERVAL_SECONDS = 300;
/** Results of the relay's own balance requests to wait for once silent. */
const BALANCES_WHILE_SILENT = 2;
const DEADLINE_MS = 60_000;

let pair: DemoWithSimulator;
let relay: TestRelay;
let sim: Simulator;

beforeAll(async () => {
  pair = await startDemoWithSimulator('callback-health-daraja', {
    reconciliation: {
      timeScale: TIME_SCALE,
      pollIntervalSeconds: POLL_INTERVAL_SECONDS,
      // Daraja's defaults, written out: silent after 600 s, then checked every 60 s (scaled).
      callbackSilenceSeconds: { daraja: 600 },
      silencePollSeconds: 60,
    },
    // Balance snapshots of daraja/demo more often than hourly: their answers arrive on balance/result
    // while the account is silent, and, the relay's own, must not end the silence.
    edit: (demo) => {
      demo.providerRecords = {
        accounts: { 'daraja/demo': { balanceIntervalSeconds: BALANCE_INTERVAL_SECONDS } },
      };
    },
  });
  ({ relay, sim } = pair);
});
afterAll(() => pair?.stop());

const context = (): SimContext => simContext(pair);

/** Waits until `probe` returns a value (what the relay published or the simulator sent), at most DEADLINE_MS. */
const until = <T>(what: string, probe: () => Promise<T | undefined> | T | undefined) =>
  untilProbed(what, probe, { timeoutMs: DEADLINE_MS, flush: () => relay.flush() });

const dataOf = (e: EventEnvelope) => e.data as Record<string, unknown>;
const darajaDemo = (type: string) =>
  relay.sink.ofType(type).filter((e) => dataOf(e).provider === 'daraja' && dataOf(e).account === 'demo');
/** Transaction status results the simulator delivered to the relay (answered 200). */
const statusAnswers = () =>
  sim.callbacks().filter((c) => c.kind === 'status-result' && c.outcome === 'delivered' && c.status === 200);
/** Account Balance results the simulator delivered to daraja/demo (the relay's own requests: nobody else asks here). */
const balanceAnswers = () =>
  sim
    .callbacks()
    .filter(
      (c) =>
        c.kind === 'balance-result' &&
        c.outcome === 'delivered' &&
        c.status === 200 &&
        new URL(c.url).pathname.startsWith('/v1/daraja/demo/'),
    );

/** Registers a b2c payout with the relay, as the partner does before paying out. */
async function registerPayout(reference: string) {
  const registered = await relay.admin('POST', '/v1/transactions', {
    provider: 'daraja',
    account: 'demo',
    kind: 'b2c',
    reference,
    amount: '10',
    currency: 'KES',
  });
  expect(registered.status).toBe(201);
}

/** Sets the simulator's Daraja faults (`/_sim/faults`), e.g. every status query answered HTTP 503. */
async function darajaFaults(spec: string) {
  const response = await fetch(`${sim.url}/_sim/faults`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(spec ? { daraja: spec } : {}),
  });
  expect(response.status).toBe(200);
}

/** Status checks Daraja's normal b2c schedule makes within `seconds` of creation (checks on time). */
function normalChecksWithin(seconds: number): number {
  const schedule = scheduleFor('daraja', 'b2c');
  const createdAt = new Date(0).toISOString();
  const reconcileUntil = '9999-12-31T00:00:00.000Z';
  const input = { schedule, createdAt, reconcileUntil, timeScale: TIME_SCALE };
  let checks = 0;
  let at = nextCheckAt({ ...input, checksDone: 0, now: createdAt });
  while (Date.parse(at) <= seconds * 1000) {
    checks++;
    at = nextCheckAt({ ...input, checksDone: checks, now: at });
  }
  return checks;
}

describe('callback health on a Daraja account, end to end', () => {
  it("stays silent while only answers to the relay's status queries arrive; a real callback ends it once", async () => {
    // Prepare: daraja/demo's callbacks work (a payout paid and reported).
    const paid = await runScenario(context(), 'daraja', 'b2c', {});
    expect(paid.problems).toEqual([]);
    // The scenario ends at the relay's verdict, which its own status check may reach first: the payout's
    // result callback can still be on its way, and arriving later it would end the silence this test
    // starts. Wait until the simulator has sent everything it had scheduled.
    await sim.whenIdle();
    await relay.flush();
    // On a loaded machine the paid payout's own result can take longer than the (scaled) silence time: an
    // episode its callback then ends. Count from a closed book: every earlier silence resumed.
    await until('every earlier silence resumed', () =>
      darajaDemo('CallbacksResumed').length >= darajaDemo('CallbackSilence').length ? true : undefined,
    );
    const silencesBefore = darajaDemo('CallbackSilence').length;
    const resumedBefore = darajaDemo('CallbacksResumed').length;
    const silences = () => darajaDemo('CallbackSilence').slice(silencesBefore);
    const resumes = () => darajaDemo('CallbacksResumed').slice(resumedBefore);

    // Act: a payout Daraja never reports; the relay's status queries about it are answered.
    const queued = newNeverReported();
    await registerPayout(queued);
    const silence = await until('CallbackSilence', () => silences()[0]);
    const answeredBefore = statusAnswers().length;
    const balancesBefore = balanceAnswers().length;
    await until(`${ANSWERS_WHILE_SILENT} status results while silent`, () =>
      statusAnswers().length >= answeredBefore + ANSWERS_WHILE_SILENT ? true : undefined,
    );
    await until(`${BALANCES_WHILE_SILENT} balance results while silent`, () =>
      balanceAnswers().length >= balancesBefore + BALANCES_WHILE_SILENT ? true : undefined,
    );
    const cycles = relay.poller.totals.cycles;
    await until('two more poll cycles', () => (relay.poller.totals.cycles >= cycles + 2 ? true : undefined));

    // Assess: one silence, never "resumed"; the payout still waits.
    const view = (await relay.admin('GET', `/v1/transactions/daraja/demo/${queued}`)).body;
    console.info(
      `callback health e2e (Daraja): ${silences().length} CallbackSilence, ` +
        `${resumes().length} CallbacksResumed after ${statusAnswers().length - answeredBefore} status results ` +
        `and ${balanceAnswers().length - balancesBefore} balance results while silent`,
    );
    // What reached the relay while silent, for a failure to name the callback that ended the silence.
    const sentSince = sim
      .callbacks()
      .filter((c) => c.sentAt >= (dataOf(silence).silentSince as string))
      .map(
        (c) =>
          `${c.sentAt} ${c.kind} ${new URL(c.url).pathname} → ${c.outcome} ${c.status ?? ''} [${c.tags}]`,
      );
    const sentOther = sentSince.filter((line) => !line.includes(' status-result '));
    expect(
      silences(),
      `sent since the silence began, other than status results:\n${sentOther.join('\n')}`,
    ).toEqual([silence]);
    expect(resumes()).toEqual([]);
    expect(view.transaction.status).toBe('PENDING');

    // Act: callbacks are back: a normal payout's result reaches the relay.
    const after = await runScenario(context(), 'daraja', 'b2c', {});
    expect(after.problems).toEqual([]);

    // Assess: one recovery for the episode.
    const resumed = await until('CallbacksResumed', () => resumes()[0]);
    expect(dataOf(resumed)).toMatchObject({ silentFrom: dataOf(silence).silentSince });
    // No second silence before the recovery. After it, the queued payout still waits with no callback, so
    // a new episode may rightly start once the (scaled) silence period has passed again: how soon this
    // line runs after the recovery depends on the machine, so only the events before it are compared. A
    // cycle that comes later than a silence time after the callback (a loaded machine) resumes the episode
    // and, looking at the account next, starts the new one at the same instant: that one is after it.
    const beforeRecovery = (e: { metadata: { occurredAt: string } }) =>
      e.metadata.occurredAt < resumed.metadata.occurredAt;
    expect(silences().filter(beforeRecovery)).toEqual([silence]);
  }, 120_000);

  it('does not ask a status API that answers 503 any sooner while silent: the normal schedule holds', async () => {
    // Prepare: Daraja's status API answers every query with HTTP 503.
    await darajaFaults('status-5xx=503');

    // Act: another payout Daraja never reports; the account goes silent again, the status API stays down.
    // The first test's payout still waits too: the episode after its recovery may have begun already (a
    // silence time after it, sooner than a loaded machine reaches this line), and no callback ends it.
    const queued = newNeverReported();
    await registerPayout(queued);
    await until('a CallbackSilence not resumed', () =>
      darajaDemo('CallbackSilence').length > darajaDemo('CallbacksResumed').length ? true : undefined,
    );
    const cycles = relay.poller.totals.cycles;
    await until(`${CYCLES_WHILE_DOWN} poll cycles while silent`, () =>
      relay.poller.totals.cycles >= cycles + CYCLES_WHILE_DOWN ? true : undefined,
    );
    const view = (await relay.admin('GET', `/v1/transactions/daraja/demo/${queued}`)).body;
    await darajaFaults('');

    // Assess: every check failed, and there were no more of them than the normal schedule makes.
    const checks = view.reconciliation.statusChecks as number;
    const age = (Date.now() - Date.parse(view.transaction.createdAt as string)) / 1000;
    const answers = (view.history as { type: string; answer?: string }[])
      .filter((h) => h.type === 'status-check')
      .map((h) => h.answer);
    console.info(
      `callback health e2e (Daraja, status API 503): ${checks} checks in ${age.toFixed(1)} s since registration, silent meanwhile ` +
        `(normal schedule: ${normalChecksWithin(age)})`,
    );
    expect(view.transaction.status).toBe('PENDING');
    expect(checks).toBeGreaterThan(0);
    expect(new Set(answers)).toEqual(new Set(['error:unavailable']));
    expect(checks).toBeLessThanOrEqual(normalChecksWithin(age));
  }, 120_000);
});
