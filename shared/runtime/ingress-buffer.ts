import { sharedSecretReader } from '../adapters/secrets/secrets-manager';
import { createSqsBufferClient, SqsIngressBuffer } from '../adapters/sqs/sqs-ingress-buffer';
import type { IngressBuffer, RelayLogger } from '../app/ports';
import { parseSecretRef } from '../config/secret-reader';

/**
 * The buffer's seal key, from the Secrets Manager secret named by INGRESS_BUFFER_SEAL_SECRET_ID: the one
 * the construct generates, or a member of a secret the config names (`ingressBuffer.sealSecretId`,
 * `<secret>#<member>`: the member's string value is the key). Undefined
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
      'INGRESS_BUFFER_SEAL_SECRET_ID is not set: buffered callbacks are not sealed (a queue sender could forge one)',
    );
    return undefined;
  }
  const ref = parseSecretRef(secretId);
  const value = ref.member === undefined ? await read(ref.secretId) : memberOf(await read(ref.secretId), ref);
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

/** The seal key's secret holds no usable key (its text is never in the message). */
class BufferSealKeyError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'BufferSealKeyError';
  }
}

/** A keyed reference's member: a string in the secret's JSON object (never the secret's text in an error). */
function memberOf(text: string, ref: { secretId: string; member?: string }): string {
  let value: unknown;
  try {
    value = (JSON.parse(text) as Record<string, unknown>)[ref.member!];
  } catch (cause) {
    throw new BufferSealKeyError(`the ingress buffer seal secret ${ref.secretId} is not a JSON object`, {
      cause,
    });
  }
  if (typeof value !== 'string')
    throw new BufferSealKeyError(
      `the ingress buffer seal secret ${ref.secretId} has no string member "${ref.member}"`,
    );
  return value;
}
