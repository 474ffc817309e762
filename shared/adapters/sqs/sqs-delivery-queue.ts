import { ChangeMessageVisibilityCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import {
  type DeliveryMessage,
  type DeliveryQueue,
  SQS_MAX_DELAY_SECONDS,
  SQS_MAX_VISIBILITY_SECONDS,
} from '../../app/delivery/queue-delivery';

/** A queue's URL from its ARN (`arn:<partition>:sqs:<region>:<account>:<name>`), as SQS forms it. */
function queueUrlOf(queueArn: string): string {
  const [, partition, , region, account, name] = queueArn.split(':');
  if (!partition || !region || !account || !name) throw new Error(`not an SQS queue ARN: ${queueArn}`);
  const suffix = partition === 'aws-cn' ? 'amazonaws.com.cn' : 'amazonaws.com';
  return `https://sqs.${region}.${suffix}/${account}/${name}`;
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
