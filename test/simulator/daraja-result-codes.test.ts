/**
 * Daraja result codes a partner sees after an accepted call (the Daraja API documentation and the provider notes): the STK
 * push callback and query, by the last four digits of `PhoneNumber`, the B2C result, by the last four digits of
 * `PartyB`, and the C2B validation rejections.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stkPassword } from '../../simulator/daraja/stk';
import { DEFAULTS } from '../../simulator/options';
import type { Simulator } from '../../simulator/server';
import { call, parse, type Received, type Receiver, startReceiver, startSim } from './helpers';

const D = DEFAULTS.daraja;
const SHORT_CODE = '174379';
const TIMESTAMP = '20240101120000';
const PASSWORD = stkPassword(SHORT_CODE, D.passkeys[SHORT_CODE], TIMESTAMP);

let sim: Simulator;
let rx: Receiver;

beforeEach(async () => {
  rx = await startReceiver();
  sim = await startSim();
});
afterEach(async () => {
  await sim.close();
  await rx.close();
});

async function token(): Promise<string> {
  const basic = Buffer.from(`${D.consumerKey}:${D.consumerSecret}`).toString('base64');
  const r = await call(sim, 'GET', '/oauth/v1/generate?grant_type=client_credentials', {
    headers: { Authorization: `Basic ${basic}` },
  });
  return r.json.access_token;
}

const auth = (t: string) => ({ Authorization: `Bearer ${t}` });

interface StkCallback {
  ResultCode: unknown;
  ResultDesc: string;
  CheckoutRequestID: string;
  CallbackMetadata?: { Item: { Name: string; Value?: unknown }[] };
}

/** Pushes to `phone`, waits for the callback, then asks the STK query about the same request. */
async function pushAndQuery(phone: string) {
  const t = await token();
  const push = await call(sim, 'POST', '/mpesa/stkpush/v1/processrequest', {
    headers: auth(t),
    body: {
      BusinessShortCode: 174379,
      Password: PASSWORD,
      Timestamp: TIMESTAMP,
      TransactionType: 'CustomerPayBillOnline',
      Amount: 10,
      PartyA: Number(phone),
      PartyB: 174379,
      PhoneNumber: Number(phone),
      CallBackURL: `${rx.url}/stk`,
      AccountReference: 'ACC-001',
      TransactionDesc: 'Payment',
    },
  });
  expect(push.json.ResponseCode).toBe('0');
  const [received] = await rx.waitFor(1);
  const callback = parse<{ Body: { stkCallback: StkCallback } }>(received!).Body.stkCallback;
  const query = await call(sim, 'POST', '/mpesa/stkpushquery/v1/query', {
    headers: auth(t),
    body: {
      BusinessShortCode: 174379,
      Password: PASSWORD,
      Timestamp: TIMESTAMP,
      CheckoutRequestID: push.json.CheckoutRequestID,
    },
  });
  return { push, callback, query };
}

/**
 * The Daraja API documentation's push callback codes plus the provider notes' 17, 2028, 8006 and SFC_IC0003, by phone suffix.
 * The descriptions are Safaricom's wording where it is known.
 */
const STK_ROWS: { suffix: string; code: number | string; desc: string }[] = [
  { suffix: '0001', code: 1, desc: 'The balance is insufficient for the transaction.' },
  { suffix: '0002', code: 2, desc: 'Declined due to limit rule.' },
  {
    suffix: '0030',
    code: 3,
    desc: 'Declined due to limit rule: greater than the maximum transaction amount.',
  },
  { suffix: '0004', code: 4, desc: 'Declined due to limit rule: would exceed daily transfer limit.' },
  { suffix: '0008', code: 8, desc: 'Declined due to limit rule: would exceed the maximum balance.' },
  { suffix: '0017', code: 17, desc: 'Rule limited: a similar request was made within the last 2 minutes.' },
  {
    suffix: '1001',
    code: 1001,
    desc: 'Unable to lock subscriber, a transaction is already in process for the current subscriber',
  },
  { suffix: '1019', code: 1019, desc: 'Transaction has expired' },
  { suffix: '1025', code: 1025, desc: 'An error occurred while sending a push request' },
  { suffix: '1032', code: 1032, desc: 'Request cancelled by user' },
  { suffix: '1037', code: 1037, desc: 'DS timeout user cannot be reached' },
  { suffix: '2001', code: 2001, desc: 'The initiator information is invalid.' },
  { suffix: '9999', code: 9999, desc: 'An error occurred while sending a push request.' },
  { suffix: '2028', code: 2028, desc: 'The request is not permitted according to product assignment.' },
  { suffix: '8006', code: 8006, desc: 'The security credential is locked.' },
  { suffix: '0003', code: 'SFC_IC0003', desc: 'Invalid PartyB or TransactionType' },
];

describe('STK push result codes, by the last four digits of PhoneNumber', () => {
  it('any other number: ResultCode 0 with metadata in the callback, "0" in the query', async () => {
    // Act
    const { callback, query } = await pushAndQuery('254708374149');

    // Assess
    expect(callback.ResultCode).toBe(0);
    expect(callback.ResultDesc).toBe('The service request is processed successfully.');
    expect(callback.CallbackMetadata?.Item.map((i) => i.Name)).toStrictEqual([
      'Amount',
      'MpesaReceiptNumber',
      'Balance',
      'TransactionDate',
      'PhoneNumber',
    ]);
    expect(query.status).toBe(200);
    expect(query.json).toMatchObject({ ResponseCode: '0', ResultCode: '0' });
  });

  for (const row of STK_ROWS) {
    it(`…${row.suffix}: callback ResultCode ${JSON.stringify(row.code)} without metadata, the query answers "${row.code}" after it`, async () => {
      // Act
      const { push, callback, query } = await pushAndQuery(`25470837${row.suffix}`);

      // Assess
      expect(callback).toStrictEqual({
        MerchantRequestID: push.json.MerchantRequestID,
        CheckoutRequestID: push.json.CheckoutRequestID,
        ResultCode: row.code,
        ResultDesc: row.desc,
      });
      expect(query.status).toBe(200);
      expect(query.json).toMatchObject({
        ResponseCode: '0',
        CheckoutRequestID: push.json.CheckoutRequestID,
        ResultCode: String(row.code),
        ResultDesc: row.desc,
      });
    });
  }
});

/** Every failure of the B2C result-code table of the Daraja API documentation, ResultDesc as written there. */
const B2C_ROWS: { suffix: string; code: number | string; desc: string }[] = [
  { suffix: '0001', code: 1, desc: 'The balance is insufficient for the transaction.' },
  { suffix: '0002', code: 2, desc: 'Declined due to limit rule' },
  {
    suffix: '0030',
    code: 3,
    desc: 'Declined due to limit rule: greater than the maximum transaction amount.',
  },
  { suffix: '0004', code: 4, desc: 'Declined due to limit rule: would exceed daily transfer limit' },
  { suffix: '0008', code: 8, desc: 'Declined due to limit rule: would exceed the maximum balance.' },
  { suffix: '0011', code: 11, desc: 'The DebitParty is in an invalid state.' },
  { suffix: '0021', code: 21, desc: 'The initiator is not allowed to initiate this request' },
  { suffix: '2001', code: 2001, desc: 'The initiator information is invalid.' },
  {
    suffix: '2006',
    code: 2006,
    desc: 'Declined due to account rule: The account status does not allow this transaction.',
  },
  { suffix: '2028', code: 2028, desc: 'The request is not permitted according to product assignment.' },
  {
    suffix: '2040',
    code: 2040,
    desc: "Credit Party customer type (Unregistered or Registered Customer) can't be supported by the service.",
  },
  { suffix: '8006', code: 8006, desc: 'The security credential is locked' },
  { suffix: '0003', code: 'SFC_IC0003', desc: 'The operator does not exist.' },
];

describe('B2C result codes, by the last four digits of PartyB', () => {
  for (const row of B2C_ROWS) {
    it(`…${row.suffix}: Result with ResultCode ${JSON.stringify(row.code)} and no ResultParameters`, async () => {
      // Prepare
      const t = await token();
      // Act
      const r = await call(sim, 'POST', '/mpesa/b2c/v3/paymentrequest', {
        headers: auth(t),
        body: {
          OriginatorConversationID: `oc-${row.suffix}`,
          InitiatorName: 'testapi',
          SecurityCredential: 'c2VjcmV0',
          CommandID: 'BusinessPayment',
          Amount: 10,
          PartyA: 600981,
          PartyB: Number(`25470837${row.suffix}`),
          Remarks: 'Payout',
          QueueTimeOutURL: `${rx.url}/b2c/timeout`,
          ResultURL: `${rx.url}/b2c/result`,
          Occassion: '',
        },
      });
      const [received] = await rx.waitFor(1);
      // Assess
      expect(r.json.ResponseCode).toBe('0');
      expect(received!.path).toBe('/b2c/result');
      const result = parse<{ Result: Record<string, unknown> }>(received!).Result;
      expect(result).toMatchObject({ ResultType: 0, ResultCode: row.code, ResultDesc: row.desc });
      expect(result).not.toHaveProperty('ResultParameters');
    });
  }
});

describe('C2B validation rejections from the partner (C2B00011–C2B00016)', () => {
  const REJECTIONS: [code: string, meaning: string][] = [
    ['C2B00011', 'Invalid MSISDN'],
    ['C2B00012', 'Invalid Account Number'],
    ['C2B00013', 'Invalid Amount'],
    ['C2B00014', 'Invalid KYC Details'],
    ['C2B00015', 'Invalid Shortcode'],
    ['C2B00016', 'Other Error'],
  ];
  const isValidation = (r: Received) => r.path.endsWith('/validation');
  const isConfirmation = (r: Received) => r.path.endsWith('/confirmation');

  for (const [code, meaning] of REJECTIONS) {
    it(`a validation answer ${code} (${meaning}) stops the payment: no confirmation, nothing for the status query`, async () => {
      // Prepare
      const t = await token();
      rx.answer = (r) => (isValidation(r) ? { body: { ResultCode: code, ResultDesc: 'Rejected' } } : {});
      await call(sim, 'POST', '/mpesa/c2b/v1/registerurl', {
        headers: auth(t),
        body: {
          ShortCode: 600638,
          ResponseType: 'Completed',
          ConfirmationURL: `${rx.url}/confirmation`,
          ValidationURL: `${rx.url}/validation`,
        },
      });
      await call(sim, 'PUT', '/_sim/daraja/c2b/600638', { body: { externalValidation: true } });

      // Act
      const r = await call(sim, 'POST', '/mpesa/c2b/v1/simulate', {
        headers: auth(t),
        body: {
          ShortCode: 600638,
          CommandID: 'CustomerPayBillOnline',
          Amount: 10,
          Msisdn: 254708374149,
          BillRefNumber: 'ACC-001',
        },
      });

      // Assess
      expect(r.json.SimulatorOutcome).toMatchObject({
        validation: 'rejected',
        validationResultCode: code,
        completed: false,
        confirmation: 'not-sent',
        defaultActionApplied: false,
      });
      expect(rx.requests.filter(isValidation)).toHaveLength(1);
      expect(rx.requests.filter(isConfirmation)).toHaveLength(0);
    });
  }
});
