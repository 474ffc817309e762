import type { TransactionKey } from '../domain/transaction';
import { sha256Hex } from '../util/ids';
import { RESERVED_MEMBER_NAMES } from '../util/json-limits';
import type { ReceiptInput, ReceiptResult, TransactionStore, WriteOptions } from './ports';

/** Headers that may carry credentials are never stored. */
const SECRET_HEADERS = new Set([
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

/** Stores a callback durably; the same provider, account, route, reference and bytes ⇒ the same receipt. */
export function storeReceipt(
  store: TransactionStore,
  key: TransactionKey,
  draft: ReceiptDraft,
  options?: WriteOptions,
): Promise<ReceiptResult> {
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
      dedupeKey: sha256Hex(
        [key.provider, key.account, draft.routeName, key.reference, sha256Hex(draft.rawBody)].join('|'),
      ),
    },
    options,
  );
}
