import middy from '@middy/core';
import { settleBuffered } from '../../shared/app/buffer/settle-buffered';
import { SEAL_ATTRIBUTE, sealMatches } from '../../shared/app/buffer/ingress-buffer';
import {
  BUFFER_UNAPPLIABLE_RETRY_SECONDS,
  bufferRetryDelaySeconds,
} from '../../shared/app/buffer/retry-backoff';
import type { CallbackServices } from '../../shared/app/services';
import { BUFFERED_APPLIED_METRIC, BUFFERED_FAILED_METRIC } from '../../shared/config/metric-names';

/** The parts of an SQS event this function reads (hand-written: no aws-lambda types dependency needed). */
export interface SqsEvent {
  Records: {
    messageId: string;
    receiptHandle?: string;
    body: string;
    attributes?: { ApproximateReceiveCount?: string };
    messageAttributes?: Record<string, { stringValue?: string } | undefined>;
  }[];
}

/** ReportBatchItemFailures: the records SQS makes visible again (then, after maxReceiveCount, the DLQ). */
export interface SqsBatchResponse {
  batchItemFailures: { itemIdentifier: string }[];
}

/** The part of the Lambda context this function reads. */
export interface ConsumerContext {
  getRemainingTimeInMillis?: () => number;
}

export interface BufferConsumerOptions {
  /** Kept back from the function's timeout: the answer and the metrics flush must leave. @default 5000 */
  safetyMarginMs?: number;
  /** A record is not started with less than this left before the deadline. @default 2000 */
  minStartMs?: number;
  /** When the context has no remaining time (not in Lambda): the function's timeout. @default 30000 */
  fallbackRemainingMs?: number;
  /**
   * The buffer key: a record whose seal (attribute relay-seal) does not match is refused and goes to the
   * dead-letter queue — only what the callback function wrote is applied. Absent: records are not checked.
   */
  sealKey?: Buffer;
  /**
   * Makes reported records invisible for the given seconds (SQS ChangeMessageVisibility): the backoff
   * of shared/app/buffer/retry-backoff.ts. Its failure is logged, never thrown: the queue's visibility
   * timeout then applies. Absent: the queue's visibility timeout applies to every retry.
   */
  retryLater?: (records: ReadonlyArray<{ receiptHandle: string; seconds: number }>) => Promise<void>;
}

/** Why a record is reported back; sets how long it waits before its next receive. */
type Reason = 'storage' | 'deadline' | 'unappliable' | 'unsealed' | 'error';

/** Why the batch stopped trying records: the store failed, or the invocation's deadline came. */
type Stop = 'storage' | 'deadline';

/**
 * Applies buffered callbacks (the ingress buffer queue, batches of up to 10). Applied records are
 * deleted by SQS; the others are reported back: while the store is down they come back after the
 * visibility timeout, and one that can never be applied is logged as such and reaches the dead-letter
 * queue after maxReceiveCount. Once the store fails, the rest of the batch is not tried: it would fail
 * the same way, each after the store's timeouts.
 *
 * Every invocation has a deadline: the function's remaining time minus a safety margin. Its
 * AbortSignal reaches every store call of applying a record, so a stalled call is cut; a record is not
 * started when too little time is left. Whatever was not applied (not started, cut, failed) is reported
 * back, so the records applied before the deadline stay applied and are not received again.
 */
export function createBufferConsumer(services: CallbackServices, options: BufferConsumerOptions = {}) {
  const { safetyMarginMs = 5_000, minStartMs = 2_000, fallbackRemainingMs = 30_000 } = options;
  return middy<SqsEvent, SqsBatchResponse>().handler(async (event, context: ConsumerContext) => {
    const remainingMs =
      typeof context?.getRemainingTimeInMillis === 'function'
        ? context.getRemainingTimeInMillis()
        : fallbackRemainingMs;
    const deadline = performance.now() + remainingMs - safetyMarginMs;
    const budgetMs = Math.floor(deadline - performance.now());
    const signal = budgetMs > 0 ? AbortSignal.timeout(budgetMs) : AbortSignal.abort();
    const failures: { itemIdentifier: string }[] = [];
    const delays: { receiptHandle: string; seconds: number }[] = [];
    const retry = (record: SqsEvent['Records'][number], reason: Reason) => {
      failures.push({ itemIdentifier: record.messageId });
      if (!record.receiptHandle) return;
      const receives = Number(record.attributes?.ApproximateReceiveCount ?? '1');
      // Never applicable: the DLQ soon. Otherwise the store (or time) failed: back off with the receives.
      const seconds =
        reason === 'unappliable' || reason === 'unsealed'
          ? BUFFER_UNAPPLIABLE_RETRY_SECONDS
          : bufferRetryDelaySeconds(receives);
      delays.push({ receiptHandle: record.receiptHandle, seconds });
    };
    let stopped: Stop | undefined;
    let stoppedLogged = false;
    try {
      for (const record of event.Records) {
        if (!stopped && deadline - performance.now() < minStartMs) stopped = 'deadline';
        const fields = {
          messageId: record.messageId,
          receiveCount: record.attributes?.ApproximateReceiveCount,
        };
        if (stopped) {
          retry(record, stopped);
          services.metrics?.count(BUFFERED_FAILED_METRIC, 1, { reason: stopped });
          if (stopped === 'deadline' && !stoppedLogged) {
            stoppedLogged = true;
            services.log.warn('buffered callbacks not started: the invocation deadline is near; retried', {
              ...fields,
              leftMs: Math.round(deadline - performance.now()),
            });
          }
          continue;
        }
        if (
          options.sealKey &&
          !sealMatches(record.body, record.messageAttributes?.[SEAL_ATTRIBUTE]?.stringValue, options.sealKey)
        ) {
          // Made up or altered outside the callback function: never applied, kept in the DLQ to look at.
          retry(record, 'unsealed');
          services.metrics?.count(BUFFERED_FAILED_METRIC, 1, { reason: 'unsealed' });
          services.log.error(
            'buffered message refused: its seal does not match (not written by the callback function); it goes to the dead-letter queue',
            fields,
          );
          continue;
        }
        const settled = await settleBuffered(services, () => record.body, { signal });
        if (settled.kind === 'applied') {
          services.metrics?.count(BUFFERED_APPLIED_METRIC, 1, { provider: settled.message.provider });
          continue;
        }
        const logged = { ...fields, error: settled.error.message };
        retry(record, settled.kind);
        services.metrics?.count(BUFFERED_FAILED_METRIC, 1, { reason: settled.kind });
        if (settled.kind === 'unappliable') {
          services.log.error('buffered callback cannot be applied; it goes to the dead-letter queue', logged);
        } else if (settled.kind === 'deadline') {
          stopped = 'deadline';
          stoppedLogged = true;
          services.log.warn('buffered callback not applied: cut at the invocation deadline; retried', logged);
        } else if (settled.kind === 'storage') {
          stopped = 'storage';
          services.log.warn('buffered callback not applied: the store is still unavailable; retried', logged);
        } else {
          services.log.error('buffered callback not applied: unexpected error; retried', logged);
        }
      }
      if (delays.length && options.retryLater) {
        await options.retryLater(delays).catch((error: Error) =>
          services.log.warn('could not delay the retried buffered callbacks; the queue visibility applies', {
            records: delays.length,
            error: error.message,
          }),
        );
      }
    } finally {
      services.metrics?.flush();
    }
    return { batchItemFailures: failures };
  });
}

/** The ingress buffer queue as the scheduled drain reads it (shared/adapters/sqs/sqs-buffer-queue.ts). */
export interface BufferQueue {
  /** Messages ready to be received now (SQS's ApproximateNumberOfMessages: one request, no receive). */
  waiting(): Promise<number>;
  /** Up to `max` messages, as the records of an SQS event (receipt handle, receive count, seal attribute). */
  receive(max: number): Promise<SqsEvent['Records']>;
  /** Deletes applied messages by their receipt handles. */
  delete(receiptHandles: readonly string[]): Promise<void>;
}

export interface BufferDrainOptions extends Omit<BufferConsumerOptions, 'sealKey'> {
  readonly queue: BufferQueue;
  /**
   * The seal key, read only once a message has been received: an idle drain (the queue empty, nearly
   * every minute) reads no secret. A failure fails the invocation; the received messages come back
   * after the queue's visibility timeout. Absent: records are not checked.
   */
  readonly sealKey?: () => Promise<Buffer | undefined>;
  /** Batches applied at once while a backlog lasts (the old event source's maximum concurrency). @default 5 */
  readonly lanes?: number;
}

/** SQS's largest receive. */
const BATCH = 10;

/**
 * The scheduled drain of the ingress buffer (EventBridge Scheduler, every minute; docs/ingress-buffer.md):
 * it asks SQS how many messages wait (one request: all an idle minute costs) and, only when some do,
 * receives them in batches of 10 and applies each batch as the SQS-event consumer above would
 * (same seal check, deadline, back-off and reasons), deleting the applied records itself. A full batch
 * means a backlog: `lanes` batches are then applied at once. A lane stops when the queue gives nothing,
 * when a batch applied nothing (the store is down, or the deadline came: the records back off) or when
 * too little time is left. An SQS event (an event source mapping someone wired) is still applied as before.
 */
export function createBufferDrain(services: CallbackServices, options: BufferDrainOptions) {
  const {
    queue,
    lanes = 5,
    safetyMarginMs = 5_000,
    minStartMs = 2_000,
    fallbackRemainingMs = 30_000,
  } = options;
  let sealKey: Promise<Buffer | undefined> | undefined;
  let consumer: ReturnType<typeof createBufferConsumer> | undefined;
  const consumerFor = async () => {
    sealKey ??= (options.sealKey?.() ?? Promise.resolve(undefined)).catch((error: unknown) => {
      sealKey = undefined;
      throw error;
    });
    const key = await sealKey;
    const { sealKey: _loader, ...rest } = options;
    consumer ??= createBufferConsumer(services, { ...rest, ...(key ? { sealKey: key } : {}) });
    return consumer;
  };
  return middy<SqsEvent | Record<string, unknown>, SqsBatchResponse | BufferDrainResult>().handler(
    async (event, context: ConsumerContext) => {
      if (Array.isArray((event as SqsEvent)?.Records))
        return (await consumerFor())(event as SqsEvent, context as never);
      const remaining = () =>
        typeof context?.getRemainingTimeInMillis === 'function'
          ? context.getRemainingTimeInMillis()
          : fallbackRemainingMs;
      const result = { received: 0, applied: 0 };
      if ((await queue.waiting()) === 0) return result;
      let stop = false;
      const lane = async (first?: SqsEvent['Records']) => {
        let records = first;
        while (!stop) {
          if (!records) {
            if (remaining() - safetyMarginMs < minStartMs) return;
            records = await queue.receive(BATCH);
          }
          if (records.length === 0) return;
          result.received += records.length;
          const answer = await (await consumerFor())({ Records: records }, context as never);
          const failed = new Set(answer.batchItemFailures.map((f) => f.itemIdentifier));
          const applied = records.filter((r) => !failed.has(r.messageId) && r.receiptHandle);
          if (applied.length) {
            result.applied += applied.length;
            await queue.delete(applied.map((r) => r.receiptHandle!)).catch((error: Error) =>
              // Received again after the visibility timeout and applied again: dedupe makes it harmless.
              services.log.warn('applied buffered callbacks not deleted; they will be applied again', {
                records: applied.length,
                error: error.message,
              }),
            );
          } else {
            // Nothing applied: the store is down or the deadline came; the next minute tries again.
            stop = true;
          }
          records = undefined;
        }
      };
      const first = await queue.receive(BATCH);
      if (first.length === BATCH)
        await Promise.all([lane(first), ...Array.from({ length: lanes - 1 }, () => lane())]);
      else await lane(first);
      services.log.info('ingress buffer drained', result);
      return result;
    },
  );
}

/** What one scheduled drain did. */
export interface BufferDrainResult {
  received: number;
  applied: number;
}
