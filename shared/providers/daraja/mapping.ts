import type { ReasonCode } from '../../domain/reasons';
import type { TransactionStatus } from '../../domain/status';

export interface DarajaCodeMapping {
  status: TransactionStatus;
  /** Undefined for success. */
  reason: ReasonCode | undefined;
}

/**
 * M-Pesa Express (STK) `ResultCode`s: every row of the result-code table of Daraja's M-Pesa Express
 * documentation (developer.safaricom.co.ke, APIs → M-Pesa Express), plus 1001 and 9999 of the older table in
 * the provider notes. On STK the customer pays: the payer is the customer, the payee the partner's PartyB.
 * The codes that end a prompt without payment stay apart, as the docs keep them: 1032 the customer cancelled,
 * 1037 the phone could not be reached (DS timeout), 1019 the transaction expired before processing.
 * These are also the final codes of the STK push query (status-mapping.ts).
 */
export const DARAJA_STK_CODES: Readonly<Record<string, DarajaCodeMapping>> = {
  // processed successfully
  '0': { status: 'SUCCEEDED', reason: undefined },
  // insufficient balance: the customer's M-PESA balance is too low
  '1': { status: 'FAILED', reason: 'INSUFFICIENT_FUNDS' },
  // declined due to limit rule: below the minimum C2B transaction amount
  '2': { status: 'FAILED', reason: 'AMOUNT_INVALID' },
  // declined due to limit rule: above the maximum transaction amount
  '3': { status: 'FAILED', reason: 'LIMIT_REACHED' },
  // declined due to limit rule: would exceed the customer's daily transfer limit
  '4': { status: 'FAILED', reason: 'LIMIT_REACHED' },
  // declined due to limit rule: would exceed the pay bill or till's maximum balance
  '8': { status: 'FAILED', reason: 'LIMIT_REACHED' },
  // rule limited: same amount to the same customer within 2 minutes
  '17': { status: 'FAILED', reason: 'DUPLICATE' },
  // subscriber locked: another transaction or USSD session
  '1001': { status: 'FAILED', reason: 'SUBSCRIBER_BUSY' },
  // transaction expired before processing
  '1019': { status: 'FAILED', reason: 'TIMED_OUT' },
  // The docs' only explanation is a prompt over 182 characters (shorten AccountReference): the request's data.
  // error sending the push request: the prompt is too long (AccountReference)
  '1025': { status: 'FAILED', reason: 'INVALID_REQUEST' },
  // request cancelled by the user
  '1032': { status: 'FAILED', reason: 'REJECTED_BY_CUSTOMER' },
  // DS timeout: the customer's phone could not be reached
  '1037': { status: 'FAILED', reason: 'UNREACHABLE' },
  // On STK the customer enters the PIN; on results the partner's API operator initiates, see DARAJA_CONTEXT_CODES.
  // invalid initiator information: on STK, the customer entered a wrong PIN
  '2001': { status: 'FAILED', reason: 'WRONG_PIN' },
  // not permitted according to product assignment (TransactionType or PartyB)
  '2028': { status: 'FAILED', reason: 'NOT_ALLOWED' },
  // the customer's security credential is locked (customer care)
  '8006': { status: 'FAILED', reason: 'NOT_ALLOWED' },
  // error sending the push request
  '9999': { status: 'FAILED', reason: 'PROVIDER_ERROR' },
  // the operator does not exist: PartyB (or TransactionType) is wrong
  SFC_IC0003: { status: 'FAILED', reason: 'PAYEE_NOT_FOUND' },
};

/**
 * Every Daraja code in the Daraja API documentation and the provider notes that means the same on every
 * result: the STK table above, the C2B validation codes and the platform errors. `ResultCode` 0 is the only
 * success; a code no table lists is UNKNOWN_CODE (docs/reconciliation.md: unknown codes never fail a
 * payment). Platform
 * errors (`errorCode` of a refused API call, also what a status query answers) describe the call,
 * not the payment: its outcome is unclear, so they are AMBIGUOUS and reconciliation keeps asking.
 */
export const DARAJA_CODE_TABLE: Readonly<Record<string, DarajaCodeMapping>> = {
  ...DARAJA_STK_CODES,
  // C2B validation: invalid MSISDN
  C2B00011: { status: 'FAILED', reason: 'PAYER_NOT_FOUND' },
  // C2B validation: invalid account number
  C2B00012: { status: 'FAILED', reason: 'PAYEE_NOT_FOUND' },
  // C2B validation: invalid amount
  C2B00013: { status: 'FAILED', reason: 'AMOUNT_INVALID' },
  // C2B validation: invalid KYC details
  C2B00014: { status: 'FAILED', reason: 'NOT_ALLOWED' },
  // C2B validation: invalid short code
  C2B00015: { status: 'FAILED', reason: 'PAYEE_NOT_FOUND' },
  // C2B validation: other error (rejected)
  C2B00016: { status: 'FAILED', reason: 'NOT_ALLOWED' },
  // platform: internal server error
  '500.003.1001': { status: 'AMBIGUOUS', reason: 'PROVIDER_ERROR' },
  // platform: invalid access token
  '400.003.01': { status: 'AMBIGUOUS', reason: 'NOT_ALLOWED' },
  // platform: bad request
  '400.003.02': { status: 'AMBIGUOUS', reason: 'PROVIDER_ERROR' },
  // platform: quota violation
  '500.003.03': { status: 'AMBIGUOUS', reason: 'LIMIT_REACHED' },
  // platform: spike arrest violation
  '500.003.02': { status: 'AMBIGUOUS', reason: 'LIMIT_REACHED' },
  // platform: resource not found
  '404.003.01': { status: 'AMBIGUOUS', reason: 'PROVIDER_ERROR' },
  // platform: invalid authentication header
  '404.001.04': { status: 'AMBIGUOUS', reason: 'NOT_ALLOWED' },
  // platform: invalid request payload
  '400.002.05': { status: 'AMBIGUOUS', reason: 'PROVIDER_ERROR' },
  // platform: the transaction is being processed
  '500.001.1001': { status: 'PENDING', reason: undefined },
  // "The transaction is still under processing": an early answer before the real code (provider notes), as
  // the STK query reads it (status-mapping.ts). A result carrying it has not ended, so it settles nothing.
  // the transaction is still under processing
  '4999': { status: 'PENDING', reason: undefined },
};

/**
 * A non-zero code no table lists. The docs say "any other value means error or failure", but a code the
 * relay does not know may as well be a new transitional one, and only known final codes settle a payment
 * (docs/reconciliation.md): AMBIGUOUS, so the status API is asked, with the code and the provider's words
 * kept on the reason as evidence.
 */
const UNKNOWN_CODE: DarajaCodeMapping = { status: 'AMBIGUOUS', reason: 'UNKNOWN' };

/** 500.001.1001 also comes back for wrong credentials; only the "being processed" message means pending. */
const STILL_PROCESSING = /being processed|under processing|still processing/i;

export function canonicalDarajaCode(code: string | number): string {
  return String(code).trim().toUpperCase();
}

/** Which result carries the code: an STK callback, a B2C result or a transaction-status result. */
export type DarajaResultContext = 'stk' | 'b2c' | 'status' | 'balance' | 'reversal';

/**
 * Codes that mean something else outside STK. 2001 "invalid initiator information (wrong credential or
 * wrong PIN)" (Daraja API docs): on a B2C, status, balance or reversal result the initiator is the partner's
 * API operator (InitiatorName / Initiator + SecurityCredential); no customer PIN is involved. Likewise 8006
 * (the API operator's password is locked) and 21 (the operator lacks the API role): the partner's own
 * configuration, not the customer's; every request fails until it is fixed.
 */
const OPERATOR_CODES: Readonly<Record<string, DarajaCodeMapping>> = {
  // invalid initiator information: the partner's Initiator or SecurityCredential
  '2001': { status: 'FAILED', reason: 'INVALID_INITIATOR' },
  // the initiator is not allowed to initiate this request: the partner's API operator lacks the role
  '21': { status: 'FAILED', reason: 'INVALID_INITIATOR' },
  // the security credential is locked: the partner's API operator password
  '8006': { status: 'FAILED', reason: 'INVALID_INITIATOR' },
  // the DebitParty is in an invalid state: the partner's short code account is not active
  '11': { status: 'FAILED', reason: 'NOT_ALLOWED' },
  // declined due to account rule: the partner's short code account is not active
  '2006': { status: 'FAILED', reason: 'NOT_ALLOWED' },
};

/**
 * B2C `ResultCode`s: every row of the result-code table of Daraja's Business To Customer documentation
 * (developer.safaricom.co.ke, APIs → B2C). On B2C the partner pays: the payer is the partner's B2C short code
 * (its utility account), the payee the customer's phone number (PartyB).
 */
const DARAJA_B2C_CODES: Readonly<Record<string, DarajaCodeMapping>> = {
  // processed successfully
  '0': { status: 'SUCCEEDED', reason: undefined },
  // insufficient balance: the partner's B2C utility account
  '1': { status: 'FAILED', reason: 'INSUFFICIENT_FUNDS' },
  // declined due to limit rule: below the minimum B2C amount
  '2': { status: 'FAILED', reason: 'AMOUNT_INVALID' },
  // declined due to limit rule: above the maximum B2C transaction amount
  '3': { status: 'FAILED', reason: 'LIMIT_REACHED' },
  // declined due to limit rule: would exceed the customer's daily transfer limit
  '4': { status: 'FAILED', reason: 'LIMIT_REACHED' },
  // declined due to limit rule: would exceed the customer's maximum balance
  '8': { status: 'FAILED', reason: 'LIMIT_REACHED' },
  // Not in the B2C table; Safaricom's Daraja tutorial shows it as the unsuccessful B2C result ("System internal
  // error."). STK's 17 ("rule limited", a duplicate) does not apply: the partner's payout failed on Daraja's side.
  // system internal error: the payout failed
  '17': { status: 'FAILED', reason: 'PROVIDER_ERROR' },
  ...OPERATOR_CODES,
  // not permitted according to product assignment: PartyA may not make B2C payments
  '2028': { status: 'FAILED', reason: 'NOT_ALLOWED' },
  // credit party customer type not supported: the customer is not registered on M-PESA
  '2040': { status: 'FAILED', reason: 'PAYEE_NOT_FOUND' },
  // the operator does not exist: the customer's number is invalid or not on M-PESA
  SFC_IC0003: { status: 'FAILED', reason: 'PAYEE_NOT_FOUND' },
};

export const DARAJA_CONTEXT_CODES: Readonly<
  Record<DarajaResultContext, Readonly<Record<string, DarajaCodeMapping>>>
> = {
  stk: {},
  b2c: DARAJA_B2C_CODES,
  status: OPERATOR_CODES,
  balance: OPERATOR_CODES,
  // Reversal codes from Daraja's Reversal documentation: the statuses describe the reversal.
  reversal: {
    ...OPERATOR_CODES,
    // the transaction has already been reversed
    R000001: { status: 'FAILED', reason: 'DUPLICATE' },
    // the OriginalTransID is invalid (no such completed transaction)
    R000002: { status: 'FAILED', reason: 'INVALID_REQUEST' },
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
    // Without "being processed" it is the platform's answer to wrong credentials.
    return { status: 'AMBIGUOUS', reason: 'NOT_ALLOWED' };
  }
  return DARAJA_CODE_TABLE[canonical] ?? UNKNOWN_CODE;
}

export interface DarajaStatusMapping {
  status: TransactionStatus;
  reason: ReasonCode | undefined;
}

/**
 * `TransactionStatus` of a transaction-status result. Final values are final; values that say the
 * platform is still working are PENDING (no change); anything unrecognised is AMBIGUOUS.
 */
const DARAJA_TRANSACTION_STATUS_TABLE: Readonly<Record<string, DarajaStatusMapping>> = {
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
