/**
 * What an idle poller tick costs DynamoDB: the requests of one tick (callback health, the poll cycle, the
 * pulls and balance turns, the badge feed) over N accounts when nothing is due, counted at the client
 * (every command the store sends), not timed. With IDLE_POLL_REPORT=1 it also prints the requests by
 * operation and key pattern and the CPU per tick (this worker's and its DynamoDB Local's).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { noMetrics } from '../../shared/app/ports';
import { runProviderRecordsTick } from '../../shared/app/provider-records/tick';
import type { ReconcileServices } from '../../shared/app/reconciliation/reconcile';
import { runBadgeTick, runReconciliationTick } from '../../shared/app/reconciliation/reconciliation-tick';
import { parseConfig } from '../../shared/config/load';
import type { StatementSink } from '../../shared/domain/statement';
import type { TransactionRecord } from '../../shared/domain/transaction';
import type { StatusApi } from '../../shared/providers/types';
import { createScrubber } from '../../shared/util/redact';
import { createTestTable } from '../helpers/dynamo';
import { processCpu } from '../helpers/proc-cpu';
import { workerDynamoDb } from '../helpers/worker-dynamodb';
import { silentLogger } from '../helpers/relay';
import { storedTransaction } from '../helpers/reports';

const START = Date.parse('2026-11-30T10:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const REPORT = process.env.IDLE_POLL_REPORT === '1';

/** N accounts, MoMo, Airtel and Daraja in turn (as the demo has each), every one with status and balance APIs. */
function configOf(n: number) {
  const accounts: Record<string, Record<string, unknown>> = { momo: {}, airtel: {}, daraja: {} };
  for (let i = 0; i < n; i++) {
    const id = `acc${i}`;
    if (i % 3 === 0) accounts.momo![id] = { targetEnvironment: 'sandbox', currency: 'EUR' };
    else if (i % 3 === 1)
      accounts.airtel![id] = { callbackKey: `airtel-callback-key-${i}`, country: 'UG', currency: 'UGX' };
    else accounts.daraja![id] = { shortCode: String(600000 + i), currency: 'KES' };
  }
  return parseConfig({
    management: { bearerToken: 'a-long-enough-token' },
    badges: { shops: { demo: { baseUrl: 'http://127.0.0.1:9', auth: { type: 'none' }, pollSeconds: 3600 } } },
    accounts: Object.fromEntries(Object.entries(accounts).filter(([, a]) => Object.keys(a).length)),
  });
}

/** A provider that answers every call with an error: the first tick records its turns, the rest skip them. */
const failing = { type: 'error', error: 'unavailable', detail: 'stub' } as const;
const statusApiOf = (provider: string): StatusApi => ({
  check: async () => failing,
  balance: async () => failing,
  ...(provider === 'daraja'
    ? {
        pull: {
          maxLookBackSeconds: 172_800,
          register: async () => failing,
          query: async () => failing,
          toStatementRow: () => undefined,
        },
      }
    : {}),
});
const noSink: StatementSink = {
  ingestRows: async () => {
    throw new Error('nothing is pulled in these tests');
  },
  recordBalance: async () => {},
};

/** A request as counted: its command and what it reads (the key's kind, the index, the batch's size). */
function describeRequest(command: string, input: Record<string, any>): string {
  const pattern = (pk: string) => pk.replace(/acc\d+/, 'ACC').replace(/#[0-9a-f-]{36}$/, '#REF');
  if (input.Key)
    return `${command} ${pattern(String(input.Key.pk))}${input.ConsistentRead ? ' (consistent)' : ''}`;
  if (input.IndexName) return `${command} ${input.IndexName}`;
  if (input.RequestItems) {
    const keys = Object.values(input.RequestItems as Record<string, { Keys?: unknown[] }>)[0]?.Keys ?? [];
    return `${command} ${keys.length} keys`;
  }
  return command;
}

async function idleWorld(n: number) {
  const table = await createTestTable();
  const requests: string[] = [];
  table.doc.middlewareStack.add(
    (next, context) => async (args) => {
      requests.push(describeRequest(String(context.commandName), args.input as Record<string, any>));
      return next(args);
    },
    { step: 'initialize', name: 'countRequests' },
  );
  let now = START;
  const config = configOf(n);
  const services: ReconcileServices & { statementSink: StatementSink } = {
    config,
    store: table.store,
    clock: { now: () => new Date(now) },
    log: silentLogger,
    scrub: createScrubber([]),
    statusApi: (provider) => statusApiOf(provider),
    metrics: noMetrics,
    statementSink: noSink,
  };
  /** One poller tick as functions/poller runs it (the three beside each other), then the clock a second on. */
  const tick = async () => {
    const [poll] = await Promise.all([
      runReconciliationTick(services, { owner: 'idle-test', budgetMs: 1000 }),
      runBadgeTick(services, { budgetMs: 1000 }),
      runProviderRecordsTick(services),
    ]);
    now += 1000;
    return poll;
  };
  // The first tick takes each account's pull and balance turn (every stub fails): later ones are idle.
  await tick();
  requests.length = 0;
  return { table, config, requests, tick, at: () => now };
}

function byKind(requests: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of requests) counts[r] = (counts[r] ?? 0) + 1;
  return counts;
}

/** A transaction in flight on an account, registered a minute ago, its first check due at `dueAt`. */
function inFlight(provider: string, account: string, i: number, dueAt: string): TransactionRecord {
  const reference = `${i.toString(16).padStart(8, '0')}-4b7d-4e2a-9c3b-1a2b3c4d5e6f`;
  return storedTransaction({ provider, account, reference }, iso(START - 60_000), {
    kind: provider === 'daraja' ? 'stkpush' : 'requesttopay',
    reconcileUntil: iso(START + 86_400_000),
    reconcile: { dueAt, checks: 0, recent: [] },
  });
}

/** The due index's shards (reconciliation.shards, by default 4): each is one Query. */
const SHARDS = 4;
/**
 * At most this many requests an idle tick makes, whatever the number of accounts (up to 50): the due
 * index read once (a Query per shard), the accounts' callback health records in one batch, their
 * pull and balance states in one batch each, the badge shop's snapshot.
 */
const IDLE_TICK_REQUESTS = SHARDS + 4;

describe('an idle poller tick in DynamoDB Local', () => {
  const tables: { drop(): Promise<void> }[] = [];
  afterAll(async () => {
    await Promise.all(tables.map((t) => t.drop()));
  });

  for (const n of [1, 3, 30]) {
    it(`over ${n} accounts that never called back, nothing in flight: at most ${IDLE_TICK_REQUESTS} requests`, async () => {
      // Prepare
      const world = await idleWorld(n);
      tables.push(world.table);
      // Act
      const result = await world.tick();
      // Assess: nothing due, and no request per account.
      expect(result.due).toBe(0);
      expect(world.requests.length, JSON.stringify(byKind(world.requests))).toBeLessThanOrEqual(
        IDLE_TICK_REQUESTS,
      );
      if (REPORT) await report(world, n);
    });
  }

  it('over 30 accounts with a transaction in flight on each: one batch more, and each is checked once due', async () => {
    // Prepare: every account's transaction due five seconds on (ticks are a second apart).
    const world = await idleWorld(30);
    tables.push(world.table);
    const dueAt = iso(world.at() + 5000);
    for (const [i, account] of [...world.config.accounts.values()].entries())
      expect(
        await world.table.store.createTransaction(inFlight(account.provider, account.id, i, dueAt)),
      ).toBe(true);
    // Act: idle ticks until the clock reaches dueAt, then the tick at dueAt.
    const idle: number[] = [];
    while (world.at() < Date.parse(dueAt)) {
      world.requests.length = 0;
      const result = await world.tick();
      expect(result.due).toBe(0);
      idle.push(world.requests.length);
    }
    const due = await world.tick();
    // Assess: each idle tick read the in-flight transactions of the silent-looking accounts in one batch;
    // the tick at dueAt claimed every one of them, once.
    expect(Math.max(...idle)).toBeLessThanOrEqual(IDLE_TICK_REQUESTS + 1);
    expect(due.due).toBe(30);
    expect(due.claimed).toBe(30);
    expect((await world.tick()).claimed).toBe(0);
    if (REPORT) console.log(JSON.stringify({ accounts: '30, 30 in flight', requestsPerIdleTick: idle }));
  });
});

/** Prints the requests of one tick by kind, and the CPU per tick over 20 more (IDLE_POLL_REPORT=1). */
async function report(world: Awaited<ReturnType<typeof idleWorld>>, n: number) {
  const one = [...world.requests];
  const cycles = 20;
  const pid = workerDynamoDb()?.pid;
  const cpu = () => ({ self: processCpu('self').self, jvm: pid ? processCpu(pid).self : 0 });
  const before = cpu();
  world.requests.length = 0;
  for (let i = 0; i < cycles; i++) await world.tick();
  const after = cpu();
  console.log(
    JSON.stringify({
      accounts: n,
      requestsPerTick: world.requests.length / cycles,
      byKind: byKind(one),
      workerMsPerTick: (after.self - before.self) / cycles,
      dynamoMsPerTick: (after.jvm - before.jvm) / cycles,
    }),
  );
}
