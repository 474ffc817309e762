import type { DynamoDBStreamEvent } from 'aws-lambda';
import { imagesOf } from '../adapters/dynamodb/stream';
import type { StoredChange } from '../app/outbox/publish-outbox';

/** The table's stream records as the changes the publisher reads (the store is DynamoDB, in AWS and locally). */
export function storedChanges(event: DynamoDBStreamEvent): StoredChange[] {
  return event.Records.map((record) => ({
    position: record.dynamodb?.SequenceNumber ?? '',
    ...imagesOf(record),
  }));
}
