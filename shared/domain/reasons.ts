export const REASON_CODES = [
  'INSUFFICIENT_FUNDS',
  'REJECTED_BY_CUSTOMER',
  /**
   * The payee (the partner itself) cancelled the request before the customer paid: MoMo
   * `TRANSACTION_CANCELED` after CancelInvoice or a cancelled pre-approval. Not the customer refusing.
   */
  'CANCELLED_BY_PAYEE',
  'TIMED_OUT',
  'WRONG_PIN',
  'LIMIT_REACHED',
  'PAYER_NOT_FOUND',
  'PAYEE_NOT_FOUND',
  /** The transaction a refund names is unknown to the provider (MoMo refund NotFound): nothing was refunded. */
  'ORIGINAL_NOT_FOUND',
  'NOT_ALLOWED',
  /** The partner's own API initiator was refused (name, security credential, lock or role), not the customer's PIN. */
  'INVALID_INITIATOR',
  'SUBSCRIBER_BUSY',
  'UNREACHABLE',
  'DUPLICATE',
  'AMOUNT_INVALID',
  /** The provider refused the request's data: wrong types, decimals, empty fields, lengths, texts too long. */
  'INVALID_REQUEST',
  'PROVIDER_ERROR',
  /** A success the relay cannot trust on its own yet (e.g. no amount to check); reconciliation confirms it. */
  'UNCONFIRMED',
  /** The provider has no record of the request (MoMo 404 on the status GET): it was never accepted. */
  'NOT_ACCEPTED',
  /** Sources disagree and precedence cannot settle it (TransactionConflict): AMBIGUOUS, escalated. */
  'CONFLICTING_REPORTS',
  /** The reconciliation window ended with no final answer from the provider (EXPIRED). */
  'NO_FINAL_ANSWER',
  'UNKNOWN',
] as const;
export type ReasonCode = (typeof REASON_CODES)[number];

export interface Reason {
  code: ReasonCode;
  message: string | undefined;
  /** The provider's own code, verbatim, so nothing is lost in normalization. */
  providerCode: string | undefined;
}
