/**
 * npm run bench, "Poller under load" section: 500 transactions in flight through DynamoDB Local, their
 * first status checks falling due over 40 s across four accounts (two MoMo, two Airtel, each with its
 * provider's default limits: MoMo 10 calls/s and 4 in flight, Airtel 5/s and 4 in flight), and the
 * local poller (`npm start`'s loop, a cycle every 5 s) checking them against a status API stub that
 * answers PENDING after 100–300 ms. The stub sits behind the same per-account guards as the real
 * clients (concurrency cap, token bucket that waits up to 2 s, else answers "throttled").
 *
 * Reports how late the first check of each transaction reached the provider behind its due time
 * (p50 / p95 / max), the duration of the cycles (p50 / max) and their due items, and the checks the
 * client's own rate limit refused. Uses its own table; nothing else runs meanwhile.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { startLocalRelay } from '../local/relay';
import { FileEventSink } from '../shared/adapters/events/file-sink';
import type { RelayLogger } from '../shared/app/ports';
import { parseConfig } from '../shared/config/load';
import type { TransactionRecord } from '../shared/domain/transaction';
import { accountGuards } from '../shared/providers/outbound-http/limits';
import type { StatusAnswer, StatusApi } from '../shared/providers/types';

const quiet: RelayLogger = { debug() {}, info() {}, warn() {}, error() {} };
/** Seeding 500 items into DynamoDB Local takes a few seconds on two cores; the first ones fall due after it. */
const HEAD_START_MS = 20_000;

const MOMO_API = {
  baseUrl: 'https://sandbox.momodeveloper.mtn.com',
  apiUser: '11111111-2222-4333-8444-555555555555',
  apiKey: 'bench-api-key',
  collectionSubscriptionKey: 'bench-subscription-key',
};
const AIRTEL_API = {
  baseUrl: 'https://openapiuat.airtel.africa',
  clientId: 'bench-client',
  clientSecret: 'bench-client-secret',
};
const ACCOUNTS = [
  { provider: 'momo', account: 'bench-a', kind: 'requesttopay', currency: 'EUR' },
  { provider: 'momo', account: 'bench-b', kind: 'requesttopay', currency: 'EUR' },
  { provider: 'airtel', account: 'bench-a', kind: 'payment', currency: 'UGX' },
  { provider: 'airtel', account: 'bench-b', kind: 'payment', currency: 'UGX' },
] as const;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

function inFlight(
  at: (typeof ACCOUNTS)[number],
  reference: string,
  dueAt: string,
): TransactionRecord & { reconcile: NonNullable<TransactionRecord['reconcile']> } {
  const now = new Date().toISOString();
  return {
    key: { provider: at.provider, account: at.account, reference },
    kind: at.kind,
    status: 'PENDING',
    registered: true,
    amount: { value: '100', currency: at.currency },
    msisdn: undefined,
    externalId: undefined,
    providerTransactionId: undefined,
    reason: undefined,
    party: undefined,
    metadata: undefined,
    attributes: {},
    createdAt: now,
    updatedAt: now,
    reconcileUntil: new Date(Date.now() + 86_400_000).toISOString(),
    revision: 1,
    transitions: [],
    conflicts: [],
    events: [],
    outbox: [],
    reconcile: { dueAt, checks: 0, recent: [] },
  };
}

export interface PollerBenchOptions {
  /** Transactions in flight. @default 500 */
  transactions?: number;
  /** Their first checks fall due evenly over this many seconds. @default 40 */
  spreadSeconds?: number;
  /** npm start's interval between cycles. @default 5 */
  intervalSeconds?: number;
}

export async function pollerBench(
  out: (line?: string) => void,
  dynamoEndpoint: string,
  options: PollerBenchOptions = {},
): Promise<void> {
  const N = options.transactions ?? 500;
  const spreadMs = (options.spreadSeconds ?? 40) * 1000;
  const config = parseConfig({
    management: { bearerToken: 'bench-token-123' },
    reconciliation: { pollIntervalSeconds: options.intervalSeconds ?? 5 },
    accounts: {
      momo: {
        'bench-a': { currency: 'EUR', api: MOMO_API },
        'bench-b': { currency: 'EUR', api: MOMO_API },
      },
      airtel: {
        'bench-a': { callbackKey: 'bench-airtel-key-1', currency: 'UGX', country: 'UG', api: AIRTEL_API },
        'bench-b': { callbackKey: 'bench-airtel-key-2', currency: 'UGX', country: 'UG', api: AIRTEL_API },
      },
    },
  });
  const cycles: { ms: number; due: number }[] = [];
  const log: RelayLogger = {
    ...quiet,
    info(message, ...extra) {
      const fields = Object.assign({}, ...extra) as { ms?: number; due?: number };
      if (message === 'poll cycle' && fields.ms !== undefined && fields.due)
        cycles.push({ ms: fields.ms, due: fields.due });
    },
  };
  const relay = await startLocalRelay({
    config,
    poller: false,
    dynamoEndpoint,
    tableName: `bench-poller-${randomUUID()}`,
    port: 0,
    log,
    sink: new FileEventSink('/dev/null', 'mobile-money.relay'),
    streamPollMs: 3_600_000,
  });
  try {
    // The stub: the real clients' per-account guards in front of a provider answering in 100–300 ms.
    const firstCall = new Map<string, number>();
    let calls = 0;
    let refused = 0;
    const stubs = new Map<string, StatusApi>();
    relay.services.statusApi = (provider, account) => {
      const id = `${provider}/${account}`;
      let stub = stubs.get(id);
      if (!stub) {
        const api = (
          config.accounts.get(id)!.settings as {
            api: { maxRequestsPerSecond: number; timeoutMs: number; concurrency: number };
          }
        ).api;
        const { bucket, limit } = accountGuards({
          provider,
          account,
          api,
          deps: { now: () => Date.now(), sleep: (ms) => sleep(ms), log: quiet },
        });
        stub = {
          check: (query) =>
            limit.run(async (): Promise<StatusAnswer> => {
              const throttled = await bucket.acquire();
              if (throttled) {
                refused++;
                return throttled;
              }
              calls++;
              if (!firstCall.has(query.reference)) firstCall.set(query.reference, Date.now());
              await sleep(100 + Math.random() * 200);
              return { type: 'pending', providerCode: 'PENDING', detail: 'PENDING' };
            }),
        };
        stubs.set(id, stub);
      }
      return stub;
    };

    // 500 in flight, due evenly over the spread, starting after the head start (seeding).
    const start = Date.now() + HEAD_START_MS;
    const due = new Map<string, number>();
    const items = Array.from({ length: N }, (_, i) => {
      const reference = randomUUID();
      const at = start + Math.floor((i * spreadMs) / N);
      due.set(reference, at);
      return inFlight(ACCOUNTS[i % ACCOUNTS.length]!, reference, new Date(at).toISOString());
    });
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < items.length) {
          const item = items[next++]!;
          await relay.store.createTransaction(item).catch(() => relay.store.createTransaction(item));
        }
      }),
    );
    if (Date.now() > start) out(`| (seeding took longer than its head start: lags include it) | | |`);

    // npm start's loop; each poll cycle logs its duration.
    const poller = relay.poller;
    await sleep(Math.max(0, start - Date.now()));
    poller.start();
    const deadline = Date.now() + spreadMs + 120_000;
    while (firstCall.size < N && Date.now() < deadline) await sleep(200);
    await poller.stop();

    const lags = [...firstCall.entries()]
      .map(([ref, at]) => (at - due.get(ref)!) / 1000)
      .sort((a, b) => a - b);
    const cycleMs = cycles.map((c) => c.ms / 1000).sort((a, b) => a - b);
    const dueCounts = cycles.map((c) => c.due).sort((a, b) => a - b);
    out(
      `| first status checks made (${N} in flight, due over ${spreadMs / 1000} s, 2 MoMo + 2 Airtel accounts, stub 100–300 ms) | ${firstCall.size} of ${N}; ${calls} calls, ${refused} refused by the client's rate limit | all ${firstCall.size === N ? '✔' : '✘'} |`,
    );
    out(
      `| first check lag behind due time p50 / p95 / max (cycle every ${config.reconciliation.pollIntervalSeconds} s) | ${percentile(lags, 50).toFixed(1)} / ${percentile(lags, 95).toFixed(1)} / ${(lags.at(-1) ?? 0).toFixed(1)} s | reported |`,
    );
    out(
      `| poll cycle duration p50 / max, due items per cycle p50 / max (${cycles.length} cycles with work) | ${percentile(cycleMs, 50).toFixed(1)} / ${(cycleMs.at(-1) ?? 0).toFixed(1)} s, ${percentile(dueCounts, 50)} / ${dueCounts.at(-1) ?? 0} items | reported |`,
    );
  } finally {
    await relay.stop().catch(() => undefined);
  }
}
