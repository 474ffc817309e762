import { ReceiptNotFoundError, TransactionNotFoundError } from '../../domain/errors';
import type { TransactionKey } from '../../domain/transaction';
import { findRegistrationRules } from '../../providers/registration-registry';
import { phoneFieldsOf } from '../../providers/registry';
import { maskPhoneFieldsInText } from '../../util/mask';
import { type AnsweredAck, answeredAck } from '../callbacks/answered-ack';
import type { ConsoleStore, TransactionStore } from '../ports';
import { badParameter } from './console-query';

export interface ReceiptBody {
  receiptId: string;
  route: string;
  method: string;
  /** With any path secret replaced by {secret}. */
  path: string;
  /** As stored: no credentials. */
  headers: Record<string, string>;
  sourceIp: string;
  verification: Record<string, unknown>;
  firstReceivedAt: string;
  lastReceivedAt: string;
  deliveries: number;
  bodyBytes: number;
  bodyDropped: boolean;
  /**
   * UTF-8, provider secrets redacted before it was stored, its phone numbers masked here (the provider's
   * number fields); '' when it was not kept (bodyDropped).
   */
  body: string;
  /** What the relay answered it (it follows from the provider and route: answered-ack.ts); null for a question. */
  ack: AnsweredAck | null;
}

/** GET /v1/transactions/{provider}/{account}/{reference}/receipts/{receiptId}: one receipt's body, by key. */
export async function receiptBody(
  store: TransactionStore & ConsoleStore,
  key: TransactionKey,
  receiptId: string,
): Promise<{ receipt: ReceiptBody }> {
  if (!/^[0-9a-f]{32}$/.test(receiptId))
    throw badParameter('receiptId', 'must be a receipt id of the history (32 hex characters)');
  const reference = findRegistrationRules(key.provider)?.normalizeReference?.(key.reference) ?? key.reference;
  const normalized = { ...key, reference };
  const stored = await store.getReceipt(normalized, receiptId);
  if (!stored) {
    if (!(await store.getTransaction(normalized)))
      throw new TransactionNotFoundError(`No transaction ${key.provider}/${key.account}/${key.reference}`);
    throw new ReceiptNotFoundError(`The transaction has no receipt ${receiptId}`);
  }
  return {
    receipt: {
      receiptId: stored.receiptId,
      route: stored.routeName,
      method: stored.method,
      path: stored.path,
      headers: stored.headers,
      sourceIp: stored.sourceIp,
      verification: stored.verification,
      firstReceivedAt: stored.firstReceivedAt,
      lastReceivedAt: stored.lastReceivedAt,
      deliveries: stored.deliveries,
      bodyBytes: stored.bodyBytes,
      bodyDropped: stored.bodyDropped === true,
      body: maskPhoneFieldsInText(stored.body, phoneFieldsOf(key.provider)),
      ack: answeredAck(key.provider, stored.routeName, stored.receiptId),
    },
  };
}
