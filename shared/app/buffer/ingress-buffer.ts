import { createHmac, timingSafeEqual } from 'node:crypto';
import * as z from '../../util/zod';
import { RelayError, StorageUnavailableError } from '../../domain/errors';
import type { BufferedMessage } from '../ports';

/**
 * The buffer could not accept a message (SQS failed, timed out or was throttled; the spool directory
 * could not be written). A StorageUnavailableError, so the provider gets the same 503 as when nothing
 * could be stored at all.
 */
export class IngressBufferUnavailableError extends StorageUnavailableError {}

/** The message is over what the buffer can carry (SQS: 256 KB); refused whole rather than truncated. */
export class BufferedMessageTooLargeError extends IngressBufferUnavailableError {}

/**
 * A buffered message that can never be applied: an unknown version or shape, an account or route no
 * longer configured, a body the route's parser refuses. Retrying cannot help; it belongs in the
 * dead-letter queue, with this message in the log.
 */
export class UnappliableBufferedCallbackError extends RelayError {
  readonly code = 'UNAPPLIABLE_BUFFERED_CALLBACK';
}

export { ackBudgetFor, DEFAULT_ACK_BUDGETS } from '../../config/limits';

const delivery = {
  version: z.literal(1),
  requestId: z.string(),
  provider: z.string().check(z.minLength(1)),
  account: z.string().check(z.minLength(1)),
  route: z.string().check(z.minLength(1)),
  method: z.string().check(z.minLength(1)),
  path: z.string(),
  headers: z.record(z.string(), z.string()),
  sourceIp: z.string(),
  receivedAt: z.iso.datetime(),
  body: z.string(),
  verification: z.record(z.string(), z.unknown()),
  rawBodySha256: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
  bufferedAt: z.iso.datetime(),
  why: z.string(),
};

const bufferedMessageSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    ...delivery,
    kind: z.literal('callback'),
    params: z.record(z.string(), z.string()),
    trustedBody: z.optional(z.record(z.string(), z.unknown())),
    authenticated: z.boolean(),
    confirmUnsignedSuccess: z.boolean(),
  }),
  z.strictObject({
    ...delivery,
    kind: z.literal('decision'),
    useCase: z.string().check(z.minLength(1)),
    reference: z.string().check(z.minLength(1)),
    // The provider's decision handler checks the facts when the message is applied.
    outcome: z.looseObject({ decision: z.string(), resultCode: z.string(), decidedAt: z.iso.datetime() }),
  }),
]);

/**
 * A message as read back from the buffer (JSON text or an already parsed value). Anything but a
 * version this code knows, in full, is unappliable: guessing at a payment's fields is never safe.
 */
export function decodeBufferedMessage(raw: unknown): BufferedMessage {
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch (cause) {
      throw new UnappliableBufferedCallbackError('Buffered message is not JSON', { cause });
    }
  }
  const version = (value as { version?: unknown } | null)?.version;
  if (version !== 1)
    throw new UnappliableBufferedCallbackError(
      `Buffered message version ${JSON.stringify(version ?? null)} is not one this relay applies (1)`,
    );
  const parsed = bufferedMessageSchema.safeParse(fromEarlierShape(value));
  if (!parsed.success)
    throw new UnappliableBufferedCallbackError(
      `Buffered message does not have the version 1 shape: ${parsed.error.issues
        .slice(0, 3)
        .map((issue) => `${issue.path.join('.') || '(root)'} ${issue.message}`)
        .join('; ')}`,
      { cause: parsed.error },
    );
  return parsed.data as BufferedMessage;
}

/**
 * A decision buffered by a relay from before decisions were the providers' (kind "c2b-validation", the
 * only question then) may still be in the queue during an upgrade: it is the same message under the
 * generic kind.
 */
function fromEarlierShape(value: unknown): unknown {
  const message = value as { kind?: unknown } | null;
  if (message?.kind !== 'c2b-validation') return value;
  return { ...message, kind: 'decision', useCase: 'c2b-validation' };
}

/** What logs may say about a buffered message: ids and routing, never the body or headers. */
export function describeBuffered(message: BufferedMessage): Record<string, unknown> {
  return {
    provider: message.provider,
    account: message.account,
    route: message.route,
    path: message.path,
    requestId: message.requestId,
    receivedAt: message.receivedAt,
  };
}

/** The message attribute that carries a buffered message's seal (SQS). */
export const SEAL_ATTRIBUTE = 'relay-seal';

/**
 * A buffered message's seal: HMAC-SHA256 of its exact text with the relay's buffer key. The consumer
 * applies a message as the callback function judged it (authenticated, verification facts), so only a
 * message the callback function wrote may be applied: anyone else allowed to send to the queue (a CI
 * role, an administrator, another application) cannot make one up.
 */
export function sealOf(body: string, key: Buffer): string {
  return createHmac('sha256', key).update(body, 'utf8').digest('hex');
}

/** Constant-time check of a seal. */
export function sealMatches(body: string, seal: string | undefined, key: Buffer): boolean {
  if (!seal || !/^[0-9a-f]{64}$/.test(seal)) return false;
  return timingSafeEqual(Buffer.from(sealOf(body, key), 'hex'), Buffer.from(seal, 'hex'));
}
