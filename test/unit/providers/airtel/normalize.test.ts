import { describe, expect, it } from 'vitest';
import { normalizeAirtelCallback } from '../../../../shared/providers/airtel/normalize';
import { airtelCallbackSchema } from '../../../../shared/providers/airtel/schema';
import { fixture } from './support';

const normalize = (body: unknown) => normalizeAirtelCallback('demo', airtelCallbackSchema.parse(body));

describe('normalizeAirtelCallback', () => {
  it('turns a TS callback into a success keyed by transaction.id with airtel_money_id as provider id', () => {
    expect(normalize(fixture('callback-ts'))).toEqual({
      key: { provider: 'airtel', account: 'demo', reference: 'AT-ORDER-1001' },
      kind: 'payment',
      status: 'SUCCEEDED',
      reason: undefined,
      // Airtel's own code and words, for the success's evidence (docs/events.md#evidence).
      said: { providerCode: 'TS', description: 'Paid UGX 5,000 to MERCHANT, Trans ID MP210603.1234.A00001' },
      providerTransactionId: 'MP210603.1234.A00001',
      externalId: undefined,
      amount: undefined,
      party: undefined,
      attributes: { airtelStatusCode: 'TS' },
    });
  });

  it('turns a TF callback into a failure whose reason comes from the message', () => {
    const draft = normalize(fixture('callback-tf'));

    expect(draft.status).toBe('FAILED');
    expect(draft.reason).toEqual({
      code: 'INSUFFICIENT_FUNDS',
      message: 'Transaction failed: insufficient balance',
      providerCode: 'TF',
    });
  });

  it('keeps the result code as provider code and attribute', () => {
    const draft = normalize({
      transaction: { id: 'A', status_code: 'TF', message: 'DP00800001002 Incorrect PIN' },
    });

    expect(draft.reason).toMatchObject({ code: 'WRONG_PIN', providerCode: 'DP00800001002' });
    expect(draft.attributes).toEqual({ airtelStatusCode: 'TF', airtelResultCode: 'DP00800001002' });
  });

  it('reads a result code from the status envelope', () => {
    const draft = normalize({
      transaction: { id: 'A', status_code: 'SUCCESS' },
      status: { response_code: 'DP00800001006' },
    });

    expect(draft.status).toBe('PENDING');
  });

  it('reads the neutral spelling wallet_money_id', () => {
    expect(
      normalize({ transaction: { id: 'A', status_code: 'TS', wallet_money_id: 'W1' } }).providerTransactionId,
    ).toBe('W1');
  });

  it('has no provider id when airtel_money_id is empty', () => {
    expect(
      normalize({ transaction: { id: 'A', status_code: 'TF', airtel_money_id: ' ' } }).providerTransactionId,
    ).toBeUndefined();
  });

  it('maps TA to ambiguous and TIP to pending', () => {
    expect(normalize({ transaction: { id: 'A', status_code: 'TA' } }).status).toBe('AMBIGUOUS');
    expect(normalize({ transaction: { id: 'A', status_code: 'tip' } }).status).toBe('PENDING');
  });

  it('uses the id verbatim, numbers as their text', () => {
    expect(normalize({ transaction: { id: 42, status_code: 'TS' } }).key.reference).toBe('42');
    expect(normalize({ transaction: { id: 'Ab-1', status_code: 'TS' } }).key.reference).toBe('Ab-1');
  });
});

describe('normalizeAirtelCallback: refund callbacks are recorded as refunds', () => {
  it.each([
    [
      "the simulator's refund message",
      'Refunded UGX 1000 of Trans ID MP210603.1234.A00001, Refund ID MP210603.1240.A00002',
    ],
    ['a refund confirmation', 'Refund successful'],
  ])('gives kind refund to a callback whose message is %s', (_, message) => {
    // Act
    const draft = normalize({
      transaction: { id: 'RF-1001', status_code: 'TS', message, airtel_money_id: 'MP210603.1240.A00002' },
    });
    // Assess
    expect(draft).toMatchObject({ kind: 'refund', status: 'SUCCEEDED', key: { reference: 'RF-1001' } });
  });

  it('keeps kind payment for a payment callback', () => {
    expect(normalize(fixture('callback-ts')).kind).toBe('payment');
  });
});
