import { deliveryConcurrency } from '../../config/limits';
import type { DestinationConfig } from '../../config/schema';
import type { EventEnvelope } from '../../domain/event-envelope';
import { DeliveryPathUnavailableError } from '../../domain/errors';
import type { Scrubber } from '../../util/redact';
import type { Clock, RelayLogger, RelayMetrics } from '../ports';
import { attemptDelivery, type AttemptResult, type Deliverers } from './engine';

import type {
  DeliveredEvent,
  DeliveryLog,
  DeliverySelector,
  DestinationStateStore,
  WebhookSender,
} from './ports';
import {
  DELIVERIES_DEAD_LETTERED_METRIC,
  DELIVERIES_DELIVERED_METRIC,
  DELIVERY_ERRORS_METRIC,
  DELIVERY_MESSAGES_REFUSED_METRIC,
  DESTINATIONS_DISABLED_METRIC,
} from '../../config/metric-names';

/**
 * The AWS delivery path (docs/webhooks.md#in-aws): an EventBridge rule per destination puts each event it
 * accepts on the destination's own SQS queue as `{destination, attempt: 0, event}`; the delivery function
 * takes batches from every destination queue and makes one attempt per message with the same code as
 * `npm start` (attemptDelivery). Long back-offs live in SQS: a retry is a NEW message carrying its attempt
 * number and due time, sent with a delay of at most 15 minutes; a message received before its due time is
 * hidden again (ChangeMessageVisibility, at most 12 hours a step), so a 24-hour wait is three receives.
 */

/** SQS's longest DelaySeconds on SendMessage. */
export const SQS_MAX_DELAY_SECONDS = 900;
/** SQS's longest visibility timeout (ChangeMessageVisibility). */
export const SQS_MAX_VISIBILITY_SECONDS = 43_200;
/**
 * How often a paused destination's messages look at its state again: each is put back on its queue
 * (a new message, so the receive count never takes it to the DLQ) delayed by this; a resume releases
 * them within it.
 */
export const PAUSED_RECHECK_SECONDS = 60;
/** Time kept back from the invocation's deadline after the last attempt that may start. */
const DEADLINE_MARGIN_MS = 3_000;

/** One message of a destination queue: an event's attempt at that destination. */
export interface DeliveryMessage {
  destination: string;
  /** 0 for the rule's message; the retry messages carry theirs. */
  attempt: number;
  /** Not attempted before this time (ISO). Absent (the rule's message): sent time + the schedule's first entry. */
  dueAt?: string;
  event: EventEnvelope;
  replayedBy?: string;
}

/** The parts of an SQS record the delivery reads. */
export interface DeliveryQueueRecord {
  messageId: string;
  receiptHandle: string;
  body: string;
  /** The destination queue's ARN: retries go back to it. */
  eventSourceARN: string;
  attributes?: { SentTimestamp?: string; ApproximateReceiveCount?: string };
}

/** The destination queues (shared/adapters/sqs/sqs-delivery-queue.ts). */
export interface DeliveryQueue {
  /** Sends a message to the queue, invisible for `delaySeconds` (at most SQS_MAX_DELAY_SECONDS). */
  send(queueArn: string, message: DeliveryMessage, delaySeconds: number): Promise<void>;
  /** Keeps a received message invisible for `seconds` (at most SQS_MAX_VISIBILITY_SECONDS). */
  hide(queueArn: string, receiptHandle: string, seconds: number): Promise<void>;
}

export interface QueueDeliveryDeps {
  destinations: Readonly<Record<string, DestinationConfig>>;
  /** The destination's signing secrets, current first (Secrets Manager behind a cache, or the config). */
  secretsOf: (destination: string) => Promise<readonly string[]>;
  sender: WebhookSender;
  /** Each destination type's sender, built once per function (the sqs type's STS credential cache); absent: https only. */
  deliverers?: Deliverers;
  log: DeliveryLog;
  /** The one destination state store (pause, rotation, disabling), the management API's too. */
  states: DestinationStateStore;
  /** Reads a rotated-in secret by its reference; absent: rotations are not honoured. */
  resolveSecret?: (secretRef: string) => Promise<string>;
  queue: DeliveryQueue;
  clock: Clock;
  scrub: Scrubber;
  logger: RelayLogger;
  metrics: RelayMetrics;
  /** Milliseconds left in this invocation (Lambda's context). */
  remainingMs: () => number;
  /** Waits between attempt starts (the destination's rate). */
  wait: (ms: number) => Promise<void>;
}

export interface DeliveryBatchResponse {
  batchItemFailures: { itemIdentifier: string }[];
}

/** The logged form of an event: the exact body that is signed. */
function deliveredEventOf(event: EventEnvelope): DeliveredEvent {
  return {
    eventId: event.metadata.id,
    eventType: event.metadata.type,
    correlationId: event.metadata.correlationId,
    occurredAt: event.metadata.occurredAt,
    body: JSON.stringify(event),
  };
}

function parseMessage(body: string): DeliveryMessage | undefined {
  try {
    const message = JSON.parse(body) as Partial<DeliveryMessage>;
    const metadata = (message.event as EventEnvelope | undefined)?.metadata;
    if (
      typeof message.destination === 'string' &&
      Number.isInteger(message.attempt) &&
      typeof metadata?.id === 'string' &&
      typeof metadata.correlationId === 'string'
    )
      return message as DeliveryMessage;
  } catch {
    // Reported below: not a delivery message.
  }
  return undefined;
}

/**
 * One batch of one or more destination queues (ReportBatchItemFailures): a record is acknowledged when its
 * attempt is decided and, for a retry, its next message is on the queue; otherwise it is reported back.
 * Attempts run one after another, started at most `ratePerSecond / concurrency` a second: with the event
 * source mapping's maximum concurrency equal to the destination's concurrency, the destination gets at
 * most `ratePerSecond` attempts a second and `concurrency` at once. A record received before its due time
 * is hidden until then; one the invocation has no time left for is handed back at once.
 */
export async function deliverQueueBatch(
  deps: QueueDeliveryDeps,
  records: readonly DeliveryQueueRecord[],
): Promise<DeliveryBatchResponse> {
  const batch: Batch = { failures: [], nextStartMs: new Map() };
  for (const record of records) await deliverRecord(deps, batch, record);
  return { batchItemFailures: batch.failures };
}

/** What one batch's records share: the records reported back, and when each destination may start next. */
interface Batch {
  failures: { itemIdentifier: string }[];
  nextStartMs: Map<string, number>;
}

/** Reports a record back to the queue, hidden for `seconds` when given (else the queue's visibility timeout). */
async function handBack(
  deps: QueueDeliveryDeps,
  batch: Batch,
  record: DeliveryQueueRecord,
  seconds: number | undefined,
): Promise<void> {
  batch.failures.push({ itemIdentifier: record.messageId });
  if (seconds === undefined) return;
  await deps.queue
    .hide(record.eventSourceARN, record.receiptHandle, Math.min(SQS_MAX_VISIBILITY_SECONDS, seconds))
    .catch((error: Error) =>
      deps.logger.warn('could not hide a delivery message; the queue visibility timeout applies', {
        messageId: record.messageId,
        error: deps.scrub(error.message),
      }),
    );
}

/** One record: refused, hidden until it is due, handed back for want of time, or attempted. */
async function deliverRecord(
  deps: QueueDeliveryDeps,
  batch: Batch,
  record: DeliveryQueueRecord,
): Promise<void> {
  const message = parseMessage(record.body);
  const config = message && deps.destinations[message.destination];
  if (!message || !config) {
    // Never deliverable: after the queue's maxReceiveCount it rests in the delivery DLQ (an alarm).
    deps.logger.error('delivery message refused: not a delivery message or an unknown destination', {
      messageId: record.messageId,
      destination: message?.destination,
    });
    deps.metrics.count(DELIVERY_MESSAGES_REFUSED_METRIC, 1);
    return handBack(deps, batch, record, undefined);
  }
  const nowMs = deps.clock.now().getTime();
  const dueMs =
    message.dueAt !== undefined
      ? Date.parse(message.dueAt)
      : Number(record.attributes?.SentTimestamp ?? nowMs) + (config.retryScheduleSeconds[0] ?? 0) * 1000;
  // Early (a wait longer than SQS lets a message be delayed or hidden at once): hide it until due.
  if (dueMs - nowMs >= 1000) return handBack(deps, batch, record, Math.ceil((dueMs - nowMs) / 1000));
  if (deps.remainingMs() < config.timeoutMs + DEADLINE_MARGIN_MS) return handBack(deps, batch, record, 0);
  const spacingMs = (1000 * deliveryConcurrency(config)) / config.ratePerSecond;
  const startAt = batch.nextStartMs.get(message.destination) ?? 0;
  if (startAt > nowMs) await deps.wait(startAt - nowMs);
  batch.nextStartMs.set(message.destination, Math.max(startAt, nowMs) + spacingMs);
  try {
    const result = await attemptMessage(deps, message, config);
    countOutcome(deps, message.destination, result);
    if (result.outcome === 'retrying' || result.outcome === 'held')
      await queueNextAttempt(deps, batch, record, message, result);
  } catch (error) {
    deps.logger.error('delivery attempt not decided (store or secret unavailable); retried', {
      destination: message.destination,
      eventId: message.event.metadata.id,
      error: deps.scrub((error as Error).message),
    });
    deps.metrics.count(DELIVERY_ERRORS_METRIC, 1);
    await handBack(deps, batch, record, undefined);
  }
}

/** The message's attempt, through the one attempt code (engine.ts), the event logged with its first. */
async function attemptMessage(
  deps: QueueDeliveryDeps,
  message: DeliveryMessage,
  config: DestinationConfig,
): Promise<AttemptResult> {
  const event = deliveredEventOf(message.event);
  // The rule's own message (a held one comes back with a dueAt): the event is logged once.
  if (message.attempt === 0 && !message.replayedBy && message.dueAt === undefined)
    await deps.log.recordEvent(event);
  return attemptDelivery(
    {
      destination: message.destination,
      config,
      secrets: await deps.secretsOf(message.destination),
      sender: deps.sender,
      ...(deps.deliverers ? { deliverers: deps.deliverers } : {}),
      log: deps.log,
      clock: deps.clock,
      scrub: deps.scrub,
      runtime: 'aws',
      states: deps.states,
      ...(deps.resolveSecret ? { resolveSecret: deps.resolveSecret } : {}),
    },
    {
      event,
      attempt: message.attempt,
      ...(message.replayedBy ? { replayedBy: message.replayedBy } : {}),
    },
  );
}

/** The outcome's metrics (and a warning the first time a destination is disabled). */
function countOutcome(deps: QueueDeliveryDeps, destination: string, result: AttemptResult): void {
  if (result.outcome === 'delivered') deps.metrics.count(DELIVERIES_DELIVERED_METRIC, 1, { destination });
  if (result.outcome === 'dead-letter') deps.metrics.count(DELIVERIES_DEAD_LETTERED_METRIC, 1);
  if (result.outcome === 'destination-disabled' && result.event) {
    deps.metrics.count(DESTINATIONS_DISABLED_METRIC, 1);
    deps.logger.warn('webhook destination disabled', { destination, reason: result.event.data.detail });
  }
}

/**
 * Paused: the same attempt later, not a failure; failed: the next attempt after its delay. Its message is
 * queued before the record is acknowledged; when that fails the record itself comes back after the delay.
 */
async function queueNextAttempt(
  deps: QueueDeliveryDeps,
  batch: Batch,
  record: DeliveryQueueRecord,
  message: DeliveryMessage,
  result: Extract<AttemptResult, { outcome: 'retrying' | 'held' }>,
): Promise<void> {
  const [attempt, delaySeconds] =
    result.outcome === 'held'
      ? [message.attempt, PAUSED_RECHECK_SECONDS]
      : [message.attempt + 1, result.delaySeconds];
  const dueAt = new Date(deps.clock.now().getTime() + delaySeconds * 1000).toISOString();
  try {
    await deps.queue.send(
      record.eventSourceARN,
      { ...message, attempt, dueAt },
      Math.min(SQS_MAX_DELAY_SECONDS, delaySeconds),
    );
  } catch (error) {
    // The attempt was made and logged; this one comes back after the delay and is attempted again.
    deps.logger.warn('could not queue a delivery retry; the message is retried instead', {
      destination: message.destination,
      eventId: message.event.metadata.id,
      error: deps.scrub((error as Error).message),
    });
    await handBack(deps, batch, record, delaySeconds);
  }
}

export interface QueueReplayDeps {
  log: DeliveryLog;
  queue: DeliveryQueue;
  /** Each destination's queue ARN (the construct passes them to the management function). */
  queueArns: Readonly<Record<string, string>>;
  clock: Clock;
}

/**
 * A replay in AWS (POST /v1/destinations/{id}/replay with dryRun false, after its dry-run count): the
 * logged events the selector matches go on the destination's own queue as attempt 0 with `replayedBy`,
 * so the delivery function sends them with their original webhook-id, under the destination's rate,
 * concurrency and state (a paused destination holds them). The delivery log keeps who asked (the audit
 * log too, through the management route).
 */
export async function replayToQueue(
  deps: QueueReplayDeps,
  destination: string,
  selector: DeliverySelector,
  options: { actor: string },
): Promise<{ count: number }> {
  const queueArn = Object.hasOwn(deps.queueArns, destination) ? deps.queueArns[destination] : undefined;
  if (!queueArn) throw new DeliveryPathUnavailableError(`no delivery queue for destination "${destination}"`);
  const events = await deps.log.events(selector);
  await deps.log.recordReplay({
    destination,
    selector,
    count: events.length,
    actor: options.actor,
    at: deps.clock.now().toISOString(),
  });
  for (const event of events)
    await deps.queue.send(
      queueArn,
      { destination, attempt: 0, event: JSON.parse(event.body) as EventEnvelope, replayedBy: options.actor },
      0,
    );
  return { count: events.length };
}
