import type { ReasonCode } from '../../domain/reasons';
import type { TransactionStatus } from '../../domain/status';

/**
 * Transaction status codes (Airtel Money Open API docs: enquiry `TF TS TA TIP TE`; callbacks `TS`/`TF`),
 * plus `TI`, "transaction initiated", which production enquiries answer for a payment not settled yet
 * (lepresk/momo-api-node, src/models/AirtelTransaction.ts, found against a production integration): in
 * progress like TIP, never a reason to doubt the payment. Keyed upper case; the callback's `status_code` is
 * compared case-insensitively.
 */
export const AIRTEL_STATUS_TABLE: Readonly<
  Record<string, { status: TransactionStatus; reason?: ReasonCode }>
> = {
  TS: { status: 'SUCCEEDED' },
  TF: { status: 'FAILED' },
  TA: { status: 'AMBIGUOUS' },
  TIP: { status: 'PENDING' },
  TI: { status: 'PENDING' },
  TE: { status: 'FAILED', reason: 'TIMED_OUT' },
};

export interface AirtelResultCode {
  /** What the code says about the transaction when no TS/TF/TA/TIP/TI/TE status accompanies it. */
  status: TransactionStatus;
  /** The failure reason the code names; undefined when it names none. */
  reason: ReasonCode | undefined;
}

type Row = readonly [suffix: string, status: TransactionStatus, reason?: ReasonCode];

/**
 * Collection result codes, `DP008000` + the suffix: every code of the Airtel Money Open API documentation
 * (`status.response_code`) and of Airtel's collection error-code page (…009). Meanings in the README.
 * Decisions (see the README):
 * - …005 "transaction id invalid (user did not enter the PIN)": TIMED_OUT. The prompt lapsed without an
 *   answer; an explicit "no" is …008.
 * - …008 "refused": REJECTED_BY_CUSTOMER. In a push payment the subscriber declining the prompt is the
 *   refusal not covered by a dedicated code (wrong PIN 002, no PIN 005, balance 007, limit 003, barred
 *   payee 010, signature 026). providerCode is kept, so consumers can still tell it apart.
 * - …009 "do not honor", a generic refusal: FAILED, its reason from the message (else UNKNOWN).
 * - …025 "not found" alone is not a verdict (the enquiry can race the payment): AMBIGUOUS, so
 *   reconciliation keeps polling; with TF it is a failure with reason UNKNOWN.
 */
const COLLECTION: readonly Row[] = [
  ['01000', 'AMBIGUOUS'], // ambiguous: still processing; do a transaction enquiry
  ['01001', 'SUCCEEDED'], // success
  ['01002', 'FAILED', 'WRONG_PIN'], // incorrect PIN entered
  ['01003', 'FAILED', 'LIMIT_REACHED'], // wallet transaction limit exceeded
  ['01004', 'FAILED', 'AMOUNT_INVALID'], // invalid amount: below the minimum allowed
  ['01005', 'FAILED', 'TIMED_OUT'], // transaction id invalid (user did not enter the PIN)
  ['01006', 'PENDING'], // in process: pending, check later
  ['01007', 'FAILED', 'INSUFFICIENT_FUNDS'], // not enough balance
  ['01008', 'FAILED', 'REJECTED_BY_CUSTOMER'], // refused
  ['01009', 'FAILED'], // do not honor: a generic refusal with several possible causes
  ['01010', 'FAILED', 'NOT_ALLOWED'], // not permitted to payee: churned, barred or not registered
  ['01024', 'FAILED', 'TIMED_OUT'], // transaction timed out
  ['01025', 'AMBIGUOUS', 'UNKNOWN'], // transaction not found
  ['01026', 'FAILED', 'NOT_ALLOWED'], // forbidden: x-signature and payload did not match
  ['01029', 'FAILED', 'TIMED_OUT'], // transaction expired
];

/**
 * Disbursement result codes, `DP009000` + the suffix: Airtel's disbursement error-code page
 * (developers.airtel.ug/documentation/disbursement-apis/error-codes, as integrators transcribe it; see the
 * README) and the provider notes' …017 and …018. Two of them tell the partner to ask the enquiry for "the
 * exact status": a timeout (…014, "may be processed or failed") and a duplicate transaction id (…017: the id
 * is the original's, which may have gone through), so on their own they are AMBIGUOUS, never a failure of
 * the transaction the id names.
 */
const DISBURSEMENT: readonly Row[] = [
  ['01000', 'AMBIGUOUS'], // ambiguous: still processing; do a transaction enquiry
  ['01001', 'SUCCEEDED'], // success
  ['01003', 'FAILED', 'LIMIT_REACHED'], // maximum transaction limit reached for the day
  ['01004', 'FAILED', 'AMOUNT_INVALID'], // amount out of the defined limits
  ['01005', 'FAILED'], // "transaction failed": no cause named, the message (else UNKNOWN) gives it
  ['01006', 'PENDING'], // in process
  ['01007', 'FAILED', 'INSUFFICIENT_FUNDS'], // not enough funds in the partner's account
  ['01009', 'FAILED', 'INVALID_INITIATOR'], // the initiatee of the transaction is invalid
  ['01010', 'FAILED', 'NOT_ALLOWED'], // the payer is not an allowed user
  ['01011', 'FAILED', 'DUPLICATE'], // a transaction with similar information already exists
  ['01012', 'FAILED', 'PAYEE_NOT_FOUND'], // the mobile number is incorrect
  // "Refused"; integrations see it for the request's data (country, currency, MSISDN length, PIN).
  ['01013', 'FAILED', 'INVALID_REQUEST'],
  ['01014', 'AMBIGUOUS', 'TIMED_OUT'], // timed out: may be processed or failed; do a transaction enquiry
  ['01015', 'AMBIGUOUS', 'UNKNOWN'], // transaction not found
  ['01016', 'FAILED', 'NOT_ALLOWED'], // forbidden: x-signature and payload did not match
  ['01017', 'AMBIGUOUS', 'DUPLICATE'], // duplicate transaction id; the enquiry tells the original
  ['01018', 'FAILED', 'NOT_ALLOWED'], // signature mismatch (provider notes)
];

/**
 * Encryption key codes, `DP020100` + the suffix. "Key fetched" says nothing about the transaction: PENDING
 * (no change), no reason.
 */
const ENCRYPTION_KEY: readonly Row[] = [
  ['01000', 'FAILED', 'PROVIDER_ERROR'], // encryption key could not be fetched
  ['01001', 'PENDING'], // encryption key fetched successfully
];

const rows = (prefix: string, table: readonly Row[]) =>
  table.map(([suffix, status, reason]) => [`${prefix}${suffix}`, { status, reason }] as const);

/** Every DP… result code the relay knows (the README's table, tested row by row). */
export const AIRTEL_RESULT_CODES: Readonly<Record<string, AirtelResultCode>> = Object.fromEntries([
  ...rows('DP008000', COLLECTION),
  ...rows('DP009000', DISBURSEMENT),
  ...rows('DP020100', ENCRYPTION_KEY),
]);

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
 * 1. A transaction status code (TS/TF/TA/TIP/TI/TE, any case) decides the status.
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
