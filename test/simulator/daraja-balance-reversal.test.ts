import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../simulator/options';
import type { ManualClock } from '../../simulator/core/clock';
import type { Simulator } from '../../simulator/server';
import { call, parse, type Receiver, startHeldSim, startReceiver, startSim } from './helpers';

const D = DEFAULTS.daraja;

interface KV {
  Key: string;
  Value?: unknown;
}
interface DarajaResult {
  ResultType: number;
  ResultCode: number | string;
  ResultDesc: string;
  OriginatorConversationID: string;
  ConversationID: string;
  TransactionID: string;
  ResultParameters?: { ResultParameter: KV[] };
  ReferenceData: { ReferenceItem: KV };
}

let sim: Simulator;
let rx: Receiver;
/** Set by `holdClock()`: the clock of `sim`, which then moves only when the test moves it. */
let clock: ManualClock | undefined;
const SIM_OPTIONS = { daraja: { queueTimeoutAfterMs: 10_000 } };

beforeEach(async () => {
  rx = await startReceiver();
  sim = await startSim(SIM_OPTIONS);
});
afterEach(async () => {
  await sim.close();
  await rx.close();
  clock = undefined;
});

/**
 * A balance is answered once the second it names has ended (simulator/daraja/balance-reversal.ts): a test
 * that reads one runs on a held clock and moves it past that second (`elapse`) rather than wait for it.
 */
async function holdClock(): Promise<void> {
  await sim.close();
  ({ sim, clock } = await startHeldSim(SIM_OPTIONS));
}

/** On a held clock, one second on: past the payer's delay and the end of the second a balance names. */
const elapse = async () => clock?.advance(1000);

async function token(): Promise<string> {
  const r = await call(sim, 'GET', '/oauth/v1/generate?grant_type=client_credentials', {
    headers: {
      Authorization: `Basic ${Buffer.from(`${D.consumerKey}:${D.consumerSecret}`).toString('base64')}`,
    },
  });
  return r.json.access_token;
}

const auth = (t: string) => ({ Authorization: `Bearer ${t}` });
const PREFIXES = ['/mpesa', '/wallet'];

const balanceBody = (partyA: string | number = 600981, extra: Record<string, unknown> = {}) => ({
  Initiator: 'testapi',
  SecurityCredential: 'c2VjcmV0',
  CommandID: 'AccountBalance',
  PartyA: partyA,
  IdentifierType: '4',
  Remarks: 'balance',
  QueueTimeOutURL: `${rx.url}/balance/timeout`,
  ResultURL: `${rx.url}/balance/result`,
  ...extra,
});

const reversalBody = (transactionId: string, extra: Record<string, unknown> = {}) => ({
  Initiator: 'testapi',
  SecurityCredential: 'c2VjcmV0',
  CommandID: 'TransactionReversal',
  TransactionID: transactionId,
  Amount: 10,
  ReceiverParty: 600981,
  RecieverIdentifierType: '11',
  ResultURL: `${rx.url}/reversal/result`,
  QueueTimeOutURL: `${rx.url}/reversal/timeout`,
  Remarks: 'reversal',
  Occasion: '',
  ...extra,
});

/** A completed B2C payout from 600981, whose receipt a reversal can name. */
async function paidB2c(t: string): Promise<string> {
  const oc = `oc-${Math.random()}`;
  await call(sim, 'POST', '/mpesa/b2c/v3/paymentrequest', {
    headers: auth(t),
    body: {
      OriginatorConversationID: oc,
      InitiatorName: 'testapi',
      SecurityCredential: 'c2VjcmV0',
      CommandID: 'BusinessPayment',
      Amount: 10,
      PartyA: 600981,
      PartyB: 254708374149,
      Remarks: 'Payout',
      QueueTimeOutURL: `${rx.url}/b2c/timeout`,
      ResultURL: `${rx.url}/b2c/result`,
    },
  });
  await elapse();
  const [cb] = await rx.waitFor(1, (r) => r.path === '/b2c/result');
  return parse<{ Result: { TransactionID: string } }>(cb!).Result.TransactionID;
}

const resultOf = (r: { body: string }) => parse<{ Result: DarajaResult }>(r as never).Result;
const param = (res: DarajaResult, key: string) =>
  res.ResultParameters?.ResultParameter.find((p) => p.Key === key)?.Value;

/** Independent parser of Daraja's `AccountBalance` string (not the simulator's code). */
function parseBalance(value: string) {
  return value.split('&').map((entry) => {
    const [name, currency, amount, available, reserved, uncleared] = entry.split('|');
    return {
      name,
      currency,
      amount: Number(amount),
      available: Number(available),
      reserved: Number(reserved),
      uncleared: Number(uncleared),
    };
  });
}

describe('Daraja account balance', () => {
  for (const prefix of PREFIXES) {
    it(`answers under ${prefix} and posts the balance string and BOCompletedTime to ResultURL`, async () => {
      await holdClock();
      const t = await token();
      const r = await call(sim, 'POST', `${prefix}/accountbalance/v1/query`, {
        headers: auth(t),
        body: balanceBody(),
      });
      expect(r.status).toBe(200);
      expect(r.json).toEqual({
        OriginatorConversationID: expect.any(String),
        ConversationID: expect.stringMatching(/^AG_\d{8}_/),
        ResponseCode: '0',
        ResponseDescription: 'Accept the service request successfully.',
      });
      await elapse();
      const [cb] = await rx.waitFor(1);
      expect(cb!.path).toBe('/balance/result');
      expect(cb!.headers['x-forwarded-for']).toBe('196.201.214.200');
      const result = resultOf(cb!);
      expect(result).toMatchObject({
        ResultType: 0,
        ResultCode: 0,
        ResultDesc: 'The service request is processed successfully.',
        OriginatorConversationID: r.json.OriginatorConversationID,
        ConversationID: r.json.ConversationID,
        ReferenceData: { ReferenceItem: { Key: 'QueueTimeoutURL', Value: `${rx.url}/balance/timeout` } },
      });
      expect(result.ResultParameters!.ResultParameter.map((p) => p.Key)).toEqual([
        'AccountBalance',
        'BOCompletedTime',
      ]);
      expect(String(param(result, 'BOCompletedTime'))).toMatch(/^\d{14}$/);
      const accounts = parseBalance(param(result, 'AccountBalance') as string);
      expect(accounts.map((a) => a.name)).toEqual([
        'Working Account',
        'Float Account',
        'Utility Account',
        'Charges Paid Account',
        'Organization Settlement Account',
      ]);
      for (const a of accounts) {
        expect(a.currency).toBe('KES');
        expect(Number.isFinite(a.amount)).toBe(true);
        expect(a.available).toBe(a.amount);
      }
      expect(accounts.find((a) => a.name === 'Charges Paid Account')?.amount).toBe(-1540);
    });
  }

  it('reports the Utility Account after a B2C payout from the short code', async () => {
    await holdClock();
    const t = await token();
    const before = await (async () => {
      await call(sim, 'POST', '/mpesa/accountbalance/v1/query', { headers: auth(t), body: balanceBody() });
      await elapse();
      const [cb] = await rx.waitFor(1, (r) => r.path === '/balance/result');
      return parseBalance(param(resultOf(cb!), 'AccountBalance') as string);
    })();
    await paidB2c(t);
    await call(sim, 'POST', '/mpesa/accountbalance/v1/query', { headers: auth(t), body: balanceBody() });
    await elapse();
    const [, cb] = await rx.waitFor(2, (r) => r.path === '/balance/result');
    const after = parseBalance(param(resultOf(cb!), 'AccountBalance') as string);
    const utility = (l: typeof after) => l.find((a) => a.name === 'Utility Account')!.amount;
    expect(utility(after)).toBe(utility(before) - 10);
  });

  const invalid: [string, Record<string, unknown>][] = [
    ['Initiator', { Initiator: '' }],
    ['SecurityCredential', { SecurityCredential: undefined }],
    ['CommandID', { CommandID: 'TransactionReversal' }],
    ['PartyA', { PartyA: 'abc' }],
    ['IdentifierType', { IdentifierType: undefined }],
    ['Remarks', { Remarks: 'R'.repeat(101) }],
    ['QueueTimeOutURL', { QueueTimeOutURL: 'not a url' }],
    ['ResultURL', { ResultURL: undefined }],
  ];
  for (const [field, patch] of invalid) {
    it(`refuses an invalid ${field} with 400.002.02`, async () => {
      const t = await token();
      const r = await call(sim, 'POST', '/mpesa/accountbalance/v1/query', {
        headers: auth(t),
        body: balanceBody(600981, patch),
      });
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({
        requestId: expect.any(String),
        errorCode: '400.002.02',
        errorMessage: `Bad Request - Invalid ${field}`,
      });
    });
  }

  it('refuses a bad token (401 400.003.01), malformed JSON (400.002.05) and GET (404.001.04)', async () => {
    const bad = await call(sim, 'POST', '/wallet/accountbalance/v1/query', {
      headers: auth('nope'),
      body: balanceBody(),
    });
    expect(bad.status).toBe(401);
    expect(bad.json.errorCode).toBe('400.003.01');
    const t = await token();
    const malformed = await call(sim, 'POST', '/mpesa/accountbalance/v1/query', {
      headers: { ...auth(t), 'content-type': 'application/json' },
      raw: '{',
    });
    expect(malformed.json.errorCode).toBe('400.002.05');
    const get = await call(sim, 'GET', '/mpesa/accountbalance/v1/query', { headers: auth(t) });
    expect(get.json.errorCode).toBe('404.001.04');
    expect(rx.requests).toHaveLength(0);
  });

  it('posts ResultCode 2001 without ResultParameters for PartyA …2001', async () => {
    await holdClock();
    const t = await token();
    await call(sim, 'POST', '/mpesa/accountbalance/v1/query', {
      headers: auth(t),
      body: balanceBody(602001),
    });
    await elapse();
    const [cb] = await rx.waitFor(1);
    const result = resultOf(cb!);
    expect(result).toMatchObject({ ResultCode: 2001, ResultDesc: 'The initiator information is invalid.' });
    expect(result).not.toHaveProperty('ResultParameters');
  });

  it('sends a queue-timeout echo to QueueTimeOutURL for PartyA …0408 and no result', async () => {
    const t = await token();
    const body = balanceBody(600408);
    const r = await call(sim, 'POST', '/wallet/accountbalance/v1/query', { headers: auth(t), body });
    expect(r.json.ResponseCode).toBe('0');
    const [cb] = await rx.waitFor(1);
    await sim.whenIdle();
    expect(cb!.path).toBe('/balance/timeout');
    expect(parse(cb!)).toEqual({ ...body, OriginatorConversationID: r.json.OriginatorConversationID });
    expect(rx.requests).toHaveLength(1);
  });

  it('applies the fault knobs: queue-timeout=result with late-result', async () => {
    const t = await token();
    const r = await call(sim, 'POST', '/mpesa/accountbalance/v1/query', {
      headers: { ...auth(t), 'X-Sim-Fault': 'queue-timeout=result,late-result=20' },
      body: balanceBody(),
    });
    const [notice, late] = await rx.waitFor(2);
    expect(notice!.path).toBe('/balance/timeout');
    expect(resultOf(notice!)).toMatchObject({
      ResultType: 1,
      OriginatorConversationID: r.json.OriginatorConversationID,
    });
    expect(late!.path).toBe('/balance/result');
    expect(resultOf(late!).ResultCode).toBe(0);
  });

  it('applies the fault knobs: drop', async () => {
    await holdClock();
    const t = await token();
    await call(sim, 'POST', '/mpesa/accountbalance/v1/query', {
      headers: { ...auth(t), 'X-Sim-Fault': 'drop' },
      body: balanceBody(),
    });
    await elapse();
    await sim.whenIdle();
    expect(rx.requests).toHaveLength(0);
    const log = await call(sim, 'GET', '/_sim/callbacks');
    expect(JSON.stringify(log.json)).toContain('"dropped"');
  });
});

describe('Daraja reversal', () => {
  for (const prefix of PREFIXES) {
    it(`reverses a completed B2C under ${prefix} and posts Daraja's ResultParameters`, async () => {
      const t = await token();
      const original = await paidB2c(t);
      const r = await call(sim, 'POST', `${prefix}/reversal/v1/request`, {
        headers: auth(t),
        body: reversalBody(original),
      });
      expect(r.status).toBe(200);
      expect(r.json).toEqual({
        OriginatorConversationID: expect.any(String),
        ConversationID: expect.stringMatching(/^AG_\d{8}_/),
        ResponseCode: '0',
        ResponseDescription: 'Accept the service request successfully.',
      });
      const [cb] = await rx.waitFor(1, (x) => x.path === '/reversal/result');
      const result = resultOf(cb!);
      expect(result).toMatchObject({
        ResultType: 0,
        ResultCode: 0,
        ResultDesc: 'The service request is processed successfully.',
        OriginatorConversationID: r.json.OriginatorConversationID,
        ConversationID: r.json.ConversationID,
        TransactionID: expect.stringMatching(/^[A-Z][A-Z0-9]{9}$/),
      });
      expect(result.TransactionID).not.toBe(original);
      expect(result.ResultParameters!.ResultParameter.map((p) => p.Key)).toEqual([
        'DebitAccountBalance',
        'Amount',
        'TransCompletedTime',
        'OriginalTransactionID',
        'Charge',
        'CreditPartyPublicName',
        'DebitPartyPublicName',
      ]);
      expect(param(result, 'OriginalTransactionID')).toBe(original);
      expect(param(result, 'Amount')).toBe(10);
      expect(String(param(result, 'TransCompletedTime'))).toMatch(/^\d{14}$/);
      expect(param(result, 'DebitAccountBalance')).toMatch(/^Utility Account\|KES\|-?\d+\.\d{2}\|/);
      // A payout reversed: the customer pays back, the short code is credited.
      expect(param(result, 'DebitPartyPublicName')).toMatch(/^254708374149 - /);
      expect(param(result, 'CreditPartyPublicName')).toMatch(/^600981 - /);
    });
  }

  it('accepts ReceiverIdentifierType spelled correctly, and refuses a request with neither spelling', async () => {
    const t = await token();
    const original = await paidB2c(t);
    const ok = await call(sim, 'POST', '/mpesa/reversal/v1/request', {
      headers: auth(t),
      body: reversalBody(original, { RecieverIdentifierType: undefined, ReceiverIdentifierType: 11 }),
    });
    expect(ok.json.ResponseCode).toBe('0');
    const none = await call(sim, 'POST', '/mpesa/reversal/v1/request', {
      headers: auth(t),
      body: reversalBody(original, { RecieverIdentifierType: undefined }),
    });
    expect(none.status).toBe(400);
    expect(none.json.errorMessage).toBe('Bad Request - Invalid RecieverIdentifierType');
  });

  const invalid: [string, Record<string, unknown>][] = [
    ['Initiator', { Initiator: undefined }],
    ['SecurityCredential', { SecurityCredential: '' }],
    ['CommandID', { CommandID: 'AccountBalance' }],
    ['TransactionID', { TransactionID: '' }],
    ['Amount', { Amount: 1.5 }],
    ['ReceiverParty', { ReceiverParty: undefined }],
    ['ResultURL', { ResultURL: 'ftp://x' }],
    ['QueueTimeOutURL', { QueueTimeOutURL: undefined }],
    ['Remarks', { Remarks: '' }],
  ];
  for (const [field, patch] of invalid) {
    it(`refuses an invalid ${field} with 400.002.02`, async () => {
      const t = await token();
      const r = await call(sim, 'POST', '/wallet/reversal/v1/request', {
        headers: auth(t),
        body: reversalBody('OEI2AK4Q16', patch),
      });
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({
        errorCode: '400.002.02',
        errorMessage: `Bad Request - Invalid ${field}`,
      });
    });
  }

  it('refuses a bad token with 401 400.003.01', async () => {
    const r = await call(sim, 'POST', '/mpesa/reversal/v1/request', {
      headers: auth('nope'),
      body: reversalBody('OEI2AK4Q16'),
    });
    expect(r.status).toBe(401);
    expect(r.json.errorCode).toBe('400.003.01');
  });

  it('posts R000002 "The OriginalTransID is invalid." for an unknown TransactionID', async () => {
    const t = await token();
    const r = await call(sim, 'POST', '/mpesa/reversal/v1/request', {
      headers: auth(t),
      body: reversalBody('NOPE000000'),
    });
    // Accepted synchronously: the failure arrives asynchronously, as on the platform.
    expect(r.json.ResponseCode).toBe('0');
    const [cb] = await rx.waitFor(1);
    const result = resultOf(cb!);
    expect(result).toMatchObject({
      ResultType: 0,
      ResultCode: 'R000002',
      ResultDesc: 'The OriginalTransID is invalid.',
    });
    expect(result).not.toHaveProperty('ResultParameters');
  });

  it('posts R000001 when the same transaction is reversed twice', async () => {
    const t = await token();
    const original = await paidB2c(t);
    for (let i = 0; i < 2; i++) {
      await call(sim, 'POST', '/mpesa/reversal/v1/request', {
        headers: auth(t),
        body: reversalBody(original),
      });
      await rx.waitFor(i + 1, (x) => x.path === '/reversal/result');
    }
    const [first, second] = rx.requests.filter((x) => x.path === '/reversal/result');
    expect(resultOf(first!).ResultCode).toBe(0);
    expect(resultOf(second!)).toMatchObject({
      ResultCode: 'R000001',
      ResultDesc: 'The transaction has already been reversed.',
    });
  });

  it('posts ResultCode 2001 for ReceiverParty …2001', async () => {
    const t = await token();
    await call(sim, 'POST', '/mpesa/reversal/v1/request', {
      headers: auth(t),
      body: reversalBody('OEI2AK4Q16', { ReceiverParty: 602001 }),
    });
    const [cb] = await rx.waitFor(1);
    expect(resultOf(cb!).ResultCode).toBe(2001);
  });

  it('sends a queue-timeout notice for ReceiverParty …0408 and no result', async () => {
    const t = await token();
    const body = reversalBody('OEI2AK4Q16', { ReceiverParty: 600408 });
    const r = await call(sim, 'POST', '/wallet/reversal/v1/request', { headers: auth(t), body });
    const [cb] = await rx.waitFor(1);
    await sim.whenIdle();
    expect(cb!.path).toBe('/reversal/timeout');
    expect(parse(cb!)).toEqual({ ...body, OriginatorConversationID: r.json.OriginatorConversationID });
    expect(rx.requests).toHaveLength(1);
  });

  it('applies the queue-timeout fault set globally for daraja', async () => {
    const t = await token();
    const original = await paidB2c(t);
    sim.setFaults({ daraja: 'queue-timeout' });
    await call(sim, 'POST', '/mpesa/reversal/v1/request', {
      headers: auth(t),
      body: reversalBody(original),
    });
    const [cb] = await rx.waitFor(1, (x) => x.path.startsWith('/reversal/'));
    await sim.whenIdle();
    expect(cb!.path).toBe('/reversal/timeout');
    expect(rx.requests.filter((x) => x.path === '/reversal/result')).toHaveLength(0);
  });
});
