import {
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { SEAL_ATTRIBUTE } from '../../app/buffer/ingress-buffer';

/** A received buffer message as the consumer reads it (the shape of an SQS event's record). */
export interface ReceivedBufferRecord {
  messageId: string;
  receiptHandle?: string;
  body: string;
  attributes?: { ApproximateReceiveCount?: string };
  messageAttributes?: Record<string, { stringValue?: string } | undefined>;
}

/**
 * The ingress buffer queue read by the scheduled drain (functions/buffer-consumer): how many messages
 * wait, a short-poll receive (the drain only receives once SQS says messages wait, so no long poll is
 * held open), and batch deletes of the applied ones.
 */
export function sqsBufferQueue(client: SQSClient, queueUrl: string) {
  return {
    async waiting(): Promise<number> {
      const answer = await client.send(
        new GetQueueAttributesCommand({
          QueueUrl: queueUrl,
          AttributeNames: ['ApproximateNumberOfMessages'],
        }),
      );
      return Number(answer.Attributes?.ApproximateNumberOfMessages ?? '0');
    },
    async receive(max: number): Promise<ReceivedBufferRecord[]> {
      const answer = await client.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: Math.min(10, Math.max(1, max)),
          // One second: a long poll asks every SQS server, so a few waiting messages are not missed.
          WaitTimeSeconds: 1,
          MessageSystemAttributeNames: ['ApproximateReceiveCount'],
          MessageAttributeNames: [SEAL_ATTRIBUTE],
        }),
      );
      return (answer.Messages ?? []).map((m) => ({
        messageId: m.MessageId ?? '',
        ...(m.ReceiptHandle ? { receiptHandle: m.ReceiptHandle } : {}),
        body: m.Body ?? '',
        attributes: { ApproximateReceiveCount: m.Attributes?.ApproximateReceiveCount ?? '1' },
        messageAttributes: Object.fromEntries(
          Object.entries(m.MessageAttributes ?? {}).map(([name, value]) => [
            name,
            { ...(value.StringValue !== undefined ? { stringValue: value.StringValue } : {}) },
          ]),
        ),
      }));
    },
    async delete(receiptHandles: readonly string[]): Promise<void> {
      const failed: string[] = [];
      for (let start = 0; start < receiptHandles.length; start += 10) {
        const answer = await client.send(
          new DeleteMessageBatchCommand({
            QueueUrl: queueUrl,
            Entries: receiptHandles
              .slice(start, start + 10)
              .map((handle, i) => ({ Id: String(start + i), ReceiptHandle: handle })),
          }),
        );
        for (const entry of answer.Failed ?? []) failed.push(`${entry.Id}: ${entry.Code ?? 'failed'}`);
      }
      if (failed.length)
        throw new Error(`DeleteMessage refused ${failed.length} record(s): ${failed.join(', ')}`);
    },
  };
}
