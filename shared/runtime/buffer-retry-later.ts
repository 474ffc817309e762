import { createSqsBufferClient } from '../adapters/sqs/sqs-ingress-buffer';
import { sqsRetryLater } from '../adapters/sqs/sqs-retry-later';

// Apart from ingress-buffer.ts: the callback function's bundle sends only SendMessage (its SQS client is
// the slim one of infra/lambda-shims/sqs-send-message.ts), and this back-off sends a batch command.
/**
 * The buffer consumer's back-off: records failing on the store are made visible again later through the
 * queue named by INGRESS_BUFFER_QUEUE_URL (the construct sets it; shared/app/buffer/retry-backoff.ts).
 * Undefined without it: SQS's own visibility time-out paces the retries.
 */
export function bufferRetryLaterFromEnv(env: NodeJS.ProcessEnv = process.env) {
  const queueUrl = env.INGRESS_BUFFER_QUEUE_URL;
  return queueUrl ? sqsRetryLater(createSqsBufferClient(), queueUrl) : undefined;
}
