/**
 * What an idle poller tick costs DynamoDB: the requests of one tick (callback health, the poll cycle, the
 * pulls and balance turns, the badge feed) over N accounts when nothing is due, counted at the client
 * (every command the store sends), not timed. With IDLE_POLL_REPORT=1 it also prints the requests by
 * operation and key pattern and the CPU per tick (this worker's and its DynamoDB Local's).
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CallbackTracker } from '../../shared/app/callbacks/callback-health';
import { noMetrics } from '../../shared/app/ports';
import { runProviderRecordsTick } from '../../shared/app/provider-records/tick';
import type { ReconcileServices } from '../../shared/app/reconciliation/reconcile';
import { runBadgeTick, runReconciliationTick } from '../../shared/app/reconciliation/reconciliation-tick';
import { parseConfig } from '../../shared/config/load';
import type { StatementSink } from '../../shared/domain/statement';
import type { StatusApi } from '../../shared/providers/types';
import { createScrubber } from '../../shared/util/redact';
import { createTestTable } from '../helpers/dynamo';
import { ofThisWorker, processCpu } from '../helpers/proc-cpu';
import { silentLogger } from '../helpers/relay';

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
    await Promise.all([
      runReconciliationTick(services, { owner: 'idle-test', budgetMs: 1000 }),
      runBadgeTick(services, { budgetMs: 1000 }),
      runProviderRecordsTick(services),
    ]);
    now += 1000;
  };
  // The first tick takes each account's pull and balance turn (every stub fails): later ones are idle.
  await tick();
  requests.length = 0;
  return { table, services, requests, tick, setNow: (at: number) => (now = at) };
}

function byKind(requests: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of requests) counts[r] = (counts[r] ?? 0) + 1;
  return counts;
}

describe('an idle poller tick in DynamoDB Local', () => {
  const tables: { drop(): Promise<void> }[] = [];
  afterAll(async () => {
    await Promise.all(tables.map((t) => t.drop()));
  });

  for (const n of [1, 3, 30]) {
    it(`over ${n} accounts that never called back, nothing in flight`, async () => {
      const world = await idleWorld(n);
      tables.push(world.table);
      await world.tick();
      const one = [...world.requests];
      if (REPORT) {
        const cycles = 20;
        const pid = ofThisWorker(inject('dynamoPids'));
        const cpu0 = { self: processCpu('self').self, jvm: pid ? processCpu(pid).self : 0 };
        world.requests.length = 0;
        for (let i = 0; i < cycles; i++) await world.tick();
        const cpu1 = { self: processCpu('self').self, jvm: pid ? processCpu(pid).self : 0 };
        console.log(
          JSON.stringify({
            accounts: n,
            requestsPerTick: world.requests.length / cycles,
            byKind: byKind(one),
            workerMsPerTick: (cpu1.self - cpu0.self) / cycles,
            dynamoMsPerTick: (cpu1.jvm - cpu0.jvm) / cycles,
          }),
        );
      }
      expect(one.length).toBeGreaterThan(0);
    });
  }
});

void iso;
void CallbackTracker;
void beforeAll;
