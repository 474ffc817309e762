/**
 * Issue 27 item 9, callback health that does not flap, on a Daraja account and simulated time (a manual
 * clock: every cycle runs at the moment the test sets, so nothing depends on the machine's speed).
 *
 * The parts are the relay's own: the callback endpoint (receiveCallback) with Daraja's routes, parsers and
 * source-IP check, the Daraja status API client (createDarajaStatusApi) whose network is Daraja as the
 * test plays it (OAuth token, the transaction status query accepted with its ids, or HTTP 503), the poller
 * (runPollCycle) and the health cycle. The answers to the relay's status queries arrive the way Daraja
 * sends them: a result on the query's ResultURL (`status/result`) echoing its ids and Occasion, or the
 * request echoed to its QueueTimeOutURL (`status/timeout`). With balance snapshots on, the balance cycle
 * (runBalanceCycle) asks Daraja's Account Balance too, answered on `balance/result`, the route the
 * partner's own balance requests are answered on.
 */
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../shared/adapters/memory/memory-store';
import {
  CallbackTracker,
  runCallbackHealthCycle,
  trackingCallbacks,
} from '../../../shared/app/callbacks/callback-health';
import type { RelayMetrics } from '../../../shared/app/ports';
import { runBalanceCycle } from '../../../shared/app/provider-records/balance-cycle';
import { runPollCycle } from '../../../shared/app/reconciliation/poll-cycle';
import type { ReconcileServices } from '../../../shared/app/reconciliation/reconcile';
import { registerTransaction } from '../../../shared/app/transactions/register-transaction';
import { parseConfig } from '../../../shared/config/load';
import { nextCheckAt } from '../../../shared/domain/reconcile-schedule';
import { scheduleFor } from '../../../shared/app/reconciliation/reconcile-timing';
import { receiveCallback } from '../../../shared/http/callback-endpoint';
import { createDarajaStatusApi } from '../../../shared/providers/daraja/api-client';
import type { DarajaAccountSettings } from '../../../shared/providers/daraja/schema';
import type { BalanceSnapshot, StatementSink } from '../../../shared/domain/statement';

const START = Date.parse('2026-11-23T10:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const SECRET = 'daraja-path-secret-0123456789';
/** One of Safaricom's documented callback addresses (the account's default allow list). */
const SAFARICOM_IP = '196.201.214.200';
/** Daraja's defaults: silent after 600 s without a callback; while silent, waiting payouts are asked every 60 s. */
const SILENCE_SECONDS = 600;
const SILENCE_POLL_SECONDS = 60;
/** The provider's silence ticket period the construct hands the poller (callbackSilencePeriod). */
const PROVIDER_SILENCE_SECONDS = 3600;
const silentLog = { debug() {}, info() {}, warn() {}, error() {} };

type DarajaMode = 'accept' | 'unavailable';
/** The ids Daraja gave a balance request when it accepted it, and when that was. */
type BalanceIds = { oc: string; c: string; at: number };

/** Balance snapshots every `balanceIntervalSeconds` (each cycle runs the balance cycle too); absent: none. */
function setup(snapshots?: { balanceIntervalSeconds: number }) {
  const config = parseConfig({
    management: { bearerToken: 'a-long-enough-token' },
    publicBaseUrl: 'https://relay.example.com',
    providerRecords: { balanceIntervalSeconds: snapshots?.balanceIntervalSeconds ?? 0 },
    accounts: {
      daraja: {
        demo: {
          pathSecret: SECRET,
          shortCode: '600638',
          currency: 'KES',
          api: {
            baseUrl: 'https://daraja.example.com',
            consumerKey: 'consumer-key',
            consumerSecret: 'consumer-secret',
            initiator: 'testapi',
            securityCredential: 'c2VjcmV0',
            // The rate limits are not under test: a whole cycle's calls fall on one instant of the clock.
            maxRequestsPerSecond: 1000,
            concurrency: 8,
          },
        },
      },
    },
  });
  const raw = new MemoryStore();
  let now = START;
  const clock = { now: () => new Date(now) };
  const store = trackingCallbacks(raw, new CallbackTracker(raw, config, silentLog));
  const counts: Record<string, number> = {};
  const metrics: RelayMetrics = {
    count: (name, value = 1) => void (counts[name] = (counts[name] ?? 0) + value),
    timing: () => {},
    flush: () => {},
  };

  // Daraja's side: the status queries it was sent (not yet answered), and whether it accepts them.
  let mode: DarajaMode = 'accept';
  let ids = 0;
  const unanswered: { query: Record<string, unknown>; ids: { oc: string; c: string } }[] = [];
  const calls = { accepted: 0, refused: 0 };
  const balanceRequests: BalanceIds[] = [];
  const reply = (status: number, body: unknown) =>
    new Response(typeof body === 'string' ? body : JSON.stringify(body), {
      status,
      headers: { 'content-type': typeof body === 'string' ? 'text/plain' : 'application/json' },
    });
  const network = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = String(input);
    if (url.includes('/oauth/v1/generate')) return reply(200, { access_token: 'token', expires_in: '3599' });
    if (url.endsWith('/accountbalance/v1/query')) {
      const q = { oc: `29112-${String(++ids).padStart(8, '0')}-1`, c: `AG_20261123_B${ids}`, at: now };
      balanceRequests.push(q);
      return reply(200, {
        OriginatorConversationID: q.oc,
        ConversationID: q.c,
        ResponseCode: '0',
        ResponseDescription: 'Accept the service request successfully.',
      });
    }
    if (!url.endsWith('/transactionstatus/v1/query')) return reply(404, 'no such path');
    if (mode === 'unavailable') {
      calls.refused++;
      return reply(503, 'Service Unavailable');
    }
    calls.accepted++;
    const oc = `29112-${String(++ids).padStart(8, '0')}-1`;
    const c = `AG_20261123_${String(ids).padStart(20, '0')}`;
    unanswered.push({ query: JSON.parse(String(init?.body)) as Record<string, unknown>, ids: { oc, c } });
    return reply(200, {
      OriginatorConversationID: oc,
      ConversationID: c,
      ResponseCode: '0',
      ResponseDescription: 'Accept the service request successfully.',
    });
  }) as typeof fetch;

  const account = config.accounts.get('daraja/demo')!;
  const api = createDarajaStatusApi(
    {
      provider: 'daraja',
      id: 'demo',
      pathSecret: account.pathSecret,
      settings: account.settings as DarajaAccountSettings,
    },
    { fetch: network, now: () => now, sleep: async () => {}, log: silentLog },
  );
  const services: ReconcileServices = {
    config,
    store,
    clock,
    log: silentLog,
    scrub: (s) => s,
    metrics,
    statusApi: () => api,
  };

  let requests = 0;
  /** Daraja posts to one of the account's routes, from its own address, now. */
  const post = async (route: string, body: unknown) => {
    const text = JSON.stringify(body);
    const response = await receiveCallback(services, {
      requestId: `req-${++requests}`,
      method: 'POST',
      path: `/v1/daraja/demo/${SECRET}/${route}`,
      headers: { 'content-type': 'application/json' },
      query: {},
      rawBody: Buffer.from(text, 'utf8'),
      sourceIp: SAFARICOM_IP,
      receivedAt: new Date(now),
    });
    expect(response.statusCode).toBe(200);
  };

  const answered = { results: 0, timeouts: 0, balances: 0, balanceTimeouts: 0 };
  const balances: BalanceSnapshot[] = [];
  const statementSink: StatementSink = {
    ingestRows: () => Promise.reject(new Error('no rows in this test')),
    recordBalance: async (snapshot) => void balances.push(snapshot),
  };
  let lastBalance: BalanceIds | undefined;
  /** Daraja's Account Balance result for the request of these ids, the balance at the time it was asked. */
  const balanceResult = (q: BalanceIds) => ({
    Result: {
      ResultType: 0,
      ResultCode: 0,
      ResultDesc: 'The service request is processed successfully.',
      OriginatorConversationID: q.oc,
      ConversationID: q.c,
      TransactionID: 'NLJ41HAY6Q',
      ResultParameters: {
        ResultParameter: [
          {
            Key: 'AccountBalance',
            Value:
              'Working Account|KES|700000.00|700000.00|0.00|0.00&Utility Account|KES|228037.00|228037.00|0.00|0.00',
          },
          {
            Key: 'BOCompletedTime',
            Value: Number(
              iso(q.at + 3 * 3600_000)
                .replace(/\D/g, '')
                .slice(0, 14),
            ),
          },
        ],
      },
      ReferenceData: { ReferenceItem: { Key: 'QueueTimeoutURL', Value: 'https://internalsandbox' } },
    },
  });
  return {
    raw,
    services,
    counts,
    calls,
    answered,
    setMode: (next: DarajaMode) => void (mode = next),
    at: () => now,
    advance: (seconds: number) => void (now += seconds * 1000),
    register: (reference: string) =>
      registerTransaction(services, {
        provider: 'daraja',
        account: 'demo',
        kind: 'b2c',
        reference,
        amount: '100',
        currency: 'KES',
      }),
    /** The payout's own result (an unsolicited callback): paid. */
    payoutResult: (reference: string, receipt: string) =>
      post('b2c/result', {
        Result: {
          ResultType: 0,
          ResultCode: 0,
          ResultDesc: 'The service request is processed successfully.',
          OriginatorConversationID: reference,
          ConversationID: `AG_20261123_${receipt}`,
          TransactionID: receipt,
          ResultParameters: {
            ResultParameter: [
              { Key: 'TransactionAmount', Value: 100 },
              { Key: 'TransactionReceipt', Value: receipt },
              { Key: 'ReceiverPartyPublicName', Value: '254708374149 - John Doe' },
            ],
          },
          ReferenceData: { ReferenceItem: { Key: 'QueueTimeoutURL', Value: 'https://internalsandbox' } },
        },
      }),
    /**
     * Daraja answers every status query made so far: a result on its ResultURL saying it cannot find the
     * payout yet (R000001, the query's own failure: the payout stays PENDING), and every third one a queue
     * timeout on its QueueTimeOutURL (the request echoed, Occasion included).
     */
    answerQueries: async () => {
      for (const { query, ids: q } of unanswered.splice(0)) {
        if ((answered.results + answered.timeouts + 1) % 3 === 0) {
          answered.timeouts++;
          await post('status/timeout', query);
          continue;
        }
        answered.results++;
        await post('status/result', {
          Result: {
            ConversationID: q.c,
            OriginatorConversationID: q.oc,
            ReferenceData: { ReferenceItem: { Key: 'Occasion', Value: query.Occasion } },
            ResultCode: 'R000001',
            ResultDesc: 'The transaction could not be found.',
            ResultType: 0,
            TransactionID: 'NLJ0000000',
          },
        });
      }
    },
    /**
     * Daraja answers every balance request the relay made so far: a result on its ResultURL
     * (`balance/result`), every fourth a queue timeout on its QueueTimeOutURL (`balance/timeout`); and the
     * latest result before again: a repeated delivery, after the relay took the snapshot from the first.
     */
    answerBalances: async () => {
      const earlier = lastBalance;
      for (const q of balanceRequests.splice(0)) {
        if ((answered.balances + answered.balanceTimeouts + 1) % 4 === 0) {
          answered.balanceTimeouts++;
          await post('balance/timeout', {
            Result: {
              ResultType: 1,
              ResultCode: 1037,
              ResultDesc: 'The request timed out in the queue.',
              OriginatorConversationID: q.oc,
              ConversationID: q.c,
              TransactionID: 'NLJ0000000',
            },
          });
          continue;
        }
        answered.balances++;
        lastBalance = q;
        await post('balance/result', balanceResult(q));
      }
      if (earlier) await post('balance/result', balanceResult(earlier));
    },
    /** A partner asked Daraja for the balance itself (ids the relay never saw): its result arrives. */
    partnerBalanceResult: () =>
      post('balance/result', balanceResult({ oc: '4431-9101-1', c: 'AG_20261123_P1', at: now })),
    balances,
    events: (type: string) => raw.published.filter((e) => e.metadata.type === type),
    transaction: (reference: string) => raw.transactions.get(`daraja#demo#${reference}`)!,
    cycle: async () => {
      const health = await runCallbackHealthCycle(services, {
        providerSilenceSeconds: { daraja: PROVIDER_SILENCE_SECONDS },
      });
      await runPollCycle(services, { owner: 'p1' });
      if (snapshots) await runBalanceCycle({ ...services, statementSink });
      return health;
    },
  };
}

/** How many status checks Daraja's normal b2c schedule makes within `seconds` of creation. */
function normalChecksWithin(seconds: number): number {
  const schedule = scheduleFor('daraja', 'b2c');
  const createdAt = iso(0);
  const reconcileUntil = iso(schedule.windowSeconds * 1000);
  let checks = 0;
  let at = nextCheckAt({ schedule, createdAt, reconcileUntil, checksDone: 0, now: createdAt, timeScale: 1 });
  while (at <= iso(seconds * 1000)) {
    checks++;
    at = nextCheckAt({ schedule, createdAt, reconcileUntil, checksDone: checks, now: at, timeScale: 1 });
  }
  return checks;
}

/**
 * Balance snapshots every 10 minutes; the account's callbacks worked at START (a payout's result), then a
 * payout whose result never comes; then `minutes` one-minute cycles, Daraja answering every status query
 * and balance request (on balance/result, the route the partner's are answered on too) before the next.
 */
async function silentWithSnapshots(minutes: number) {
  const s = setup({ balanceIntervalSeconds: 600 });
  await s.register('29112-00000000-0');
  await s.payoutResult('29112-00000000-0', 'SKI0000001');
  await s.register('29112-00000001-0');
  for (let minute = 1; minute <= minutes; minute++) {
    s.advance(60);
    await s.answerQueries();
    await s.answerBalances();
    await s.cycle();
  }
  return s;
}

describe('callback health on a Daraja account', () => {
  it("answers to the relay's own status queries never end a silence: one CallbackSilence, no CallbacksResumed", async () => {
    // Prepare: the account's callbacks worked at START (a payout's result), then a payout whose result
    // never comes.
    const s = setup();
    await s.register('29112-00000000-0');
    await s.payoutResult('29112-00000000-0', 'SKI0000001');
    await s.register('29112-00000001-0');

    // Act: four hours of one-minute cycles; Daraja answers every status query before the next cycle.
    for (let minute = 1; minute <= 240; minute++) {
      s.advance(60);
      await s.answerQueries();
      await s.cycle();
    }

    // Assess: silent once, at the first cycle 600 s after the last callback, and never "resumed".
    const silence = s.events('CallbackSilence');
    const resumed = s.events('CallbacksResumed');
    console.info(
      `callback health (Daraja, 4 h, status answers only): ${silence.length} CallbackSilence, ${resumed.length} CallbacksResumed; ` +
        `${s.answered.results} status results and ${s.answered.timeouts} status timeouts received`,
    );
    expect(silence).toHaveLength(1);
    expect(resumed).toHaveLength(0);
    expect(silence[0]!.data).toMatchObject({
      provider: 'daraja',
      account: 'demo',
      lastCallbackAt: iso(START),
      detectedAt: iso(START + SILENCE_SECONDS * 1000),
      pollEverySeconds: SILENCE_POLL_SECONDS,
    });
    // Hastened all along: one status query a minute once silent, each answered (both routes used).
    expect(s.answered.results).toBeGreaterThan(150);
    expect(s.answered.timeouts).toBeGreaterThan(75);
    expect(s.transaction('29112-00000001-0').status).toBe('PENDING');
    expect(s.counts.CallbackSilenceStarted).toBe(1);
    expect(s.counts.CallbacksResumed).toBeUndefined();
    // Nor do they count as the provider's callbacks for its silence ticket: SilentProviders{daraja} is
    // written every cycle from an hour after the first payout's result (minutes 60 to 240).
    expect(s.counts.SilentProviders).toBe(240 - PROVIDER_SILENCE_SECONDS / 60 + 1);

    // Act: the payout's own result arrives at last: a callback Daraja made by itself.
    s.advance(30);
    const backAt = s.at();
    await s.payoutResult('29112-00000001-0', 'SKI0000002');
    s.advance(30);
    await s.answerQueries();
    await s.cycle();

    // Assess: callbacks resumed, once, dated by that callback.
    expect(s.transaction('29112-00000001-0').status).toBe('SUCCEEDED');
    const back = s.events('CallbacksResumed');
    expect(back).toHaveLength(1);
    expect(back[0]!.data).toMatchObject({ silentFrom: iso(START), silentTo: iso(backAt) });
    expect(s.events('CallbackSilence')).toHaveLength(1);
    // And the provider's ticket clears: nothing written once a callback of its own came.
    expect(s.counts.SilentProviders).toBe(240 - PROVIDER_SILENCE_SECONDS / 60 + 1);
  });

  it("answers to the relay's own balance requests never end a silence, repeated or timed out", async () => {
    // Prepare, act: two hours, snapshots every 10 minutes, their answers on balance/result.
    const s = await silentWithSnapshots(120);

    // Assess: snapshots were taken from those answers, and the account stayed silent throughout.
    console.info(
      `callback health (Daraja, 2 h, snapshots every 10 min): ${s.events('CallbackSilence').length} CallbackSilence, ` +
        `${s.events('CallbacksResumed').length} CallbacksResumed; ${s.answered.balances} balance results, ` +
        `${s.answered.balanceTimeouts} balance timeouts, ${s.balances.length} snapshots`,
    );
    expect(s.answered.balances).toBeGreaterThanOrEqual(8);
    expect(s.answered.balanceTimeouts).toBeGreaterThanOrEqual(2);
    expect(s.balances.length).toBe(s.answered.balances);
    expect(s.events('CallbacksResumed')).toHaveLength(0);
    expect(s.events('CallbackSilence')).toHaveLength(1);
    expect(s.events('CallbackSilence')[0]!.data).toMatchObject({
      lastCallbackAt: iso(START),
      detectedAt: iso(START + SILENCE_SECONDS * 1000),
    });
    // Nor for the provider's ticket: written every cycle from an hour after the payout's result.
    expect(s.counts.SilentProviders).toBe(120 - PROVIDER_SILENCE_SECONDS / 60 + 1);
  });

  it("a partner's balance result on the same route still ends a silence, dated by its own arrival", async () => {
    // Prepare: half an hour, the relay's own balance requests answered all along.
    const s = await silentWithSnapshots(30);
    expect(s.balances.length).toBeGreaterThan(0);
    expect(s.events('CallbackSilence')).toHaveLength(1);
    expect(s.events('CallbacksResumed')).toHaveLength(0);

    // Act: Daraja answers a balance request the partner made itself (ids the relay never asked with).
    s.advance(30);
    const backAt = s.at();
    await s.partnerBalanceResult();
    s.advance(30);
    await s.cycle();

    // Assess: a callback Daraja made to the account's URL: the silence ends, once, at its arrival.
    const back = s.events('CallbacksResumed');
    expect(back).toHaveLength(1);
    expect(back[0]!.data).toMatchObject({ silentFrom: iso(START), silentTo: iso(backAt) });
  });

  it('does not ask sooner while the status API answers 503: checks stay on the normal schedule', async () => {
    // Prepare: callbacks worked at START; five payouts follow a minute apart and none gets its result;
    // Daraja's status API answers HTTP 503 to every query.
    const s = setup();
    await s.register('29112-00000000-0');
    await s.payoutResult('29112-00000000-0', 'SKI0000001');
    const payouts = Array.from({ length: 5 }, (_, i) => `29112-0000010${i}-0`);
    for (const reference of payouts) {
      await s.register(reference);
      s.advance(60);
    }
    s.setMode('unavailable');

    // Act: two hours of cycles every 5 s (the poller's default interval).
    let held = 0;
    let silentCycles = 0;
    for (let step = 1; step <= 1440; step++) {
      s.advance(5);
      const health = await s.cycle();
      if (health.silent.includes('daraja/demo')) silentCycles++;
      if (health.held.includes('daraja/demo')) held++;
    }

    // Assess: silent, yet every payout was checked no more often than its normal schedule checks it.
    const checks = payouts.map((reference) => s.transaction(reference).reconcile!.checks);
    const ages = payouts.map((reference) => (s.at() - Date.parse(s.transaction(reference).createdAt)) / 1000);
    const average = checks.reduce((sum, n) => sum + n, 0) / checks.length;
    console.info(
      `callback health (Daraja, 2 h, status API 503): checks per payout ${checks.join(', ')} ` +
        `(average ${average.toFixed(1)}, max ${Math.max(...checks)}); normal schedule ${ages.map(normalChecksWithin).join(', ')}; ` +
        `${s.calls.refused} refused status calls`,
    );
    expect(s.events('CallbackSilence')).toHaveLength(1);
    expect(silentCycles).toBeGreaterThan(1000);
    expect(held).toBe(silentCycles);
    payouts.forEach((_, i) => {
      expect(checks[i]).toBeGreaterThan(0);
      expect(checks[i]).toBeLessThanOrEqual(normalChecksWithin(ages[i]!));
    });
    expect(s.counts.SilentTransactionsHastened).toBeUndefined();

    // Act: the status API is back. The next scheduled check succeeds, and from then on the silent
    // account's payouts are asked every minute again.
    s.setMode('accept');
    const back = s.calls.accepted;
    let firstAnswer: number | undefined;
    let hastened = 0;
    for (let step = 1; step <= 720 && (firstAnswer === undefined || s.at() < firstAnswer + 600_000); step++) {
      s.advance(5);
      await s.answerQueries();
      const health = await s.cycle();
      hastened += health.hastened;
      if (firstAnswer === undefined && s.calls.accepted > back) firstAnswer = s.at();
    }

    // Assess: ten minutes after the first accepted query, each payout was asked about once a minute.
    expect(firstAnswer).toBeDefined();
    expect(hastened).toBeGreaterThan(0);
    expect(s.calls.accepted - back).toBeGreaterThanOrEqual(payouts.length * 9);
    expect(s.events('CallbacksResumed')).toHaveLength(0);
  });
});
