/**
 * The "Acks with consoles open" section of npm run bench: MoMo ack latency with no console open, then
 * with 25 consoles open as `npm start` serves them (each one event stream, and the counts each console
 * re-asks when live events arrive), same relay, same DynamoDB Local, same callback load.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { startLocalRelay } from '../local/relay';
import { createDynamoClients } from '../shared/adapters/dynamodb/client';
import { DynamoRelayStore } from '../shared/adapters/dynamodb/relay-store';
import { FileEventSink } from '../shared/adapters/events/file-sink';
import { parseConfig } from '../shared/config/load';
import type { RelayLogger } from '../shared/app/ports';
import type { TransactionRecord } from '../shared/domain/transaction';

const TOKEN = 'bench-token-123';
const CONSOLES = 25;
/** Transactions created today before the measure: what a console's reads have to go through. */
const SEEDED = 2000;
/** Callbacks per phase, and how many a provider sends at once. */
const CALLBACKS = 300;
const CONCURRENCY = 4;

export interface ConsolesBenchOptions {
  root: string;
  body: string;
  log: RelayLogger;
  /** The console's least interval between two counts refreshes (0: one refresh per live event). */
  countsEveryMs: number;
}

/** A registered MoMo request to pay, PENDING, created now (what the bench's callbacks settle). */
export function pendingTx(reference: string): TransactionRecord {
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

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

function load(
  root: string,
  url: string,
  references: string[],
  body: string,
): Promise<{ latencies: number[]; failures: number }> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(join(root, 'scripts/bench-load.mjs'), {
      workerData: { url, references, concurrency: CONCURRENCY, body },
    });
    let result: { latencies: number[]; failures: number } | undefined;
    worker.once('message', (message) => (result = message));
    worker.once('error', reject);
    worker.once('exit', (code) =>
      result ? resolve(result) : reject(new Error(`load generator exited with code ${code} and no result`)),
    );
  });
}

/**
 * One console: the event stream, and a counts refresh for live events (at most one every
 * `countsEveryMs`, one in flight). Returns how to close it and what it asked and saw.
 */
function openConsole(url: string, countsEveryMs: number) {
  const abort = new AbortController();
  const seen = { events: 0, counts: 0, refused: 0, streamStatus: 0 };
  const auth = { authorization: `Bearer ${TOKEN}` };
  let last = 0;
  let timer: NodeJS.Timeout | undefined;
  const ask = async () => {
    seen.counts++;
    try {
      const answer = await fetch(`${url}/v1/transactions/counts`, { headers: auth, signal: abort.signal });
      if (!answer.ok) seen.refused++;
      await answer.arrayBuffer();
    } catch {
      // closed
    }
  };
  // As the console: one refresh per live event, or at most one per `countsEveryMs` (the last one owed
  // is asked when the interval is over).
  const refresh = () => {
    if (countsEveryMs === 0) return void ask();
    if (timer) return;
    timer = setTimeout(
      () => {
        timer = undefined;
        last = Date.now();
        void ask();
      },
      Math.max(0, last + countsEveryMs - Date.now()),
    );
  };
  const done = (async () => {
    try {
      const stream = await fetch(`${url}/v1/events/stream`, {
        headers: { ...auth, accept: 'text/event-stream' },
        signal: abort.signal,
      });
      seen.streamStatus = stream.status;
      if (!stream.ok || !stream.body) return;
      const reader = stream.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { value, done: ended } = await reader.read();
        if (ended) return;
        const events = value.split('event: transaction').length - 1;
        seen.events += events;
        if (events) void refresh();
      }
    } catch {
      // aborted
    }
  })();
  return { seen, close: () => (clearTimeout(timer), abort.abort(), done) };
}

export async function consolesBench(
  out: (line?: string) => void,
  endpoint: string,
  options: ConsolesBenchOptions,
): Promise<void> {
  const tableName = `bench-consoles-${randomUUID()}`;
  const eventsFile = join(mkdtempSync(join(tmpdir(), 'relay-bench-consoles-')), 'events.ndjson');
  const relay = await startLocalRelay({
    config: parseConfig({
      management: { bearerToken: TOKEN },
      local: { eventsFile },
      accounts: { momo: { demo: { currency: 'EUR', confirmSuccess: false } } },
    }),
    poller: false,
    dynamoEndpoint: endpoint,
    tableName,
    port: 0,
    log: options.log,
    sink: new FileEventSink(eventsFile, 'mobile-money.relay'),
    // As npm start: the stream pump's default interval, and the ingress buffer.
    ingressBufferDir: join(mkdtempSync(join(tmpdir(), 'relay-bench-buffer-')), 'ingress-buffer'),
  });
  try {
    const refs = (n: number) => Array.from({ length: n }, () => randomUUID());
    // Seeded through a patient client of its own: a busy machine must not fail the bench before it measures.
    const seeding = createDynamoClients({ endpoint, requestTimeoutMs: 30_000 });
    const seeder = new DynamoRelayStore(seeding.doc, {
      tableName,
      retention: { receiptDays: 30, quarantineDays: 30, transactionDays: 400 },
    });
    const register = async (references: string[]) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (next < references.length) await seeder.createTransaction(pendingTx(references[next++]!));
        }),
      );
    };
    await register(refs(SEEDED));
    // Registered up front: with the consoles open, the measure is the callbacks' acks alone.
    const phases = [refs(CALLBACKS), refs(CALLBACKS), refs(CALLBACKS)];
    await register(phases.flat());
    seeding.client.destroy();
    const phase = async (references: string[]) => {
      const result = await load(options.root, relay.url, references, options.body);
      result.latencies.sort((a, b) => a - b);
      return result;
    };
    // Warm-up, not measured.
    await phase(phases[0]!);
    const idle = await phase(phases[1]!);
    const consoles = Array.from({ length: CONSOLES }, () => openConsole(relay.url, options.countsEveryMs));
    const busy = await phase(phases[2]!);
    await Promise.all(consoles.map((c) => c.close()));
    const line = (r: { latencies: number[]; failures: number }) =>
      `${[50, 95, 99].map((p) => percentile(r.latencies, p).toFixed(1)).join(' / ')} ms (${r.failures} non-200)`;
    const sum = (key: keyof (typeof consoles)[number]['seen']) =>
      consoles.reduce((n, c) => n + c.seen[key], 0);
    const statuses = [...new Set(consoles.map((c) => c.seen.streamStatus))].join(', ');
    const p99Ratio = percentile(busy.latencies, 99) / Math.max(1, percentile(idle.latencies, 99));
    out(
      `| MoMo ack p50 / p95 / p99, idle / with ${CONSOLES} consoles open (${CALLBACKS} callbacks each, ${CONCURRENCY} at a time, ${SEEDED} transactions today) | ${line(idle)} / ${line(busy)} | unchanged ${p99Ratio <= 1.5 ? '✔' : '✘'} |`,
    );
    out(
      `| what the ${CONSOLES} consoles did meanwhile | streams answered ${statuses}; ${sum('events')} live events received, ${sum('counts')} counts requests (${sum('refused')} refused) | reported |`,
    );
  } finally {
    await relay.stop();
  }
}
