import { statusFor } from '../http/error-mapping';
import type { InboundRequest } from '../http/types';
import { newId, sha256Hex } from '../util/ids';
import { storableHeaders } from './callback-services';
import type { RelayError } from './errors';
import { buildEvent, type EventEnvelope } from './events';
import type { RelayLogger, TransactionStore } from './ports';

/** Quarantine keeps enough of a rejected body to investigate without letting a flood fill the table. */
const QUARANTINE_BODY_LIMIT = 64 * 1024;

export interface RejectionContext {
  provider?: string;
  account?: string;
  routeName?: string;
  /** Path with any path secret replaced, when the secret was already verified. */
  storedPath?: string;
  /** Raise CallbackRejected: only for requests aimed at a configured provider account. */
  emitEvent: boolean;
}

/**
 * Records a rejected request before its error answer goes out: nothing anyone sent is silently lost.
 * Returns the quarantine id. A failed quarantine write is logged, never turned into a 5xx.
 */
export async function recordRejection(
  deps: { store: TransactionStore; log: RelayLogger },
  request: InboundRequest,
  error: RelayError,
  context: RejectionContext,
): Promise<string> {
  const id = newId();
  const receivedAt = request.receivedAt.toISOString();
  const httpStatus = statusFor(error);
  const text = request.rawBody.toString('utf8');
  const isUtf8 = Buffer.from(text, 'utf8').equals(request.rawBody);
  const kept = request.rawBody.subarray(0, QUARANTINE_BODY_LIMIT);
  const path = context.storedPath ?? request.path;
  const outbox: EventEnvelope[] = [];
  if (context.emitEvent && context.provider && context.account) {
    outbox.push(
      buildEvent(
        'CallbackRejected',
        `${context.provider}:${context.account}:quarantine`,
        id,
        'callback',
        receivedAt,
        {
          provider: context.provider,
          account: context.account,
          route: context.routeName ?? null,
          method: request.method,
          path,
          sourceIp: request.sourceIp,
          httpStatus,
          errorCode: error.code,
          message: error.message,
          quarantineId: id,
          receivedAt,
        },
      ),
    );
  }
  try {
    await deps.store.quarantine({
      id,
      receivedAt,
      httpStatus,
      errorCode: error.code,
      message: error.message,
      provider: context.provider,
      account: context.account,
      routeName: context.routeName,
      method: request.method,
      path,
      headers: storableHeaders(request.headers),
      sourceIp: request.sourceIp,
      body: isUtf8 ? kept.toString('utf8') : kept.toString('base64'),
      bodyEncoding: isUtf8 ? 'utf8' : 'base64',
      bodyBytes: request.rawBody.length,
      bodySha256: sha256Hex(request.rawBody),
      bodyTruncated: request.rawBody.length > QUARANTINE_BODY_LIMIT,
      outbox,
    });
  } catch (storeError) {
    deps.log.error('quarantine write failed', { errorCode: error.code, path, error: storeError });
  }
  deps.log.warn('request rejected', {
    provider: context.provider,
    account: context.account,
    route: context.routeName,
    httpStatus,
    errorCode: error.code,
    reason: error.message,
    path,
    sourceIp: request.sourceIp,
    quarantineId: id,
  });
  return id;
}
