/**
 * Daraja sandbox outcomes, chosen by the last four digits of a phone number; any other number succeeds.
 * The suffix spells the result code where it can (…1032 → 1032) so tests read naturally.
 */

export interface StkOutcome {
  suffix: string | null;
  /** Numeric on the platform except the `SFC_IC…` family, which arrives as a string. */
  resultCode: number | string;
  resultDesc: string;
}

const STK_SUCCESS: StkOutcome = {
  suffix: null,
  resultCode: 0,
  resultDesc: 'The service request is processed successfully.',
};

/**
 * STK push, by `PhoneNumber` suffix: every code of the M-Pesa Express result-code table (Daraja API docs) and
 * the older 1001 and 9999. Code 3 is …0030, as …0003 was SFC_IC0003's first.
 */
export const STK_OUTCOMES: readonly StkOutcome[] = [
  { suffix: '0001', resultCode: 1, resultDesc: 'The balance is insufficient for the transaction.' },
  { suffix: '0002', resultCode: 2, resultDesc: 'Declined due to limit rule.' },
  {
    suffix: '0030',
    resultCode: 3,
    resultDesc: 'Declined due to limit rule: greater than the maximum transaction amount.',
  },
  {
    suffix: '0004',
    resultCode: 4,
    resultDesc: 'Declined due to limit rule: would exceed daily transfer limit.',
  },
  {
    suffix: '0008',
    resultCode: 8,
    resultDesc: 'Declined due to limit rule: would exceed the maximum balance.',
  },
  {
    suffix: '0017',
    resultCode: 17,
    resultDesc: 'Rule limited: a similar request was made within the last 2 minutes.',
  },
  {
    suffix: '1001',
    resultCode: 1001,
    resultDesc: 'Unable to lock subscriber, a transaction is already in process for the current subscriber',
  },
  { suffix: '1019', resultCode: 1019, resultDesc: 'Transaction has expired' },
  { suffix: '1025', resultCode: 1025, resultDesc: 'An error occurred while sending a push request' },
  { suffix: '1032', resultCode: 1032, resultDesc: 'Request cancelled by user' },
  { suffix: '1037', resultCode: 1037, resultDesc: 'DS timeout user cannot be reached' },
  { suffix: '2001', resultCode: 2001, resultDesc: 'The initiator information is invalid.' },
  { suffix: '9999', resultCode: 9999, resultDesc: 'An error occurred while sending a push request.' },
  { suffix: '0003', resultCode: 'SFC_IC0003', resultDesc: 'Invalid PartyB or TransactionType' },
  // Provider notes: "2028/SFC_IC0003 wrong PartyB": the numeric form of the same refusal.
  {
    suffix: '2028',
    resultCode: 2028,
    resultDesc: 'The request is not permitted according to product assignment.',
  },
  // Provider notes: "8006 locked": the initiator's security credential is locked after failed attempts.
  { suffix: '8006', resultCode: 8006, resultDesc: 'The security credential is locked.' },
];

/** Sent by the `stale-after-final` fault after an STK result: the platform's late "no answer" notice. */
export const STK_STALE: StkOutcome = STK_OUTCOMES.find((o) => o.resultCode === 1037)!;

export function stkOutcome(phoneNumber: string): StkOutcome {
  return STK_OUTCOMES.find((o) => o.suffix !== null && phoneNumber.endsWith(o.suffix)) ?? STK_SUCCESS;
}

export type B2cOutcome =
  | { type: 'success'; suffix: string | null }
  | { type: 'failure'; suffix: string; resultCode: number | string; resultDesc: string }
  | { type: 'queue-timeout'; suffix: string };

const b2cFailure = (
  suffix: string,
  resultCode: number | string,
  resultDesc: string,
): Extract<B2cOutcome, { type: 'failure' }> => ({
  type: 'failure',
  suffix,
  resultCode,
  resultDesc,
});

/**
 * B2C, by `PartyB` suffix: every failure of the B2C result-code table (Daraja API docs), ResultDesc as
 * written there; the suffix spells the code (3 is …0030 and SFC_IC0003 …0003, as on STK).
 */
export const B2C_OUTCOMES: readonly Exclude<B2cOutcome, { type: 'success' }>[] = [
  b2cFailure('2001', 2001, 'The initiator information is invalid.'),
  b2cFailure('0001', 1, 'The balance is insufficient for the transaction.'),
  b2cFailure('0002', 2, 'Declined due to limit rule'),
  b2cFailure('0030', 3, 'Declined due to limit rule: greater than the maximum transaction amount.'),
  b2cFailure('0004', 4, 'Declined due to limit rule: would exceed daily transfer limit'),
  b2cFailure('0008', 8, 'Declined due to limit rule: would exceed the maximum balance.'),
  b2cFailure('0011', 11, 'The DebitParty is in an invalid state.'),
  b2cFailure('0021', 21, 'The initiator is not allowed to initiate this request'),
  b2cFailure(
    '2006',
    2006,
    'Declined due to account rule: The account status does not allow this transaction.',
  ),
  b2cFailure('2028', 2028, 'The request is not permitted according to product assignment.'),
  b2cFailure(
    '2040',
    2040,
    "Credit Party customer type (Unregistered or Registered Customer) can't be supported by the service.",
  ),
  b2cFailure('8006', 8006, 'The security credential is locked'),
  b2cFailure('0003', 'SFC_IC0003', 'The operator does not exist.'),
  { type: 'queue-timeout', suffix: '0408' },
];

export function b2cOutcome(partyB: string): B2cOutcome {
  return B2C_OUTCOMES.find((o) => partyB.endsWith(o.suffix)) ?? { type: 'success', suffix: null };
}
