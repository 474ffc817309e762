import { sqsBufferQueue } from '../adapters/sqs/sqs-buffer-queue';
import { createSqsBufferClient } from '../adapters/sqs/sqs-ingress-buffer';

// Apart from ingress-buffer.ts: the callback function's bundle sends only SendMessage (its SQS client is
// the slim one of infra/lambda-shims/sqs-send-message.ts); the drain receives, deletes and asks the queue.
/**
 * The ingress buffer queue the scheduled drain reads (INGRESS_BUFFER_QUEUE_URL, set by the construct).
 * Without it there is nothing to drain: the queue answers that nothing waits.
 */
export function bufferQueueFromEnv(env: NodeJS.ProcessEnv = process.env) {
  const queueUrl = env.INGRESS_BUFFER_QUEUE_URL;
  if (!queueUrl)
    return {
      waiting: async () => 0,
      receive: async () => [],
      delete: async () => {},
    };
  return sqsBufferQueue(createSqsBufferClient(), queueUrl);
}
