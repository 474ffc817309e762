import { createSqsBufferClient, SqsIngressBuffer } from '../adapters/sqs/sqs-ingress-buffer';
import type { IngressBuffer, RelayLogger } from '../app/ports';

/**
 * The callback function's ingress buffer: the SQS queue named by INGRESS_BUFFER_QUEUE_URL (the
 * construct sets it). Without it the function still runs, answering 503 when the store fails, and
 * says so once at cold start.
 */
export function ingressBufferFromEnv(
  log: Pick<RelayLogger, 'warn'>,
  env: NodeJS.ProcessEnv = process.env,
): IngressBuffer | undefined {
  const queueUrl = env.INGRESS_BUFFER_QUEUE_URL;
  if (!queueUrl) {
    log.warn('INGRESS_BUFFER_QUEUE_URL is not set: callbacks the store cannot take are answered 503');
    return undefined;
  }
  return new SqsIngressBuffer(createSqsBufferClient(), { queueUrl });
}
