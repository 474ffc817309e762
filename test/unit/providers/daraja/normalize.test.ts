import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  collectParams,
  DARAJA_COUNTRY,
  KENYA_CALLING_CODE,
  normalizeB2cResult,
  normalizeC2bConfirmation,
  normalizeStatusResult,
  normalizeStk,
  normalizeTimeout,
  paramAttributes,
} from '../../../../shared/providers/daraja/normalize';
import { callingCodeOf } from '../../../../shared/util/msisdn';
import {
  c2bSchema,
  resultSchema,
  stkCallbackSchema,
  timeoutEchoShapeSchema,
  timeoutResultShapeSchema,
} from '../../../../shared/providers/daraja/schema';

const fixture = (name: string): any =>
  JSON.parse(readFileSync(join(import.meta.dirname, '../../../fixtures/daraja', name), 'utf8'));

describe('Daraja normalization', () => {
  it('turns an STK success into SUCCEEDED with amount, currency, receipt and phone', () => {
    const draft = normalizeStk('demo', 'KES', stkCallbackSchema.parse(fixture('stk-success.json')));
    expect(draft).toMatchObject({
      key: { provider: 'daraja', account: 'demo', reference: 'ws_CO_191220191020363925' },
      kind: 'stk',
      status: 'SUCCEEDED',
      reason: undefined,
      providerTransactionId: 'NLJ7RT61SV',
      amount: { value: '1', currency: 'KES' },
      party: { idType: 'MSISDN', id: '254708374149' },
    });
    expect(draft.attributes).toMatchObject({
      MerchantRequestID: '29115-34620561-1',
      TransactionDate: '20191219102115',
    });
    expect(draft.attributes).not.toHaveProperty('Balance');
  });

  it('turns a cancelled STK prompt into FAILED/REJECTED_BY_CUSTOMER keeping the provider code and text', () => {
    const draft = normalizeStk('demo', 'KES', stkCallbackSchema.parse(fixture('stk-cancelled.json')));
    expect(draft.status).toBe('FAILED');
    expect(draft.reason).toEqual({
      code: 'REJECTED_BY_CUSTOMER',
      message: 'Request cancelled by user',
      providerCode: '1032',
    });
    expect(draft.amount).toBeUndefined();
  });

  it('holds an STK result with a code no table lists as AMBIGUOUS/UNKNOWN, keeping the code and text as evidence', () => {
    // Prepare: Daraja's cancelled sample with a code the relay does not know.
    const body = fixture('stk-cancelled.json');
    body.Body.stkCallback.ResultCode = 4242;
    body.Body.stkCallback.ResultDesc = 'A reason Daraja added later';

    // Act
    const draft = normalizeStk('demo', 'KES', stkCallbackSchema.parse(body));

    // Assess
    expect(draft.status).toBe('AMBIGUOUS');
    expect(draft.reason).toEqual({
      code: 'UNKNOWN',
      message: 'A reason Daraja added later',
      providerCode: '4242',
    });
  });

  it('maps a string STK ResultCode (SFC_IC0003, "the operator does not exist": PartyB) to FAILED/PAYEE_NOT_FOUND', () => {
    const draft = normalizeStk('demo', 'KES', stkCallbackSchema.parse(fixture('stk-string-resultcode.json')));
    expect(draft.reason).toMatchObject({ code: 'PAYEE_NOT_FOUND', providerCode: 'SFC_IC0003' });
  });

  it('turns a B2C success into SUCCEEDED with TransactionAmount, receipt and the receiver MSISDN', () => {
    const { Result } = resultSchema.parse(fixture('b2c-result-success.json'));
    const draft = normalizeB2cResult('demo', 'KES', '10571-7910404-1', Result);
    expect(draft).toMatchObject({
      kind: 'b2c',
      status: 'SUCCEEDED',
      providerTransactionId: 'NLJ41HAY6Q',
      amount: { value: '10', currency: 'KES' },
      party: { idType: 'MSISDN', id: '254708374149' },
    });
    expect(draft.attributes).toMatchObject({
      ConversationID: 'AG_20191219_00004e48cf7e3533f581',
      B2CRecipientIsRegisteredCustomer: 'Y',
    });
  });

  it('turns a B2C failure into FAILED without using the placeholder TransactionID as receipt', () => {
    const { Result } = resultSchema.parse(fixture('b2c-result-failure.json'));
    const draft = normalizeB2cResult('demo', 'KES', '29112-34801843-1', Result);
    expect(draft.status).toBe('FAILED');
    expect(draft.providerTransactionId).toBeUndefined();
  });

  it("never publishes a failed B2C result's receipt-looking TransactionID as the provider transaction id", () => {
    // Prepare: Daraja's own failure sample carries "SG722NMVXQ", not a placeholder like "NLJ0000000".
    const { Result } = resultSchema.parse(fixture('documented/b2c-result-failure.json'));
    // Act
    const draft = normalizeB2cResult('demo', 'KES', Result.OriginatorConversationID!, Result);
    // Assess
    expect(draft.status).toBe('FAILED');
    expect(draft.providerTransactionId).toBeUndefined();
    expect(draft.attributes).toMatchObject({ TransactionID: 'SG722NMVXQ' });
  });

  it("takes a B2C success's receipt from TransactionReceipt (Daraja's own sample)", () => {
    const { Result } = resultSchema.parse(fixture('documented/b2c-result-success.json'));
    const draft = normalizeB2cResult('demo', 'KES', Result.OriginatorConversationID!, Result);
    expect(draft).toMatchObject({ status: 'SUCCEEDED', providerTransactionId: 'SG632NMUAB' });
  });

  it.each([
    ['254705912645 - NICHOLAS JOHN SONGOK', '2547*****645 - NICHOLAS JOHN SONGOK'],
    ['NICHOLAS JOHN SONGOK - 254705912645', 'NICHOLAS JOHN SONGOK - 2547*****645'],
    ['  NICHOLAS JOHN SONGOK-254705912645 ', '  NICHOLAS JOHN SONGOK-2547*****645 '],
    ['Mary-Jane Wanjiru - 254705912645', 'Mary-Jane Wanjiru - 2547*****645'],
  ])('reads ReceiverPartyPublicName "%s" for the MSISDN and stores it as "%s"', (publicName, stored) => {
    // Prepare
    const body = fixture('documented/b2c-result-success.json');
    const item = body.Result.ResultParameters.ResultParameter.find(
      (p: { Key: string }) => p.Key === 'ReceiverPartyPublicName',
    );
    item.Value = publicName;
    // Act
    const draft = normalizeB2cResult('demo', 'KES', 'oc', resultSchema.parse(body).Result);
    // Assess
    expect(draft.party).toEqual({ idType: 'MSISDN', id: '254705912645' });
    expect(draft.attributes?.ReceiverPartyPublicName).toBe(stored);
    expect(JSON.stringify(draft.attributes)).not.toContain('254705912645');
  });

  it('takes no party from a ReceiverPartyPublicName that names a short code, and leaves it as it came', () => {
    const body = fixture('documented/b2c-result-success.json');
    body.Result.ResultParameters.ResultParameter[2].Value = '600310 - Safaricom333';
    const draft = normalizeB2cResult('demo', 'KES', 'oc', resultSchema.parse(body).Result);
    expect(draft.party).toBeUndefined();
    expect(draft.attributes?.ReceiverPartyPublicName).toBe('600310 - Safaricom333');
  });

  it("reads B2C ResultCode 2001 as the partner's initiator credential (INVALID_INITIATOR), not a wrong PIN", () => {
    const { Result } = resultSchema.parse(fixture('b2c-result-failure.json'));
    const draft = normalizeB2cResult('demo', 'KES', '29112-34801843-1', Result);
    expect(draft.reason).toEqual({
      code: 'INVALID_INITIATOR',
      message: 'The initiator information is invalid.',
      providerCode: '2001',
    });
  });

  it("reads STK ResultCode 2001 as the customer's wrong PIN", () => {
    const body = fixture('stk-cancelled.json');
    body.Body.stkCallback.ResultCode = 2001;
    body.Body.stkCallback.ResultDesc = 'The initiator information is invalid.';
    const draft = normalizeStk('demo', 'KES', stkCallbackSchema.parse(body));
    expect(draft).toMatchObject({ status: 'FAILED', reason: { code: 'WRONG_PIN', providerCode: '2001' } });
  });

  it('reads a status query refused with 2001 as no news (PENDING) because of the initiator, not a PIN', () => {
    const body = {
      Result: {
        ResultCode: 2001,
        ResultDesc: 'The initiator information is invalid.',
        OriginatorConversationID: 'q-2001',
      },
    };
    const draft = normalizeStatusResult('demo', 'KES', 'q-2001', resultSchema.parse(body).Result);
    expect(draft.status).toBe('PENDING');
    expect(draft.reason).toMatchObject({ code: 'INVALID_INITIATOR', providerCode: '2001' });
  });

  it('keeps a B2C result with ResultType 1 (waiting for further messages) PENDING', () => {
    const body = fixture('b2c-result-success.json');
    body.Result.ResultType = 1;
    const draft = normalizeB2cResult('demo', 'KES', 'x', resultSchema.parse(body).Result);
    expect(draft.status).toBe('PENDING');
  });

  it('keeps the second value of a repeated status ResultParameter and takes the payer from it', () => {
    const { Result } = resultSchema.parse(fixture('status-result.json'));
    const draft = normalizeStatusResult('demo', 'KES', '3211-416020-3', Result);
    expect(draft.status).toBe('SUCCEEDED');
    expect(draft.attributes).toMatchObject({
      DebitPartyName: '600310 - Safaricom333',
      'DebitPartyName#2': '2547*****149 - John Doe',
    });
    expect(draft.party).toEqual({ idType: 'MSISDN', id: '254708374149' });
    expect(draft).toMatchObject({
      providerTransactionId: 'MBN31H462N',
      amount: { value: '300', currency: 'KES' },
    });
  });

  it('reads a failed status query (non-zero ResultCode) as no news: PENDING', () => {
    const body = {
      Result: {
        ResultCode: 'R000001',
        ResultDesc: 'The transaction could not be found.',
        OriginatorConversationID: 'q-1',
      },
    };
    const draft = normalizeStatusResult('demo', 'KES', 'q-1', resultSchema.parse(body).Result);
    expect(draft.status).toBe('PENDING');
    expect(draft.reason?.providerCode).toBe('R000001');
  });

  it('maps a Failed TransactionStatus to FAILED', () => {
    const body = fixture('status-result.json');
    body.Result.ResultParameters.ResultParameter.find(
      (p: { Key: string }) => p.Key === 'TransactionStatus',
    ).Value = 'Failed';
    const draft = normalizeStatusResult('demo', 'KES', 'x', resultSchema.parse(body).Result);
    expect(draft.status).toBe('FAILED');
  });

  it('turns the echo-shaped queue timeout into AMBIGUOUS/TIMED_OUT with the echoed amount', () => {
    const echo = timeoutEchoShapeSchema.parse(fixture('b2c-timeout-echo.json'));
    const draft = normalizeTimeout('demo', 'KES', 'b2c', '10571-7910404-9', { shape: 'echo', echo });
    expect(draft).toMatchObject({
      status: 'AMBIGUOUS',
      reason: { code: 'TIMED_OUT', providerCode: 'QUEUE_TIMEOUT' },
      amount: { value: '10', currency: 'KES' },
      party: { id: '254708374149' },
      attributes: { TimeoutShape: 'echo', CommandID: 'BusinessPayment' },
    });
  });

  it('turns the Result-shaped queue timeout into AMBIGUOUS even though its ResultCode is a failure code', () => {
    const { Result } = timeoutResultShapeSchema.parse({
      Result: {
        ResultType: 1,
        ResultCode: 1037,
        ResultDesc: 'timed out',
        OriginatorConversationID: 'o-1',
        ConversationID: 'AG_1',
      },
    });
    const draft = normalizeTimeout('demo', 'KES', 'status', 'o-1', { shape: 'result', result: Result });
    expect(draft).toMatchObject({
      status: 'AMBIGUOUS',
      reason: { code: 'TIMED_OUT', providerCode: '1037' },
      kind: 'status',
    });
  });

  it('turns a C2B confirmation into a SUCCEEDED c2b report keyed by TransID', () => {
    const draft = normalizeC2bConfirmation('demo', 'KES', c2bSchema.parse(fixture('c2b-confirmation.json')));
    expect(draft).toMatchObject({
      key: { reference: 'RKTQDM7W6S' },
      kind: 'c2b',
      status: 'SUCCEEDED',
      providerTransactionId: 'RKTQDM7W6S',
      externalId: 'ACC-001',
      amount: { value: '10', currency: 'KES' },
      party: { idType: 'MSISDN', id: '25470****149' },
      attributes: { BillRefNumber: 'ACC-001', PayerName: 'John Doe', OrgAccountBalance: '49197.00' },
    });
  });

  it('numbers further values of a repeated key instead of overwriting the first', () => {
    const params = collectParams([{ Key: 'A', Value: 1 }, { Key: 'A', Value: 'two' }, { Key: 'B' }]);
    expect(paramAttributes(params)).toEqual({ A: '1', 'A#2': 'two' });
  });
});

describe('Daraja numbers written in national form (0790123456)', () => {
  const b2cWithPublicName = (publicName: string) => {
    const body = fixture('documented/b2c-result-success.json');
    const item = body.Result.ResultParameters.ResultParameter.find(
      (p: { Key: string }) => p.Key === 'ReceiverPartyPublicName',
    );
    item.Value = publicName;
    return resultSchema.parse(body).Result;
  };

  it.each([
    ['0722000000 - Jane', '2547*****000 - Jane'],
    ['Jane Akinyi - 0722000000', 'Jane Akinyi - 2547*****000'],
    ['+254722000000 - Jane', '+2547*****000 - Jane'],
  ])(
    'reads the B2C receiver "%s" as the international MSISDN, its name kept beside it masked: "%s"',
    (name, stored) => {
      // Act
      const draft = normalizeB2cResult('demo', 'KES', 'oc', b2cWithPublicName(name));

      // Assess
      expect(draft.party).toEqual({ idType: 'MSISDN', id: '254722000000' });
      expect(draft.attributes?.ReceiverPartyPublicName).toBe(stored);
      expect(JSON.stringify(draft.attributes)).not.toMatch(/722000000/);
    },
  );

  it("reads a status result's national DebitPartyName as the international payer, every party name stored masked", () => {
    // Prepare
    const body = fixture('status-result.json');
    body.Result.ResultParameters.ResultParameter[1].Value = '0790123456 - JOHN DOE';

    // Act
    const draft = normalizeStatusResult('demo', 'KES', '3211-416020-3', resultSchema.parse(body).Result);

    // Assess
    expect(draft.party).toEqual({ idType: 'MSISDN', id: '254790123456' });
    expect(draft.attributes).toMatchObject({
      DebitPartyName: '600310 - Safaricom333',
      'DebitPartyName#2': '2547*****456 - JOHN DOE',
    });
    expect(JSON.stringify(draft.attributes)).not.toMatch(/790123456/);
  });

  it("turns national numbers international with the relay's own calling code for Daraja's country", () => {
    expect(KENYA_CALLING_CODE).toBe(callingCodeOf({ country: DARAJA_COUNTRY }));
  });

  it('reads an STK PhoneNumber in national form as the international MSISDN', () => {
    // Prepare
    const body = fixture('stk-success.json');
    const phone = body.Body.stkCallback.CallbackMetadata.Item.find(
      (i: { Name: string }) => i.Name === 'PhoneNumber',
    );
    phone.Value = '0708374149';

    // Act
    const draft = normalizeStk('demo', 'KES', stkCallbackSchema.parse(body));

    // Assess
    expect(draft.party).toEqual({ idType: 'MSISDN', id: '254708374149' });
  });
});
