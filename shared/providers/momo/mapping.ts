import type { ReasonCode } from '../../domain/reasons';
import type { TransactionStatus } from '../../domain/status';

/**
 * Every MoMo failure reason in seed 000 and the provider notes, keyed by its canonical form
 * (upper snake case; "NOT ENOUGH_FUNDS" and "NotEnoughFunds" both canonicalise to NOT_ENOUGH_FUNDS).
 */
export const MOMO_REASON_TABLE: Readonly<Record<string, ReasonCode>> = {
  PAYER_NOT_FOUND: 'PAYER_NOT_FOUND',
  PAYEE_NOT_FOUND: 'PAYEE_NOT_FOUND',
  NOT_FOUND: 'PAYER_NOT_FOUND',
  ACCOUNT_HOLDER_NOT_FOUND: 'PAYER_NOT_FOUND',
  NOT_ENOUGH_FUNDS: 'INSUFFICIENT_FUNDS',
  PAYER_LIMIT_REACHED: 'LIMIT_REACHED',
  PAYEE_LIMIT_REACHED: 'LIMIT_REACHED',
  APPROVAL_REJECTED: 'REJECTED_BY_CUSTOMER',
  REJECTED: 'REJECTED_BY_CUSTOMER',
  TRANSACTION_CANCELED: 'REJECTED_BY_CUSTOMER',
  TRANSACTION_CANCELLED: 'REJECTED_BY_CUSTOMER',
  EXPIRED: 'TIMED_OUT',
  COULD_NOT_PERFORM_TRANSACTION: 'TIMED_OUT',
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
  VALIDATION_ERROR: 'AMOUNT_INVALID',
  RESOURCE_ALREADY_EXIST: 'DUPLICATE',
  TRANSACTION_NOT_FOUND: 'UNKNOWN',
};

/** "NOT ENOUGH_FUNDS" → NOT_ENOUGH_FUNDS, "NotEnoughFunds" → NOT_ENOUGH_FUNDS, "payer-limit" → PAYER_LIMIT. */
export function canonicalMomoCode(code: string): string {
  return code
    .trim()
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[\s-]+/g, '_')
    .toUpperCase();
}

export function mapMomoReason(code: string): ReasonCode {
  return MOMO_REASON_TABLE[canonicalMomoCode(code)] ?? 'UNKNOWN';
}

/**
 * MoMo status values. Documented: PENDING, SUCCESSFUL, FAILED. The rest have been seen on other
 * kinds (pre-approvals, invoices); anything unknown is AMBIGUOUS so that reconciliation polls it.
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
};

export function mapMomoStatus(status: string): TransactionStatus {
  return MOMO_STATUS_TABLE[canonicalMomoCode(status)] ?? 'AMBIGUOUS';
}

/** A final failure status without a reason still needs a reason code; the status implies one. */
export const MOMO_STATUS_IMPLIED_REASON: Readonly<Record<string, ReasonCode>> = {
  REJECTED: 'REJECTED_BY_CUSTOMER',
  EXPIRED: 'TIMED_OUT',
  TIMEOUT: 'TIMED_OUT',
  CANCELLED: 'REJECTED_BY_CUSTOMER',
  CANCELED: 'REJECTED_BY_CUSTOMER',
};
