import type { ReasonCode } from '../../domain/reasons';
import type { TransactionStatus } from '../../domain/status';
import type { MomoKind } from './schema';

/**
 * Every MoMo failure reason in the MoMo Open API documentation and the provider notes, keyed by its canonical form
 * (upper snake case; "NOT ENOUGH_FUNDS" and "NotEnoughFunds" both canonicalise to NOT_ENOUGH_FUNDS).
 * A bare NOT_FOUND is not here: whose account it names depends on the kind (MOMO_NOT_FOUND_BY_KIND).
 */
export const MOMO_REASON_TABLE: Readonly<Record<string, ReasonCode>> = {
  PAYER_NOT_FOUND: 'PAYER_NOT_FOUND',
  PAYEE_NOT_FOUND: 'PAYEE_NOT_FOUND',
  ACCOUNT_HOLDER_NOT_FOUND: 'PAYER_NOT_FOUND',
  NOT_ENOUGH_FUNDS: 'INSUFFICIENT_FUNDS',
  // Not in the MoMo Open API documentation: what MTN Congo, Cameroon and Benin answer where others say
  // NOT_ENOUGH_FUNDS (integrators' records, README "Shapes from integrations"); the low balance is its usual cause.
  LOW_BALANCE_OR_PAYEE_LIMIT_REACHED_OR_NOT_ALLOWED: 'INSUFFICIENT_FUNDS',
  PAYER_LIMIT_REACHED: 'LIMIT_REACHED',
  PAYEE_LIMIT_REACHED: 'LIMIT_REACHED',
  APPROVAL_REJECTED: 'REJECTED_BY_CUSTOMER',
  REJECTED: 'REJECTED_BY_CUSTOMER',
  // The payee cancelled (MoMo Open API docs: CancelInvoice, and a pre-approval "can be cancelled only … by the payee
  // side"): not the customer rejecting, which is APPROVAL_REJECTED.
  TRANSACTION_CANCELED: 'CANCELLED_BY_PAYEE',
  TRANSACTION_CANCELLED: 'CANCELLED_BY_PAYEE',
  EXPIRED: 'TIMED_OUT',
  COULD_NOT_PERFORM_TRANSACTION: 'TIMED_OUT',
  // Not failure reasons in the MoMo Open API documentation. On a PENDING report no reason is kept at all (normalize.ts); these
  // rows only apply when a FAILED (or unrecognised) status comes with them.
  PAYER_DELAYED: 'TIMED_OUT',
  DELAYED: 'TIMED_OUT',
  ONGOING: 'UNKNOWN',
  INTERNAL_PROCESSING_ERROR: 'PROVIDER_ERROR',
  SERVICE_UNAVAILABLE: 'PROVIDER_ERROR',
  FAILED: 'PROVIDER_ERROR',
  NOT_ALLOWED: 'NOT_ALLOWED',
  NOT_ALLOWED_TARGET_ENVIRONMENT: 'NOT_ALLOWED',
  INVALID_CALLBACK_URL_HOST: 'NOT_ALLOWED',
  SENDER_ACCOUNT_NOT_ACTIVE: 'NOT_ALLOWED',
  NOT_ACTIVE: 'NOT_ALLOWED',
  PAYEE_NOT_ALLOWED_TO_RECEIVE: 'NOT_ALLOWED',
  INVALID_CURRENCY: 'AMOUNT_INVALID',
  // MoMo Open API docs: wrong data types, unsupported decimals, empty fields, wrong lengths, texts over 128 characters.
  VALIDATION_ERROR: 'INVALID_REQUEST',
  RESOURCE_ALREADY_EXIST: 'DUPLICATE',
  TRANSACTION_NOT_FOUND: 'UNKNOWN',
  // Consent-based operations (MoMo Open API docs "FinancialConsentMismatch": the code is the simulator's choice).
  CONSENT_MISMATCH: 'NOT_ALLOWED',
};

/** "NOT ENOUGH_FUNDS" → NOT_ENOUGH_FUNDS, "NotEnoughFunds" → NOT_ENOUGH_FUNDS, "payer-limit" → PAYER_LIMIT. */
export function canonicalMomoCode(code: string): string {
  return code
    .trim()
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[\s-]+/g, '_')
    .toUpperCase();
}

/**
 * A bare NOT_FOUND (the sandbox outcome "NotFound") names what the operation looks up: the payee of a
 * transfer or deposit (MoMo Open API docs: transfer's table is keyed by the payee MSISDN, deposit pays a payee), the
 * payer of the collection kinds. A refund names no party, only the transaction it refunds
 * (`referenceIdToRefund`), and its trigger table is keyed by the transaction reference: its NotFound is
 * that transaction (the simulator sends TRANSACTION_NOT_FOUND for it, read the same way on a refund).
 * Cash transfer is neither: the MoMo Open API documentation lists its NotFound (1) apart from PayeeNotFound (5) and does not say
 * what was not found, so it stays UNKNOWN (provider code kept).
 */
export const MOMO_NOT_FOUND_BY_KIND: Readonly<Record<MomoKind, ReasonCode>> = {
  requesttopay: 'PAYER_NOT_FOUND',
  requesttowithdraw: 'PAYER_NOT_FOUND',
  invoice: 'PAYER_NOT_FOUND',
  payment: 'PAYER_NOT_FOUND',
  preapproval: 'PAYER_NOT_FOUND',
  transfer: 'PAYEE_NOT_FOUND',
  deposit: 'PAYEE_NOT_FOUND',
  refund: 'ORIGINAL_NOT_FOUND',
  cashtransfer: 'UNKNOWN',
};

/** Codes that mean "not found" on a refund: the refunded transaction (MOMO_NOT_FOUND_BY_KIND.refund). */
const REFUND_NOT_FOUND_CODES: ReadonlySet<string> = new Set(['NOT_FOUND', 'TRANSACTION_NOT_FOUND']);

/** The relay reason of a MoMo reason code on a callback of `kind` (lower case, as in the route). */
export function mapMomoReason(code: string, kind: string): ReasonCode {
  const canonical = canonicalMomoCode(code);
  const lowerKind = kind.toLowerCase();
  if (canonical === 'NOT_FOUND' || (lowerKind === 'refund' && REFUND_NOT_FOUND_CODES.has(canonical))) {
    return (MOMO_NOT_FOUND_BY_KIND as Readonly<Record<string, ReasonCode>>)[lowerKind] ?? 'UNKNOWN';
  }
  return MOMO_REASON_TABLE[canonical] ?? 'UNKNOWN';
}

/**
 * MoMo status values. The MoMo Open API documentation lists PENDING, SUCCESSFUL and FAILED (pre-approval: "Successful" and
 * "Failed", the same after canonicalisation). The rest are tolerated aliases that are not in MTN's docs
 * (TRANSACTION_CANCELED as a status: the provider notes' code where a status was expected); anything
 * unknown is AMBIGUOUS so that reconciliation polls it.
 */
export const MOMO_STATUS_TABLE: Readonly<Record<string, TransactionStatus>> = {
  PENDING: 'PENDING',
  CREATED: 'PENDING',
  ONGOING: 'PENDING',
  SUCCESSFUL: 'SUCCEEDED',
  SUCCESS: 'SUCCEEDED',
  APPROVED: 'SUCCEEDED',
  FAILED: 'FAILED',
  REJECTED: 'FAILED',
  EXPIRED: 'FAILED',
  TIMEOUT: 'FAILED',
  CANCELLED: 'FAILED',
  CANCELED: 'FAILED',
  TRANSACTION_CANCELED: 'FAILED',
  TRANSACTION_CANCELLED: 'FAILED',
};

export function mapMomoStatus(status: string): TransactionStatus {
  return MOMO_STATUS_TABLE[canonicalMomoCode(status)] ?? 'AMBIGUOUS';
}

/**
 * A final failure status without a reason still needs a reason code; the status implies one. A
 * cancellation is the payee's act (MoMo Open API docs: CancelInvoice, pre-approvals cancelled "only by the payee
 * side"); the customer saying no is REJECTED.
 */
export const MOMO_STATUS_IMPLIED_REASON: Readonly<Record<string, ReasonCode>> = {
  REJECTED: 'REJECTED_BY_CUSTOMER',
  EXPIRED: 'TIMED_OUT',
  TIMEOUT: 'TIMED_OUT',
  CANCELLED: 'CANCELLED_BY_PAYEE',
  CANCELED: 'CANCELLED_BY_PAYEE',
  TRANSACTION_CANCELED: 'CANCELLED_BY_PAYEE',
  TRANSACTION_CANCELLED: 'CANCELLED_BY_PAYEE',
};
