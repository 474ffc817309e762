/**
 * The contract's normalized reason codes: the only ones an event publishes in `reason.code`
 * (docs/events.md#reason-codes). An operator's resolve names one of these too.
 */
export const REASON_CODES = [
  'INSUFFICIENT_FUNDS',
  'REJECTED_BY_CUSTOMER',
  'TIMED_OUT',
  'WRONG_PIN',
  'LIMIT_REACHED',
  'PAYER_NOT_FOUND',
  'PAYEE_NOT_FOUND',
  'NOT_ALLOWED',
  'SUBSCRIBER_BUSY',
  'UNREACHABLE',
  'DUPLICATE',
  'AMOUNT_INVALID',
  'PROVIDER_ERROR',
  'UNKNOWN',
] as const;
type NormalizedReasonCode = (typeof REASON_CODES)[number];

/** The relay's finer reasons (REASON_DETAILS says what each is published as). */
export const REASON_DETAIL_CODES = [
  'CANCELLED_BY_PAYEE',
  'ORIGINAL_NOT_FOUND',
  'INVALID_INITIATOR',
  'INVALID_REQUEST',
  'UNCONFIRMED',
  'NOT_ACCEPTED',
  'CONFLICTING_REPORTS',
  'NO_FINAL_ANSWER',
] as const;
export type ReasonDetail = (typeof REASON_DETAIL_CODES)[number];

/**
 * The relay's finer reasons, each with the contract code it is published as. The transaction keeps the
 * finer one (history, console, management API); an event carries the contract code in `reason.code` and
 * the finer one beside it in `reasonDetail` (docs/events.md#reason-codes), the provider's own code in
 * `reason.providerCode` as always.
 */
const REASON_DETAILS: Readonly<Record<ReasonDetail, NormalizedReasonCode>> = {
  /**
   * The payee (the partner itself) cancelled the request before the customer paid: MoMo
   * `TRANSACTION_CANCELED` after CancelInvoice or a cancelled pre-approval. Not the customer refusing, and
   * no contract code says "cancelled by the payee": UNKNOWN.
   */
  CANCELLED_BY_PAYEE: 'UNKNOWN',
  /** The transaction a refund names is unknown to the provider (MoMo refund NotFound): the refund was refused. */
  ORIGINAL_NOT_FOUND: 'NOT_ALLOWED',
  /** The partner's own API initiator was refused (name, security credential, lock or role), not the customer's PIN. */
  INVALID_INITIATOR: 'NOT_ALLOWED',
  /** The provider refused the request's data: wrong types, decimals, empty fields, lengths, texts too long. */
  INVALID_REQUEST: 'NOT_ALLOWED',
  /** A success the relay cannot trust on its own yet (e.g. no amount to check); reconciliation confirms it. */
  UNCONFIRMED: 'UNKNOWN',
  /** The provider has no record of the request (MoMo 404 on the status GET): it was never accepted. */
  NOT_ACCEPTED: 'UNKNOWN',
  /** Sources disagree and precedence cannot settle it (TransactionConflict): AMBIGUOUS, escalated. */
  CONFLICTING_REPORTS: 'UNKNOWN',
  /** The reconciliation window ended with no final answer from the provider (EXPIRED). */
  NO_FINAL_ANSWER: 'UNKNOWN',
};

/** What the relay records: a contract code, or a finer one (REASON_DETAILS) published as its contract code. */
export type ReasonCode = NormalizedReasonCode | ReasonDetail;

export interface Reason {
  code: ReasonCode;
  message: string | undefined;
  /** The provider's own code, verbatim, so nothing is lost in normalization. */
  providerCode: string | undefined;
}

/** A reason as events publish it: the contract's code only. */
export interface PublishedReason extends Omit<Reason, 'code'> {
  code: NormalizedReasonCode;
}

/**
 * The one place a recorded reason becomes a published one: `reason` with the contract's code, and the
 * finer code, when there was one, as `reasonDetail`. Nothing is dropped: message and provider code stay.
 */
export function publishedReason(reason: Reason | null | undefined): {
  reason: PublishedReason | null;
  reasonDetail?: ReasonDetail;
} {
  const detail = reason && reason.code in REASON_DETAILS ? (reason.code as ReasonDetail) : undefined;
  return detail
    ? { reason: { ...reason!, code: REASON_DETAILS[detail] }, reasonDetail: detail }
    : { reason: (reason ?? null) as PublishedReason | null };
}
