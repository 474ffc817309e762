import { sharedSecretReader } from '../adapters/secrets/secrets-manager';
import { createSqsBufferClient, SqsIngressBuffer } from '../adapters/sqs/sqs-ingress-buffer';
import type { IngressBuffer, RelayLogger } from '../app/ports';

/**
 * The buffer's seal key, from the Secrets Manager secret named by INGRESS_BUFFER_SEAL_SECRET_ID (the
 * construct creates it and gives it to the callback and buffer-consumer functions only). Undefined
 * when the variable is not set: messages are then neither sealed nor checked, and the function says
 * so once at cold start.
 */
export async function bufferSealKeyFromEnv(
  log: Pick<RelayLogger, 'warn'>,
  env: NodeJS.ProcessEnv = process.env,
  read: (secretId: string) => Promise<string> = sharedSecretReader(),
): Promise<Buffer | undefined> {
  const secretId = env.INGRESS_BUFFER_SEAL_SECRET_ID;
  if (!secretId) {
    log.warn(
      'INGRESS_BUFFER_SEAL_SECRET_ID is not set: buffered callbacks are not sealed, so any principal allowed to send to the queue could make one up',
    );
    return undefined;
  }
  const value = await read(secretId);
  if (value.length < 32)
    throw new Error(`the ingress buffer seal key (${secretId}) is shorter than 32 characters`);
  return Buffer.from(value, 'utf8');
}

/**
 * The callback function's ingress buffer: the SQS queue named by INGRESS_BUFFER_QUEUE_URL (the
 * construct sets it), every message sealed with the buffer key. Without the queue the function still
 * runs, answering 503 when the store fails, and says so once at cold start.
 */
export async function ingressBufferFromEnv(
  log: Pick<RelayLogger, 'warn' | 'error'>,
  env: NodeJS.ProcessEnv = process.env,
  read?: (secretId: string) => Promise<string>,
): Promise<IngressBuffer | undefined> {
  const queueUrl = env.INGRESS_BUFFER_QUEUE_URL;
  if (!queueUrl) {
    log.warn('INGRESS_BUFFER_QUEUE_URL is not set: callbacks the store cannot take are answered 503');
    return undefined;
  }
  let sealKey: Buffer | undefined;
  try {
    sealKey = await bufferSealKeyFromEnv(log, env, read);
  } catch (error) {
    // The direct store path does not need the key: run without a buffer (a store failure is a 503, as
    // before the buffer existed) rather than fail every callback, and never send unsealed messages.
    log.error('ingress buffer off until the next cold start: its seal key could not be read', {
      error: (error as Error).message,
    });
    return undefined;
  }
  return new SqsIngressBuffer(createSqsBufferClient(), { queueUrl, ...(sealKey ? { sealKey } : {}) });
}
