/**
 * MoMo sandbox outcomes, in one place. The MoMo Open API documentation (sandbox test numbers) lists the outcome families in index
 * order; the payer (or payee) MSISDN equal to base + index selects that outcome, any other MSISDN succeeds.
 * The public sandbox base is 46733123450 (configurable). The second table says what each outcome does:
 * which status and reason a callback carries, or which synchronous error answers the POST.
 *
 * Ongoing and Delayed: MTN's docs give them no behaviour of their own. What it does say: a request "stays
 * PENDING" until the payer answers; when "the approval window (5 minutes) passes" it is FAILED, "for example
 * COULD_NOT_PERFORM_TRANSACTION on timeout; callback if URL given"; "a callback is sent when a final state
 * is reached"; `reason` is the "cause in case of failure" (ONGOING and PAYER_DELAYED are not among its
 * failure reasons). So both stay PENDING without a reason and without a callback, and fail with
 * COULD_NOT_PERFORM_TRANSACTION (one callback) when the window ends. Nothing in MTN's docs makes them succeed.
 */

export type MomoOutcome =
  | 'Success'
  | 'Failed'
  | 'Rejected'
  | 'Expired'
  | 'Ongoing'
  | 'Delayed'
  | 'NotFound'
  | 'PayeeNotAllowedToReceive'
  | 'NotAllowed'
  | 'NotAllowedTargetEnvironment'
  | 'InvalidCallbackUrlHost'
  | 'InvalidCurrency'
  | 'InternalProcessingError'
  | 'ServiceUnavailable'
  | 'CouldNotPerformTransaction'
  | 'NotEnoughFunds'
  | 'PayerLimitReached';

/** Outcomes no sandbox table reaches: only the simulator's `X-Sim-Outcome` header selects them. */
export type MomoExtraOutcome =
  'PayeeLimitReached' | 'SenderAccountNotActive' | 'TransactionNotFound' | 'TransactionCanceled';

/**
 * The payee's cancellation (MoMo Open API docs: CancelInvoice; a pre-approval "can be cancelled only … by the payee
 * side"), in one place: CancelInvoice and `X-Sim-Outcome: TransactionCanceled` fail with exactly this, so
 * every cancellation the simulator produces reads the same (the relay: CANCELLED_BY_PAYEE). The customer
 * refusing is `Rejected` (APPROVAL_REJECTED), never this.
 */
export const MOMO_PAYEE_CANCELLATION = {
  code: 'TRANSACTION_CANCELED',
  message: 'The payee cancelled the request.',
  format: 'object',
} as const;

export type MomoFamily = 'requesttopay' | 'preapproval' | 'transfer';

/** MoMo Open API docs, "Sandbox", MSISDN triggers, in index order. */
export const MOMO_SANDBOX_FAMILIES: Record<MomoFamily, readonly MomoOutcome[]> = {
  // Request to pay, request to withdraw, deposit (and, by the simulator's choice, invoice and payment).
  requesttopay: [
    'Failed',
    'Rejected',
    'Expired',
    'Ongoing',
    'Delayed',
    'NotFound',
    'PayeeNotAllowedToReceive',
    'NotAllowed',
    'NotAllowedTargetEnvironment',
    'InvalidCallbackUrlHost',
    'InvalidCurrency',
    'InternalProcessingError',
    'ServiceUnavailable',
    'CouldNotPerformTransaction',
  ],
  preapproval: [
    'Failed',
    'Rejected',
    'Expired',
    'Ongoing',
    'Delayed',
    'NotFound',
    'NotAllowed',
    'NotAllowedTargetEnvironment',
    'InvalidCallbackUrlHost',
    'InvalidCurrency',
    'InternalProcessingError',
    'ServiceUnavailable',
  ],
  transfer: [
    'Failed',
    'Rejected',
    'Expired',
    'Ongoing',
    'Delayed',
    'NotEnoughFunds',
    'PayerLimitReached',
    'NotFound',
    'NotAllowed',
    'NotAllowedTargetEnvironment',
    'InvalidCallbackUrlHost',
    'InvalidCurrency',
    'InternalProcessingError',
    'ServiceUnavailable',
  ],
};

/** Account holder active / basic user info family (MoMo Open API docs). */
export type AccountHolderOutcome =
  | 'Active'
  | 'NotFound'
  | 'NotActive'
  | 'NotAllowed'
  | 'NotAllowedTargetEnvironment'
  | 'InternalProcessingError'
  | 'ServiceUnavailable';

const MOMO_ACCOUNT_HOLDER_FAMILY: readonly AccountHolderOutcome[] = [
  'NotFound',
  'NotActive',
  'NotAllowed',
  'NotAllowedTargetEnvironment',
  'InternalProcessingError',
  'ServiceUnavailable',
];

export type ReasonFormat = 'string' | 'object';

export type OutcomeBehaviour =
  | { type: 'success' }
  /** FAILED after the payer's answer, with this reason. */
  | { type: 'failed'; code: string; message: string; format: ReasonFormat }
  /**
   * The payer never answers: PENDING (no reason, no callback) until the approval window ends, then FAILED
   * with `code` and its one callback.
   */
  | { type: 'unanswered'; code: string; message: string; format: ReasonFormat }
  /** Rejected synchronously: the POST answers this error and nothing is created. */
  | { type: 'sync-error'; status: number; code: string; message: string };

/**
 * What each outcome does. Reason formats alternate on purpose (fixed per outcome) so the relay sees both
 * the string form (`"reason":"INTERNAL_PROCESSING_ERROR"`) and the object form (`{code,message}`).
 */
export const MOMO_OUTCOME_BEHAVIOUR: Record<MomoOutcome, OutcomeBehaviour> = {
  Success: { type: 'success' },
  Failed: {
    type: 'failed',
    code: 'INTERNAL_PROCESSING_ERROR',
    message: 'An internal error caused the operation to fail.',
    format: 'string',
  },
  Rejected: {
    type: 'failed',
    code: 'APPROVAL_REJECTED',
    message: 'Payer rejected the request',
    format: 'object',
  },
  Expired: {
    type: 'failed',
    code: 'EXPIRED',
    message: 'The request expired before the payer approved it.',
    format: 'string',
  },
  Ongoing: {
    type: 'unanswered',
    code: 'COULD_NOT_PERFORM_TRANSACTION',
    message: 'The payer did not approve within the approval window.',
    format: 'object',
  },
  Delayed: {
    type: 'unanswered',
    code: 'COULD_NOT_PERFORM_TRANSACTION',
    message: 'The payer did not approve within the approval window.',
    format: 'string',
  },
  NotFound: {
    type: 'failed',
    code: 'PAYER_NOT_FOUND',
    message: 'The payer could not be found.',
    format: 'string',
  },
  PayeeNotAllowedToReceive: {
    type: 'failed',
    code: 'PAYEE_NOT_ALLOWED_TO_RECEIVE',
    message: 'The payee is not allowed to receive funds.',
    format: 'object',
  },
  NotAllowed: {
    type: 'failed',
    code: 'NOT_ALLOWED',
    message: 'Authorization failed. User does not have permission.',
    format: 'string',
  },
  NotAllowedTargetEnvironment: {
    type: 'sync-error',
    status: 500,
    code: 'NOT_ALLOWED_TARGET_ENVIRONMENT',
    message: 'Access to target environment is forbidden.',
  },
  InvalidCallbackUrlHost: {
    type: 'sync-error',
    status: 500,
    code: 'INVALID_CALLBACK_URL_HOST',
    message: 'Callback URL with different host than configured for the API user.',
  },
  InvalidCurrency: {
    type: 'sync-error',
    status: 500,
    code: 'INVALID_CURRENCY',
    message: 'Currency not supported.',
  },
  InternalProcessingError: {
    type: 'failed',
    code: 'INTERNAL_PROCESSING_ERROR',
    message: 'An internal error caused the operation to fail.',
    format: 'object',
  },
  ServiceUnavailable: {
    type: 'failed',
    code: 'SERVICE_UNAVAILABLE',
    message: 'The service is temporarily unavailable.',
    format: 'string',
  },
  CouldNotPerformTransaction: {
    type: 'failed',
    code: 'COULD_NOT_PERFORM_TRANSACTION',
    message: 'The transaction could not be performed.',
    format: 'object',
  },
  NotEnoughFunds: {
    type: 'failed',
    code: 'NOT_ENOUGH_FUNDS',
    message: 'The payer does not have enough funds.',
    format: 'string',
  },
  PayerLimitReached: {
    type: 'failed',
    code: 'PAYER_LIMIT_REACHED',
    message: 'The payer limit for debits has been reached.',
    format: 'object',
  },
};

const MOMO_EXTRA_OUTCOME_BEHAVIOUR: Record<MomoExtraOutcome, OutcomeBehaviour> = {
  PayeeLimitReached: {
    type: 'failed',
    code: 'PAYEE_LIMIT_REACHED',
    message: 'The payee limit for transfers has been reached.',
    format: 'object',
  },
  SenderAccountNotActive: {
    type: 'failed',
    code: 'SENDER_ACCOUNT_NOT_ACTIVE',
    message: 'The wallet used for the transfer is not activated.',
    format: 'object',
  },
  TransactionNotFound: {
    type: 'failed',
    code: 'TRANSACTION_NOT_FOUND',
    message: 'The transaction was not found.',
    format: 'object',
  },
  TransactionCanceled: { type: 'failed', ...MOMO_PAYEE_CANCELLATION },
};

/**
 * The MoMo Open API documentation lists failure reasons no trigger table reaches (SENDER_ACCOUNT_NOT_ACTIVE, PAYEE LIMIT_REACHED,
 * TRANSACTION_NOT_FOUND outside refunds; the provider notes' TRANSACTION_CANCELED outside CancelInvoice). The simulator's header `X-Sim-Outcome: <outcome name>` on any
 * creating operation picks an outcome directly, overriding the MSISDN or reference table.
 */
export function headerOutcome(value: string | undefined): MomoOutcome | MomoExtraOutcome | undefined {
  if (value === undefined) return undefined;
  const name = value.trim();
  if (Object.hasOwn(MOMO_OUTCOME_BEHAVIOUR, name)) return name as MomoOutcome;
  if (Object.hasOwn(MOMO_EXTRA_OUTCOME_BEHAVIOUR, name)) return name as MomoExtraOutcome;
  return undefined;
}

export const HEADER_OUTCOME_NAMES: readonly string[] = [
  ...Object.keys(MOMO_OUTCOME_BEHAVIOUR),
  ...Object.keys(MOMO_EXTRA_OUTCOME_BEHAVIOUR),
];

/** As `outcomeBehaviour`, for any outcome the header can name. */
export function anyOutcomeBehaviour(
  outcome: MomoOutcome | MomoExtraOutcome,
  side: 'payer' | 'payee',
): OutcomeBehaviour {
  return Object.hasOwn(MOMO_EXTRA_OUTCOME_BEHAVIOUR, outcome)
    ? MOMO_EXTRA_OUTCOME_BEHAVIOUR[outcome as MomoExtraOutcome]
    : outcomeBehaviour(outcome as MomoOutcome, side);
}

/** Index of `msisdn` in a family table, or undefined when it is not a trigger number. */
export function sandboxIndex(msisdn: string, base: string, length: number): number | undefined {
  if (!/^\d+$/.test(msisdn) || !/^\d+$/.test(base)) return undefined;
  const diff = BigInt(msisdn) - BigInt(base);
  if (diff < 0n || diff >= BigInt(length)) return undefined;
  return Number(diff);
}

export function sandboxOutcome(family: MomoFamily, msisdn: string | undefined, base: string): MomoOutcome {
  if (!msisdn) return 'Success';
  const table = MOMO_SANDBOX_FAMILIES[family];
  const index = sandboxIndex(msisdn, base, table.length);
  return index === undefined ? 'Success' : table[index]!;
}

/**
 * Behaviour of an outcome for one operation. `NotFound` names the side being looked up: a transfer or
 * deposit cannot find its payee, the other operations their payer.
 */
export function outcomeBehaviour(outcome: MomoOutcome, side: 'payer' | 'payee'): OutcomeBehaviour {
  const b = MOMO_OUTCOME_BEHAVIOUR[outcome];
  if (outcome === 'NotFound' && side === 'payee' && b.type === 'failed') {
    return { ...b, code: 'PAYEE_NOT_FOUND', message: 'The payee could not be found.' };
  }
  return b;
}

function accountHolderOutcome(msisdn: string, base: string): AccountHolderOutcome {
  const index = sandboxIndex(msisdn, base, MOMO_ACCOUNT_HOLDER_FAMILY.length);
  return index === undefined ? 'Active' : MOMO_ACCOUNT_HOLDER_FAMILY[index]!;
}

/**
 * MoMo Open API docs: "Account holder active by e-mail or by party code: one predefined e-mail address or UUID per
 * outcome, same outcome names as the MSISDN family (values omitted)". The values are the simulator's choice:
 * one e-mail and one party-code UUID per outcome, in the family's order. Any other value is active.
 */
const MOMO_ACCOUNT_HOLDER_EMAILS: Readonly<Record<string, AccountHolderOutcome>> = {
  'notfound@sandbox.momo': 'NotFound',
  'notactive@sandbox.momo': 'NotActive',
  'notallowed@sandbox.momo': 'NotAllowed',
  'notallowedtargetenvironment@sandbox.momo': 'NotAllowedTargetEnvironment',
  'internalprocessingerror@sandbox.momo': 'InternalProcessingError',
  'serviceunavailable@sandbox.momo': 'ServiceUnavailable',
};

const MOMO_ACCOUNT_HOLDER_PARTY_CODES: Readonly<Record<string, AccountHolderOutcome>> = {
  '00000000-0000-4000-8000-000000000000': 'NotFound',
  '00000000-0000-4000-8000-000000000001': 'NotActive',
  '00000000-0000-4000-8000-000000000002': 'NotAllowed',
  '00000000-0000-4000-8000-000000000003': 'NotAllowedTargetEnvironment',
  '00000000-0000-4000-8000-000000000004': 'InternalProcessingError',
  '00000000-0000-4000-8000-000000000005': 'ServiceUnavailable',
};

/** Outcome for an account holder named by MSISDN, e-mail or party code. */
export function accountHolderOutcomeFor(
  type: 'MSISDN' | 'EMAIL' | 'PARTY_CODE' | string,
  id: string,
  base: string,
): AccountHolderOutcome {
  if (type === 'MSISDN') return accountHolderOutcome(id, base);
  if (type === 'EMAIL') return MOMO_ACCOUNT_HOLDER_EMAILS[id.toLowerCase()] ?? 'Active';
  if (type === 'PARTY_CODE') return MOMO_ACCOUNT_HOLDER_PARTY_CODES[id.toLowerCase()] ?? 'Active';
  return 'Active';
}

/** MoMo Open API docs: "Account balance outcomes: Success, AccountNotFound, ZeroBalance, …". Trigger values: not shown. */
export const MOMO_BALANCE_OUTCOMES = [
  'Success',
  'AccountNotFound',
  'ZeroBalance',
  'NegativeBalance',
  'NotAllowed',
  'NotAllowedTargetEnvironment',
  'InternalProcessingError',
  'ServiceUnavailable',
] as const;
export type BalanceOutcome = (typeof MOMO_BALANCE_OUTCOMES)[number];
