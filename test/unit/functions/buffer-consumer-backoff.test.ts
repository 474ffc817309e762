import { ChangeMessageVisibilityBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createBufferConsumer, type SqsEvent } from '../../../functions/buffer-consumer/handler';
import { sqsRetryLater } from '../../../shared/adapters/sqs/sqs-retry-later';
import {
  BUFFER_MAX_RECEIVE_COUNT,
  BUFFER_RETENTION_DAYS,
  BUFFER_UNAPPLIABLE_RETRY_SECONDS,
  bufferBackoffTotalSeconds,
  bufferRetryDelaySeconds,
} from '../../../shared/app/buffer/retry-backoff';
import { bufferServices, bufferWhileStoreDown } from '../../helpers/buffer-world';

const QUEUE_URL = 'https://sqs.eu-west-1.amazonaws.com/123456789012/IngressBuffer';
const sqs = mockClient(SQSClient);
// The mock patches the client class every later file of this worker shares: undo it.
afterAll(() => sqs.restore());

afterEach(() => sqs.reset());

/** Two buffered MoMo callbacks (the store failed when they came), received `receives` times each. */
async function bufferedWorld(receives: number) {
  const { store, buffer, services } = bufferServices();
  await bufferWhileStoreDown({ store, services }, ['100', '101']);
  const event: SqsEvent = buffer.asSqsEvent();
  event.Records = event.Records.map((record, i) => ({
    ...record,
    receiptHandle: `handle-${i}`,
    attributes: { ApproximateReceiveCount: String(receives) },
  }));
  return { store, services, event };
}

const visibilityCalls = () =>
  sqs
    .commandCalls(ChangeMessageVisibilityBatchCommand)
    .map((call) => call.args[0].input)
    .map((input) => ({
      queueUrl: input.QueueUrl,
      entries: input.Entries?.map((e) => [e.ReceiptHandle, e.VisibilityTimeout]),
    }));

describe('buffer consumer backoff on storage errors', () => {
  it('grows the wait before the next receive with the receive count, up to a 15-minute cap', () => {
    // Act
    const delays = [1, 2, 3, 4, 5, 6, 7, 339].map(bufferRetryDelaySeconds);

    // Assess
    expect(delays).toEqual([30, 60, 120, 240, 480, 900, 900, 900]);
  });

  it('dead-letters a record only after about 3.5 days of failures, inside the 4-day retention', () => {
    // Act
    const total = bufferBackoffTotalSeconds();

    // Assess
    expect(total).toBe(302_430);
    expect(total).toBeGreaterThan(3 * 86_400);
    // Almost 12 hours of slack before the retention would delete it instead.
    expect(total).toBeLessThan(BUFFER_RETENTION_DAYS * 86_400 - 11 * 3600);
  });

  it('keeps a record out of the DLQ through a 15-minute storage outage', () => {
    // Prepare: receives happen every time the previous wait has passed.
    let elapsed = 0;
    let receives = 0;

    // Act
    while (elapsed <= 15 * 60) elapsed += bufferRetryDelaySeconds(++receives);

    // Assess
    expect(receives).toBeLessThan(10);
    expect(receives).toBeLessThan(BUFFER_MAX_RECEIVE_COUNT);
  });

  it('delays every record of a batch that failed on the store by the backoff of its receive count', async () => {
    // Prepare
    const { store, services, event } = await bufferedWorld(3);
    store.failure = 'error';
    sqs.on(ChangeMessageVisibilityBatchCommand).resolves({ Successful: [], Failed: [] });

    // Act
    const answer = await createBufferConsumer(services, {
      retryLater: sqsRetryLater(new SQSClient({ region: 'eu-west-1' }), QUEUE_URL),
    })(event, {} as never);

    // Assess
    expect(answer.batchItemFailures).toHaveLength(2);
    expect(visibilityCalls()).toEqual([
      {
        queueUrl: QUEUE_URL,
        entries: [
          ['handle-0', 120],
          ['handle-1', 120],
        ],
      },
    ]);
  });

  it('sends an unappliable record back soon, so it reaches the DLQ without days of backoff', async () => {
    // Prepare
    const { services } = await bufferedWorld(1);
    sqs.on(ChangeMessageVisibilityBatchCommand).resolves({});

    // Act
    await createBufferConsumer(services, {
      retryLater: sqsRetryLater(new SQSClient({ region: 'eu-west-1' }), QUEUE_URL),
    })(
      {
        Records: [
          {
            messageId: 'a',
            receiptHandle: 'garbage',
            body: 'garbage',
            attributes: { ApproximateReceiveCount: '7' },
          },
        ],
      },
      {} as never,
    );

    // Assess
    expect(visibilityCalls()[0]?.entries).toEqual([['garbage', BUFFER_UNAPPLIABLE_RETRY_SECONDS]]);
  });

  it('changes no visibility when every record applied', async () => {
    // Prepare
    const { store, services, event } = await bufferedWorld(2);
    store.failure = 'none';

    // Act
    const answer = await createBufferConsumer(services, {
      retryLater: sqsRetryLater(new SQSClient({ region: 'eu-west-1' }), QUEUE_URL),
    })(event, {} as never);

    // Assess
    expect(answer.batchItemFailures).toEqual([]);
    expect(visibilityCalls()).toEqual([]);
  });

  it('still reports the records back when SQS refuses the visibility change (the queue timeout applies)', async () => {
    // Prepare
    const { store, services, event } = await bufferedWorld(1);
    store.failure = 'error';
    sqs.on(ChangeMessageVisibilityBatchCommand).resolves({
      Failed: [{ Id: '0', Code: 'ReceiptHandleIsInvalid', SenderFault: true }],
    });

    // Act
    const answer = await createBufferConsumer(services, {
      retryLater: sqsRetryLater(new SQSClient({ region: 'eu-west-1' }), QUEUE_URL),
    })(event, {} as never);

    // Assess
    expect(answer.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(
      event.Records.map((r) => r.messageId),
    );
  });
});
