/**
 * npm run bench, "Store outage" section: MoMo callbacks answered while DynamoDB Local is stalled
 * (SIGSTOP on its process group, as a hung table looks from the relay), then the ingress buffer drained
 * once it resumes. Reports the ack latencies against MoMo's 2 s budget, how many callbacks went to the
 * buffer, how long draining took, and whether every transaction ended with exactly one
 * TransactionSucceeded. Uses its own DynamoDB Local, so stalling it touches nothing else.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import { startDynamoDbLocal } from '../local/dynamodb-local';
import { startLocalRelay } from '../local/relay';
import { FileEventSink } from '../shared/adapters/events/file-sink';
import type { RelayLogger } from '../shared/app/ports';
import { parseConfig } from '../shared/config/load';
import type { TransactionRecord } from '../shared/domain/transaction';

const ROOT = resolve(import.meta.dirname, '..');
const BODY = readFileSync(join(ROOT, 'test/fixtures/momo/requesttopay-successful.json'), 'utf8');
const MOMO_BUDGET_MS = 2000;
const quiet: RelayLogger = { debug() {}, info() {}, warn() {}, error() {} };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function pending(reference: string): TransactionRecord {
  const now = new Date().toISOString();
  return {
    key: { provider: 'momo', account: 'demo', reference },
    kind: 'requesttopay',
    status: 'PENDING',
    registered: true,
    amount: { value: '100', currency: 'EUR' },
    msisdn: undefined,
    externalId: undefined,
    providerTransactionId: undefined,
    reason: undefined,
    party: undefined,
    metadata: undefined,
    attributes: {},
    createdAt: now,
    updatedAt: now,
    reconcileUntil: new Date(Date.now() + 3_600_000).toISOString(),
    revision: 1,
    transitions: [],
    conflicts: [],
    events: [],
    outbox: [],
  };
}

/** The same load generator as the throughput rows (a worker thread: a provider is another machine). */
function load(
  url: string,
  references: string[],
  concurrency: number,
): Promise<{ elapsedMs: number; latencies: number[]; failures: number }> {
  return new Promise((done, fail) => {
    const worker = new Worker(join(ROOT, 'scripts/bench-load.mjs'), {
      workerData: { url, references, concurrency, body: BODY },
    });
    worker.once('message', done);
    worker.once('error', fail);
  });
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

export async function outageBench(
  out: (line?: string) => void,
  options: { callbacks: number; concurrency: number },
): Promise<void> {
  const dynamo = await startDynamoDbLocal();
  const dir = mkdtempSync(join(tmpdir(), 'relay-bench-outage-'));
  const bufferDir = join(dir, 'ingress-buffer');
  const eventsFile = join(dir, 'events.ndjson');
  const relay = await startLocalRelay({
    config: parseConfig({
      management: { bearerToken: 'bench-token-123' },
      local: { eventsFile },
      accounts: { momo: { demo: { currency: 'EUR', confirmSuccess: false } } },
    }),
    poller: false,
    dynamoEndpoint: dynamo.endpoint,
    tableName: `bench-outage-${randomUUID()}`,
    port: 0,
    log: quiet,
    sink: new FileEventSink(eventsFile, 'mobile-money.relay'),
    streamPollMs: 200,
    ingressBufferDir: bufferDir,
    bufferDrainMs: 200,
  });
  let stalled = false;
  const signal = (name: 'SIGSTOP' | 'SIGCONT') => {
    process.kill(-dynamo.pid, name);
    stalled = name === 'SIGSTOP';
  };
  try {
    const references = Array.from({ length: options.callbacks }, () => randomUUID());
    for (const reference of references) await relay.store.createTransaction(pending(reference));

    signal('SIGSTOP');
    const sent = await load(relay.url, references, options.concurrency);
    const buffered = existsSync(bufferDir)
      ? readdirSync(bufferDir).filter((name) => name.endsWith('.json')).length
      : 0;
    signal('SIGCONT');

    const resumed = performance.now();
    let final = 0;
    for (let waited = 0; waited < 120_000; waited += 250) {
      await sleep(250);
      const left = readdirSync(bufferDir).filter((name) => name.endsWith('.json')).length;
      if (left > 0) continue;
      final = 0;
      for (const reference of references) {
        const tx = await relay.store.getTransaction({ provider: 'momo', account: 'demo', reference });
        if (tx?.status === 'SUCCEEDED') final++;
      }
      if (final === references.length) break;
    }
    const drainedMs = performance.now() - resumed;
    while ((await relay.pump.poll()) > 0);
    const succeeded = (existsSync(eventsFile) ? readFileSync(eventsFile, 'utf8') : '')
      .split('\n')
      .filter((line) => line.includes('"TransactionSucceeded"'))
      .map((line) => (JSON.parse(line) as { detail: { data: { reference: string } } }).detail.data.reference);
    const once = references.filter((r) => succeeded.filter((s) => s === r).length === 1).length;

    const sorted = [...sent.latencies].sort((a, b) => a - b);
    const max = sorted.at(-1) ?? 0;
    const ok = (pass: boolean) => (pass ? '✔' : '✘');
    out(
      `| MoMo ack while DynamoDB is stalled: p50 / p99 / max | ${percentile(sorted, 50).toFixed(0)} / ${percentile(sorted, 99).toFixed(0)} / ${max.toFixed(0)} ms (${sent.failures} non-200) | < ${MOMO_BUDGET_MS} ms ${ok(max < MOMO_BUDGET_MS && sent.failures === 0)} |`,
    );
    out(
      `| callbacks in the ingress buffer during the stall | ${buffered} of ${references.length} | all ${ok(buffered === references.length)} |`,
    );
    out(
      `| after DynamoDB resumes: buffer drained and every transaction SUCCEEDED | ${(drainedMs / 1000).toFixed(1)} s (${final} of ${references.length}) | reported |`,
    );
    out(
      `| exactly one TransactionSucceeded per transaction | ${once} of ${references.length} (${succeeded.length} published) | all ${ok(once === references.length && succeeded.length === references.length)} |`,
    );
  } finally {
    if (stalled) signal('SIGCONT');
    await relay.stop().catch(() => undefined);
    await dynamo.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
