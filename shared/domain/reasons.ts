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
export type ReasonCode = (typeof REASON_CODES)[number];

export interface Reason {
  code: ReasonCode;
  message: string | undefined;
  /** The provider's own code, verbatim, so nothing is lost in normalization. */
  providerCode: string | undefined;
}
