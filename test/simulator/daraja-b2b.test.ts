import { createRequire } from 'node:module';
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
  ReferenceData: { ReferenceItem: KV | KV[] };
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
const SENDER = '600981';

const b2bBody = (extra: Record<string, unknown> = {}) => ({
  Initiator: 'testapi',
  SecurityCredential: 'c2VjcmV0',
  CommandID: 'BusinessPayBill',
  SenderIdentifierType: '4',
  RecieverIdentifierType: '4',
  Amount: 190,
  PartyA: SENDER,
  PartyB: '600000',
  AccountReference: '353353',
  Requester: '254708374149',
  Remarks: 'Supplier invoice',
  QueueTimeOutURL: `${rx.url}/b2b/timeout`,
  ResultURL: `${rx.url}/b2b/result`,
  Occassion: '',
  ...extra,
});

async function payB2b(t: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  return call(sim, 'POST', '/mpesa/b2b/v1/paymentrequest', {
    headers: { ...auth(t), ...headers },
    body: b2bBody(extra),
  });
}

const resultOf = (r: { body: string }) => parse<{ Result: DarajaResult }>(r as never).Result;
const param = (res: DarajaResult, key: string) =>
  res.ResultParameters?.ResultParameter.find((p) => p.Key === key)?.Value;
const referenceItems = (res: DarajaResult) => [res.ReferenceData.ReferenceItem].flat();

/** The Utility Account of a short code, read through the account balance query (independent parsing). */
async function utilityOf(t: string, shortCode: string): Promise<number> {
  const before = rx.requests.filter((r) => r.path === '/balance/result').length;
  await call(sim, 'POST', '/mpesa/accountbalance/v1/query', {
    headers: auth(t),
    body: {
      Initiator: 'testapi',
      SecurityCredential: 'c2VjcmV0',
      CommandID: 'AccountBalance',
      PartyA: shortCode,
      IdentifierType: '4',
      Remarks: 'balance',
      QueueTimeOutURL: `${rx.url}/balance/timeout`,
      ResultURL: `${rx.url}/balance/result`,
    },
  });
  await elapse();
  const all = await rx.waitFor(before + 1, (r) => r.path === '/balance/result');
  const value = param(resultOf(all[before]!), 'AccountBalance') as string;
  const utility = value.split('&').find((a) => a.startsWith('Utility Account|'))!;
  return Number(utility.split('|')[2]);
}

describe('Daraja B2B payment request', () => {
  for (const prefix of PREFIXES) {
    it(`accepts a payment under ${prefix} and posts Daraja's B2B result to ResultURL`, async () => {
      // Prepare
      const t = await token();
      // Act
      const r = await call(sim, 'POST', `${prefix}/b2b/v1/paymentrequest`, {
        headers: auth(t),
        body: b2bBody(),
      });
      const [cb] = await rx.waitFor(1);
      // Assess
      expect(r.status).toBe(200);
      expect(r.json).toEqual({
        OriginatorConversationID: expect.any(String),
        ConversationID: expect.stringMatching(/^AG_\d{8}_/),
        ResponseCode: '0',
        ResponseDescription: 'Accept the service request successfully.',
      });
      expect(cb!.path).toBe('/b2b/result');
      expect(cb!.headers['x-forwarded-for']).toBe(D.callbackSourceIp);
      const result = resultOf(cb!);
      expect(result).toMatchObject({
        ResultType: 0,
        ResultCode: 0,
        ResultDesc: 'The service request is processed successfully.',
        OriginatorConversationID: r.json.OriginatorConversationID,
        ConversationID: r.json.ConversationID,
        TransactionID: expect.stringMatching(/^[A-Z][A-Z0-9]{9}$/),
      });
      expect(result.ResultParameters!.ResultParameter.map((p) => p.Key)).toEqual([
        'DebitAccountBalance',
        'Amount',
        'DebitPartyAffectedAccountBalance',
        'TransCompletedTime',
        'DebitPartyCharges',
        'ReceiverPartyPublicName',
        'Currency',
        'InitiatorAccountCurrentBalance',
      ]);
      const amountMap =
        /^\{Amount=\{CurrencyCode=KES, MinimumAmount=(-?\d+), BasicAmount=(-?\d+\.\d{2})\}\}$/;
      const [, cents, shillings] = amountMap.exec(param(result, 'DebitAccountBalance') as string)!;
      expect(Number(cents)).toBe(Math.round(Number(shillings) * 100));
      expect(param(result, 'InitiatorAccountCurrentBalance')).toMatch(amountMap);
      expect(param(result, 'Amount')).toBe('190.00');
      expect(param(result, 'DebitPartyAffectedAccountBalance')).toBe(
        `Working Account|KES|${shillings}|${shillings}|0.00|0.00`,
      );
      expect(param(result, 'TransCompletedTime')).toMatch(/^\d{14}$/);
      expect(param(result, 'DebitPartyCharges')).toBe('');
      expect(param(result, 'ReceiverPartyPublicName')).toMatch(/^600000 - \S/);
      expect(param(result, 'Currency')).toBe('KES');
      expect(result.ReferenceData.ReferenceItem).toEqual([
        { Key: 'BillReferenceNumber', Value: '353353' },
        { Key: 'QueueTimeoutURL', Value: `${rx.url}/b2b/timeout` },
      ]);
    });
  }

  it('debits the sender short code and credits the receiving one by the amount', async () => {
    // Prepare
    await holdClock();
    const t = await token();
    const senderBefore = await utilityOf(t, SENDER);
    const receiverBefore = await utilityOf(t, '600000');
    // Act
    await payB2b(t, { Amount: 190 });
    await elapse();
    await rx.waitFor(1, (r) => r.path === '/b2b/result');
    const senderAfter = await utilityOf(t, SENDER);
    const receiverAfter = await utilityOf(t, '600000');
    // Assess
    expect(senderAfter).toBe(senderBefore - 190);
    expect(receiverAfter).toBe(receiverBefore + 190);
  });

  it('accepts every documented CommandID, ReceiverIdentifierType spelled correctly, and Occasion', async () => {
    // Prepare
    const t = await token();
    const commands = [
      'BusinessPayBill',
      'BusinessBuyGoods',
      'DisburseFundsToBusiness',
      'BusinessToBusinessTransfer',
      'MerchantToMerchantTransfer',
    ];
    // Act
    const answers = await Promise.all(
      commands.map((CommandID) =>
        payB2b(t, {
          CommandID,
          RecieverIdentifierType: undefined,
          ReceiverIdentifierType: 4,
          Occassion: undefined,
          Occasion: 'June',
        }),
      ),
    );
    // Assess
    expect(answers.map((a) => a.status)).toEqual(commands.map(() => 200));
  });

  it('accepts a missing AccountReference (null, as mpesa-node sends it) outside BusinessPayBill', async () => {
    // Prepare
    const t = await token();
    // Act
    const r = await payB2b(t, { CommandID: 'BusinessBuyGoods', AccountReference: null });
    const [cb] = await rx.waitFor(1, (x) => x.path === '/b2b/result');
    // Assess
    expect(r.status).toBe(200);
    expect(referenceItems(resultOf(cb!))).toEqual([
      { Key: 'QueueTimeoutURL', Value: `${rx.url}/b2b/timeout` },
    ]);
  });

  const invalid: [string, Record<string, unknown>][] = [
    ['Initiator', { Initiator: '' }],
    ['SecurityCredential', { SecurityCredential: undefined }],
    ['CommandID', { CommandID: 'BusinessPayment' }],
    ['SenderIdentifierType', { SenderIdentifierType: undefined }],
    ['RecieverIdentifierType', { RecieverIdentifierType: undefined }],
    ['Amount', { Amount: 10.5 }],
    ['Amount', { Amount: 0 }],
    ['PartyA', { PartyA: 'abc' }],
    ['PartyB', { PartyB: undefined }],
    ['AccountReference', { AccountReference: 'A'.repeat(14) }],
    ['AccountReference', { AccountReference: null }],
    ['AccountReference', { AccountReference: '' }],
    ['Requester', { Requester: '0708374149' }],
    ['Remarks', { Remarks: 'R'.repeat(101) }],
    ['QueueTimeOutURL', { QueueTimeOutURL: 'not a url' }],
    ['ResultURL', { ResultURL: undefined }],
    ['Occassion', { Occassion: 'O'.repeat(101) }],
  ];
  const describePatch = (patch: Record<string, unknown>) =>
    Object.entries(patch)
      .map(([k, v]) => (v === undefined ? `no ${k}` : `${k} ${JSON.stringify(v).slice(0, 20)}`))
      .join(', ');
  for (const [field, patch] of invalid) {
    it(`refuses ${describePatch(patch)} with 400.002.02 naming ${field}`, async () => {
      // Prepare
      const t = await token();
      // Act
      const r = await payB2b(t, patch);
      await sim.whenIdle();
      // Assess
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({
        requestId: expect.any(String),
        errorCode: '400.002.02',
        errorMessage: `Bad Request - Invalid ${field}`,
      });
      expect(rx.requests).toHaveLength(0);
    });
  }

  it('refuses a bad token with 401 400.003.01', async () => {
    // Act
    const r = await call(sim, 'POST', '/mpesa/b2b/v1/paymentrequest', {
      headers: auth('not-a-token'),
      body: b2bBody(),
    });
    // Assess
    expect(r.status).toBe(401);
    expect(r.json).toMatchObject({ errorCode: '400.003.01' });
  });

  const failures: [string, number, string][] = [
    ['602001', 2001, 'The initiator information is invalid.'],
    ['600001', 1, 'The balance is insufficient for the transaction.'],
  ];
  for (const [partyB, code, desc] of failures) {
    it(`posts ResultCode ${code} without ResultParameters for PartyB …${partyB.slice(-4)}`, async () => {
      // Prepare
      const t = await token();
      // Act
      const r = await payB2b(t, { PartyB: partyB });
      const [cb] = await rx.waitFor(1);
      // Assess
      const result = resultOf(cb!);
      expect(cb!.path).toBe('/b2b/result');
      expect(result).toMatchObject({
        ResultType: 0,
        ResultCode: code,
        ResultDesc: desc,
        OriginatorConversationID: r.json.OriginatorConversationID,
      });
      expect(result.ResultParameters).toBeUndefined();
    });
  }

  it('sends a queue-timeout notice for PartyB …0408 and no result', async () => {
    // Prepare
    await call(sim, 'PATCH', '/_sim/config', { body: { daraja: { queueTimeoutAfterMs: 20 } } });
    const t = await token();
    // Act
    const r = await payB2b(t, { PartyB: '600408' });
    const [notice] = await rx.waitFor(1);
    await sim.whenIdle();
    // Assess
    expect(notice!.path).toBe('/b2b/timeout');
    expect(parse(notice!)).toMatchObject({ OriginatorConversationID: r.json.OriginatorConversationID });
    expect(rx.requests.filter((x) => x.path === '/b2b/result')).toHaveLength(0);
  });
});

describe('Daraja B2B with the transaction status query and the reversal', () => {
  async function paidB2b(t: string) {
    const r = await payB2b(t);
    await elapse();
    const [cb] = await rx.waitFor(1, (x) => x.path === '/b2b/result');
    return { oc: r.json.OriginatorConversationID as string, receipt: resultOf(cb!).TransactionID };
  }

  const statusBody = (ids: Record<string, unknown>) => ({
    Initiator: 'testapi',
    SecurityCredential: 'c2VjcmV0',
    CommandID: 'TransactionStatusQuery',
    PartyA: SENDER,
    IdentifierType: '4',
    ResultURL: `${rx.url}/status/result`,
    QueueTimeOutURL: `${rx.url}/status/timeout`,
    Remarks: 'status',
    ...ids,
  });

  for (const by of ['TransactionID', 'OriginatorConversationID'] as const) {
    it(`finds a completed B2B by its ${by}`, async () => {
      // Prepare
      const t = await token();
      const paid = await paidB2b(t);
      // Act
      await call(sim, 'POST', '/mpesa/transactionstatus/v1/query', {
        headers: auth(t),
        body: statusBody({ [by]: by === 'TransactionID' ? paid.receipt : paid.oc }),
      });
      const [cb] = await rx.waitFor(1, (x) => x.path === '/status/result');
      // Assess
      const result = resultOf(cb!);
      expect(result.ResultCode).toBe(0);
      expect(param(result, 'ReceiptNo')).toBe(paid.receipt);
      expect(param(result, 'TransactionStatus')).toBe('Completed');
      expect(param(result, 'Amount')).toBe(190);
      expect(param(result, 'OriginatorConversationID')).toBe(paid.oc);
    });
  }

  it('reports a failed B2B as Declined when asked by its OriginatorConversationID', async () => {
    // Prepare
    const t = await token();
    const r = await payB2b(t, { PartyB: '602001' });
    await rx.waitFor(1, (x) => x.path === '/b2b/result');
    // Act
    await call(sim, 'POST', '/mpesa/transactionstatus/v1/query', {
      headers: auth(t),
      body: statusBody({ OriginatorConversationID: r.json.OriginatorConversationID }),
    });
    const [cb] = await rx.waitFor(1, (x) => x.path === '/status/result');
    // Assess
    expect(param(resultOf(cb!), 'TransactionStatus')).toBe('Declined');
  });

  it('reverses a completed B2B once; a second reversal answers R000001', async () => {
    // Prepare
    await holdClock();
    const t = await token();
    const paid = await paidB2b(t);
    const reverse = () =>
      call(sim, 'POST', '/mpesa/reversal/v1/request', {
        headers: auth(t),
        body: {
          Initiator: 'testapi',
          SecurityCredential: 'c2VjcmV0',
          CommandID: 'TransactionReversal',
          TransactionID: paid.receipt,
          Amount: 190,
          ReceiverParty: SENDER,
          RecieverIdentifierType: '11',
          ResultURL: `${rx.url}/reversal/result`,
          QueueTimeOutURL: `${rx.url}/reversal/timeout`,
          Remarks: 'reversal',
        },
      });
    const senderPaid = await utilityOf(t, SENDER);
    // Act
    await reverse();
    await elapse();
    await rx.waitFor(1, (x) => x.path === '/reversal/result');
    const senderRefunded = await utilityOf(t, SENDER);
    await reverse();
    await elapse();
    const [first, second] = await rx.waitFor(2, (x) => x.path === '/reversal/result');
    // Assess
    expect(senderRefunded - senderPaid).toBe(190);
    expect(resultOf(first!).ResultCode).toBe(0);
    expect(param(resultOf(first!), 'OriginalTransactionID')).toBe(paid.receipt);
    expect(resultOf(second!).ResultCode).toBe('R000001');
  });
});

describe('Daraja B2B fault knobs', () => {
  it('repeat=3 sends the same result three times', async () => {
    // Prepare
    const t = await token();
    // Act
    await payB2b(t, {}, { 'X-Sim-Fault': 'repeat=3' });
    const results = await rx.waitFor(3);
    await sim.whenIdle();
    // Assess
    expect(rx.requests).toHaveLength(3);
    expect(new Set(results.map((r) => r.body)).size).toBe(1);
    expect(results.every((r) => r.path === '/b2b/result')).toBe(true);
  });

  it('drop sends nothing and logs the result as dropped', async () => {
    // Prepare
    const t = await token();
    // Act
    await payB2b(t, {}, { 'X-Sim-Fault': 'drop' });
    await sim.whenIdle();
    const log = await call(sim, 'GET', '/_sim/callbacks?kind=b2b-result');
    // Assess
    expect(rx.requests).toHaveLength(0);
    expect(JSON.stringify(log.json)).toContain('"dropped"');
  });

  it('queue-timeout=result with late-result sends the notice, then the real result', async () => {
    // Prepare
    await call(sim, 'PATCH', '/_sim/config', { body: { daraja: { queueTimeoutAfterMs: 20 } } });
    const t = await token();
    // Act
    const r = await payB2b(t, {}, { 'X-Sim-Fault': 'queue-timeout=result,late-result=20' });
    const [notice, late] = await rx.waitFor(2);
    // Assess
    expect(notice!.path).toBe('/b2b/timeout');
    expect(resultOf(notice!)).toMatchObject({
      ResultType: 1,
      OriginatorConversationID: r.json.OriginatorConversationID,
    });
    expect(late!.path).toBe('/b2b/result');
    expect(resultOf(late!).ResultCode).toBe(0);
  });

  it('stale-after-final sends the queue-timeout notice after the result', async () => {
    // Prepare
    const t = await token();
    // Act
    const r = await payB2b(t, {}, { 'X-Sim-Fault': 'stale-after-final' });
    const [final, stale] = await rx.waitFor(2);
    // Assess
    expect(final!.path).toBe('/b2b/result');
    expect(resultOf(final!).ResultCode).toBe(0);
    expect(stale!.path).toBe('/b2b/timeout');
    expect(JSON.stringify(parse(stale!))).toContain(r.json.OriginatorConversationID);
  });

  it('foreign-ip posts the result from an address outside Daraja’s list', async () => {
    // Prepare
    const t = await token();
    // Act
    await payB2b(t, {}, { 'X-Sim-Fault': 'foreign-ip' });
    const [cb] = await rx.waitFor(1);
    // Assess
    expect(cb!.headers['x-forwarded-for']).not.toBe(D.callbackSourceIp);
  });
});

describe('Daraja B2B driven by the mpesa-node client', () => {
  it('accepts the body mpesa-node 0.1.3 sends (numeric identifier types, null AccountReference)', async () => {
    // Prepare
    const require = createRequire(import.meta.url);
    const Mpesa = require('mpesa-node') as new (config: Record<string, string>) => {
      baseURL: string;
      b2b(...args: unknown[]): Promise<{ data: Record<string, unknown> }>;
    };
    const mpesa = new Mpesa({
      consumerKey: D.consumerKey,
      consumerSecret: D.consumerSecret,
      environment: 'sandbox',
      shortCode: SENDER,
      initiatorName: 'testapi',
      securityCredential: 'Safaricom999!*!',
      certPath: require.resolve('mpesa-node/keys/sandbox-cert.cer'),
    });
    mpesa.baseURL = sim.url;
    // Act
    const { data } = await mpesa.b2b(SENDER, '600000', 100, `${rx.url}/b2b/timeout`, `${rx.url}/b2b/result`);
    const [cb] = await rx.waitFor(1);
    // Assess
    expect(data.ResponseCode).toBe('0');
    expect(resultOf(cb!)).toMatchObject({
      ResultCode: 0,
      OriginatorConversationID: data.OriginatorConversationID,
    });
  });
});
