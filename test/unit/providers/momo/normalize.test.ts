import { describe, expect, it } from 'vitest';
import { normalizeMomoCallback } from '../../../../shared/providers/momo/normalize';
import { momoCallbackSchema } from '../../../../shared/providers/momo/schema';

const REF = '6f1c2a9e-4b7d-4e2a-9c3b-1a2b3c4d5e6f';

function normalize(kind: string, body: unknown) {
  return normalizeMomoCallback('demo', kind, REF, momoCallbackSchema.parse(body));
}

describe('MoMo normalization: a PENDING report carries no failure reason', () => {
  it.each([
    ['PAYER_DELAYED as a string', { status: 'PENDING', reason: 'PAYER_DELAYED' }],
    ['ONGOING as an object', { status: 'PENDING', reason: { code: 'ONGOING', message: 'still going' } }],
    ['DELAYED under errorReason', { status: 'PENDING', errorReason: { code: 'DELAYED' } }],
    ['a failure code', { status: 'PENDING', reason: 'COULD_NOT_PERFORM_TRANSACTION' }],
    ['an ONGOING status', { status: 'ONGOING', reason: 'ONGOING' }],
  ])('PENDING with %s → PENDING, no reason', (_, body) => {
    // Act
    const draft = normalize('requesttopay', body);
    // Assess
    expect(draft.status).toBe('PENDING');
    expect(draft.reason).toBeUndefined();
  });

  it('gives a success no reason either', () => {
    const draft = normalize('requesttopay', { status: 'SUCCESSFUL', reason: 'PAYER_DELAYED' });
    expect(draft).toMatchObject({ status: 'SUCCEEDED', reason: undefined });
  });

  it('still gives a FAILED report with PAYER_DELAYED its reason (the payer answered too late)', () => {
    const draft = normalize('requesttopay', { status: 'FAILED', reason: 'PAYER_DELAYED' });
    expect(draft).toMatchObject({
      status: 'FAILED',
      reason: { code: 'TIMED_OUT', providerCode: 'PAYER_DELAYED' },
    });
  });

  it('keeps the reason of an unrecognised (AMBIGUOUS) status', () => {
    const draft = normalize('requesttopay', { status: 'WEIRD', reason: 'INTERNAL_PROCESSING_ERROR' });
    expect(draft).toMatchObject({ status: 'AMBIGUOUS', reason: { code: 'PROVIDER_ERROR' } });
  });
});

describe('MoMo normalization: VALIDATION_ERROR', () => {
  it('is INVALID_REQUEST with the provider code and message kept', () => {
    const draft = normalize('requesttopay', {
      status: 'FAILED',
      reason: { code: 'VALIDATION_ERROR', message: 'Payer message or note is longer than 128 characters.' },
    });
    expect(draft.reason).toEqual({
      code: 'INVALID_REQUEST',
      message: 'Payer message or note is longer than 128 characters.',
      providerCode: 'VALIDATION_ERROR',
    });
  });
});

describe('MoMo normalization: a bare NOT_FOUND names the side the kind looks up', () => {
  it.each([
    ['requesttopay', 'PAYER_NOT_FOUND'],
    ['preapproval', 'PAYER_NOT_FOUND'],
    ['transfer', 'PAYEE_NOT_FOUND'],
    ['deposit', 'PAYEE_NOT_FOUND'],
    ['refund', 'ORIGINAL_NOT_FOUND'],
    ['cashtransfer', 'UNKNOWN'],
  ])('on %s → %s, provider code kept', (kind, code) => {
    const draft = normalize(kind, { status: 'FAILED', reason: { code: 'NOT_FOUND', message: 'Not found' } });
    expect(draft.status).toBe('FAILED');
    expect(draft.reason).toEqual({ code, message: 'Not found', providerCode: 'NOT_FOUND' });
  });
});

describe('MoMo normalization: an empty reason beside errorReason (cash transfers, remittances)', () => {
  it('reads the failure from errorReason when reason is the empty string', () => {
    // Act: the shape momo.rs models for a cash transfer's callback.
    const draft = normalize('cashtransfer', {
      status: 'FAILED',
      reason: '',
      errorReason: { code: 'PAYEE_NOT_FOUND', message: 'Payee does not exist' },
    });
    // Assess
    expect(draft.status).toBe('FAILED');
    expect(draft.reason).toEqual({
      code: 'PAYEE_NOT_FOUND',
      message: 'Payee does not exist',
      providerCode: 'PAYEE_NOT_FOUND',
    });
  });
});

describe('MoMo normalization: a cancellation is the payee cancelling, not the customer rejecting', () => {
  it.each([
    [
      'an invoice cancelled with CancelInvoice',
      'invoice',
      {
        status: 'FAILED',
        errorReason: { code: 'TRANSACTION_CANCELED', message: 'The invoice was cancelled.' },
      },
      'TRANSACTION_CANCELED',
    ],
    [
      'TRANSACTION_CANCELED as the status',
      'preapproval',
      { status: 'TRANSACTION_CANCELED' },
      'TRANSACTION_CANCELED',
    ],
    ['a bare CANCELLED status', 'requesttopay', { status: 'CANCELLED' }, 'CANCELLED'],
  ])('%s → FAILED, CANCELLED_BY_PAYEE', (_, kind, body, providerCode) => {
    // Act
    const draft = normalize(kind, body);
    // Assess
    expect(draft.status).toBe('FAILED');
    expect(draft.reason).toMatchObject({ code: 'CANCELLED_BY_PAYEE', providerCode });
  });

  it('still reads the customer refusing (APPROVAL_REJECTED) as REJECTED_BY_CUSTOMER', () => {
    const draft = normalize('requesttopay', { status: 'FAILED', reason: 'APPROVAL_REJECTED' });
    expect(draft.reason?.code).toBe('REJECTED_BY_CUSTOMER');
  });
});
