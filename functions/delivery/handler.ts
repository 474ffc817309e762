import middy from '@middy/core';
import {
  type DeliveryBatchResponse,
  type DeliveryQueueRecord,
  deliverQueueBatch,
  type QueueDeliveryDeps,
} from '../../shared/app/delivery/queue-delivery';

/** The parts of an SQS event this function reads (hand-written: no aws-lambda types dependency needed). */
export interface DeliverySqsEvent {
  Records: DeliveryQueueRecord[];
}

/** The part of the Lambda context this function reads. */
export interface DeliveryContext {
  getRemainingTimeInMillis?: () => number;
}

/**
 * The webhook delivery function (docs/webhooks.md#in-aws): batches from the destination queues, one
 * attempt per record through the engine's code, partial batch failures (ReportBatchItemFailures).
 * `fallbackRemainingMs`: the time assumed when the context has none (not in Lambda).
 */
export function createDeliveryHandler(
  deps: Omit<QueueDeliveryDeps, 'remainingMs'>,
  options: { fallbackRemainingMs?: number } = {},
) {
  return middy<DeliverySqsEvent, DeliveryBatchResponse>().handler(async (event, context: DeliveryContext) =>
    deliverQueueBatch(
      {
        ...deps,
        remainingMs: () =>
          typeof context?.getRemainingTimeInMillis === 'function'
            ? context.getRemainingTimeInMillis()
            : (options.fallbackRemainingMs ?? 180_000),
      },
      event.Records,
    ),
  );
}
