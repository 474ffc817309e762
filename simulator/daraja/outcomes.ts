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

export const STK_SUCCESS: StkOutcome = {
  suffix: null,
  resultCode: 0,
  resultDesc: 'The service request is processed successfully.',
};

/** STK push, by `PhoneNumber` suffix. */
export const STK_OUTCOMES: readonly StkOutcome[] = [
  { suffix: '0001', resultCode: 1, resultDesc: 'The balance is insufficient for the transaction.' },
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
  | { type: 'failure'; suffix: string; resultCode: number; resultDesc: string }
  | { type: 'queue-timeout'; suffix: string };

/** B2C, by `PartyB` suffix. */
export const B2C_OUTCOMES: readonly Exclude<B2cOutcome, { type: 'success' }>[] = [
  { type: 'failure', suffix: '2001', resultCode: 2001, resultDesc: 'The initiator information is invalid.' },
  {
    type: 'failure',
    suffix: '0001',
    resultCode: 1,
    resultDesc: 'The balance is insufficient for the transaction.',
  },
  { type: 'queue-timeout', suffix: '0408' },
];

export function b2cOutcome(partyB: string): B2cOutcome {
  return B2C_OUTCOMES.find((o) => partyB.endsWith(o.suffix)) ?? { type: 'success', suffix: null };
}
