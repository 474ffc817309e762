import { ORIGIN_VERIFY_HEADER } from '../../config/callback-config';
import type { TransactionKey } from '../../domain/transaction';
import { sha256Hex } from '../../util/ids';
import { RESERVED_MEMBER_NAMES } from '../../util/json-limits';
import type { ReceiptInput, ReceiptResult, TransactionStore, WriteOptions } from '../ports';

/** Headers that may carry credentials are never stored (the CloudFront origin secret included). */
export const SECRET_HEADERS = new Set([
  ORIGIN_VERIFY_HEADER,
  'authorization',
  'proxy-authorization',
  'cookie',
  'x-api-key',
  'x-amz-security-token',
]);
const MAX_HEADER_VALUE = 1024;
const MAX_HEADERS = 50;

export function storableHeaders(headers: Record<string, string>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers).slice(0, MAX_HEADERS)) {
    if (SECRET_HEADERS.has(name) || RESERVED_MEMBER_NAMES.has(name) || name === '' || name.length > 128)
      continue;
    kept[name] = value.length > MAX_HEADER_VALUE ? `${value.slice(0, MAX_HEADER_VALUE)}…` : value;
  }
  return kept;
}

/** A received callback as it is kept, before it is known which transaction it is about. */
export interface ReceiptDraft extends Omit<ReceiptInput, 'key' | 'dedupeKey'> {
  /** The bytes as received, for the dedupe key only. */
  rawBody: Buffer;
}

/**
 * A receipt whose bytes are no longer at hand (a buffered callback): only their SHA-256 travelled, and
 * it makes the same dedupe key as the bytes did, so a buffered copy and its original are one receipt.
 */
export interface DigestedReceiptDraft extends Omit<ReceiptDraft, 'rawBody'> {
  rawBodySha256: string;
}

/**
 * A stored receipt applied again (a callback stored but not applied when its process died): its dedupe
 * key as stored wins over the digest (the stored body may be redacted), so applying it records the
 * same receipt.
 */
export interface KeyedReceiptDraft extends DigestedReceiptDraft {
  dedupeKey: string;
}

/** The same provider, account, route, reference and bytes ⇒ the same key, whether from bytes or digest. */
export function receiptDedupeKey(key: TransactionKey, routeName: string, rawBodySha256: string): string {
  return sha256Hex([key.provider, key.account, routeName, key.reference, rawBodySha256].join('|'));
}

/** Stores a callback durably; the same provider, account, route, reference and bytes ⇒ the same receipt. */
export function storeReceipt(
  store: TransactionStore,
  key: TransactionKey,
  draft: ReceiptDraft | DigestedReceiptDraft,
  options?: WriteOptions,
): Promise<ReceiptResult> {
  const dedupeKey =
    'dedupeKey' in draft && typeof draft.dedupeKey === 'string'
      ? draft.dedupeKey
      : receiptDedupeKey(
          key,
          draft.routeName,
          'rawBody' in draft ? sha256Hex(draft.rawBody) : draft.rawBodySha256,
        );
  return store.recordReceipt(
    {
      key,
      routeName: draft.routeName,
      method: draft.method,
      path: draft.path,
      headers: storableHeaders(draft.headers),
      sourceIp: draft.sourceIp,
      body: draft.body,
      receivedAt: draft.receivedAt,
      verification: draft.verification,
      dedupeKey,
    },
    options,
  );
}
