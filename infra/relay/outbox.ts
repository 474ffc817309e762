import { Duration } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as events from 'aws-cdk-lib/aws-events';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

/** A FilterRule.exists() leaf, by its declared type. */
type FilterExists = ReturnType<typeof lambda.FilterRule.exists>;

/**
 * Stream filter of the outbox publisher: only records whose new image carries at least one outbox
 * event (an `outbox` list whose entries have `metadata.id`). `exists` only works on leaf values, so
 * the pattern names the leaf; Lambda's matcher looks inside every element of the list.
 * Receipts (the most frequent writes) carry no outbox and never invoke the publisher.
 */
export const OUTBOX_FILTER_PATTERN = {
  dynamodb: {
    NewImage: {
      // The leaf's type spelled out: the package's declarations are emitted file by file (scripts/declarations.ts).
      outbox: { L: { M: { metadata: { M: { id: { S: lambda.FilterRule.exists() as FilterExists } } } } } },
    },
  },
};

/**
 * How long the stream mapping gathers records before it invokes the publisher (MaximumBatchingWindowInSeconds;
 * it invokes sooner when a batch of 100 is full). Without a window each change is an invocation of its own at
 * a small partner's rate (~0.4 changes a second at 1 M a month), each billed as a request and its START/END/
 * REPORT log lines. With 3 s, an invocation carries 1 + 0.39 × 3 ≈ 2.2 changes at that rate and one per
 * second or more when busy. The price: an event reaches the bus up to 3 s later than it could (its write is
 * acknowledged to the provider as before; webhook deliveries and rules see it later). docs/deploy.md#cost-notes.
 */
export const OUTBOX_BATCHING_WINDOW_SECONDS = 3;

/** The outbox: table stream → publisher → EventBridge; returns the DLQ of batches it gave up on. */
export function connectOutbox(
  scope: Construct,
  table: dynamodb.ITable,
  publisher: lambda.Function,
  eventBus: events.IEventBus,
): sqs.Queue {
  // On-failure records of a stream mapping hold shard and sequence numbers, never item data, so
  // SQS-managed encryption is enough (and the DLQ needs no KMS grants).
  const dlq = new sqs.Queue(scope, 'OutboxDlq', {
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
  });
  publisher.addEventSource(
    new DynamoEventSource(table, {
      startingPosition: lambda.StartingPosition.TRIM_HORIZON,
      batchSize: 100,
      maxBatchingWindow: Duration.seconds(OUTBOX_BATCHING_WINDOW_SECONDS),
      bisectBatchOnError: true,
      // Retried until the record is 12 h old, not a number of times: Lambda retries a stream batch at
      // once, so 10 retries of a publisher that tries PutEvents for ~1.5 s spent ~17 s of an EventBridge
      // brown-out before the change left for the DLQ (a pointer, re-published by hand). Meanwhile the
      // shard waits (events stay in order) and the iterator-age alarm pages after 2 minutes.
      retryAttempts: -1,
      // Give up (to the DLQ) well before the stream's 24 h retention trims the records.
      maxRecordAge: Duration.hours(12),
      reportBatchItemFailures: true,
      onFailure: new SqsDlq(dlq),
      filters: [lambda.FilterCriteria.filter(OUTBOX_FILTER_PATTERN)],
    }),
  );
  eventBus.grantPutEventsTo(publisher);
  return dlq;
}
