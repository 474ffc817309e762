import type { ReasonCode } from '../../domain/reasons';
import type { TransactionStatus } from '../../domain/status';

export interface DarajaCodeMapping {
  status: TransactionStatus;
  /** Undefined for success. */
  reason: ReasonCode | undefined;
  /** What the code means, for docs and people reading the table. */
  meaning: string;
}

/**
 * Every Daraja code in the Daraja API documentation and the provider notes. `ResultCode` 0 is the only success;
 * "any other value means error or failure" (docs), so unknown codes are FAILED/UNKNOWN. Platform
 * errors (`errorCode` of a refused API call, also what a status query answers) describe the call,
 * not the payment: its outcome is unclear, so they are AMBIGUOUS and reconciliation keeps asking.
 */
export const DARAJA_CODE_TABLE: Readonly<Record<string, DarajaCodeMapping>> = {
  '0': { status: 'SUCCEEDED', reason: undefined, meaning: 'processed successfully' },
  '1': { status: 'FAILED', reason: 'INSUFFICIENT_FUNDS', meaning: 'insufficient balance' },
  '17': { status: 'FAILED', reason: 'DUPLICATE', meaning: 'same request within 2 minutes' },
  '1001': {
    status: 'FAILED',
    reason: 'SUBSCRIBER_BUSY',
    meaning: 'subscriber locked: another transaction or USSD session',
  },
  '1019': { status: 'FAILED', reason: 'TIMED_OUT', meaning: 'transaction expired before processing' },
  '1025': {
    status: 'FAILED',
    reason: 'PROVIDER_ERROR',
    meaning: 'error sending the push request (system error or prompt too long)',
  },
  '1032': {
    status: 'FAILED',
    reason: 'REJECTED_BY_CUSTOMER',
    meaning: 'cancelled by the user or prompt timed out',
  },
  '1037': {
    status: 'FAILED',
    reason: 'UNREACHABLE',
    meaning: 'prompt did not reach the phone / no response in time',
  },
  // On STK the customer enters the PIN; on B2C and status results see DARAJA_CONTEXT_CODES.
  '2001': {
    status: 'FAILED',
    reason: 'WRONG_PIN',
    meaning: 'invalid initiator information: on STK, the customer entered a wrong PIN',
  },
  '2028': {
    status: 'FAILED',
    reason: 'NOT_ALLOWED',
    meaning: 'not permitted by product assignment (wrong PartyB)',
  },
  SFC_IC0003: { status: 'FAILED', reason: 'NOT_ALLOWED', meaning: 'invalid PartyB or TransactionType' },
  '8006': { status: 'FAILED', reason: 'NOT_ALLOWED', meaning: 'security credential locked' },
  '9999': { status: 'FAILED', reason: 'PROVIDER_ERROR', meaning: 'error sending the push request' },
  C2B00011: { status: 'FAILED', reason: 'PAYER_NOT_FOUND', meaning: 'C2B validation: invalid MSISDN' },
  C2B00012: {
    status: 'FAILED',
    reason: 'PAYEE_NOT_FOUND',
    meaning: 'C2B validation: invalid account number',
  },
  C2B00013: { status: 'FAILED', reason: 'AMOUNT_INVALID', meaning: 'C2B validation: invalid amount' },
  C2B00014: { status: 'FAILED', reason: 'NOT_ALLOWED', meaning: 'C2B validation: invalid KYC details' },
  C2B00015: { status: 'FAILED', reason: 'PAYEE_NOT_FOUND', meaning: 'C2B validation: invalid short code' },
  C2B00016: { status: 'FAILED', reason: 'NOT_ALLOWED', meaning: 'C2B validation: other error (rejected)' },
  '500.003.1001': {
    status: 'AMBIGUOUS',
    reason: 'PROVIDER_ERROR',
    meaning: 'platform: internal server error',
  },
  '400.003.01': { status: 'AMBIGUOUS', reason: 'NOT_ALLOWED', meaning: 'platform: invalid access token' },
  '400.003.02': { status: 'AMBIGUOUS', reason: 'PROVIDER_ERROR', meaning: 'platform: bad request' },
  '500.003.03': { status: 'AMBIGUOUS', reason: 'LIMIT_REACHED', meaning: 'platform: quota violation' },
  '500.003.02': { status: 'AMBIGUOUS', reason: 'LIMIT_REACHED', meaning: 'platform: spike arrest violation' },
  '404.003.01': { status: 'AMBIGUOUS', reason: 'PROVIDER_ERROR', meaning: 'platform: resource not found' },
  '404.001.04': {
    status: 'AMBIGUOUS',
    reason: 'NOT_ALLOWED',
    meaning: 'platform: invalid authentication header',
  },
  '400.002.05': {
    status: 'AMBIGUOUS',
    reason: 'PROVIDER_ERROR',
    meaning: 'platform: invalid request payload',
  },
  '500.001.1001': {
    status: 'PENDING',
    reason: undefined,
    meaning: 'platform: the transaction is being processed',
  },
};

/** 500.001.1001 also comes back for wrong credentials; only the "being processed" message means pending. */
const STILL_PROCESSING = /being processed|under processing|still processing/i;

export function canonicalDarajaCode(code: string | number): string {
  return String(code).trim().toUpperCase();
}

/** Which result carries the code: an STK callback, a B2C result or a transaction-status result. */
export type DarajaResultContext = 'stk' | 'b2c' | 'status' | 'balance' | 'reversal';

/**
 * Codes that mean something else outside STK. 2001 "invalid initiator information (wrong credential or
 * wrong PIN)" (Daraja API docs): on a B2C or status result the initiator is the partner's API operator
 * (InitiatorName + SecurityCredential); no customer PIN is involved.
 */
/** 2001 where the partner's API operator, not a customer, is the initiator (status, balance, reversal). */
const INITIATOR_REFUSED: DarajaCodeMapping = {
  status: 'FAILED',
  reason: 'INVALID_INITIATOR',
  meaning: "invalid initiator information: the partner's Initiator or SecurityCredential",
};

export const DARAJA_CONTEXT_CODES: Readonly<
  Record<DarajaResultContext, Readonly<Record<string, DarajaCodeMapping>>>
> = {
  stk: {},
  b2c: {
    '2001': {
      status: 'FAILED',
      reason: 'INVALID_INITIATOR',
      meaning: "invalid initiator information: the partner's InitiatorName or SecurityCredential",
    },
  },
  status: {
    '2001': INITIATOR_REFUSED,
  },
  balance: {
    '2001': INITIATOR_REFUSED,
  },
  // Reversal codes from Daraja's Reversal documentation: the statuses describe the reversal.
  reversal: {
    '2001': INITIATOR_REFUSED,
    R000001: { status: 'FAILED', reason: 'DUPLICATE', meaning: 'the transaction has already been reversed' },
    R000002: {
      status: 'FAILED',
      reason: 'INVALID_REQUEST',
      meaning: 'the OriginalTransID is invalid (no such completed transaction)',
    },
  },
};

export function mapDarajaCode(
  code: string | number,
  message: string | null | undefined,
  context: DarajaResultContext,
): DarajaCodeMapping {
  const canonical = canonicalDarajaCode(code);
  const contextual = DARAJA_CONTEXT_CODES[context][canonical];
  if (contextual) return contextual;
  if (canonical === '500.001.1001' && !(message && STILL_PROCESSING.test(message))) {
    return {
      status: 'AMBIGUOUS',
      reason: 'NOT_ALLOWED',
      meaning: 'platform: 500.001.1001 without "being processed" (wrong credentials)',
    };
  }
  return (
    DARAJA_CODE_TABLE[canonical] ?? {
      status: 'FAILED',
      reason: 'UNKNOWN',
      meaning: 'unknown non-zero result code',
    }
  );
}

export interface DarajaStatusMapping {
  status: TransactionStatus;
  reason: ReasonCode | undefined;
}

/**
 * `TransactionStatus` of a transaction-status result. Final values are final; values that say the
 * platform is still working are PENDING (no change); anything unrecognised is AMBIGUOUS.
 */
export const DARAJA_TRANSACTION_STATUS_TABLE: Readonly<Record<string, DarajaStatusMapping>> = {
  COMPLETED: { status: 'SUCCEEDED', reason: undefined },
  FAILED: { status: 'FAILED', reason: 'PROVIDER_ERROR' },
  CANCELLED: { status: 'FAILED', reason: 'REJECTED_BY_CUSTOMER' },
  CANCELED: { status: 'FAILED', reason: 'REJECTED_BY_CUSTOMER' },
  EXPIRED: { status: 'FAILED', reason: 'TIMED_OUT' },
  DECLINED: { status: 'FAILED', reason: 'NOT_ALLOWED' },
  // A reversal after success is a second, different final report: it surfaces as a TransactionConflict.
  REVERSED: { status: 'FAILED', reason: 'PROVIDER_ERROR' },
  PENDING: { status: 'PENDING', reason: undefined },
  'IN PROCESS': { status: 'PENDING', reason: undefined },
  AUTHORIZED: { status: 'PENDING', reason: undefined },
  AUTHORISED: { status: 'PENDING', reason: undefined },
};

export function mapDarajaTransactionStatus(value: string): DarajaStatusMapping {
  const canonical = value.trim().replace(/\s+/g, ' ').toUpperCase();
  return DARAJA_TRANSACTION_STATUS_TABLE[canonical] ?? { status: 'AMBIGUOUS', reason: 'UNKNOWN' };
}
