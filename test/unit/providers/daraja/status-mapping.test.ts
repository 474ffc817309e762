import { describe, expect, it } from 'vitest';
import type { ReasonCode } from '../../../../shared/domain/reasons';
import {
  classifyStatusQuery,
  classifyStkQuery,
  darajaTimestamp,
  darajaVerdict,
  stkPassword,
} from '../../../../shared/providers/daraja/status-mapping';

const REF = 'ws_CO_191220191020363925';
const stk = (httpStatus: number, json: unknown, garbage = false) =>
  classifyStkQuery({ accountId: 'demo', reference: REF, httpStatus, json, garbage });
const answered = (ResultCode: string | number, ResultDesc = 'desc') =>
  stk(200, {
    ResponseCode: '0',
    ResponseDescription: 'The service request has been accepted successsfully',
    MerchantRequestID: '22205-34066-1',
    CheckoutRequestID: REF,
    ResultCode,
    ResultDesc,
  });
const platformError = (httpStatus: number, errorCode: string, errorMessage: string) =>
  stk(httpStatus, { requestId: '1-2-3', errorCode, errorMessage });

describe('Daraja STK query classification', () => {
  it('turns ResultCode 0 into a SUCCEEDED draft for the CheckoutRequestID', () => {
    expect(answered('0', 'The service request is processed successfully.')).toMatchObject({
      type: 'report',
      providerCode: '0',
      draft: {
        key: { provider: 'daraja', account: 'demo', reference: REF },
        kind: 'stk',
        status: 'SUCCEEDED',
        reason: undefined,
        attributes: { MerchantRequestID: '22205-34066-1', StkQueryResultCode: '0' },
      },
    });
  });

  // M-Pesa Express result codes of the Daraja API documentation and the provider notes, written out by hand.
  const FINAL: [string | number, ReasonCode][] = [
    ['1', 'INSUFFICIENT_FUNDS'],
    [1, 'INSUFFICIENT_FUNDS'],
    ['2', 'AMOUNT_INVALID'],
    ['3', 'LIMIT_REACHED'],
    ['4', 'LIMIT_REACHED'],
    ['8', 'LIMIT_REACHED'],
    ['17', 'DUPLICATE'],
    ['1001', 'SUBSCRIBER_BUSY'],
    ['1019', 'TIMED_OUT'],
    ['1025', 'INVALID_REQUEST'],
    ['1032', 'REJECTED_BY_CUSTOMER'],
    ['1037', 'UNREACHABLE'],
    ['2001', 'WRONG_PIN'],
    ['9999', 'PROVIDER_ERROR'],
    ['2028', 'NOT_ALLOWED'],
    ['SFC_IC0003', 'PAYEE_NOT_FOUND'],
    ['8006', 'NOT_ALLOWED'],
  ];
  it.each(FINAL)('turns final ResultCode %s into a FAILED draft with reason %s', (code, reason) => {
    const a = answered(code);
    expect(a.type).toBe('report');
    if (a.type !== 'report') return;
    expect(a.draft.status).toBe('FAILED');
    expect(a.draft.reason).toMatchObject({ code: reason, providerCode: String(code), message: 'desc' });
  });

  it.each(['4999', '500', '2002', 'C2B00016', 'XYZ'])(
    'never fails an unknown ResultCode (%s): pending',
    (code) => {
      expect(answered(code)).toMatchObject({ type: 'pending', providerCode: code });
    },
  );

  it('keeps "The transaction is being processed" (500.001.1001) pending', () => {
    expect(platformError(500, '500.001.1001', 'The transaction is being processed')).toMatchObject({
      type: 'pending',
      providerCode: '500.001.1001',
    });
  });

  it('reads 500.001.1001 with another message ("Wrong credentials") as a credentials error, not pending', () => {
    expect(platformError(500, '500.001.1001', 'Wrong credentials')).toMatchObject({
      type: 'error',
      error: 'credentials',
    });
    expect(platformError(500, '500.001.1001', 'Merchant does not exist')).toMatchObject({
      error: 'credentials',
    });
  });

  it('keeps the early transitional answers 400.002.02 and 4999 pending', () => {
    expect(platformError(400, '400.002.02', 'Bad Request - Invalid CheckoutRequestID')).toMatchObject({
      type: 'pending',
    });
    expect(platformError(500, '4999', 'The transaction is still under processing')).toMatchObject({
      type: 'pending',
    });
  });

  it('never fails an unknown error code: pending on a 4xx, unavailable on a 5xx', () => {
    expect(platformError(400, '400.999.99', 'new')).toMatchObject({ type: 'pending' });
    expect(platformError(502, '502.000.01', 'gateway')).toMatchObject({
      type: 'error',
      error: 'unavailable',
    });
  });

  it('answers throttled for quota and spike arrest, unavailable for the internal error, rejected for wrong paths', () => {
    expect(platformError(500, '500.003.03', 'Quota Violation')).toMatchObject({ error: 'throttled' });
    expect(platformError(500, '500.003.02', 'Spike Arrest Violation')).toMatchObject({ error: 'throttled' });
    expect(platformError(500, '500.003.1001', 'Internal Server Error')).toMatchObject({
      error: 'unavailable',
    });
    expect(platformError(404, '404.003.01', 'Resource not found')).toMatchObject({ error: 'rejected' });
    // The wrong-endpoint code integrators' error tables list beside 404.001.03 (test/fixtures/daraja/integrators).
    expect(platformError(404, '404.001.01', 'Resource not found')).toMatchObject({ error: 'rejected' });
  });

  it('answers garbage for a body that is not JSON or has no ResultCode', () => {
    expect(stk(200, undefined, true)).toMatchObject({ error: 'garbage' });
    expect(stk(200, { ResponseCode: '0' })).toMatchObject({ error: 'garbage' });
  });
});

describe('Daraja transaction status query classification', () => {
  it('answers requested with the query ConversationID as the StatusQuery alias, recording what it asked', () => {
    const a = classifyStatusQuery({
      httpStatus: 200,
      json: {
        OriginatorConversationID: '1236-7134259-1',
        ConversationID: 'AG_20191219_00004e48cf7e3533f581',
        ResponseCode: '0',
        ResponseDescription: 'Accept the service request successfully.',
      },
      garbage: false,
      asked: { OriginatorConversationID: '5118-111210482-1' },
    });
    expect(a).toEqual({
      type: 'requested',
      detail: expect.stringContaining('AG_20191219_00004e48cf7e3533f581'),
      alias: {
        namespace: 'StatusQuery',
        id: 'AG_20191219_00004e48cf7e3533f581',
        asked: { OriginatorConversationID: '5118-111210482-1' },
      },
    });
  });

  it('falls back to the OriginatorConversationID when no ConversationID comes back', () => {
    const a = classifyStatusQuery({
      httpStatus: 200,
      json: { OriginatorConversationID: '1-2-3', ResponseCode: 0 },
      garbage: false,
      asked: { TransactionID: 'SBX0RECEIPT' },
    });
    expect(a).toMatchObject({ type: 'requested', alias: { namespace: 'StatusQuery', id: '1-2-3' } });
  });

  it('answers rejected for a refused query and credentials for 500.001.1001', () => {
    expect(
      classifyStatusQuery({
        httpStatus: 200,
        json: { ResponseCode: '1', ResponseDescription: 'no' },
        garbage: false,
        asked: {},
      }),
    ).toMatchObject({ error: 'rejected' });
    expect(
      classifyStatusQuery({
        httpStatus: 400,
        json: { errorCode: '400.002.02', errorMessage: 'Bad Request - Invalid PartyA' },
        garbage: false,
        asked: {},
      }),
    ).toMatchObject({ error: 'rejected' });
    expect(
      classifyStatusQuery({
        httpStatus: 500,
        json: { errorCode: '500.001.1001', errorMessage: 'The transaction is being processed' },
        garbage: false,
        asked: {},
      }),
    ).toMatchObject({ error: 'credentials' });
  });
});

describe('Daraja STK helpers', () => {
  it('builds the password as base64(short code + passkey + timestamp)', () => {
    expect(stkPassword('174379', 'pk', '20261123130000')).toBe(
      Buffer.from('174379pk20261123130000').toString('base64'),
    );
  });

  it('stamps in East Africa Time (UTC+3)', () => {
    expect(darajaTimestamp(Date.parse('2026-11-23T22:30:05Z'))).toBe('20261124013005');
  });

  it('retries 5xx outages but not "being processed", and backs off on quota codes', () => {
    expect(
      darajaVerdict(500, { errorCode: '500.001.1001', errorMessage: 'The transaction is being processed' }),
    ).toBe('ok');
    expect(darajaVerdict(500, { errorCode: '500.003.1001' })).toBe('retry');
    expect(darajaVerdict(500, { errorCode: '500.003.03' })).toBe('throttled');
    expect(darajaVerdict(429, {})).toBe('throttled');
    expect(darajaVerdict(400, { errorCode: '400.002.02' })).toBe('ok');
  });
});
