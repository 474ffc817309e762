/**
 * Issue 29 items 1 and 3: the poller's pull of Daraja's Pull Transactions API and the balance snapshots,
 * with the relay's own parts (the Daraja, MoMo and Airtel API clients through the status API registry,
 * the DynamoDB store on DynamoDB Local) against the simulator, which serves the money it moved from its
 * books. The StatementSink is the port the matcher implements (another item): a recording sink stands
 * in for it here. Time is a manual clock: every tick runs at the moment the test sets.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RelayMetrics } from '../../shared/app/ports';
import { runBalanceCycle } from '../../shared/app/provider-records/balance-cycle';
import {
  PULL_AGE_METRIC,
  PULL_FAILURES_METRIC,
  readPullState,
  runPullCycle,
} from '../../shared/app/provider-records/pull-cycle';
import { runProviderRecordsTick } from '../../shared/app/provider-records/tick';
import { statusApiRegistry } from '../../shared/app/reconciliation/status-apis';
import { parseConfig } from '../../shared/config/load';
import type {
  BalanceSnapshot,
  StatementIngestOptions,
  StatementIngestResult,
  StatementRow,
  StatementSink,
} from '../../shared/domain/statement';
import { DEFAULTS } from '../../simulator/options';
import type { Simulator } from '../../simulator/server';
import { createTestTable } from '../helpers/dynamo';
import { call, startSim } from '../simulator/helpers';

const SHORT_CODE = '600638';
const silentLog = { debug() {}, info() {}, warn() {}, error() {} };

/** Records what it is given, and answers as a sink that matched nothing would. */
class RecordingSink implements StatementSink {
  readonly batches: { rows: StatementRow[]; options: StatementIngestOptions }[] = [];
  readonly balances: BalanceSnapshot[] = [];
  get rows(): StatementRow[] {
    return this.batches.flatMap((b) => b.rows);
  }
  async ingestRows(
    rows: readonly StatementRow[],
    options: StatementIngestOptions,
  ): Promise<StatementIngestResult> {
    this.batches.push({ rows: [...rows], options });
    return {
      rows: rows.length,
      alreadyKnown: 0,
      matched: 0,
      opened: 0,
      settled: 0,
      conflicts: 0,
      breaks: 0,
      feesLinked: 0,
      heldAboveLimit: 0,
    };
  }
  async recordBalance(snapshot: BalanceSnapshot): Promise<void> {
    this.balances.push(snapshot);
  }
}

class CountingMetrics implements RelayMetrics {
  readonly counts: { name: string; value: number; dimensions?: Record<string, string> }[] = [];
  count(name: string, value = 1, dimensions?: Record<string, string>) {
    this.counts.push({ name, value, ...(dimensions ? { dimensions } : {}) });
  }
  timing() {}
  flush() {}
  last(name: string) {
    return this.counts.filter((c) => c.name === name).at(-1);
  }
}

let table: Awaited<ReturnType<typeof createTestTable>>;
let sim: Simulator;
let now: number;
let sink: RecordingSink;
let metrics: CountingMetrics;

beforeAll(async () => {
  table = await createTestTable();
});
afterAll(async () => {
  await table.drop();
});
beforeEach(async () => {
  sim = await startSim();
  now = Date.now();
  sink = new RecordingSink();
  metrics = new CountingMetrics();
});
afterEach(async () => {
  await sim.close();
});

/** Services for one relay with a Daraja account (pull on), and optionally MoMo and Airtel accounts. */
function services(account: string, extra: Record<string, unknown> = {}) {
  const config = parseConfig({
    management: { bearerToken: 'a-long-enough-token' },
    publicBaseUrl: 'https://relay.example.com',
    accounts: {
      daraja: {
        [account]: {
          pathSecret: 'daraja-path-secret-0123456789',
          shortCode: SHORT_CODE,
          api: {
            baseUrl: sim.url,
            consumerKey: DEFAULTS.daraja.consumerKey,
            consumerSecret: DEFAULTS.daraja.consumerSecret,
            initiator: 'testapi',
            securityCredential: 'c2VjcmV0',
            maxRequestsPerSecond: 1000,
            pull: { nominatedNumber: '254708374149' },
          },
        },
      },
      ...extra,
    },
  });
  const base = { config, log: silentLog, scrub: (s: string) => s };
  return {
    ...base,
    store: table.store,
    clock: { now: () => new Date(now) },
    metrics,
    statusApi: statusApiRegistry(base),
    statementSink: sink,
  };
}

async function token(): Promise<string> {
  const r = await call(sim, 'GET', '/oauth/v1/generate?grant_type=client_credentials', {
    headers: {
      Authorization: `Basic ${Buffer.from(`${DEFAULTS.daraja.consumerKey}:${DEFAULTS.daraja.consumerSecret}`).toString('base64')}`,
    },
  });
  return r.json.access_token;
}

/** A C2B payment whose confirmation callback never reaches the relay (no URL registered at all). */
async function payWithoutCallback(amount: number, billRef: string): Promise<string> {
  const t = await token();
  const r = await call(sim, 'POST', '/mpesa/c2b/v1/simulate', {
    headers: { Authorization: `Bearer ${t}` },
    body: {
      ShortCode: SHORT_CODE,
      CommandID: 'CustomerPayBillOnline',
      Amount: amount,
      Msisdn: 254708374149,
      BillRefNumber: billRef,
    },
  });
  return (
    r.json.TransID ?? (await call(sim, 'GET', `/_sim/books/daraja/${SHORT_CODE}`)).json.entries.at(-1).id
  );
}

/** `providerRecords.pullGraceSeconds`: a pull reads rows at least this old (their confirmation has had time). */
const graceMs = (s: ReturnType<typeof services>) => s.config.providerRecords.pullGraceSeconds * 1000;

describe('the Daraja pull', () => {
  it('registers once, then hands every C2B payment of the look-back to the sink as pull-api rows', async () => {
    const s = services('pull-a');
    const receipt = await payWithoutCallback(250, 'INV-7');
    now = Date.now() + graceMs(s) + 1000;

    const [first] = await runPullCycle(s);

    expect(first).toMatchObject({ provider: 'daraja', account: 'pull-a', outcome: 'pulled', rows: 1 });
    expect(sink.rows).toEqual([
      expect.objectContaining({
        provider: 'daraja',
        account: 'pull-a',
        source: 'pull-api',
        providerId: receipt,
        externalId: 'INV-7',
        amountIn: '250',
        amountOut: '0',
        kind: 'payment',
        currency: 'KES',
      }),
    ]);
    expect(sink.rows[0]!.counterparty).not.toContain('708374149');
    expect(sink.batches[0]!.options.actor).toEqual({ kind: 'system', name: 'daraja-pull' });
    const state = await readPullState(table.store, 'daraja', 'pull-a');
    expect(state).toMatchObject({
      registration: { code: '1000' },
      lastGoodPullAt: new Date(now).toISOString(),
    });
  });

  it('leaves a row younger than the grace to the next pull, whose window reaches back over it', async () => {
    const s = services('pull-h');
    await payWithoutCallback(75, 'YOUNG');
    now = Date.now() + 1000;

    const [early] = await runPullCycle(s);
    now += 15 * 60_000;
    const [next] = await runPullCycle(s);

    expect(early).toMatchObject({ outcome: 'pulled', rows: 0 });
    expect(next).toMatchObject({ outcome: 'pulled', rows: 1 });
    expect(sink.rows.map((r) => r.externalId)).toEqual(['YOUNG']);
  });

  it('keeps "already registered" (1001) as registered and pulls on', async () => {
    const t = await token();
    await call(sim, 'POST', '/mpesa/pulltransactions/v1/register', {
      headers: { Authorization: `Bearer ${t}` },
      body: {
        ShortCode: SHORT_CODE,
        RequestType: 'Pull',
        NominatedNumber: '254708374149',
        CallBackURL: 'https://x.example.com/p',
      },
    });
    const s = services('pull-b');

    const [result] = await runPullCycle(s);

    expect(result!.outcome).toBe('pulled');
    expect((await readPullState(table.store, 'daraja', 'pull-b')).registration?.code).toBe('1001');
  });

  it('asks again only when the account interval has passed', async () => {
    const s = services('pull-c');
    await runPullCycle(s);
    now += 60_000;

    const [early] = await runPullCycle(s);
    now += 15 * 60_000;
    const [due] = await runPullCycle(s);

    expect(early!.outcome).toBe('skipped');
    expect(due!.outcome).toBe('pulled');
  });

  it('reads every page with OffSetValue until the empty list', async () => {
    const s = services('pull-d');
    await call(sim, 'PUT', '/_sim/books/faults', { body: { pullPageSize: 2 } });
    for (let i = 1; i <= 5; i++) await payWithoutCallback(10 * i, `P-${i}`);
    now = Date.now() + graceMs(s) + 1000;

    const [result] = await runPullCycle(s);

    expect(result).toMatchObject({ outcome: 'pulled', rows: 5, pages: 4 });
    expect(sink.rows.map((r) => r.externalId)).toEqual(['P-1', 'P-2', 'P-3', 'P-4', 'P-5']);
  });

  it('counts a failure answered HTTP 200 as a failure: the last good pull stands and its age grows', async () => {
    const s = services('pull-e');
    await runPullCycle(s);
    const good = (await readPullState(table.store, 'daraja', 'pull-e')).lastGoodPullAt;
    // A healthy pull writes no age: the series is billed only while a pull is late (issue 28).
    expect(metrics.last(PULL_AGE_METRIC)).toBeUndefined();
    await payWithoutCallback(99, 'LOST');
    await call(sim, 'PUT', '/_sim/books/faults', { body: { pullFailure: true } });
    now += 13 * 3600_000;

    const [failed] = await runPullCycle(s);

    expect(failed).toMatchObject({ outcome: 'failed', rows: 0, ageSeconds: 13 * 3600 });
    expect(failed!.detail).toContain('ResponseCode 1001');
    const state = await readPullState(table.store, 'daraja', 'pull-e');
    expect(state.lastGoodPullAt).toBe(good);
    expect(state.consecutiveFailures).toBe(1);
    expect(metrics.last(PULL_FAILURES_METRIC)).toMatchObject({
      value: 1,
      dimensions: { provider: 'daraja' },
    });
    expect(metrics.last(PULL_AGE_METRIC)!.value).toBe(13 * 3600);
    expect(sink.rows.map((r) => r.externalId)).not.toContain('LOST');
  });

  it('reaches back to the last good pull after an outage, so the gap is pulled once the API answers', async () => {
    const s = services('pull-f');
    await runPullCycle(s);
    await call(sim, 'PUT', '/_sim/books/faults', { body: { pullFailure: 1 } });
    now += 3 * 3600_000;
    await runPullCycle(s);
    now += 15 * 60_000;

    const [recovered] = await runPullCycle(s);

    expect(recovered!.outcome).toBe('pulled');
    const window = (await readPullState(table.store, 'daraja', 'pull-f')).lastGoodWindow!;
    // From 2 h before the last good pull's end, not only the last 2 h.
    expect(Date.parse(window.to) - Date.parse(window.from)).toBeGreaterThan(3 * 3600_000);
  });

  it('asks nothing when no sink is wired (rows would be lost while the pull looked good)', async () => {
    const s = services('pull-g');
    const result = await runProviderRecordsTick({ ...s, statementSink: undefined } as never);
    expect(result).toBeUndefined();
    expect(await readPullState(table.store, 'daraja', 'pull-g')).toEqual({});
  });
});

describe('balance snapshots', () => {
  it('records the MoMo collection and disbursement balances and the Airtel balance at once', async () => {
    const s = services('bal-a', {
      momo: {
        'bal-m': {
          pathSecret: 'momo-path-secret-0123456789',
          api: {
            baseUrl: sim.url,
            apiUser: DEFAULTS.momo.apiUsers[0].id,
            apiKey: DEFAULTS.momo.apiUsers[0].apiKey,
            collectionSubscriptionKey: DEFAULTS.momo.collectionSubscriptionKeys.primary,
            disbursementSubscriptionKey: DEFAULTS.momo.disbursementSubscriptionKeys.primary,
          },
        },
      },
      airtel: {
        'bal-t': {
          country: 'UG',
          currency: 'UGX',
          hashMode: 'off',
          api: {
            baseUrl: sim.url,
            clientId: DEFAULTS.airtel.apps[0].clientId,
            clientSecret: DEFAULTS.airtel.apps[0].clientSecret,
            country: 'UG',
            currency: 'UGX',
          },
        },
      },
    });

    const results = await runBalanceCycle(s);

    // One snapshot per currency and instant: the products' sum (money between them is no money moved).
    expect(results.find((r) => r.provider === 'momo')).toMatchObject({ outcome: 'recorded', snapshots: 1 });
    expect(results.find((r) => r.provider === 'airtel')).toMatchObject({ outcome: 'recorded', snapshots: 1 });
    expect(sink.balances).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          provider: 'momo',
          account: 'bal-m',
          subAccount: expect.stringContaining('disbursement'),
          source: 'balance-api',
        }),
        expect.objectContaining({ provider: 'airtel', account: 'bal-t', balance: '0', currency: 'UGX' }),
      ]),
    );
  });

  it('asks Daraja for its balance and waits for the result on balance/result instead of inventing one', async () => {
    const s = services('bal-d');

    const [asked] = await runBalanceCycle(s);
    now += 60_000;
    const [waiting] = await runBalanceCycle(s);

    expect(asked).toMatchObject({ provider: 'daraja', outcome: 'requested' });
    expect(waiting).toMatchObject({ provider: 'daraja', outcome: 'waiting' });
    expect(sink.balances).toEqual([]);
  });

  it('takes the Daraja snapshot from the balance result the relay recorded as a fact', async () => {
    const s = services('bal-e');
    await runBalanceCycle(s);
    const state = await table.store.getRecord({
      provider: 'daraja',
      account: 'bal-e',
      namespace: 'balance-state',
      id: 'state',
    });
    const requestId = (state!.data.pending as { requestId: string }).requestId;
    // What ingest-facts writes for an AccountBalanceReported (its balances kept on the record).
    await table.store.putRecordIfAbsent({
      provider: 'daraja',
      account: 'bal-e',
      namespace: 'fact:account-balance',
      id: requestId,
      data: {
        event: 'AccountBalanceReported',
        receiptId: null,
        kept: {
          accounts: [
            {
              name: 'Working Account',
              currency: 'KES',
              current: '481000.00',
              available: null,
              reserved: null,
              uncleared: null,
            },
            {
              name: 'Utility Account',
              currency: 'KES',
              current: '50250.00',
              available: null,
              reserved: null,
              uncleared: null,
            },
          ],
          completedTime: '20261129081500',
        },
      },
      createdAt: new Date(now).toISOString(),
    });
    now += 60_000;

    const [taken] = await runBalanceCycle(s);

    // The short code's accounts at one instant, summed: one snapshot the drift compares.
    expect(taken).toMatchObject({ outcome: 'recorded', snapshots: 1 });
    expect(sink.balances).toEqual([
      expect.objectContaining({
        subAccount: 'Working Account + Utility Account',
        balance: '531250',
        currency: 'KES',
        at: '2026-11-29T05:15:00.000Z',
      }),
    ]);
  });
});
