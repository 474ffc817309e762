/**
 * Refund and cash transfer sandbox triggers (MoMo Open API docs, sandbox test numbers): "Refund and cash transfer use the
 * transaction reference value 1 to 13 as trigger". The tables below reproduce the documented rows exactly;
 * any other value succeeds.
 *
 * Documented choice: the "transaction reference" is the request's `externalId` (the partner's own
 * reference; MTN's docs name no other field, and `X-Reference-Id` must be a UUID so it cannot be 1–13).
 * Leading/trailing spaces are not trimmed: `externalId: "7"` triggers row 7, `"07"` and `" 7"` do not.
 */
import { MOMO_OUTCOME_BEHAVIOUR, type MomoOutcome, type OutcomeBehaviour } from './outcomes';

/** The MSISDN families' outcomes plus the cash transfer's own row 5. */
export type ReferenceOutcome = MomoOutcome | 'PayeeNotFound';

/** MoMo Open API docs: "Refund: 1 NotFound, 2 Failed, … 13 CouldNotPerformTransaction". Index 0 is value 1. */
export const MOMO_REFUND_TRIGGERS: readonly ReferenceOutcome[] = [
  'NotFound',
  'Failed',
  'Rejected',
  'Expired',
  'Ongoing',
  'Delayed',
  'NotAllowed',
  'NotAllowedTargetEnvironment',
  'InvalidCallbackUrlHost',
  'InvalidCurrency',
  'InternalProcessingError',
  'ServiceUnavailable',
  'CouldNotPerformTransaction',
];

/** MoMo Open API docs: "Cash transfer: 1 NotFound, 2 Failed, … 13 CouldNotPerformTransaction". Index 0 is value 1. */
const MOMO_CASH_TRANSFER_TRIGGERS: readonly ReferenceOutcome[] = [
  'NotFound',
  'Failed',
  'Rejected',
  'Expired',
  'PayeeNotFound',
  'PayeeNotAllowedToReceive',
  'NotAllowed',
  'NotAllowedTargetEnvironment',
  'InvalidCallbackUrlHost',
  'InvalidCurrency',
  'InternalProcessingError',
  'ServiceUnavailable',
  'CouldNotPerformTransaction',
];

export type ReferenceTriggerKind = 'refund' | 'cashtransfer';

/** The outcome a transaction reference (`externalId`) selects: "1"…"13" pick a row, anything else succeeds. */
export function referenceOutcome(kind: ReferenceTriggerKind, reference: unknown): ReferenceOutcome {
  if (typeof reference !== 'string' || !/^([1-9]|1[0-3])$/.test(reference)) return 'Success';
  const table = kind === 'refund' ? MOMO_REFUND_TRIGGERS : MOMO_CASH_TRANSFER_TRIGGERS;
  return table[Number(reference) - 1]!;
}

/**
 * What a row does. As for the MSISDN families: the target-environment, callback-host and currency rows
 * refuse the POST synchronously (500, nothing created); Ongoing and Delayed stay PENDING until the approval
 * window ends, then fail with COULD_NOT_PERFORM_TRANSACTION; the rest fail with the reason below.
 * NotFound names what is missing: for a refund the transaction being refunded (TRANSACTION_NOT_FOUND),
 * for a cash transfer the payer (PAYER_NOT_FOUND; row 5 PayeeNotFound is the payee).
 */
export function referenceBehaviour(kind: ReferenceTriggerKind, outcome: ReferenceOutcome): OutcomeBehaviour {
  if (outcome === 'NotFound') {
    return kind === 'refund'
      ? {
          type: 'failed',
          code: 'TRANSACTION_NOT_FOUND',
          message: 'The transaction to refund was not found.',
          format: 'object',
        }
      : {
          type: 'failed',
          code: 'PAYER_NOT_FOUND',
          message: 'The payer could not be found.',
          format: 'string',
        };
  }
  if (outcome === 'PayeeNotFound') {
    return {
      type: 'failed',
      code: 'PAYEE_NOT_FOUND',
      message: 'The payee could not be found.',
      format: 'object',
    };
  }
  return MOMO_OUTCOME_BEHAVIOUR[outcome];
}
