/**
 * MoMo sandbox outcomes (seed 000, "Predefined scenarios") and what a callback carries for each.
 * `sync` outcomes are answered as an HTTP error at creation and never produce a callback.
 */
export interface MomoSandboxOutcome {
  status: 'SUCCESSFUL' | 'FAILED' | 'PENDING';
  reason?: string;
  sync?: { httpStatus: number; code: string };
}

export const MOMO_SANDBOX_OUTCOMES: Readonly<Record<string, MomoSandboxOutcome>> = {
  Success: { status: 'SUCCESSFUL' },
  Failed: { status: 'FAILED', reason: 'INTERNAL_PROCESSING_ERROR' },
  Rejected: { status: 'FAILED', reason: 'APPROVAL_REJECTED' },
  Expired: { status: 'FAILED', reason: 'EXPIRED' },
  Ongoing: { status: 'PENDING', reason: 'ONGOING' },
  Delayed: { status: 'PENDING', reason: 'PAYER_DELAYED' },
  NotFound: { status: 'FAILED', reason: 'PAYER_NOT_FOUND' },
  PayeeNotFound: { status: 'FAILED', reason: 'PAYEE_NOT_FOUND' },
  PayeeNotAllowedToReceive: { status: 'FAILED', reason: 'PAYEE_NOT_ALLOWED_TO_RECEIVE' },
  NotAllowed: { status: 'FAILED', reason: 'NOT_ALLOWED' },
  NotAllowedTargetEnvironment: {
    status: 'FAILED',
    sync: { httpStatus: 500, code: 'NOT_ALLOWED_TARGET_ENVIRONMENT' },
  },
  InvalidCallbackUrlHost: { status: 'FAILED', sync: { httpStatus: 500, code: 'INVALID_CALLBACK_URL_HOST' } },
  InvalidCurrency: { status: 'FAILED', sync: { httpStatus: 500, code: 'INVALID_CURRENCY' } },
  InternalProcessingError: { status: 'FAILED', reason: 'INTERNAL_PROCESSING_ERROR' },
  ServiceUnavailable: { status: 'FAILED', reason: 'SERVICE_UNAVAILABLE' },
  CouldNotPerformTransaction: { status: 'FAILED', reason: 'COULD_NOT_PERFORM_TRANSACTION' },
  NotEnoughFunds: { status: 'FAILED', reason: 'NOT_ENOUGH_FUNDS' },
  PayerLimitReached: { status: 'FAILED', reason: 'PAYER_LIMIT_REACHED' },
  NotActive: { status: 'FAILED', reason: 'NOT_ACTIVE' },
};

/** Seed 000 sandbox families: outcome of MSISDN base + index. */
export const MOMO_SANDBOX_FAMILIES: Readonly<Record<string, readonly string[]>> = {
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
  accountholder: [
    'NotFound',
    'NotActive',
    'NotAllowed',
    'NotAllowedTargetEnvironment',
    'InternalProcessingError',
    'ServiceUnavailable',
  ],
};
