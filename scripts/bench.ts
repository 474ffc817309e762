/**
 * npm run bench — measures the design's performance targets on this machine and prints the numbers.
 * It never fails on a slow result: speed is reported, not asserted (see README "Performance").
 *
 *   npm run bench -- --callbacks 2000 --concurrency 16
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { ConsumedCapacity } from '@aws-sdk/client-dynamodb';
import { startDynamoDbLocal } from '../local/dynamodb-local';
import { startLocalRelay } from '../local/relay';
import { createDynamoClients } from '../shared/adapters/dynamodb/client';
import { DynamoRelayStore } from '../shared/adapters/dynamodb/relay-store';
import { ensureTable } from '../shared/adapters/dynamodb/setup';
import { FileEventSink } from '../shared/adapters/events/file-sink';
import { parseConfig } from '../shared/config/load';
import { applyReport } from '../shared/domain/apply-report';
import type { RelayLogger } from '../shared/domain/ports';
import type { TransactionRecord } from '../shared/domain/transaction';
import { sha256Hex } from '../shared/util/ids';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const { values } = parseArgs({
  options: { callbacks: { type: 'string', default: '2000' }, concurrency: { type: 'string', default: '16' } },
});
const N = Number(values.callbacks);
const C = Number(values.concurrency);
const ROOT = resolve(import.meta.dirname, '..');
const BODY = readFileSync(join(ROOT, 'test/fixtures/momo/requesttopay-successful.json'), 'utf8');
const quiet: RelayLogger = { debug() {}, info() {}, warn() {}, error() {} };
const retention = { receiptDays: 30, quarantineDays: 30, transactionDays: 400 };

function refs(count: number): string[] {
  return Array.from({ length: count }, () => randomUUID());
}

function pending(reference: string): TransactionRecord {
  const now = new Date().toISOString();
  return {
    key: { provider: 'momo', account: 'demo', reference },
    kind: 'requesttopay',
    status: 'PENDING',
    registered: true,
    amount: { value: '100', currency: 'EUR' },
    msisdn: undefined,
    externalId: 'order-8841',
    providerTransactionId: undefined,
    reason: undefined,
    party: undefined,
    metadata: undefined,
    attributes: {},
    createdAt: now,
    updatedAt: now,
    reconcileUntil: now,
    revision: 1,
    transitions: [],
    conflicts: [],
    events: [],
    outbox: [],
  };
}

async function pool<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
  return performance.now() - started;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function main() {
  const dynamo = await startDynamoDbLocal();
  const lines: string[] = [];
  const out = (line = '') => {
    lines.push(line);
    process.stdout.write(`${line}\n`);
  };
  try {
    const { client, doc } = createDynamoClients({ endpoint: dynamo.endpoint });
    out(
      `Bench: ${N} MoMo callbacks (${Buffer.byteLength(BODY)} B body), concurrency ${C}, DynamoDB Local ${dynamo.endpoint}`,
    );

    // 1. Raw DynamoDB Local: exactly the writes a callback needs (receipt update, consistent read,
    //    conditional put of the next state), issued straight from the store without HTTP or handlers.
    const rawTable = `bench-raw-${randomUUID()}`;
    await ensureTable(client, rawTable);
    const raw = new DynamoRelayStore(doc, { tableName: rawTable, retention });
    const rawRefs = refs(N);
    for (const r of rawRefs) await raw.createTransaction(pending(r));
    const rawMs = await pool(rawRefs, C, async (reference) => {
      const key = { provider: 'momo', account: 'demo', reference };
      const receipt = await raw.recordReceipt({
        key,
        routeName: 'callback',
        method: 'PUT',
        path: `/v1/momo/demo/requesttopay/${reference}`,
        headers: { 'content-type': 'application/json' },
        sourceIp: '127.0.0.1',
        body: BODY,
        receivedAt: new Date().toISOString(),
        verification: { pathSecret: 'not-configured' },
        dedupeKey: sha256Hex(`${reference}|${BODY}`),
      });
      const current = (await raw.getTransaction(key))!;
      const outcome = applyReport(
        current,
        {
          key,
          kind: 'requesttopay',
          status: 'SUCCEEDED',
          reason: undefined,
          providerTransactionId: '1',
          externalId: undefined,
          amount: { value: '100', currency: 'EUR' },
          party: undefined,
          receivedAt: new Date().toISOString(),
          origin: 'callback',
          receiptId: receipt.receiptId,
          attributes: undefined,
        },
        { now: new Date().toISOString(), reconcileWindowSeconds: 3600 },
      );
      if (outcome.kind === 'write') await raw.replaceTransaction({ ...outcome.next, revision: 2 }, 1);
    });
    const rawRate = (N / rawMs) * 1000;

    // 2. The relay end to end: HTTP → API Gateway adapter → middy → domain → DynamoDB, stream publishing on.
    const capacity = new Map<string, number>();
    let measuring = false;
    const relayTable = `bench-relay-${randomUUID()}`;
    const eventsFile = join(mkdtempSync(join(tmpdir(), 'relay-bench-')), 'events.ndjson');
    const config = parseConfig({
      management: { bearerToken: 'bench-token-123' },
      local: { eventsFile },
      accounts: { momo: { demo: { currency: 'EUR' } } },
    });
    const relay = await startLocalRelay({
      config,
      dynamoEndpoint: dynamo.endpoint,
      tableName: relayTable,
      port: 0,
      log: quiet,
      sink: new FileEventSink(eventsFile, 'mobile-money.relay'),
      onConsumedCapacity: (operation: string, consumed: ConsumedCapacity | undefined) => {
        if (measuring)
          capacity.set(operation, (capacity.get(operation) ?? 0) + (consumed?.CapacityUnits ?? 0));
      },
    });
    const relayRefs = refs(N);
    for (const r of relayRefs) await relay.store.createTransaction(pending(r));
    const latencies: number[] = [];
    let failures = 0;
    measuring = true;
    const relayMs = await pool(relayRefs, C, async (reference) => {
      const t0 = performance.now();
      const res = await fetch(`${relay.url}/v1/momo/demo/requesttopay/${reference}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: BODY,
      });
      await res.arrayBuffer();
      latencies.push(performance.now() - t0);
      if (res.status !== 200) failures++;
    });
    measuring = false;
    const relayRate = (N / relayMs) * 1000;
    const firstWrites = [...capacity.entries()]
      .filter(([op]) => op !== 'getTransaction')
      .reduce((n, [, v]) => n + v, 0);
    const firstReads = capacity.get('getTransaction') ?? 0;

    // 3. Duplicates: the same bodies again cost only the receipt counter.
    capacity.clear();
    measuring = true;
    const dupRefs = relayRefs.slice(0, Math.min(200, N));
    await pool(dupRefs, C, async (reference) => {
      const res = await fetch(`${relay.url}/v1/momo/demo/requesttopay/${reference}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: BODY,
      });
      await res.arrayBuffer();
    });
    measuring = false;
    const dupWrites = [...capacity.entries()]
      .filter(([op]) => op !== 'getTransaction')
      .reduce((n, [, v]) => n + v, 0);
    await relay.pump.poll();
    await relay.stop();

    latencies.sort((a, b) => a - b);
    const ratio = relayRate / rawRate;
    out();
    out('| measure | value | target |');
    out('|---|---|---|');
    out(`| raw DynamoDB Local (same writes, no HTTP) | ${rawRate.toFixed(0)} callbacks/s | — |`);
    out(
      `| relay end to end over HTTP | ${relayRate.toFixed(0)} callbacks/s (${failures} non-200) | ≥ 80% of raw |`,
    );
    out(`| relay / raw | ${(ratio * 100).toFixed(0)}% | ≥ 80% ${ratio >= 0.8 ? '✔' : '✘'} |`);
    out(
      `| ack latency p50 / p95 / p99 | ${percentile(latencies, 50).toFixed(1)} / ${percentile(latencies, 95).toFixed(1)} / ${percentile(latencies, 99).toFixed(1)} ms | reported |`,
    );
    out(
      `| write units per first callback | ${(firstWrites / N).toFixed(2)} WCU | ≤ 3 ${firstWrites / N <= 3 ? '✔' : '✘'} |`,
    );
    out(`| write units per duplicate | ${(dupWrites / dupRefs.length).toFixed(2)} WCU | — |`);
    out(`| read units per callback | ${(firstReads / N).toFixed(2)} RCU | — |`);
  } finally {
    await dynamo.stop();
  }
  const bundles = resolve(ROOT, 'scripts/bundle-size.ts');
  try {
    readFileSync(bundles);
    process.stdout.write('\nLambda bundles (scripts/bundle-size.ts):\n');
    const { execFileSync } = await import('node:child_process');
    process.stdout.write(
      execFileSync(process.execPath, [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), bundles], {
        encoding: 'utf8',
      }),
    );
  } catch {
    // bundle measurement not available in this checkout
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
