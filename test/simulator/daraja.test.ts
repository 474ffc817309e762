import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { STK_OUTCOMES } from '../../simulator/daraja/outcomes';
import { stkPassword } from '../../simulator/daraja/stk';
import { DEFAULTS } from '../../simulator/options';
import type { Simulator } from '../../simulator/server';
import { call, parse, type Receiver, slowPayer, startReceiver, startSim } from './helpers';

const D = DEFAULTS.daraja;
const SHORT_CODE = '174379';
const PASSKEY = D.passkeys[SHORT_CODE];
const TIMESTAMP = '20240101120000';

interface KV {
  Key: string;
  Value?: unknown;
}
interface DarajaResult {
  ResultType: number;
  ResultCode: number | string;
  ResultDesc: string;
  OriginatorConversationID: string;
  TransactionID: string;
  ResultParameters: { ResultParameter: KV[] };
  ReferenceData: { ReferenceItem: KV | KV[] };
}

let sim: Simulator;
let rx: Receiver;

beforeEach(async () => {
  rx = await startReceiver();
  sim = await startSim({ daraja: { c2bValidationTimeoutMs: 150, queueTimeoutAfterMs: 10_000 } });
});
afterEach(async () => {
  await sim.close();
  await rx.close();
});

async function token(): Promise<string> {
  const r = await call(sim, 'GET', '/oauth/v1/generate?grant_type=client_credentials', {
    headers: {
      Authorization: `Basic ${Buffer.from(`${D.consumerKey}:${D.consumerSecret}`).toString('base64')}`,
    },
  });
  return r.json.access_token;
}

const auth = (t: string) => ({ Authorization: `Bearer ${t}` });

function stkBody(phone: string, extra: Record<string, unknown> = {}) {
  return {
    BusinessShortCode: 174379,
    Password: stkPassword(SHORT_CODE, PASSKEY, TIMESTAMP),
    Timestamp: TIMESTAMP,
    TransactionType: 'CustomerPayBillOnline',
    Amount: 1,
    PartyA: Number(phone),
    PartyB: 174379,
    PhoneNumber: Number(phone),
    CallBackURL: `${rx.url}/v1/daraja/ke/stk`,
    AccountReference: 'ACC-001',
    TransactionDesc: 'Payment',
    ...extra,
  };
}

describe('Daraja OAuth', () => {
  it('generates a token by GET with Basic credentials, expires_in as a string', async () => {
    const t = await token();
    expect(t).toMatch(/^[A-Za-z0-9]{28}$/);
  });

  it('refuses wrong credentials with 400.008.01 and a missing grant type with 400.008.02', async () => {
    const bad = await call(sim, 'GET', '/oauth/v1/generate?grant_type=client_credentials', {
      headers: { Authorization: `Basic ${Buffer.from('a:b').toString('base64')}` },
    });
    expect(bad.json.errorCode).toBe('400.008.01');
    const noGrant = await call(sim, 'GET', '/oauth/v1/generate', {
      headers: {
        Authorization: `Basic ${Buffer.from(`${D.consumerKey}:${D.consumerSecret}`).toString('base64')}`,
      },
    });
    expect(noGrant.json.errorCode).toBe('400.008.02');
  });

  it('answers 404.001.04 when token generation is called by POST, and 404.003.01 for an unknown path', async () => {
    const post = await call(sim, 'POST', '/oauth/v1/generate?grant_type=client_credentials');
    expect(post.json.errorCode).toBe('404.001.04');
    const unknown = await call(sim, 'POST', '/mpesa/nothing/v1/here', { body: {} });
    expect(unknown.json.errorCode).toBe('404.003.01');
  });

  it('refuses an invalid bearer token with 400.003.01', async () => {
    const r = await call(sim, 'POST', '/mpesa/stkpush/v1/processrequest', {
      headers: auth('nope'),
      body: stkBody('254708374149'),
    });
    expect(r.json.errorCode).toBe('400.003.01');
  });
});

describe('Daraja STK push', () => {
  for (const prefix of ['/mpesa', '/wallet']) {
    it(`accepts an STK push under ${prefix} and posts Body.stkCallback with metadata from Safaricom's address`, async () => {
      const t = await token();
      const r = await call(sim, 'POST', `${prefix}/stkpush/v1/processrequest`, {
        headers: auth(t),
        body: stkBody('254708374149'),
      });
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({
        ResponseCode: '0',
        CheckoutRequestID: expect.stringMatching(/^ws_CO_/),
      });
      const [cb] = await rx.waitFor(1);
      expect(cb!.headers['x-forwarded-for']).toBe('196.201.214.200');
      const s = parse<{ Body: { stkCallback: Record<string, unknown> } }>(cb!).Body.stkCallback;
      expect(s).toMatchObject({
        MerchantRequestID: r.json.MerchantRequestID,
        CheckoutRequestID: r.json.CheckoutRequestID,
        ResultCode: 0,
      });
      const items = (s.CallbackMetadata as { Item: { Name: string; Value?: unknown }[] }).Item;
      expect(items.map((i) => i.Name)).toEqual([
        'Amount',
        'MpesaReceiptNumber',
        'Balance',
        'TransactionDate',
        'PhoneNumber',
      ]);
      expect(items.find((i) => i.Name === 'Balance')).not.toHaveProperty('Value');
      expect(items.find((i) => i.Name === 'PhoneNumber')?.Value).toBe(254708374149);
      expect(typeof items.find((i) => i.Name === 'TransactionDate')?.Value).toBe('number');
    });
  }

  it('refuses a wrong password with 400.002.02 Invalid Password', async () => {
    const t = await token();
    const r = await call(sim, 'POST', '/mpesa/stkpush/v1/processrequest', {
      headers: auth(t),
      body: stkBody('254708374149', { Password: Buffer.from(`174379wrong${TIMESTAMP}`).toString('base64') }),
    });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ errorCode: '400.002.02', errorMessage: 'Bad Request - Invalid Password' });
  });

  const limits: [string, Record<string, unknown>][] = [
    ['AccountReference', { AccountReference: 'A'.repeat(13) }],
    ['TransactionDesc', { TransactionDesc: 'D'.repeat(14) }],
    ['Amount', { Amount: 1.5 }],
    ['PhoneNumber', { PhoneNumber: 708374149 }],
    ['TransactionType', { TransactionType: 'PayBill' }],
  ];
  for (const [field, patch] of limits) {
    it(`refuses an out-of-limit ${field}`, async () => {
      const t = await token();
      const r = await call(sim, 'POST', '/mpesa/stkpush/v1/processrequest', {
        headers: auth(t),
        body: stkBody('254708374149', patch),
      });
      expect(r.json).toMatchObject({
        errorCode: '400.002.02',
        errorMessage: `Bad Request - Invalid ${field}`,
      });
    });
  }

  for (const o of STK_OUTCOMES) {
    it(`phone …${o.suffix} ends with ResultCode ${JSON.stringify(o.resultCode)} and no metadata`, async () => {
      const t = await token();
      await call(sim, 'POST', '/mpesa/stkpush/v1/processrequest', {
        headers: auth(t),
        body: stkBody(`25470837${o.suffix}`),
      });
      const [cb] = await rx.waitFor(1);
      const s = parse<{ Body: { stkCallback: Record<string, unknown> } }>(cb!).Body.stkCallback;
      expect(s.ResultCode).toStrictEqual(o.resultCode);
      expect(s.ResultDesc).toBe(o.resultDesc);
      expect(s).not.toHaveProperty('CallbackMetadata');
    });
  }

  it('answers the query with "being processed" before the result, then the ResultCode as a string', async () => {
    const t = await token();
    await slowPayer(sim);
    const push = await call(sim, 'POST', '/mpesa/stkpush/v1/processrequest', {
      headers: auth(t),
      body: stkBody('254708371032'),
    });
    const q = () =>
      call(sim, 'POST', '/mpesa/stkpushquery/v1/query', {
        headers: auth(t),
        body: {
          BusinessShortCode: 174379,
          Password: stkPassword(SHORT_CODE, PASSKEY, TIMESTAMP),
          Timestamp: TIMESTAMP,
          CheckoutRequestID: push.json.CheckoutRequestID,
        },
      });
    const early = await q();
    expect(early.status).toBe(500);
    expect(early.json).toMatchObject({
      errorCode: '500.001.1001',
      errorMessage: 'The transaction is being processed',
    });
    await rx.waitFor(1);
    const done = await q();
    expect(done.json).toMatchObject({
      ResponseCode: '0',
      ResultCode: '1032',
      ResultDesc: 'Request cancelled by user',
    });
  });

  it('answers a query with a wrong password by 500.001.1001 "Wrong credentials"', async () => {
    const t = await token();
    const r = await call(sim, 'POST', '/mpesa/stkpushquery/v1/query', {
      headers: auth(t),
      body: {
        BusinessShortCode: 174379,
        Password: 'eA==',
        Timestamp: TIMESTAMP,
        CheckoutRequestID: 'ws_CO_x',
      },
    });
    expect(r.json).toMatchObject({ errorCode: '500.001.1001', errorMessage: 'Wrong credentials' });
  });
});

describe('Daraja C2B', () => {
  /** Daraja API docs: external validation is off on a short code until its owner activates it. */
  const externalValidation = (on: boolean) =>
    call(sim, 'PUT', '/_sim/daraja/c2b/600638', { body: { externalValidation: on } });

  /** Registers the URLs and, unless `validation: false`, turns external validation on as the owner would. */
  async function register(t: string, extra: Record<string, unknown> = {}, { validation = true } = {}) {
    const r = await call(sim, 'POST', '/mpesa/c2b/v1/registerurl', {
      headers: auth(t),
      body: {
        ShortCode: 600638,
        ResponseType: 'Completed',
        ConfirmationURL: `${rx.url}/v1/daraja/ke/c2b/confirmation`,
        ValidationURL: `${rx.url}/v1/daraja/ke/c2b/validation`,
        ...extra,
      },
    });
    if (validation) expect((await externalValidation(true)).status).toBe(200);
    return r;
  }
  const simulate = (t: string) =>
    call(sim, 'POST', '/mpesa/c2b/v1/simulate', {
      headers: auth(t),
      body: {
        ShortCode: 600638,
        CommandID: 'CustomerPayBillOnline',
        Amount: 10,
        Msisdn: 254708374149,
        BillRefNumber: 'ACC-001',
      },
    });
  const isValidation = (r: { path: string }) => r.path.endsWith('/validation');
  const isConfirmation = (r: { path: string }) => r.path.endsWith('/confirmation');

  it('registers URLs with the platform answer', async () => {
    const r = await register(await token());
    expect(r.json).toMatchObject({
      ResponseCode: '0',
      ResponseDescription: 'Success',
      OriginatorCoversationID: expect.any(String),
    });
  });

  for (const word of [
    'mpesa',
    'M-PESA',
    'Safaricom',
    'exe',
    'EXEC',
    'cmd',
    'sql',
    'Query',
    'ngrok',
    'mockbin',
    'requestbin',
  ]) {
    it(`refuses a ValidationURL containing "${word}" with 400.003.02`, async () => {
      const r = await register(await token(), { ValidationURL: `https://example.com/${word}/validation` });
      expect(r.status).toBe(400);
      expect(r.json.errorCode).toBe('400.003.02');
      expect(r.json.errorMessage).toBe(`Invalid ValidationURL - URL has the word ${word.toUpperCase()}`);
    });
  }

  it('refuses a ResponseType that is not in sentence case', async () => {
    for (const ResponseType of ['completed', 'CANCELLED']) {
      const r = await register(await token(), { ResponseType });
      expect(r.json).toMatchObject({
        errorCode: '400.002.02',
        errorMessage: 'Bad Request - Invalid ResponseType',
      });
    }
  });

  it('runs validation then confirmation when the validation accepts, with the MSISDN masked', async () => {
    const t = await token();
    rx.answer = (r) =>
      isValidation(r) ? { body: { ResultCode: '0', ResultDesc: 'Accepted', ThirdPartyTransID: 'tp-1' } } : {};
    await register(t);
    const r = await simulate(t);
    expect(r.json.SimulatorOutcome).toMatchObject({
      validation: 'accepted',
      completed: true,
      confirmation: 'sent',
      defaultActionApplied: false,
    });
    const [v] = rx.requests.filter(isValidation);
    const [c] = rx.requests.filter(isConfirmation);
    expect(parse(v!)).toMatchObject({
      TransactionType: 'Pay Bill',
      TransAmount: '10',
      MSISDN: '25470****149',
      OrgAccountBalance: '',
      BillRefNumber: 'ACC-001',
    });
    expect(parse(c!)).toMatchObject({
      TransID: parse(v!).TransID,
      ThirdPartyTransID: 'tp-1',
      OrgAccountBalance: expect.stringMatching(/^\d+\.\d{2}$/),
    });
    expect(c!.headers['x-forwarded-for']).toBe('196.201.214.200');
  });

  it('accepts a numeric ResultCode 0 too', async () => {
    const t = await token();
    rx.answer = () => ({ body: { ResultCode: 0, ResultDesc: 'Accepted' } });
    await register(t);
    expect((await simulate(t)).json.SimulatorOutcome.validation).toBe('accepted');
  });

  it('sends no confirmation when the validation rejects', async () => {
    const t = await token();
    rx.answer = (r) => (isValidation(r) ? { body: { ResultCode: 'C2B00012', ResultDesc: 'Rejected' } } : {});
    await register(t);
    const r = await simulate(t);
    expect(r.json.SimulatorOutcome).toMatchObject({
      validation: 'rejected',
      validationResultCode: 'C2B00012',
      completed: false,
      confirmation: 'not-sent',
    });
    expect(rx.requests.filter(isConfirmation)).toHaveLength(0);
  });

  it('applies ResponseType Completed when the validation never answers: confirmation follows', async () => {
    const t = await token();
    rx.answer = (r) => (isValidation(r) ? { hang: true } : {});
    await register(t, { ResponseType: 'Completed' });
    const r = await simulate(t);
    expect(r.json.SimulatorOutcome).toMatchObject({
      validation: 'timeout',
      defaultActionApplied: true,
      completed: true,
      confirmation: 'sent',
    });
    expect(rx.requests.filter(isConfirmation)).toHaveLength(1);
  });

  it('applies ResponseType Cancelled when the validation never answers: no confirmation', async () => {
    const t = await token();
    rx.answer = (r) => (isValidation(r) ? { hang: true } : {});
    await register(t, { ResponseType: 'Cancelled' });
    const r = await simulate(t);
    expect(r.json.SimulatorOutcome).toMatchObject({
      validation: 'timeout',
      defaultActionApplied: true,
      completed: false,
    });
    expect(rx.requests.filter(isConfirmation)).toHaveLength(0);
    const log = (await call(sim, 'GET', '/_sim/callbacks?kind=c2b-validation')).json;
    expect(log[0]).toMatchObject({ outcome: 'timeout' });
  });

  it('treats a 500 from the validation endpoint as "cannot answer" and applies the default', async () => {
    const t = await token();
    rx.answer = (r) => (isValidation(r) ? { status: 500 } : {});
    await register(t, { ResponseType: 'Completed' });
    expect((await simulate(t)).json.SimulatorOutcome).toMatchObject({
      validation: 'error',
      defaultActionApplied: true,
      completed: true,
    });
  });

  it('calls no validation URL on a registered short code until external validation is turned on', async () => {
    // Prepare: URLs registered, validation not activated (the documented default)
    const t = await token();
    rx.answer = (r) => (isValidation(r) ? { body: { ResultCode: '0', ResultDesc: 'Accepted' } } : {});
    await register(t, {}, { validation: false });
    // Act
    const before = await simulate(t);
    // Assess: only the confirmation
    expect(before.json.SimulatorOutcome).toMatchObject({ validation: 'skipped', confirmation: 'sent' });
    expect(rx.requests.filter(isValidation)).toHaveLength(0);
    expect(rx.requests.filter(isConfirmation)).toHaveLength(1);
    // Act: the owner turns it on
    await externalValidation(true);
    const after = await simulate(t);
    // Assess: validation, then confirmation
    expect(after.json.SimulatorOutcome).toMatchObject({ validation: 'accepted', confirmation: 'sent' });
    expect(rx.requests.filter(isValidation)).toHaveLength(1);
  });

  it('starts with external validation off (option daraja.c2bExternalValidation defaults to false)', async () => {
    expect(DEFAULTS.daraja.c2bExternalValidation).toBe(false);
    const config = await call(sim, 'GET', '/_sim/config');
    expect(config.json.daraja.c2bExternalValidation).toBe(false);
  });

  it('validates on every short code with daraja.c2bExternalValidation: true', async () => {
    const on = await startSim({ daraja: { c2bExternalValidation: true, c2bValidationTimeoutMs: 150 } });
    try {
      const t = (
        await call(on, 'GET', '/oauth/v1/generate?grant_type=client_credentials', {
          headers: {
            Authorization: `Basic ${Buffer.from(`${D.consumerKey}:${D.consumerSecret}`).toString('base64')}`,
          },
        })
      ).json.access_token;
      rx.answer = () => ({ body: { ResultCode: '0', ResultDesc: 'Accepted' } });
      await call(on, 'POST', '/mpesa/c2b/v1/registerurl', {
        headers: auth(t),
        body: {
          ShortCode: 600638,
          ResponseType: 'Completed',
          ConfirmationURL: `${rx.url}/on/confirmation`,
          ValidationURL: `${rx.url}/on/validation`,
        },
      });
      const r = await call(on, 'POST', '/mpesa/c2b/v1/simulate', {
        headers: auth(t),
        body: { ShortCode: 600638, CommandID: 'CustomerPayBillOnline', Amount: 10, Msisdn: 254708374149 },
      });
      expect(r.json.SimulatorOutcome).toMatchObject({ validation: 'accepted', confirmation: 'sent' });
    } finally {
      await on.close();
    }
  });

  it('sends only the confirmation when external validation is switched off for the short code', async () => {
    const t = await token();
    await register(t);
    await externalValidation(false);
    const r = await simulate(t);
    expect(r.json.SimulatorOutcome).toMatchObject({ validation: 'skipped', confirmation: 'sent' });
    expect(rx.requests.filter(isValidation)).toHaveLength(0);
  });

  it('overwrites a registration in the sandbox', async () => {
    const t = await token();
    await register(t);
    await register(t, {
      ConfirmationURL: `${rx.url}/second/confirmation`,
      ValidationURL: `${rx.url}/second/validation`,
    });
    await simulate(t);
    expect(rx.requests.every((r) => r.path.startsWith('/second/'))).toBe(true);
  });

  it('completes without any call when no URLs are registered', async () => {
    const r = await simulate(await token());
    expect(r.json.SimulatorOutcome).toMatchObject({
      validation: 'skipped',
      completed: true,
      confirmation: 'not-sent',
    });
    expect(rx.requests).toHaveLength(0);
  });
});

describe('Daraja B2C and transaction status', () => {
  const b2cBody = (partyB: string, oc = `oc-${Math.random()}`) => ({
    OriginatorConversationID: oc,
    InitiatorName: 'testapi',
    SecurityCredential: 'c2VjcmV0',
    CommandID: 'BusinessPayment',
    Amount: 10,
    PartyA: 600981,
    PartyB: Number(partyB),
    Remarks: 'Payout',
    QueueTimeOutURL: `${rx.url}/v1/daraja/ke/b2c/timeout`,
    ResultURL: `${rx.url}/v1/daraja/ke/b2c/result`,
    Occassion: '',
  });

  it('posts a successful Result with ResultParameters and ReferenceItem (object on v1, array on v3)', async () => {
    const t = await token();
    for (const version of ['v1', 'v3']) {
      const body = b2cBody('254708374149');
      const r = await call(sim, 'POST', `/mpesa/b2c/${version}/paymentrequest`, { headers: auth(t), body });
      expect(r.json).toMatchObject({
        ResponseCode: '0',
        OriginatorConversationID: body.OriginatorConversationID,
        ConversationID: expect.stringMatching(/^AG_\d{8}_/),
      });
      const [cb] = await rx.waitFor(1, (x) => x.body.includes(body.OriginatorConversationID));
      const result = parse<{ Result: DarajaResult }>(cb!).Result;
      expect(result).toMatchObject({
        ResultType: 0,
        ResultCode: 0,
        OriginatorConversationID: body.OriginatorConversationID,
      });
      const keys = result.ResultParameters.ResultParameter.map((p) => p.Key);
      expect(keys).toEqual([
        'TransactionAmount',
        'TransactionReceipt',
        'B2CRecipientIsRegisteredCustomer',
        'B2CChargesPaidAccountAvailableFunds',
        'ReceiverPartyPublicName',
        'TransactionCompletedDateTime',
        'B2CUtilityAccountAvailableFunds',
        'B2CWorkingAccountAvailableFunds',
      ]);
      const ref = result.ReferenceData.ReferenceItem;
      expect(Array.isArray(ref)).toBe(version === 'v3');
      expect(Array.isArray(ref) ? ref[0] : ref).toEqual({
        Key: 'QueueTimeoutURL',
        Value: body.QueueTimeOutURL,
      });
    }
  });

  it('posts a failure Result 2001 without ResultParameters for PartyB …2001', async () => {
    const t = await token();
    await call(sim, 'POST', '/wallet/b2c/v3/paymentrequest', {
      headers: auth(t),
      body: b2cBody('254708372001'),
    });
    const [cb] = await rx.waitFor(1);
    const result = parse<{ Result: Record<string, unknown> }>(cb!).Result;
    expect(result).toMatchObject({ ResultCode: 2001, ResultDesc: 'The initiator information is invalid.' });
    expect(result).not.toHaveProperty('ResultParameters');
  });

  it('sends a queue-timeout echo of the request for PartyB …0408 and no result', async () => {
    const t = await token();
    const body = b2cBody('254708370408');
    await call(sim, 'POST', '/mpesa/b2c/v1/paymentrequest', { headers: auth(t), body });
    const [cb] = await rx.waitFor(1);
    await sim.whenIdle();
    expect(cb!.path).toBe('/v1/daraja/ke/b2c/timeout');
    expect(parse(cb!)).toEqual(body);
    expect(rx.requests).toHaveLength(1);
  });

  it('sends the {Result:{…}} queue-timeout shape when configured, then a late result when asked', async () => {
    const t = await token();
    await call(sim, 'PATCH', '/_sim/config', {
      body: { daraja: { queueTimeoutShape: 'result', queueTimeoutLateResultMs: 20_000 } },
    });
    const body = b2cBody('254708370408');
    await call(sim, 'POST', '/mpesa/b2c/v1/paymentrequest', { headers: auth(t), body });
    const [notice, late] = await rx.waitFor(2);
    expect(notice!.path).toBe('/v1/daraja/ke/b2c/timeout');
    expect(parse<{ Result: Record<string, unknown> }>(notice!).Result).toMatchObject({
      OriginatorConversationID: body.OriginatorConversationID,
    });
    expect(late!.path).toBe('/v1/daraja/ke/b2c/result');
    expect(parse<{ Result: Record<string, unknown> }>(late!).Result.ResultCode).toBe(0);
  });

  it('posts a transaction status Result for a completed B2C, found by its receipt', async () => {
    const t = await token();
    await call(sim, 'POST', '/mpesa/b2c/v1/paymentrequest', {
      headers: auth(t),
      body: b2cBody('254708374149'),
    });
    const [cb] = await rx.waitFor(1);
    const receipt = parse<{ Result: { TransactionID: string } }>(cb!).Result.TransactionID;
    const r = await call(sim, 'POST', '/mpesa/transactionstatus/v1/query', {
      headers: auth(t),
      body: {
        Initiator: 'testapi',
        SecurityCredential: 'c2VjcmV0',
        CommandID: 'TransactionStatusQuery',
        TransactionID: receipt,
        PartyA: 600981,
        IdentifierType: 4,
        ResultURL: `${rx.url}/v1/daraja/ke/status/result`,
        QueueTimeOutURL: `${rx.url}/v1/daraja/ke/status/timeout`,
        Remarks: 'check',
        Occasion: '',
      },
    });
    expect(r.json).toMatchObject({ ResponseCode: 0, ConversationID: expect.any(String) });
    const [res] = await rx.waitFor(1, (x) => x.path.endsWith('/status/result'));
    const result = parse<{ Result: DarajaResult }>(res!).Result;
    expect(result.ResultCode).toBe(0);
    const params = result.ResultParameters.ResultParameter;
    const get = (k: string) => params.filter((p) => p.Key === k);
    expect(get('DebitPartyName')).toHaveLength(2);
    expect(get('ReceiptNo')[0]?.Value).toBe(receipt);
    expect(get('TransactionStatus')[0]?.Value).toBe('Completed');
    expect(get('Amount')[0]?.Value).toBe(10);
  });

  it('posts a string ResultCode when the transaction status query finds nothing', async () => {
    const t = await token();
    await call(sim, 'POST', '/wallet/transactionstatus/v1/query', {
      headers: auth(t),
      body: {
        Initiator: 'testapi',
        SecurityCredential: 'c2VjcmV0',
        CommandID: 'TransactionStatusQuery',
        TransactionID: 'NOPE000000',
        PartyA: 600981,
        IdentifierType: '4',
        ResultURL: `${rx.url}/status/result`,
        QueueTimeOutURL: `${rx.url}/status/timeout`,
        Remarks: 'check',
      },
    });
    const [res] = await rx.waitFor(1);
    expect(typeof parse<{ Result: { ResultCode: unknown } }>(res!).Result.ResultCode).toBe('string');
  });
});
