/**
 * npm run bench, "Deliveries" section (issue 31 item 9): webhook deliveries by the engine `npm start` runs
 * (shared/app/delivery/engine.ts with the node:http sender, the in-memory delivery log, timers), fed as
 * `npm start` feeds it: each event published to the events file and handed over by the delivering sink.
 * The receivers are another thread's (scripts/bench-receiver.mjs): a healthy endpoint answering 204, and a
 * dead one that takes connections and never answers, so every attempt to it waits the full 15 s time-out.
 *
 * - deliveries per second: a burst of events all published at once, to the healthy endpoint alone, at the
 *   highest limits a destination may have (ratePerSecond 1000) and the bench's concurrency;
 * - event → delivery latency: events published at a steady rate for a while, from the publish call to the
 *   request's arrival at the endpoint (both read on the clock every thread of the process shares), in
 *   rounds alternating between the healthy endpoint alone and the same load with a dead destination taking
 *   every event too (target: the healthy one's p99 unchanged: no head-of-line blocking).
 *
 * The time from a callback to the publish (DynamoDB stream, the pump's 100 ms poll) is not in these
 * numbers: it is the same with or without destinations, and the other sections measure the callback path.
 */
import { MemoryDestinationStates } from '../shared/adapters/memory/destination-states';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { FileEventSink } from '../shared/adapters/events/file-sink';
import { MemoryDeliveryLog } from '../shared/adapters/memory/delivery-log';
import { HttpWebhookSender } from '../shared/adapters/webhooks/http-sender';
import { DeliveryEngine } from '../shared/app/delivery/engine';
import { timerScheduler } from '../shared/app/delivery/ports';
import { deliveringSink } from '../shared/app/delivery/sink';
import { systemClock } from '../shared/app/ports';
import { DELIVERY_TIMEOUT_MS, type DestinationConfig, destinationSchema } from '../shared/config/schema';
import type { EventEnvelope } from '../shared/domain/event-envelope';
import { buildEvent } from '../shared/domain/events';
import { createScrubber } from '../shared/util/redact';
import { percentile } from './bench-consoles';

const ROOT = resolve(import.meta.dirname, '..');
/** Safety net for a wait on arrivals (a hung run), not a speed check. */
const WAIT_LIMIT_MS = 10 * 60_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Milliseconds on the clock every thread of this process shares. */
const nowMs = () => performance.timeOrigin + performance.now();

export interface DeliveriesBenchOptions {
  /** Events in the throughput burst. */
  burst: number;
  /** Events per second, for how many seconds, in how many rounds of each kind (alone, beside a dead one). */
  eventsPerSecond: number;
  seconds: number;
  rounds: number;
  /** Attempts in flight per destination. */
  concurrency: number;
}

interface Receivers {
  healthyUrl: string;
  deadUrl: string;
  /** The arrivals since the last call (webhook-id, time), and the connections the dead endpoint holds. */
  take(): Promise<{ arrivals: [string, number][]; held: number }>;
  stop(): Promise<void>;
}

async function startReceivers(): Promise<Receivers> {
  const worker = new Worker(join(ROOT, 'scripts/bench-receiver.mjs'));
  const ready = await new Promise<{ healthyPort: number; deadPort: number }>((resolveReady, reject) => {
    worker.once('message', resolveReady);
    worker.once('error', reject);
  });
  return {
    healthyUrl: `http://localhost:${ready.healthyPort}/webhooks`,
    deadUrl: `http://localhost:${ready.deadPort}/webhooks`,
    take: () =>
      new Promise((resolveTake) => {
        worker.once('message', resolveTake);
        worker.postMessage('take');
      }),
    stop: async () => {
      worker.postMessage('stop');
      await new Promise((r) => worker.once('exit', r));
    },
  };
}

/** A destination as a config would declare it, signed with a fresh secret. */
function destination(url: string, concurrency: number): DestinationConfig {
  return destinationSchema.parse({
    url,
    signingSecrets: [`whsec_${randomBytes(32).toString('base64')}`],
    allowPrivateAddresses: true,
    ratePerSecond: 1000,
    concurrency,
  });
}

/** The engine, sender, log and sink as local/relay.ts builds them for `npm start`. */
function deliveryPath(destinations: Record<string, DestinationConfig>, eventsFile: string) {
  const disabled: { destination: string; reason: string; atMs: number }[] = [];
  const log = new MemoryDeliveryLog();
  const engine = new DeliveryEngine({
    destinations,
    secretsOf: (name) => destinations[name]!.signingSecrets,
    sender: new HttpWebhookSender(),
    log,
    states: new MemoryDestinationStates(),
    clock: systemClock,
    scheduler: timerScheduler,
    scrub: createScrubber(Object.values(destinations).flatMap((d) => d.signingSecrets)),
    runtime: 'local',
    onDisabled: (name, reason) => disabled.push({ destination: name, reason, atMs: nowMs() }),
  });
  const sink = deliveringSink(new FileEventSink(eventsFile, 'mobile-money.relay'), engine);
  return { engine, sink, log, disabled };
}

/** A TransactionSucceeded the size of a real one (docs/events.md#envelope), for a new transaction. */
function succeeded(): EventEnvelope {
  const reference = randomUUID();
  const at = new Date().toISOString();
  const amount = { value: '100', currency: 'EUR' };
  return buildEvent('TransactionSucceeded', `momo:demo:${reference}`, 'SUCCEEDED', 'callback', at, {
    provider: 'momo',
    account: 'demo',
    kind: 'requesttopay',
    reference,
    providerTransactionId: '363440463',
    externalId: 'order-8841',
    status: 'SUCCEEDED',
    reason: null,
    amount,
    party: { idType: 'MSISDN', id: '467****3459' },
    receivedAt: at,
    evidence: [
      {
        source: 'callback',
        claim: 'SUCCEEDED',
        authenticated: true,
        authentication: ['path-secret'],
        conclusive: false,
        at,
        providerCode: null,
        description: null,
        amount,
        receiptId: 'b6faee71426ea805ac70e5939bc11f7b',
      },
    ],
  });
}

/** Waits until every id in `sent` has arrived at the healthy endpoint; returns arrival time by id. */
async function arrivalsOf(receivers: Receivers, sent: Map<string, number>): Promise<Map<string, number>> {
  const arrived = new Map<string, number>();
  const limit = Date.now() + WAIT_LIMIT_MS;
  while (arrived.size < sent.size && Date.now() < limit) {
    await sleep(100);
    for (const [id, at] of (await receivers.take()).arrivals) if (sent.has(id)) arrived.set(id, at);
  }
  return arrived;
}

/** Publishes `count` events at `perSecond`, each at its due time; returns publish time by id. */
async function paced(
  publish: (event: EventEnvelope) => Promise<void>,
  perSecond: number,
  count: number,
): Promise<Map<string, number>> {
  const sent = new Map<string, number>();
  const start = nowMs();
  for (let i = 0; i < count; i++) {
    const due = start + (i * 1000) / perSecond;
    const wait = due - nowMs();
    if (wait > 0) await sleep(wait);
    const event = succeeded();
    sent.set(event.metadata.id, nowMs());
    await publish(event);
  }
  return sent;
}

function latencies(sent: Map<string, number>, arrived: Map<string, number>): number[] {
  return [...arrived].map(([id, at]) => at - sent.get(id)!).sort((a, b) => a - b);
}

const ms = (value: number) => value.toFixed(1);
const spread = (sorted: number[]) =>
  `${ms(percentile(sorted, 50))} / ${ms(percentile(sorted, 95))} / ${ms(percentile(sorted, 99))} / ${ms(sorted.at(-1) ?? 0)} ms`;

export async function deliveriesBench(
  out: (line?: string) => void,
  options: DeliveriesBenchOptions,
): Promise<void> {
  const { burst, eventsPerSecond, seconds, rounds, concurrency } = options;
  const scratch = mkdtempSync(join(tmpdir(), 'relay-bench-deliveries-'));
  const receivers = await startReceivers();
  try {
    out(
      `| setup | destinations at ratePerSecond 1000, concurrency ${concurrency}, http://localhost receivers in a worker thread; load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')} | — |`,
    );

    // Warm-up (not measured): JIT of the engine, the sender and the receiver.
    {
      const { sink } = deliveryPath(
        { healthy: destination(receivers.healthyUrl, concurrency) },
        join(scratch, 'warm.ndjson'),
      );
      const sent = new Map<string, number>();
      for (let i = 0; i < 200; i++) {
        const event = succeeded();
        sent.set(event.metadata.id, nowMs());
        await sink.publish([event]);
      }
      await arrivalsOf(receivers, sent);
    }

    // Throughput: a burst, the healthy endpoint alone.
    {
      const { sink } = deliveryPath(
        { healthy: destination(receivers.healthyUrl, concurrency) },
        join(scratch, 'burst.ndjson'),
      );
      const sent = new Map<string, number>();
      const start = nowMs();
      for (let i = 0; i < burst; i++) {
        const event = succeeded();
        sent.set(event.metadata.id, nowMs());
        await sink.publish([event]);
      }
      const arrived = await arrivalsOf(receivers, sent);
      const last = Math.max(...arrived.values());
      const rate = (arrived.size / (last - start)) * 1000;
      out(
        `| deliveries per second to a healthy local endpoint (${burst} events published at once; ${arrived.size} delivered) | ${rate.toFixed(0)} /s (${((last - start) / 1000).toFixed(1)} s) | reported |`,
      );
    }

    // Event → delivery: rounds alternate between the healthy endpoint alone and the same load with a dead
    // destination (a new one each round, so it is never yet disabled) taking every event too, so that what
    // else loads the machine meanwhile falls on both alike (the callbacks section alternates for the same
    // reason). A dead round ends when its dead destination has played out (time-outs, then disabled after
    // disableAfterFailures failures in a row) so that its work never spills into the next round.
    const count = Math.round(eventsPerSecond * seconds);
    const pooled = { alone: [] as number[], dead: [] as number[] };
    const roundP99 = { alone: [] as number[], dead: [] as number[] };
    let delivered = { alone: 0, dead: 0 };
    let dead: { timedOut: number; held: number; disabledAfterS: number[]; signals: number; unsent: number } =
      {
        timedOut: 0,
        held: 0,
        disabledAfterS: [],
        signals: 0,
        unsent: 0,
      };
    for (let round = 0; round < rounds * 2; round++) {
      const kind = round % 2 === 0 ? 'alone' : 'dead';
      const path = deliveryPath(
        {
          healthy: destination(receivers.healthyUrl, concurrency),
          ...(kind === 'dead' ? { dead: destination(receivers.deadUrl, concurrency) } : {}),
        },
        join(scratch, `round-${round}.ndjson`),
      );
      const start = nowMs();
      const sent = await paced((e) => path.sink.publish([e]), eventsPerSecond, count);
      const lat = latencies(sent, await arrivalsOf(receivers, sent));
      pooled[kind].push(...lat);
      roundP99[kind].push(percentile(lat, 99));
      delivered = { ...delivered, [kind]: delivered[kind] + lat.length };
      if (kind === 'dead') {
        const { held } = await receivers.take();
        await path.engine.settled();
        const attempts = path.log.attemptList.filter((a) => a.destination === 'dead');
        const signals = path.disabled.filter((d) => d.destination === 'dead');
        dead = {
          timedOut:
            dead.timedOut +
            attempts.filter((a) => a.status === null && a.latencyMs >= DELIVERY_TIMEOUT_MS).length,
          held: Math.max(dead.held, held),
          disabledAfterS: [
            ...dead.disabledAfterS,
            ...signals.slice(0, 1).map((d) => (d.atMs - start) / 1000),
          ],
          signals: dead.signals + signals.length,
          unsent: dead.unsent + attempts.filter((a) => a.excerpt.startsWith('not sent')).length,
        };
      }
    }
    pooled.alone.sort((a, b) => a - b);
    pooled.dead.sort((a, b) => a - b);
    const p99 = { alone: percentile(pooled.alone, 99), dead: percentile(pooled.dead, 99) };
    const load = `${eventsPerSecond} events/s, ${rounds} rounds of ${seconds} s each, alternating`;
    out(
      `| event → delivery p50 / p95 / p99 / max, healthy endpoint alone (${load}; ${delivered.alone} of ${count * rounds} delivered) | ${spread(pooled.alone)} (p99 per round: ${roundP99.alone.map(ms).join(', ')} ms) | reported |`,
    );
    out(
      `| event → delivery p50 / p95 / p99 / max, healthy endpoint beside a dead one (black-holed: up to ${dead.held} connections held unanswered; same load; ${delivered.dead} of ${count * rounds} delivered) | ${spread(pooled.dead)} (p99 per round: ${roundP99.dead.map(ms).join(', ')} ms) | none: p99 ${ms(p99.alone)} → ${ms(p99.dead)} ms (${p99.dead - p99.alone >= 0 ? '+' : ''}${ms(p99.dead - p99.alone)}) |`,
    );
    out(
      `| the dead destinations (one per dead round) | ${dead.timedOut} attempts timed out after ${DELIVERY_TIMEOUT_MS / 1000} s; disabled ${dead.disabledAfterS.map((s) => s.toFixed(0)).join(', ')} s after their first event (disableAfterFailures 20); ${dead.unsent} attempts then dead-lettered unsent; the disabled signal (operator event, alarm) given ${dead.signals} times for ${rounds} destinations | reported |`,
    );
  } finally {
    await receivers.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}
