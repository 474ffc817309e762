import { ListDeadLetterSourceQueuesCommand, ListQueueTagsCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { destinationQueueArns } from '../../../shared/adapters/sqs/sqs-delivery-queue';

const sqs = mockClient(SQSClient);
// The mock patches the client class every later file of this worker shares: undo it.
afterAll(() => sqs.restore());
afterEach(() => sqs.reset());

const DLQ_ARN = 'arn:aws-cn:sqs:cn-north-1:123456789012:Relay-DeliveryDlq-AbC123';
const urlOf = (name: string) => `https://sqs.cn-north-1.amazonaws.com.cn/123456789012/${name}`;

describe('destinationQueueArns (the management function finds the destination queues for replays)', () => {
  it('lists the delivery DLQ’s source queues over every page and names each by its destination tag', async () => {
    // Prepare: two pages of sources; one queue someone else pointed at the DLQ, without the tag.
    sqs
      .on(ListDeadLetterSourceQueuesCommand, { NextToken: undefined })
      .resolves({ queueUrls: [urlOf('Relay-DeliveryshopQueue-1'), urlOf('other-queue')], NextToken: 'p2' })
      .on(ListDeadLetterSourceQueuesCommand, { NextToken: 'p2' })
      .resolves({ queueUrls: [urlOf('Relay-DeliveryerpQueue-2')] });
    sqs
      .on(ListQueueTagsCommand, { QueueUrl: urlOf('Relay-DeliveryshopQueue-1') })
      .resolves({ Tags: { 'mobile-money-relay:destination': 'shop' } })
      .on(ListQueueTagsCommand, { QueueUrl: urlOf('Relay-DeliveryerpQueue-2') })
      .resolves({ Tags: { 'mobile-money-relay:destination': 'erp', team: 'payments' } })
      .on(ListQueueTagsCommand, { QueueUrl: urlOf('other-queue') })
      .resolves({ Tags: { team: 'payments' } });

    // Act
    const arns = await destinationQueueArns(new SQSClient({ region: 'cn-north-1' }), DLQ_ARN);

    // Assess: the DLQ asked by its URL; each destination's queue ARN in the DLQ's partition and account.
    expect(sqs.commandCalls(ListDeadLetterSourceQueuesCommand).map((c) => c.args[0].input.QueueUrl)).toEqual([
      urlOf('Relay-DeliveryDlq-AbC123'),
      urlOf('Relay-DeliveryDlq-AbC123'),
    ]);
    expect(arns).toEqual({
      shop: 'arn:aws-cn:sqs:cn-north-1:123456789012:Relay-DeliveryshopQueue-1',
      erp: 'arn:aws-cn:sqs:cn-north-1:123456789012:Relay-DeliveryerpQueue-2',
    });
  });

  it('finds none when the DLQ has no source queue', async () => {
    sqs.on(ListDeadLetterSourceQueuesCommand).resolves({ queueUrls: [] });
    await expect(destinationQueueArns(new SQSClient({ region: 'cn-north-1' }), DLQ_ARN)).resolves.toEqual({});
    expect(sqs.commandCalls(ListQueueTagsCommand)).toHaveLength(0);
  });
});
