import { describe, expect, it } from 'vitest';
import type { ReasonCode } from '../../../../shared/domain/reasons';
import {
  canonicalMomoCode,
  MOMO_REASON_TABLE,
  MOMO_STATUS_TABLE,
  mapMomoReason,
  mapMomoStatus,
} from '../../../../shared/providers/momo/mapping';
import { normalizeMomoCallback } from '../../../../shared/providers/momo/normalize';
import {
  MOMO_SANDBOX_FAMILIES,
  MOMO_SANDBOX_OUTCOMES,
} from '../../../../shared/providers/momo/sandbox-outcomes';
import { momoCallbackSchema } from '../../../../shared/providers/momo/schema';

// Written out by hand from seed 000 and the provider notes, independent of the table under test.
const REASON_ROWS: [string, ReasonCode][] = [
  ['PAYER_NOT_FOUND', 'PAYER_NOT_FOUND'],
  ['PAYEE_NOT_FOUND', 'PAYEE_NOT_FOUND'],
  ['NOT_ENOUGH_FUNDS', 'INSUFFICIENT_FUNDS'],
  ['NOT ENOUGH_FUNDS', 'INSUFFICIENT_FUNDS'],
  ['PAYER_LIMIT_REACHED', 'LIMIT_REACHED'],
  ['PAYEE LIMIT_REACHED', 'LIMIT_REACHED'],
  ['APPROVAL_REJECTED', 'REJECTED_BY_CUSTOMER'],
  ['TRANSACTION_CANCELED', 'REJECTED_BY_CUSTOMER'],
  ['EXPIRED', 'TIMED_OUT'],
  ['COULD_NOT_PERFORM_TRANSACTION', 'TIMED_OUT'],
  ['PAYER_DELAYED', 'TIMED_OUT'],
  ['ONGOING', 'UNKNOWN'],
  ['INTERNAL_PROCESSING_ERROR', 'PROVIDER_ERROR'],
  ['SERVICE_UNAVAILABLE', 'PROVIDER_ERROR'],
  ['NOT_ALLOWED', 'NOT_ALLOWED'],
  ['NOT_ALLOWED_TARGET_ENVIRONMENT', 'NOT_ALLOWED'],
  ['INVALID_CALLBACK_URL_HOST', 'NOT_ALLOWED'],
  ['SENDER_ACCOUNT_NOT_ACTIVE', 'NOT_ALLOWED'],
  ['PAYEE_NOT_ALLOWED_TO_RECEIVE', 'NOT_ALLOWED'],
  ['INVALID_CURRENCY', 'AMOUNT_INVALID'],
  ['VALIDATION_ERROR', 'AMOUNT_INVALID'],
  ['RESOURCE_ALREADY_EXIST', 'DUPLICATE'],
  ['TRANSACTION_NOT_FOUND', 'UNKNOWN'],
  ['NOT_FOUND', 'PAYER_NOT_FOUND'],
  ['ACCOUNT_HOLDER_NOT_FOUND', 'PAYER_NOT_FOUND'],
  ['REJECTED', 'REJECTED_BY_CUSTOMER'],
  ['TRANSACTION_CANCELLED', 'REJECTED_BY_CUSTOMER'],
  ['DELAYED', 'TIMED_OUT'],
  ['FAILED', 'PROVIDER_ERROR'],
  ['NOT_ACTIVE', 'NOT_ALLOWED'],
  ['SOMETHING_NEW_FROM_MTN', 'UNKNOWN'],
];

describe('MoMo reason mapping', () => {
  it.each(REASON_ROWS)('maps %s to %s', (providerCode, expected) => {
    expect(mapMomoReason(providerCode)).toBe(expected);
  });

  it('has a tested row for every entry of the table', () => {
    const tested = new Set(REASON_ROWS.map(([code]) => canonicalMomoCode(code)));
    const untested = Object.keys(MOMO_REASON_TABLE).filter((code) => !tested.has(code));
    expect(untested).toEqual([]);
  });

  it('canonicalises spaced, dashed and PascalCase spellings alike', () => {
    expect(canonicalMomoCode('NOT ENOUGH_FUNDS')).toBe('NOT_ENOUGH_FUNDS');
    expect(canonicalMomoCode('NotEnoughFunds')).toBe('NOT_ENOUGH_FUNDS');
    expect(canonicalMomoCode('payer-limit-reached')).toBe('PAYER_LIMIT_REACHED');
  });
});

describe('MoMo status mapping', () => {
  it.each([
    ['PENDING', 'PENDING'],
    ['SUCCESSFUL', 'SUCCEEDED'],
    ['FAILED', 'FAILED'],
    ['successful', 'SUCCEEDED'],
    ['CREATED', 'PENDING'],
    ['ONGOING', 'PENDING'],
    ['APPROVED', 'SUCCEEDED'],
    ['REJECTED', 'FAILED'],
    ['EXPIRED', 'FAILED'],
    ['TIMEOUT', 'FAILED'],
    ['CANCELLED', 'FAILED'],
    ['CANCELED', 'FAILED'],
    ['SUCCESS', 'SUCCEEDED'],
    ['WEIRD_NEW_STATUS', 'AMBIGUOUS'],
  ])('maps status %s to %s', (status, expected) => {
    expect(mapMomoStatus(status)).toBe(expected);
  });

  it('covers every status in the table', () => {
    for (const status of Object.keys(MOMO_STATUS_TABLE)) expect(mapMomoStatus(status)).not.toBe('AMBIGUOUS');
  });
});

describe('MoMo sandbox outcomes', () => {
  const expected: Record<string, { status: string; reason?: ReasonCode }> = {
    Success: { status: 'SUCCEEDED' },
    Failed: { status: 'FAILED', reason: 'PROVIDER_ERROR' },
    Rejected: { status: 'FAILED', reason: 'REJECTED_BY_CUSTOMER' },
    Expired: { status: 'FAILED', reason: 'TIMED_OUT' },
    Ongoing: { status: 'PENDING', reason: 'UNKNOWN' },
    Delayed: { status: 'PENDING', reason: 'TIMED_OUT' },
    NotFound: { status: 'FAILED', reason: 'PAYER_NOT_FOUND' },
    PayeeNotFound: { status: 'FAILED', reason: 'PAYEE_NOT_FOUND' },
    PayeeNotAllowedToReceive: { status: 'FAILED', reason: 'NOT_ALLOWED' },
    NotAllowed: { status: 'FAILED', reason: 'NOT_ALLOWED' },
    NotAllowedTargetEnvironment: { status: 'FAILED', reason: 'NOT_ALLOWED' },
    InvalidCallbackUrlHost: { status: 'FAILED', reason: 'NOT_ALLOWED' },
    InvalidCurrency: { status: 'FAILED', reason: 'AMOUNT_INVALID' },
    InternalProcessingError: { status: 'FAILED', reason: 'PROVIDER_ERROR' },
    ServiceUnavailable: { status: 'FAILED', reason: 'PROVIDER_ERROR' },
    CouldNotPerformTransaction: { status: 'FAILED', reason: 'TIMED_OUT' },
    NotEnoughFunds: { status: 'FAILED', reason: 'INSUFFICIENT_FUNDS' },
    PayerLimitReached: { status: 'FAILED', reason: 'LIMIT_REACHED' },
    NotActive: { status: 'FAILED', reason: 'NOT_ALLOWED' },
  };

  it('defines an expectation for every outcome of every seed family', () => {
    const named = new Set(Object.values(MOMO_SANDBOX_FAMILIES).flat());
    for (const outcome of named) expect(Object.keys(expected)).toContain(outcome);
    for (const outcome of named) expect(Object.keys(MOMO_SANDBOX_OUTCOMES)).toContain(outcome);
  });

  it.each(Object.entries(MOMO_SANDBOX_OUTCOMES))(
    'normalizes the callback of sandbox outcome %s',
    (name, outcome) => {
      // Prepare: the callback (or, for synchronous errors, the error code) this outcome produces
      const body = momoCallbackSchema.parse({
        status: outcome.status,
        ...(outcome.reason || outcome.sync ? { reason: outcome.reason ?? outcome.sync?.code } : {}),
      });
      // Act
      const draft = normalizeMomoCallback(
        'demo',
        'requesttopay',
        '6f1c2a9e-4b7d-4e2a-9c3b-1a2b3c4d5e6f',
        body,
      );
      // Assess
      expect(draft.status).toBe(expected[name]!.status);
      expect(draft.reason?.code).toBe(expected[name]!.reason);
    },
  );
});
