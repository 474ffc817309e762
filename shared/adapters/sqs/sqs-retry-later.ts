import { ChangeMessageVisibilityBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';

/**
 * The buffer consumer's backoff on SQS: each reported record stays invisible for its own number of
 * seconds (ChangeMessageVisibilityBatch, 10 entries a call, a Lambda SQS batch's size). Entries SQS
 * refuses are named in the error, so the caller logs them (the queue's visibility timeout applies).
 */
export function sqsRetryLater(client: SQSClient, queueUrl: string) {
  return async (records: ReadonlyArray<{ receiptHandle: string; seconds: number }>): Promise<void> => {
    const failed: string[] = [];
    for (let start = 0; start < records.length; start += 10) {
      const chunk = records.slice(start, start + 10);
      const answer = await client.send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl: queueUrl,
          Entries: chunk.map((record, i) => ({
            Id: String(start + i),
            ReceiptHandle: record.receiptHandle,
            // SQS allows at most 12 hours.
            VisibilityTimeout: Math.max(0, Math.min(43_200, Math.round(record.seconds))),
          })),
        }),
      );
      for (const entry of answer.Failed ?? []) failed.push(`${entry.Id}: ${entry.Code ?? 'failed'}`);
    }
    if (failed.length)
      throw new Error(`ChangeMessageVisibility refused ${failed.length} record(s): ${failed.join(', ')}`);
  };
}
