import middy from '@middy/core';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { imagesOf } from '../../shared/adapters/dynamodb/stream';
import { eventsFromChange } from '../../shared/domain/outbox';
import { type EventSink, noMetrics, type RelayLogger, type RelayMetrics } from '../../shared/app/ports';
import { lambdaMiddlewares } from '../../shared/runtime/lambda-middleware';

/**
 * Publishes the events each stream record carries. Records are handled in order; on the first
 * failure the rest of the batch is reported back (ReportBatchItemFailures) so Lambda retries from
 * there and, when retries run out, sends the record to the DLQ.
 */
export function createOutboxPublisher(deps: { sink: EventSink; log: RelayLogger; metrics?: RelayMetrics }) {
  const metrics = deps.metrics ?? noMetrics;
  return middy<DynamoDBStreamEvent, DynamoDBBatchResponse>()
    .use(lambdaMiddlewares<DynamoDBStreamEvent, DynamoDBBatchResponse>())
    .handler(async (event) => {
      for (const record of event.Records) {
        const { oldImage, newImage } = imagesOf(record);
        const events = eventsFromChange(oldImage, newImage);
        if (events.length === 0) continue;
        try {
          await deps.sink.publish(events);
          // No count metric of its own ($0.30 a month, read by no alarm): the line below counts, and
          // EventBridge's own AWS/Events metrics (PutEvents entries per bus) are free.
          deps.log.info('events published', {
            count: events.length,
            types: events.map((e) => e.metadata.type),
          });
        } catch (error) {
          metrics.count('EventPublishFailures', 1);
          deps.log.error('event publishing failed; batch will be retried from this record', {
            sequenceNumber: record.dynamodb?.SequenceNumber,
            eventIds: events.map((e) => e.metadata.id),
            error,
          });
          return { batchItemFailures: [{ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' }] };
        }
      }
      return { batchItemFailures: [] };
    });
}
