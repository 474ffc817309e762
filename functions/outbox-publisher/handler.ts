import middy from '@middy/core';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { type PublishOutboxDeps, publishOutbox } from '../../shared/app/outbox/publish-outbox';
import { lambdaMiddlewares } from '../../shared/runtime/lambda-middleware';
import { storedChanges } from '../../shared/runtime/stored-changes';

/**
 * The table's stream → publishOutbox. Records are handled in order; on the first failure the rest of the
 * batch is reported back (ReportBatchItemFailures) so Lambda retries from there and, when retries run
 * out, sends the record to the DLQ.
 */
export function createOutboxPublisher(deps: PublishOutboxDeps) {
  return middy<DynamoDBStreamEvent, DynamoDBBatchResponse>()
    .use(lambdaMiddlewares<DynamoDBStreamEvent, DynamoDBBatchResponse>())
    .handler(async (event) => {
      const { failedAt } = await publishOutbox(storedChanges(event), deps);
      return { batchItemFailures: failedAt === undefined ? [] : [{ itemIdentifier: failedAt }] };
    });
}
