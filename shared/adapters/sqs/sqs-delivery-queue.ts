import {
  ChangeMessageVisibilityCommand,
  ListDeadLetterSourceQueuesCommand,
  ListQueueTagsCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import {
  type DeliveryMessage,
  type DeliveryQueue,
  SQS_MAX_DELAY_SECONDS,
  SQS_MAX_VISIBILITY_SECONDS,
} from '../../app/delivery/queue-delivery';
import { DESTINATION_QUEUE_TAG } from '../../config/delivery-queues';

/** A queue's URL from its ARN (`arn:<partition>:sqs:<region>:<account>:<name>`), as SQS forms it. */
function queueUrlOf(queueArn: string): string {
  const [, partition, , region, account, name] = queueArn.split(':');
  if (!partition || !region || !account || !name) throw new Error(`not an SQS queue ARN: ${queueArn}`);
  const suffix = partition === 'aws-cn' ? 'amazonaws.com.cn' : 'amazonaws.com';
  return `https://sqs.${region}.${suffix}/${account}/${name}`;
}

/**
 * Each destination's queue ARN, found at run time from the delivery DLQ: every destination queue
 * dead-letters into it (SQS lists them, ListDeadLetterSourceQueues), and each carries its destination's
 * name in a tag (DESTINATION_QUEUE_TAG). Queues without the tag are not destination queues and are left out.
 * A source queue is in the DLQ's account and region (SQS allows no other), so its ARN is the DLQ's with its name.
 */
export async function destinationQueueArns(
  client: SQSClient,
  dlqArn: string,
): Promise<Record<string, string>> {
  const arnPrefix = dlqArn.slice(0, dlqArn.lastIndexOf(':') + 1);
  const urls: string[] = [];
  let nextToken: string | undefined;
  do {
    const page = await client.send(
      new ListDeadLetterSourceQueuesCommand({
        QueueUrl: queueUrlOf(dlqArn),
        MaxResults: 1000,
        NextToken: nextToken,
      }),
    );
    urls.push(...(page.queueUrls ?? []));
    nextToken = page.NextToken;
  } while (nextToken);
  const tagged = await Promise.all(
    urls.map(async (url) => {
      const { Tags } = await client.send(new ListQueueTagsCommand({ QueueUrl: url }));
      const destination = Tags?.[DESTINATION_QUEUE_TAG];
      return destination ? [[destination, arnPrefix + url.slice(url.lastIndexOf('/') + 1)] as const] : [];
    }),
  );
  return Object.fromEntries(tagged.flat());
}

/**
 * The destination queues on SQS: a retry is a new message (its attempt and due time in the body) delayed
 * by at most 15 minutes; an early message is hidden for at most 12 hours a step. The delivery function
 * takes records from every destination queue, so each call names the record's own queue.
 */
export function sqsDeliveryQueue(client: SQSClient): DeliveryQueue {
  return {
    async send(queueArn: string, message: DeliveryMessage, delaySeconds: number): Promise<void> {
      await client.send(
        new SendMessageCommand({
          QueueUrl: queueUrlOf(queueArn),
          MessageBody: JSON.stringify(message),
          DelaySeconds: Math.max(0, Math.min(SQS_MAX_DELAY_SECONDS, Math.round(delaySeconds))),
        }),
      );
    },
    async hide(queueArn: string, receiptHandle: string, seconds: number): Promise<void> {
      await client.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: queueUrlOf(queueArn),
          ReceiptHandle: receiptHandle,
          VisibilityTimeout: Math.max(0, Math.min(SQS_MAX_VISIBILITY_SECONDS, Math.round(seconds))),
        }),
      );
    },
  };
}
