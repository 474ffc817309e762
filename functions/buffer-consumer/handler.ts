import middy from '@middy/core';
import { applyBufferedCallback } from '../../shared/app/apply-buffered-callback';
import { UnappliableBufferedCallbackError } from '../../shared/app/ingress-buffer';
import type { RelayServices } from '../../shared/app/services';
import { StorageUnavailableError } from '../../shared/domain/errors';

/** The parts of an SQS event this function reads (hand-written: no aws-lambda types dependency needed). */
export interface SqsEvent {
  Records: { messageId: string; body: string; attributes?: { ApproximateReceiveCount?: string } }[];
}

/** ReportBatchItemFailures: the records SQS makes visible again (then, after maxReceiveCount, the DLQ). */
export interface SqsBatchResponse {
  batchItemFailures: { itemIdentifier: string }[];
}

/**
 * Applies buffered callbacks (the ingress buffer queue, batches of up to 10). Applied records are
 * deleted by SQS; the others are reported back: while the store is down they come back after the
 * visibility timeout, and one that can never be applied is logged as such and reaches the dead-letter
 * queue after maxReceiveCount. Once the store fails, the rest of the batch is not tried: it would fail
 * the same way, each after the store's timeouts.
 */
export function createBufferConsumer(services: RelayServices) {
  return middy<SqsEvent, SqsBatchResponse>().handler(async (event) => {
    const failures: { itemIdentifier: string }[] = [];
    let storeDown = false;
    try {
      for (const record of event.Records) {
        if (storeDown) {
          failures.push({ itemIdentifier: record.messageId });
          services.metrics?.count('BufferedCallbacksFailed', 1, { reason: 'storage' });
          continue;
        }
        try {
          const { message } = await applyBufferedCallback(services, record.body);
          services.metrics?.count('BufferedCallbacksApplied', 1, { provider: message.provider });
        } catch (error) {
          failures.push({ itemIdentifier: record.messageId });
          const fields = {
            messageId: record.messageId,
            receiveCount: record.attributes?.ApproximateReceiveCount,
            error: (error as Error).message,
          };
          if (error instanceof UnappliableBufferedCallbackError) {
            services.metrics?.count('BufferedCallbacksFailed', 1, { reason: 'unappliable' });
            services.log.error(
              'buffered callback cannot be applied; it goes to the dead-letter queue',
              fields,
            );
          } else if (error instanceof StorageUnavailableError) {
            storeDown = true;
            services.metrics?.count('BufferedCallbacksFailed', 1, { reason: 'storage' });
            services.log.warn(
              'buffered callback not applied: the store is still unavailable; retried',
              fields,
            );
          } else {
            services.metrics?.count('BufferedCallbacksFailed', 1, { reason: 'error' });
            services.log.error('buffered callback not applied: unexpected error; retried', fields);
          }
        }
      }
    } finally {
      services.metrics?.flush();
    }
    return { batchItemFailures: failures };
  });
}
