import { describe, expect, it } from 'vitest';
import type { ReasonCode } from '../../../../shared/domain/reasons';
import { classifyMomoStatus, type MomoStatusInput } from '../../../../shared/providers/momo/status-mapping';

const REF = '5da24cdc-1453-4031-85e5-90c7e9101b42';

function answer(httpStatus: number, json: unknown, extra: Partial<MomoStatusInput> = {}) {
  return classifyMomoStatus({
    accountId: 'demo',
    kind: 'requesttopay',
    reference: REF,
    httpStatus,
    json,
    garbage: false,
    ...extra,
  });
}

const paid = {
  financialTransactionId: '223203014',
  externalId: 'order-1',
  amount: '100.00',
  currency: 'EUR',
  payer: { partyIdType: 'MSISDN', partyId: '46733123499' },
  status: 'SUCCESSFUL',
};

describe('MoMo status GET classification', () => {
  it('turns SUCCESSFUL into a SUCCEEDED draft with amount, currency, party and financialTransactionId', () => {
    // Act
    const a = answer(200, paid);

    // Assess
    expect(a.type).toBe('report');
    if (a.type !== 'report') return;
    expect(a.draft).toMatchObject({
      key: { provider: 'momo', account: 'demo', reference: REF },
      kind: 'requesttopay',
      status: 'SUCCEEDED',
      amount: { value: '100', currency: 'EUR' },
      party: { idType: 'MSISDN', id: '46733123499' },
      providerTransactionId: '223203014',
      externalId: 'order-1',
    });
    expect(a.providerCode).toBe('SUCCESSFUL');
  });

  it('reads a payment status (money) and a transfer status (payee) like their callbacks', () => {
    const payment = answer(
      200,
      { status: 'SUCCESSFUL', money: { amount: '5', currency: 'EUR' } },
      { kind: 'payment' },
    );
    const transfer = answer(
      200,
      {
        status: 'SUCCESSFUL',
        amount: '7',
        currency: 'EUR',
        payee: { partyIdType: 'MSISDN', partyId: '46733123460' },
      },
      { kind: 'transfer' },
    );
    expect(payment.type === 'report' && payment.draft.amount).toEqual({ value: '5', currency: 'EUR' });
    expect(transfer.type === 'report' && transfer.draft.party).toEqual({
      idType: 'MSISDN',
      id: '46733123460',
    });
  });

  const FAILURES: [unknown, ReasonCode][] = [
    ['APPROVAL_REJECTED', 'REJECTED_BY_CUSTOMER'],
    ['EXPIRED', 'TIMED_OUT'],
    ['NOT_ENOUGH_FUNDS', 'INSUFFICIENT_FUNDS'],
    ['PAYER_NOT_FOUND', 'PAYER_NOT_FOUND'],
    ['INTERNAL_PROCESSING_ERROR', 'PROVIDER_ERROR'],
    ['COULD_NOT_PERFORM_TRANSACTION', 'TIMED_OUT'],
    [{ code: 'PAYER_LIMIT_REACHED', message: 'limit' }, 'LIMIT_REACHED'],
    ['SOMETHING_NEW', 'UNKNOWN'],
  ];
  it.each(FAILURES)('turns FAILED with reason %j into a FAILED draft with reason %s', (reason, code) => {
    const a = answer(200, { status: 'FAILED', reason, amount: '100', currency: 'EUR' });
    expect(a.type).toBe('report');
    if (a.type !== 'report') return;
    expect(a.draft.status).toBe('FAILED');
    expect(a.draft.reason?.code).toBe(code);
    expect(a.draft.providerTransactionId).toBeUndefined();
  });

  it('reads an invoice errorReason', () => {
    const a = answer(
      200,
      { status: 'FAILED', errorReason: { code: 'TRANSACTION_CANCELED' } },
      { kind: 'invoice' },
    );
    expect(a.type === 'report' && a.draft.reason?.code).toBe('CANCELLED_BY_PAYEE');
  });

  it('reads TRANSACTION_CANCELED as a status as a final FAILED, CANCELLED_BY_PAYEE (not an unknown status)', () => {
    // Act
    const a = answer(200, { status: 'TRANSACTION_CANCELED' }, { kind: 'invoice' });
    // Assess
    expect(a.type).toBe('report');
    expect(a.type === 'report' && a.draft).toMatchObject({
      status: 'FAILED',
      reason: { code: 'CANCELLED_BY_PAYEE', providerCode: 'TRANSACTION_CANCELED' },
    });
  });

  it('reads a refund answered 200 FAILED with TRANSACTION_NOT_FOUND (the refunded transaction) as ORIGINAL_NOT_FOUND', () => {
    // Prepare: the simulator's refund row 1 (NotFound), as its status GET renders it
    const body = {
      status: 'FAILED',
      reason: { code: 'TRANSACTION_NOT_FOUND', message: 'The transaction to refund was not found.' },
    };
    // Act
    const a = answer(200, body, { kind: 'refund' });
    // Assess: a final failure of the refund, not "never accepted"
    expect(a).toMatchObject({
      type: 'report',
      draft: {
        status: 'FAILED',
        reason: { code: 'ORIGINAL_NOT_FOUND', providerCode: 'TRANSACTION_NOT_FOUND' },
      },
    });
  });

  it.each(['PENDING', 'CREATED', 'ONGOING', 'Pending'])('keeps %s pending (no draft)', (status) => {
    expect(answer(200, { status, amount: '100' })).toMatchObject({ type: 'pending' });
  });

  it.each(['PAYER_DELAYED', 'WAITING_FOR_APPROVAL', 'X'])(
    'never fails an unknown status (%s): pending',
    (status) => {
      const a = answer(200, { status });
      expect(a.type).toBe('pending');
      expect(a.type === 'pending' && a.detail).toContain('unknown status');
    },
  );

  it('answers not-found for the documented 404 RESOURCE_NOT_FOUND, whatever its spelling', () => {
    expect(
      answer(404, { code: 'RESOURCE_NOT_FOUND', message: 'Requested resource was not found.' }),
    ).toMatchObject({
      type: 'not-found',
      providerCode: 'RESOURCE_NOT_FOUND',
    });
    expect(answer(404, { code: 'RESOURCE NOT FOUND' })).toMatchObject({ type: 'not-found' });
  });

  it('answers rejected for a 404 that is not the documented code (a wrong path must not fail payments)', () => {
    expect(answer(404, { statusCode: 404, message: 'Resource not found' })).toMatchObject({
      type: 'error',
      error: 'rejected',
    });
    expect(answer(404, undefined)).toMatchObject({ type: 'error', error: 'rejected' });
  });

  it('answers credentials for the account errors NOT_ALLOWED_TARGET_ENVIRONMENT, NOT_ALLOWED and 403', () => {
    expect(answer(500, { code: 'NOT_ALLOWED_TARGET_ENVIRONMENT' })).toMatchObject({ error: 'credentials' });
    expect(answer(500, { code: 'NOT_ALLOWED' })).toMatchObject({ error: 'credentials' });
    expect(answer(403, { code: 'FORBIDDEN IP' })).toMatchObject({ error: 'credentials' });
  });

  it('answers unavailable for other 5xx, throttled for 429, rejected for 400', () => {
    expect(answer(500, { code: 'INTERNAL_PROCESSING_ERROR' })).toMatchObject({
      error: 'unavailable',
      httpStatus: 500,
    });
    expect(answer(503, { code: 'SERVICE_UNAVAILABLE' })).toMatchObject({
      error: 'unavailable',
      unclear: true,
    });
    expect(answer(429, {})).not.toHaveProperty('unclear');
    expect(answer(429, {})).toMatchObject({ error: 'throttled' });
    expect(answer(400, { code: 'BAD_REQUEST' })).toMatchObject({ error: 'rejected' });
  });

  it('answers garbage for a body that is not JSON or has no status', () => {
    expect(answer(200, undefined, { garbage: true })).toMatchObject({ error: 'garbage' });
    expect(answer(200, { amount: '1' })).toMatchObject({ error: 'garbage' });
    expect(answer(200, [1, 2])).toMatchObject({ error: 'garbage' });
  });
});
