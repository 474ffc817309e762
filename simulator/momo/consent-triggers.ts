/**
 * MoMo Open API docs, sandbox test numbers: "OAuth2 consent flow (MSISDN)" — the consumer MSISDN in bc-authorize's `login_hint`
 * equal to base + index selects the outcome of that index; any other consumer consents at once. MTN's docs
 * name the outcomes only; what each one does is the simulator's choice, chosen so that every row changes
 * something a client sees (the README's consent table says what).
 */
import type { MomoProduct } from './auth';
import type { OutcomeBehaviour } from './outcomes';
import { sandboxIndex } from './outcomes';

const MOMO_CONSENT_FAMILY = [
  'AccountHolderNotFound',
  'ConsentRejected',
  'ConsentPending',
  'ConsentExpired',
  'ConsentExpiredRefreshToken',
  'ConsentRevoked',
  'ConsentDeletedScope',
  'ConsentAlreadyUsed',
  'FinancialNoFunds',
  'FinancialPayeeNotFound',
  'FinancialConsentMismatch',
  'FinancialPayerLimitReached',
  'FinancialPayeeNotAllowedToReceive',
] as const;

export type ConsentOutcome = (typeof MOMO_CONSENT_FAMILY)[number] | 'Consented';

/** MoMo Open API docs: "OAuth2 custom scope trigger: `all_info`" — the scope that unlocks the full user-info body. */
export const ALL_INFO_SCOPE = 'all_info';

/** One bc-authorize request and, once redeemed, the consent its tokens act under. */
export interface ConsentGrant {
  authReqId: string;
  apiUserId: string;
  product: MomoProduct;
  /** `login_hint` as sent, e.g. `ID:46733123450/MSISDN`. */
  loginHint: string;
  /** The consumer's MSISDN or e-mail from the login hint. */
  consumerId: string;
  consumerIdType: 'MSISDN' | 'EMAIL';
  scope: string;
  accessType: 'online' | 'offline';
  outcome: ConsentOutcome;
  createdAt: number;
  /** Real time at which the consumer approves (later than `createdAt` only for ConsentPending). */
  approvedAt: number;
  /** Real time at which an unredeemed `auth_req_id` dies (`expires_in` of bc-authorize, scaled). */
  authReqExpiresAt: number;
  /** Seconds the consent can be refreshed for (`consent_valid_in` or the default). */
  consentValidSeconds: number;
  redeemed: boolean;
  refreshToken: string | undefined;
}

export function consentOutcome(idType: 'MSISDN' | 'EMAIL', id: string, base: string): ConsentOutcome {
  if (idType !== 'MSISDN') return 'Consented';
  const index = sandboxIndex(id, base, MOMO_CONSENT_FAMILY.length);
  return index === undefined ? 'Consented' : MOMO_CONSENT_FAMILY[index]!;
}

/**
 * The Financial* rows: the consent itself is fine (token and user info work); a financial operation made
 * with its token fails with this reason. `CONSENT_MISMATCH` is the simulator's code (MTN's docs give none).
 */
const FINANCIAL_FAILURES: Partial<Record<ConsentOutcome, { code: string; message: string }>> = {
  FinancialNoFunds: { code: 'NOT_ENOUGH_FUNDS', message: 'The consumer does not have enough funds.' },
  FinancialPayeeNotFound: { code: 'PAYEE_NOT_FOUND', message: 'The payee could not be found.' },
  FinancialConsentMismatch: {
    code: 'CONSENT_MISMATCH',
    message: 'The operation does not match the consent given by the consumer.',
  },
  FinancialPayerLimitReached: {
    code: 'PAYER_LIMIT_REACHED',
    message: 'The payer limit for debits has been reached.',
  },
  FinancialPayeeNotAllowedToReceive: {
    code: 'PAYEE_NOT_ALLOWED_TO_RECEIVE',
    message: 'The payee is not allowed to receive funds.',
  },
};

export function consentFinancialBehaviour(outcome: ConsentOutcome): OutcomeBehaviour | undefined {
  const failure = FINANCIAL_FAILURES[outcome];
  return failure ? { type: 'failed', ...failure, format: 'object' } : undefined;
}
