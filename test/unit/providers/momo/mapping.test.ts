import { describe, expect, it } from 'vitest';
import type { ReasonCode } from '../../../../shared/domain/reasons';
import {
  canonicalMomoCode,
  MOMO_NOT_FOUND_BY_KIND,
  MOMO_REASON_TABLE,
  MOMO_STATUS_IMPLIED_REASON,
  MOMO_STATUS_TABLE,
  mapMomoReason,
  mapMomoStatus,
} from '../../../../shared/providers/momo/mapping';
import { MOMO_KINDS } from '../../../../shared/providers/momo/schema';

// Written out by hand from the MoMo Open API documentation and the provider notes, independent of the table under test.
const REASON_ROWS: [string, ReasonCode][] = [
  ['PAYER_NOT_FOUND', 'PAYER_NOT_FOUND'],
  ['PAYEE_NOT_FOUND', 'PAYEE_NOT_FOUND'],
  ['NOT_ENOUGH_FUNDS', 'INSUFFICIENT_FUNDS'],
  ['LOW_BALANCE_OR_PAYEE_LIMIT_REACHED_OR_NOT_ALLOWED', 'INSUFFICIENT_FUNDS'],
  ['NOT ENOUGH_FUNDS', 'INSUFFICIENT_FUNDS'],
  ['PAYER_LIMIT_REACHED', 'LIMIT_REACHED'],
  ['PAYEE LIMIT_REACHED', 'LIMIT_REACHED'],
  ['APPROVAL_REJECTED', 'REJECTED_BY_CUSTOMER'],
  // The payee cancelled (MoMo Open API docs: CancelInvoice, pre-approvals cancelled by the payee side), not the customer.
  ['TRANSACTION_CANCELED', 'CANCELLED_BY_PAYEE'],
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
  // MoMo Open API docs: "wrong data types, unsupported decimals, empty fields, wrong lengths, … over 128 characters".
  ['VALIDATION_ERROR', 'INVALID_REQUEST'],
  ['RESOURCE_ALREADY_EXIST', 'DUPLICATE'],
  ['TRANSACTION_NOT_FOUND', 'UNKNOWN'],
  ['ACCOUNT_HOLDER_NOT_FOUND', 'PAYER_NOT_FOUND'],
  ['REJECTED', 'REJECTED_BY_CUSTOMER'],
  ['TRANSACTION_CANCELLED', 'CANCELLED_BY_PAYEE'],
  ['DELAYED', 'TIMED_OUT'],
  ['FAILED', 'PROVIDER_ERROR'],
  ['NOT_ACTIVE', 'NOT_ALLOWED'],
  ['CONSENT_MISMATCH', 'NOT_ALLOWED'],
  ['SOMETHING_NEW_FROM_MTN', 'UNKNOWN'],
];

/** A bare NOT_FOUND (sandbox outcome "NotFound") names the account the kind looks up. */
const NOT_FOUND_ROWS: [string, ReasonCode][] = [
  ['requesttopay', 'PAYER_NOT_FOUND'],
  ['requesttowithdraw', 'PAYER_NOT_FOUND'],
  ['invoice', 'PAYER_NOT_FOUND'],
  ['payment', 'PAYER_NOT_FOUND'],
  ['preapproval', 'PAYER_NOT_FOUND'],
  ['transfer', 'PAYEE_NOT_FOUND'],
  ['deposit', 'PAYEE_NOT_FOUND'],
  // A refund names no party, only the transaction it refunds: that is what is not found.
  ['refund', 'ORIGINAL_NOT_FOUND'],
  // The MoMo Open API documentation lists cash transfer's NotFound (1) apart from its PayeeNotFound (5): not the payee, unsaid what.
  ['cashtransfer', 'UNKNOWN'],
];

describe('MoMo reason mapping', () => {
  it.each(REASON_ROWS)('maps %s to %s', (providerCode, expected) => {
    expect(mapMomoReason(providerCode, 'requesttopay')).toBe(expected);
  });

  it('has a tested row for every entry of the table', () => {
    const tested = new Set(REASON_ROWS.map(([code]) => canonicalMomoCode(code)));
    const untested = Object.keys(MOMO_REASON_TABLE).filter((code) => !tested.has(code));
    expect(untested).toEqual([]);
  });

  it('maps VALIDATION_ERROR to INVALID_REQUEST, not to an amount problem', () => {
    expect(mapMomoReason('VALIDATION_ERROR', 'requesttopay')).toBe('INVALID_REQUEST');
    expect(mapMomoReason('ValidationError', 'transfer')).toBe('INVALID_REQUEST');
  });

  it('canonicalises spaced, dashed and PascalCase spellings alike', () => {
    expect(canonicalMomoCode('NOT ENOUGH_FUNDS')).toBe('NOT_ENOUGH_FUNDS');
    expect(canonicalMomoCode('NotEnoughFunds')).toBe('NOT_ENOUGH_FUNDS');
    expect(canonicalMomoCode('payer-limit-reached')).toBe('PAYER_LIMIT_REACHED');
  });
});

describe('MoMo bare NOT_FOUND by kind', () => {
  it.each(NOT_FOUND_ROWS)('on %s maps to %s', (kind, expected) => {
    expect(mapMomoReason('NOT_FOUND', kind)).toBe(expected);
    expect(mapMomoReason('NotFound', kind)).toBe(expected);
  });

  it('has a row for every MoMo kind, and the table has no other kind', () => {
    expect(NOT_FOUND_ROWS.map(([kind]) => kind).sort()).toEqual([...MOMO_KINDS].sort());
    expect(Object.keys(MOMO_NOT_FOUND_BY_KIND).sort()).toEqual([...MOMO_KINDS].sort());
  });

  it('reads the kind case-insensitively and an unknown kind as UNKNOWN', () => {
    expect(mapMomoReason('NOT_FOUND', 'Transfer')).toBe('PAYEE_NOT_FOUND');
    expect(mapMomoReason('NOT_FOUND', 'something')).toBe('UNKNOWN');
  });

  it('reads TRANSACTION_NOT_FOUND on a refund as the refunded transaction missing, elsewhere as UNKNOWN', () => {
    // Prepare: the simulator's refund row 1 (NotFound) fails with TRANSACTION_NOT_FOUND
    const codes = ['TRANSACTION_NOT_FOUND', 'TransactionNotFound'];
    // Act
    const onRefund = codes.map((code) => mapMomoReason(code, 'refund'));
    const onPayment = codes.map((code) => mapMomoReason(code, 'requesttopay'));
    // Assess
    expect(onRefund).toEqual(['ORIGINAL_NOT_FOUND', 'ORIGINAL_NOT_FOUND']);
    expect(onPayment).toEqual(['UNKNOWN', 'UNKNOWN']);
  });

  it('leaves explicit PAYER_NOT_FOUND and PAYEE_NOT_FOUND alone whatever the kind', () => {
    expect(mapMomoReason('PAYER_NOT_FOUND', 'transfer')).toBe('PAYER_NOT_FOUND');
    expect(mapMomoReason('PAYEE_NOT_FOUND', 'requesttopay')).toBe('PAYEE_NOT_FOUND');
  });
});

describe('MoMo status mapping', () => {
  it.each([
    // MoMo Open API docs: "Request to pay status values: PENDING, SUCCESSFUL, FAILED"; pre-approval "Successful and Failed".
    ['PENDING', 'PENDING'],
    ['SUCCESSFUL', 'SUCCEEDED'],
    ['FAILED', 'FAILED'],
    ['Successful', 'SUCCEEDED'],
    ['Failed', 'FAILED'],
    ['successful', 'SUCCEEDED'],
    // Tolerated aliases, not in MTN's docs.
    ['CREATED', 'PENDING'],
    ['ONGOING', 'PENDING'],
    ['APPROVED', 'SUCCEEDED'],
    ['REJECTED', 'FAILED'],
    ['EXPIRED', 'FAILED'],
    ['TIMEOUT', 'FAILED'],
    ['CANCELLED', 'FAILED'],
    ['CANCELED', 'FAILED'],
    ['TRANSACTION_CANCELED', 'FAILED'],
    ['TRANSACTION_CANCELLED', 'FAILED'],
    ['SUCCESS', 'SUCCEEDED'],
    ['WEIRD_NEW_STATUS', 'AMBIGUOUS'],
  ])('maps status %s to %s', (status, expected) => {
    expect(mapMomoStatus(status)).toBe(expected);
  });

  it('implies CANCELLED_BY_PAYEE, not REJECTED_BY_CUSTOMER, for a cancellation status without a reason', () => {
    for (const status of ['CANCELLED', 'CANCELED', 'TRANSACTION_CANCELED', 'TRANSACTION_CANCELLED']) {
      expect(MOMO_STATUS_IMPLIED_REASON[status]).toBe('CANCELLED_BY_PAYEE');
    }
    expect(MOMO_STATUS_IMPLIED_REASON.REJECTED).toBe('REJECTED_BY_CUSTOMER');
  });

  it('covers every status in the table', () => {
    for (const status of Object.keys(MOMO_STATUS_TABLE)) expect(mapMomoStatus(status)).not.toBe('AMBIGUOUS');
  });
});
