import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { normalizeMomoCallback } from '../../../../shared/providers/momo/normalize';
import { momoCallbackSchema } from '../../../../shared/providers/momo/schema';

const REF = '6f1c2a9e-4b7d-4e2a-9c3b-1a2b3c4d5e6f';
function fixture(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(import.meta.dirname, '../../../fixtures/momo', name), 'utf8'));
}
function normalize(kind: string, body: unknown) {
  return normalizeMomoCallback('demo', kind, REF, momoCallbackSchema.parse(body));
}

describe('MoMo callback schema and normalization', () => {
  it('reads a successful request-to-pay with payer, amount and financialTransactionId', () => {
    const draft = normalize('requesttopay', fixture('requesttopay-successful.json'));
    expect(draft).toMatchObject({
      key: { provider: 'momo', account: 'demo', reference: REF },
      status: 'SUCCEEDED',
      providerTransactionId: '363440463',
      externalId: 'order-8841',
      amount: { value: '100', currency: 'EUR' },
      party: { idType: 'MSISDN', id: '46733123459' },
      reason: undefined,
    });
  });

  it('reads a string reason and keeps the provider code', () => {
    const draft = normalize('requesttopay', fixture('requesttopay-failed-string-reason.json'));
    expect(draft.status).toBe('FAILED');
    expect(draft.reason).toEqual({
      code: 'PROVIDER_ERROR',
      message: undefined,
      providerCode: 'INTERNAL_PROCESSING_ERROR',
    });
    expect(draft.providerTransactionId).toBeUndefined();
  });

  it('reads an object reason with its message', () => {
    const draft = normalize('requesttopay', fixture('requesttopay-failed-object-reason.json'));
    expect(draft.reason).toEqual({
      code: 'REJECTED_BY_CUSTOMER',
      message: 'Payer rejected the request',
      providerCode: 'APPROVAL_REJECTED',
    });
  });

  it('reads errorReason on invoices', () => {
    const draft = normalize('invoice', fixture('invoice-failed.json'));
    expect(draft.status).toBe('FAILED');
    expect(draft.reason).toMatchObject({
      code: 'TIMED_OUT',
      providerCode: 'EXPIRED',
      message: 'Invoice expired',
    });
    expect(draft.party).toEqual({ idType: 'MSISDN', id: '46733123452' });
  });

  it('reads the payee of a transfer', () => {
    const draft = normalize('transfer', fixture('transfer-successful.json'));
    expect(draft.party).toEqual({ idType: 'MSISDN', id: '46733123460' });
    expect(draft.amount).toEqual({ value: '5000', currency: 'EUR' });
  });

  it('reads a payment result that has only status and financialTransactionId', () => {
    const draft = normalize('payment', fixture('payment-successful.json'));
    expect(draft).toMatchObject({
      status: 'SUCCEEDED',
      providerTransactionId: '556677',
      amount: undefined,
      party: undefined,
    });
  });

  it('reads a pre-approval with payerCurrency and no amount', () => {
    const draft = normalize('preapproval', fixture('preapproval-successful.json'));
    expect(draft).toMatchObject({ status: 'SUCCEEDED', amount: undefined, party: { id: '46733123465' } });
  });

  it('tolerates unknown extra fields, numbers instead of strings and null optional members', () => {
    const draft = normalize('requesttopay', {
      ...fixture('requesttopay-successful.json'),
      amount: 100.5,
      financialTransactionId: 363440463,
      payerMessage: null,
      somethingNew: { nested: true },
      reason: null,
    });
    expect(draft).toMatchObject({
      status: 'SUCCEEDED',
      amount: { value: '100.5' },
      providerTransactionId: '363440463',
    });
  });

  it('gives a FAILED callback without reason the UNKNOWN reason', () => {
    expect(normalize('requesttopay', { status: 'FAILED' }).reason?.code).toBe('UNKNOWN');
  });

  it('rejects a body without status', () => {
    const result = momoCallbackSchema.safeParse({ amount: '100', currency: 'EUR' });
    expect(result.success).toBe(false);
  });

  it('rejects a reason of the wrong type', () => {
    expect(momoCallbackSchema.safeParse({ status: 'FAILED', reason: 42 }).success).toBe(false);
  });
});
