import { describe, expect, it } from 'vitest';
import {
  type AirtelEnquiryInput,
  classifyAirtelEnquiry,
} from '../../../../shared/providers/airtel/status-mapping';

function enquiry(
  status: string | undefined,
  responseCode = 'DP00800001001',
  message = 'Paid UGX 100',
  extra: Record<string, unknown> = {},
) {
  return {
    data: {
      transaction: { id: 'ord-1', status, message, airtel_money_id: 'MP210603.1234.A00001', ...extra },
    },
    status: {
      code: '200',
      message: 'SUCCESS',
      response_code: responseCode,
      result_code: 'ESB000010',
      success: true,
    },
  };
}

function classify(httpStatus: number, json: unknown, extra: Partial<AirtelEnquiryInput> = {}) {
  return classifyAirtelEnquiry({
    accountId: 'demo',
    kind: 'payment',
    reference: 'ord-1',
    httpStatus,
    json,
    garbage: false,
    ...extra,
  });
}

describe('Airtel enquiry classification', () => {
  it('turns TS into a SUCCEEDED draft carrying the airtel_money_id', () => {
    const a = classify(200, enquiry('TS'));
    expect(a).toMatchObject({
      type: 'report',
      draft: {
        key: { provider: 'airtel', account: 'demo', reference: 'ord-1' },
        kind: 'payment',
        status: 'SUCCEEDED',
        providerTransactionId: 'MP210603.1234.A00001',
        reason: undefined,
        attributes: { airtelStatusCode: 'TS' },
      },
    });
  });

  it.each([
    ['DP00800001007', 'Not enough balance', 'INSUFFICIENT_FUNDS'],
    ['DP00800001002', 'Incorrect PIN', 'WRONG_PIN'],
    ['DP00800001003', 'limit exceeded', 'LIMIT_REACHED'],
    ['DP00800001008', 'Refused', 'REJECTED_BY_CUSTOMER'],
    ['DP00800001024', 'Transaction timed out', 'TIMED_OUT'],
    ['ESB000001', 'declined by the subscriber', 'REJECTED_BY_CUSTOMER'],
    ['ESB000001', 'no idea', 'UNKNOWN'],
  ])('turns TF with %s (%s) into a FAILED draft with reason %s', (code, message, reason) => {
    const a = classify(200, enquiry('TF', code, message, { airtel_money_id: undefined }));
    expect(a.type).toBe('report');
    if (a.type !== 'report') return;
    expect(a.draft.status).toBe('FAILED');
    expect(a.draft.reason?.code).toBe(reason);
    expect(a.draft.providerTransactionId).toBeUndefined();
  });

  it('turns TE (expired) into a final FAILED draft with TIMED_OUT', () => {
    const a = classify(200, enquiry('TE', 'DP00800001029', 'Transaction expired'));
    expect(a).toMatchObject({ type: 'report', draft: { status: 'FAILED', reason: { code: 'TIMED_OUT' } } });
  });

  it('turns TA into an AMBIGUOUS draft (checked on, never settled)', () => {
    const a = classify(200, enquiry('TA', 'DP00800001000', 'Ambiguous'));
    expect(a).toMatchObject({ type: 'report', draft: { status: 'AMBIGUOUS', reason: undefined } });
  });

  it('keeps TIP pending without a draft', () => {
    expect(classify(200, enquiry('TIP', 'DP00800001006', 'In process'))).toMatchObject({
      type: 'pending',
      providerCode: 'TIP:DP00800001006',
    });
  });

  it.each(['SUCCESS', 'TX', 'FAILED', 'PENDING'])(
    'never fails an unknown status (%s), even next to a failure code',
    (status) => {
      const a = classify(200, enquiry(status, 'DP00800001007', 'Not enough balance'));
      expect(a.type).toBe('pending');
    },
  );

  it('reads the status case-insensitively', () => {
    expect(classify(200, enquiry('ts'))).toMatchObject({ type: 'report', draft: { status: 'SUCCEEDED' } });
  });

  it('answers not-found for DP00800001025, on a 404 or in a 200 envelope without a transaction', () => {
    const envelope404 = {
      status: {
        code: '404',
        message: 'Transaction not found',
        response_code: 'DP00800001025',
        success: false,
      },
    };
    expect(classify(404, envelope404)).toMatchObject({ type: 'not-found', providerCode: 'DP00800001025' });
    expect(classify(200, { status: { response_code: 'DP00800001025', success: false } })).toMatchObject({
      type: 'not-found',
    });
  });

  it('answers rejected for a 404 without DP00800001025 (a wrong path must not fail payments)', () => {
    expect(classify(404, { error: 'not found' })).toMatchObject({ type: 'error', error: 'rejected' });
  });

  it('answers unavailable for 5xx, throttled for 429, credentials for 403, rejected for 400', () => {
    expect(classify(500, { status: { success: false } })).toMatchObject({ error: 'unavailable' });
    expect(classify(429, {})).toMatchObject({ error: 'throttled' });
    expect(classify(403, {})).toMatchObject({ error: 'credentials' });
    expect(classify(400, { status: { message: 'Header X-COUNTRY is required' } })).toMatchObject({
      error: 'rejected',
    });
  });

  it('never reads ESB000045 as a verdict (README, note 6): no draft without a status, the status decides with one', () => {
    const esb = { code: '200', message: 'No transaction found', result_code: 'ESB000045', success: false };
    // Without data.transaction.status: an error of the call, the transaction unchanged.
    expect(classify(200, { status: esb })).toMatchObject({ type: 'error', error: 'garbage' });
    expect(classify(404, { status: { ...esb, code: '404' } })).toMatchObject({
      type: 'error',
      error: 'rejected',
    });
    // With TIP it stays pending; with TF the status (not the code) makes it FAILED.
    const withStatus = (status: string) => ({
      ...enquiry(status, 'ESB000045', 'No transaction found'),
      status: esb,
    });
    expect(classify(200, withStatus('TIP'))).toMatchObject({ type: 'pending' });
    expect(classify(200, withStatus('TF'))).toMatchObject({
      type: 'report',
      draft: { status: 'FAILED', reason: { code: 'UNKNOWN', providerCode: 'TF' } },
    });
  });

  it('answers garbage for a body that is not JSON or has no data.transaction.status', () => {
    expect(classify(200, undefined, { garbage: true })).toMatchObject({ error: 'garbage' });
    expect(classify(200, { data: {} })).toMatchObject({ error: 'garbage' });
  });
});
