/**
 * Airtel sandbox outcomes, chosen by the last three digits of `subscriber.msisdn` (sent without country
 * code); any other number succeeds. An amount below 1 also fails as "invalid amount".
 * `callback` is the status_code of the callback, or null when none is sent at that stage.
 */

export type AirtelStatus = 'TS' | 'TF' | 'TA' | 'TIP' | 'TE';

export interface AirtelOutcome {
  suffix: string | null;
  /** Status shown by the enquiry once the payer has answered. */
  status: AirtelStatus;
  responseCode: string;
  message: string;
  callback: 'TS' | 'TF' | null;
  /** TA settles to TS after `ambiguousResolveMs` (scaled); others are final or stay as they are. */
  settlesTo?: 'TS';
}

const AIRTEL_SUCCESS: AirtelOutcome = {
  suffix: null,
  status: 'TS',
  responseCode: 'DP00800001001',
  message: 'Transaction is successful',
  callback: 'TS',
};

export const AIRTEL_OUTCOMES: readonly AirtelOutcome[] = [
  {
    suffix: '901',
    status: 'TF',
    responseCode: 'DP00800001007',
    message: 'Transaction failed: insufficient balance',
    callback: 'TF',
  },
  {
    suffix: '902',
    status: 'TF',
    responseCode: 'DP00800001002',
    message: 'Transaction failed: incorrect PIN entered',
    callback: 'TF',
  },
  {
    suffix: '903',
    status: 'TA',
    responseCode: 'DP00800001000',
    message: 'Transaction is ambiguous: still processing, do a transaction enquiry',
    callback: null,
    settlesTo: 'TS',
  },
  {
    suffix: '904',
    status: 'TIP',
    responseCode: 'DP00800001006',
    message: 'Transaction in progress',
    callback: null,
  },
  {
    suffix: '905',
    status: 'TE',
    responseCode: 'DP00800001029',
    message: 'Transaction expired',
    callback: 'TF',
  },
  {
    suffix: '906',
    status: 'TF',
    responseCode: 'DP00800001003',
    message: 'Transaction failed: wallet transaction limit exceeded',
    callback: 'TF',
  },
  {
    suffix: '907',
    status: 'TF',
    responseCode: 'DP00800001004',
    message: 'Transaction failed: invalid amount, below the minimum allowed',
    callback: 'TF',
  },
  {
    suffix: '908',
    status: 'TF',
    responseCode: 'DP00800001010',
    message: 'Transaction not permitted to payee',
    callback: 'TF',
  },
  {
    suffix: '909',
    status: 'TF',
    responseCode: 'DP00800001024',
    message: 'Transaction timed out',
    callback: 'TF',
  },
  {
    suffix: '910',
    status: 'TF',
    responseCode: 'DP00800001008',
    message: 'Transaction refused',
    callback: 'TF',
  },
  {
    suffix: '911',
    status: 'TF',
    responseCode: 'DP00800001005',
    message: 'Transaction id invalid: the user did not enter the PIN',
    callback: 'TF',
  },
];

export function airtelOutcome(msisdn: string, amount: number): AirtelOutcome {
  if (amount < 1) return AIRTEL_OUTCOMES.find((o) => o.responseCode === 'DP00800001004')!;
  return AIRTEL_OUTCOMES.find((o) => o.suffix !== null && msisdn.endsWith(o.suffix)) ?? AIRTEL_SUCCESS;
}

/** Enquiry view before the payer answers. */
export const AIRTEL_IN_PROGRESS = {
  status: 'TIP' as const,
  responseCode: 'DP00800001006',
  message: 'Transaction in progress',
};
