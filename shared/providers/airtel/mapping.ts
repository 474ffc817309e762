import type { ReasonCode } from '../../domain/reasons';
import type { TransactionStatus } from '../../domain/status';

/**
 * Transaction status codes (Airtel Money Open API docs: enquiry `TF TS TA TIP TE`; callbacks `TS`/`TF`).
 * Keyed upper case; the callback's `status_code` is compared case-insensitively.
 */
export const AIRTEL_STATUS_TABLE: Readonly<
  Record<string, { status: TransactionStatus; reason?: ReasonCode }>
> = {
  TS: { status: 'SUCCEEDED' },
  TF: { status: 'FAILED' },
  TA: { status: 'AMBIGUOUS' },
  TIP: { status: 'PENDING' },
  TE: { status: 'FAILED', reason: 'TIMED_OUT' },
};

export interface AirtelResultCode {
  /** What the code says about the transaction when no TS/TF/TA/TIP/TE status accompanies it. */
  status: TransactionStatus;
  /** The failure reason the code names; undefined when it names none. */
  reason: ReasonCode | undefined;
  description: string;
}

/**
 * Disbursement result codes (`DP009…`), from Airtel's disbursement error-code page
 * (developers.airtel.ug/documentation/disbursement-apis/error-codes, as integrators transcribe it; see the
 * README). Two of them tell the partner to ask the enquiry for "the exact status": a timeout (…014) and a
 * duplicate transaction id (…017: the id is the original's, which may have gone through), so on their own
 * they are AMBIGUOUS, never a failure of the transaction the id names.
 */
const AIRTEL_DISBURSEMENT_CODES: Readonly<Record<string, AirtelResultCode>> = {
  DP00900001000: {
    status: 'AMBIGUOUS',
    reason: undefined,
    description: 'Disbursement: ambiguous, still processing; do a transaction enquiry',
  },
  DP00900001001: { status: 'SUCCEEDED', reason: undefined, description: 'Disbursement: success' },
  DP00900001003: {
    status: 'FAILED',
    reason: 'LIMIT_REACHED',
    description: 'Disbursement: maximum transaction limit reached for the day',
  },
  DP00900001004: {
    status: 'FAILED',
    reason: 'AMOUNT_INVALID',
    description: 'Disbursement: amount out of the defined limits',
  },
  // "Transaction failed": no cause named, so the message (else UNKNOWN) gives the reason.
  DP00900001005: { status: 'FAILED', reason: undefined, description: 'Disbursement: transaction failed' },
  DP00900001006: { status: 'PENDING', reason: undefined, description: 'Disbursement: in process' },
  DP00900001007: {
    status: 'FAILED',
    reason: 'INSUFFICIENT_FUNDS',
    description: "Disbursement: not enough funds in the partner's account",
  },
  DP00900001009: {
    status: 'FAILED',
    reason: 'INVALID_INITIATOR',
    description: 'Disbursement: the initiatee of the transaction is invalid',
  },
  DP00900001010: {
    status: 'FAILED',
    reason: 'NOT_ALLOWED',
    description: 'Disbursement: the payer is not an allowed user',
  },
  DP00900001011: {
    status: 'FAILED',
    reason: 'DUPLICATE',
    description: 'Disbursement: a transaction with similar information already exists',
  },
  DP00900001012: {
    status: 'FAILED',
    reason: 'PAYEE_NOT_FOUND',
    description: 'Disbursement: the mobile number is incorrect',
  },
  // "Refused"; what integrations see it for is the request's data (country, currency, MSISDN length, PIN).
  DP00900001013: { status: 'FAILED', reason: 'INVALID_REQUEST', description: 'Disbursement: refused' },
  DP00900001014: {
    status: 'AMBIGUOUS',
    reason: 'TIMED_OUT',
    description: 'Disbursement: timed out, may be processed or failed; do a transaction enquiry',
  },
  DP00900001015: {
    status: 'AMBIGUOUS',
    reason: 'UNKNOWN',
    description: 'Disbursement: transaction not found',
  },
  DP00900001016: {
    status: 'FAILED',
    reason: 'NOT_ALLOWED',
    description: 'Disbursement: forbidden, x-signature and payload did not match',
  },
  DP00900001017: {
    status: 'AMBIGUOUS',
    reason: 'DUPLICATE',
    description: 'Disbursement: duplicate transaction id; the enquiry tells the original',
  },
};

/**
 * Every result code of the Airtel Money Open API documentation (`status.response_code`) and the disbursement codes of the
 * provider notes. Decisions (see docs/airtel.md):
 * - …005 "transaction id invalid (user did not enter the PIN)": TIMED_OUT. The prompt lapsed without an
 *   answer; an explicit "no" is …008.
 * - …008 "refused": REJECTED_BY_CUSTOMER. In a push payment the subscriber declining the prompt is the
 *   refusal not covered by a dedicated code (wrong PIN 002, no PIN 005, balance 007, limit 003, barred
 *   payee 010, signature 026). providerCode is kept, so consumers can still tell it apart.
 * - …025 "not found" alone is not a verdict (the enquiry can race the payment): AMBIGUOUS, so
 *   reconciliation keeps polling; with TF it is a failure with reason UNKNOWN.
 * - DP02010001001 "key fetched" says nothing about the transaction: PENDING (no change), no reason.
 */
export const AIRTEL_RESULT_CODES: Readonly<Record<string, AirtelResultCode>> = {
  DP00800001000: {
    status: 'AMBIGUOUS',
    reason: undefined,
    description: 'Ambiguous: still processing; do a transaction enquiry',
  },
  DP00800001001: { status: 'SUCCEEDED', reason: undefined, description: 'Success' },
  DP00800001002: { status: 'FAILED', reason: 'WRONG_PIN', description: 'Incorrect PIN entered' },
  DP00800001003: {
    status: 'FAILED',
    reason: 'LIMIT_REACHED',
    description: 'Wallet transaction limit exceeded',
  },
  DP00800001004: {
    status: 'FAILED',
    reason: 'AMOUNT_INVALID',
    description: 'Invalid amount: below the minimum allowed',
  },
  DP00800001005: {
    status: 'FAILED',
    reason: 'TIMED_OUT',
    description: 'Transaction id invalid (user did not enter the PIN)',
  },
  DP00800001006: { status: 'PENDING', reason: undefined, description: 'In process: pending, check later' },
  DP00800001007: { status: 'FAILED', reason: 'INSUFFICIENT_FUNDS', description: 'Not enough balance' },
  DP00800001008: { status: 'FAILED', reason: 'REJECTED_BY_CUSTOMER', description: 'Refused' },
  // On Airtel's collection error-code page, not in the provider notes: a final refusal, its cause unnamed.
  DP00800001009: {
    status: 'FAILED',
    reason: undefined,
    description: 'Do not honor: a generic refusal with several possible causes',
  },
  DP00800001010: {
    status: 'FAILED',
    reason: 'NOT_ALLOWED',
    description: 'Transaction not permitted to payee: churned, barred or not registered',
  },
  DP00800001024: { status: 'FAILED', reason: 'TIMED_OUT', description: 'Transaction timed out' },
  DP00800001025: { status: 'AMBIGUOUS', reason: 'UNKNOWN', description: 'Transaction not found' },
  DP00800001026: {
    status: 'FAILED',
    reason: 'NOT_ALLOWED',
    description: 'Forbidden: x-signature and payload did not match',
  },
  DP00800001029: { status: 'FAILED', reason: 'TIMED_OUT', description: 'Transaction expired' },
  DP02010001000: {
    status: 'FAILED',
    reason: 'PROVIDER_ERROR',
    description: 'Encryption key could not be fetched',
  },
  DP02010001001: { status: 'PENDING', reason: undefined, description: 'Encryption key fetched successfully' },
  ...AIRTEL_DISBURSEMENT_CODES,
  DP00900001018: { status: 'FAILED', reason: 'NOT_ALLOWED', description: 'Disbursement: signature mismatch' },
};

/** Result codes look like DP + 11 digits (DP00800001007). */
const RESULT_CODE = /\bDP\d{11}\b/i;

/** The first DP… result code in a text (a status code, a response code, a message), upper-cased. */
export function findResultCode(text: string | null | undefined): string | undefined {
  return text ? RESULT_CODE.exec(text)?.[0].toUpperCase() : undefined;
}

/**
 * Fallback when no result code is present: the callback `message` often names the cause. Checked in
 * order, case-insensitively, as substrings; the first hit wins.
 */
export const AIRTEL_MESSAGE_PHRASES: ReadonlyArray<readonly [string, ReasonCode]> = [
  ['insufficient', 'INSUFFICIENT_FUNDS'],
  ['not enough balance', 'INSUFFICIENT_FUNDS'],
  ['not enough funds', 'INSUFFICIENT_FUNDS'],
  ['low balance', 'INSUFFICIENT_FUNDS'],
  ['incorrect pin', 'WRONG_PIN'],
  ['invalid pin', 'WRONG_PIN'],
  ['wrong pin', 'WRONG_PIN'],
  ['did not enter', 'TIMED_OUT'],
  // Airtel's own words for …005 and …007 (its error-code pages): "User didn't enter the pin.", "User wallet
  // does not have enough money to cover the payable amount."
  ["didn't enter", 'TIMED_OUT'],
  ['enough money', 'INSUFFICIENT_FUNDS'],
  ['limit', 'LIMIT_REACHED'],
  ['invalid amount', 'AMOUNT_INVALID'],
  ['minimum', 'AMOUNT_INVALID'],
  ['duplicate', 'DUPLICATE'],
  // …011: "Transaction with similar information already exists in this system."
  ['already exists', 'DUPLICATE'],
  ['timed out', 'TIMED_OUT'],
  ['timeout', 'TIMED_OUT'],
  ['expired', 'TIMED_OUT'],
  ['refused', 'REJECTED_BY_CUSTOMER'],
  ['rejected', 'REJECTED_BY_CUSTOMER'],
  ['declined', 'REJECTED_BY_CUSTOMER'],
  ['cancelled', 'REJECTED_BY_CUSTOMER'],
  ['canceled', 'REJECTED_BY_CUSTOMER'],
  ['not permitted', 'NOT_ALLOWED'],
  ['not allowed', 'NOT_ALLOWED'],
  ['barred', 'NOT_ALLOWED'],
  ['churned', 'NOT_ALLOWED'],
  ['signature', 'NOT_ALLOWED'],
  ['forbidden', 'NOT_ALLOWED'],
];

export function reasonFromMessage(message: string | null | undefined): ReasonCode | undefined {
  if (!message) return undefined;
  const lower = message.toLowerCase();
  return AIRTEL_MESSAGE_PHRASES.find(([phrase]) => lower.includes(phrase))?.[1];
}

export interface AirtelOutcome {
  status: TransactionStatus;
  /** Set for FAILED (UNKNOWN when nothing names a cause), undefined otherwise. */
  reason: ReasonCode | undefined;
  /** The DP… code the decision used, when there was one. */
  resultCode: string | undefined;
}

/**
 * Status and reason of one callback.
 * 1. A transaction status code (TS/TF/TA/TIP/TE, any case) decides the status.
 * 2. Otherwise a DP… result code decides it, so `SUCCESS` + DP00800001006 is PENDING (in progress, NOT
 *    paid), never a success. A bare `SUCCESS` (the push response's "request accepted") or an unknown
 *    code without a known result code is AMBIGUOUS: reconciliation asks the enquiry API.
 * 3. A failure's reason comes from the result code, else from the status (TE), else from the message
 *    phrases, else UNKNOWN.
 */
export function decideAirtelOutcome(input: {
  statusCode: string;
  resultCodes: readonly (string | null | undefined)[];
  message: string | null | undefined;
}): AirtelOutcome {
  const statusCode = input.statusCode.trim().toUpperCase();
  const resultCode = [statusCode, ...input.resultCodes, input.message].map(findResultCode).find(Boolean);
  const known = resultCode ? AIRTEL_RESULT_CODES[resultCode] : undefined;
  const byStatus = AIRTEL_STATUS_TABLE[statusCode];
  const status: TransactionStatus = byStatus?.status ?? known?.status ?? 'AMBIGUOUS';
  if (status !== 'FAILED') return { status, reason: undefined, resultCode };
  const reason = known?.reason ?? byStatus?.reason ?? reasonFromMessage(input.message) ?? 'UNKNOWN';
  return { status, reason, resultCode };
}
