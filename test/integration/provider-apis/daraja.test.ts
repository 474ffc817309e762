/**
 * The Daraja status API client against the provider simulator: STK pushes, B2C payouts and C2B payments
 * are made the way a partner makes them (scripts/sim/daraja.ts), then `check` must classify the STK query
 * and start transaction status queries whose results carry the alias the check answered.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type DarajaStatusApi, createDarajaStatusApi } from '../../../shared/providers/daraja/api-client';
import { STATUS_QUERY } from '../../../shared/providers/daraja/correlation';
import { parseStatusResult } from '../../../shared/providers/daraja/parse';
import { darajaAccountSchema } from '../../../shared/providers/daraja/schema';
import type { CallbackLogEntry } from '../../../simulator/core/callbacks';
import { DEFAULTS } from '../../../simulator/options';
import type { Simulator } from '../../../simulator/server';
import { type Receiver, startReceiver } from '../../simulator/helpers';
import { http, liveDeps, simTransaction, startHeldSim, startSim, statusQuery, until } from './support';

const STK_SHORT_CODE = '174379';
const PASSKEY = DEFAULTS.daraja.passkeys[STK_SHORT_CODE];
const PAYS = '254708374149';
const CANCELS = '254708371032';

let sim: Simulator;
let receiver: Receiver;

beforeAll(async () => {
  // 150 ms until the customer answers: room to query an STK push before its result.
  sim = await startSim({ approvalDelayMs: 150 });
  receiver = await startReceiver();
});
afterAll(async () => {
  await sim.close();
  await receiver.close();
});
beforeEach(() => {
  sim.reset();
  receiver.requests.length = 0;
});

const settings = (api: Record<string, unknown> = {}) =>
  darajaAccountSchema.parse({
    shortCode: '600638',
    api: {
      baseUrl: sim.url,
      consumerKey: DEFAULTS.daraja.consumerKey,
      consumerSecret: DEFAULTS.daraja.consumerSecret,
      passkey: PASSKEY,
      stkShortCode: STK_SHORT_CODE,
      initiator: 'testapi',
      securityCredential: Buffer.from('sim-initiator-credential').toString('base64'),
      stkQueriesPerMinute: 1000,
      ...api,
    },
  });

function client(api: Record<string, unknown> = {}) {
  const live = liveDeps();
  const s = settings(api);
  const c = createDarajaStatusApi(
    { provider: 'daraja', id: 'demo', pathSecret: undefined, settings: s },
    live.deps,
  ) as DarajaStatusApi;
  return { c, settings: s, ...live };
}

const callbackBase = () => `${receiver.url}/v1/daraja/demo`;

async function partnerToken(): Promise<string> {
  const basic = Buffer.from(`${DEFAULTS.daraja.consumerKey}:${DEFAULTS.daraja.consumerSecret}`).toString(
    'base64',
  );
  return (
    await http(sim, 'GET', '/oauth/v1/generate?grant_type=client_credentials', {
      authorization: `Basic ${basic}`,
    })
  ).json.access_token;
}

/** STK push as `npm run sim -- daraja stk` makes it; returns the CheckoutRequestID. */
async function partnerPushes(phone: string): Promise<string> {
  const token = await partnerToken();
  const timestamp = '20261123130000';
  const res = await http(
    sim,
    'POST',
    '/mpesa/stkpush/v1/processrequest',
    { authorization: `Bearer ${token}` },
    {
      BusinessShortCode: STK_SHORT_CODE,
      Password: Buffer.from(`${STK_SHORT_CODE}${PASSKEY}${timestamp}`).toString('base64'),
      Timestamp: timestamp,
      TransactionType: 'CustomerPayBillOnline',
      Amount: 10,
      PartyA: phone,
      PartyB: STK_SHORT_CODE,
      PhoneNumber: phone,
      CallBackURL: `${callbackBase()}/stk`,
      AccountReference: 'INV-1',
      TransactionDesc: 'Invoice',
    },
  );
  expect(res.status).toBe(200);
  return res.json.CheckoutRequestID;
}

let seq = 0;
/** B2C v3 payout with the partner's own OriginatorConversationID (the relay reference). */
async function partnerPaysOut(partyB: string): Promise<string> {
  const token = await partnerToken();
  const oc = `SIM-B2C-${Date.now()}-${++seq}`;
  const res = await http(
    sim,
    'POST',
    '/mpesa/b2c/v3/paymentrequest',
    { authorization: `Bearer ${token}` },
    {
      OriginatorConversationID: oc,
      InitiatorName: 'testapi',
      SecurityCredential: Buffer.from('sim-initiator-credential').toString('base64'),
      CommandID: 'BusinessPayment',
      Amount: 10,
      PartyA: '600638',
      PartyB: partyB,
      Remarks: 'Payout',
      QueueTimeOutURL: `${callbackBase()}/b2c/timeout`,
      ResultURL: `${callbackBase()}/b2c/result`,
      Occassion: 'Payout',
    },
  );
  expect(res.status).toBe(200);
  return oc;
}

async function statusResults(): Promise<CallbackLogEntry[]> {
  return (await http(sim, 'GET', '/_sim/callbacks?provider=daraja&kind=status-result', {}))
    .json as CallbackLogEntry[];
}

describe('Daraja STK query against the simulator', () => {
  it('keeps a push pending while "The transaction is being processed", then reads its success', async () => {
    // The customer answers when the test moves the simulator's clock, not 150 ms of wall time later.
    const shared = sim;
    const held = await startHeldSim({ approvalDelayMs: 150 });
    sim = held.sim;
    try {
      // Prepare
      const checkout = await partnerPushes(PAYS);
      const { c } = client();

      // Act
      const before = await c.check(statusQuery('stk', checkout));
      await held.clock.advance(sim.options.approvalDelayMs);
      await until('STK answered', () => simTransaction(sim, 'daraja', checkout)?.status === 'COMPLETED');
      const after = await c.check(statusQuery('stk', checkout));

      // Assess
      expect(before).toMatchObject({ type: 'pending', providerCode: '500.001.1001' });
      expect(before.type === 'pending' && before.detail).toContain('being processed');
      expect(after).toMatchObject({
        type: 'report',
        draft: { status: 'SUCCEEDED', kind: 'stk', key: { reference: checkout } },
      });
    } finally {
      await held.sim.close();
      sim = shared;
    }
  });

  it('reads a cancelled push (1032) as FAILED REJECTED_BY_CUSTOMER', async () => {
    const checkout = await partnerPushes(CANCELS);
    await until('STK answered', () => simTransaction(sim, 'daraja', checkout)?.status === 'COMPLETED');
    expect(await client().c.check(statusQuery('stk', checkout))).toMatchObject({
      type: 'report',
      draft: { status: 'FAILED', reason: { code: 'REJECTED_BY_CUSTOMER', providerCode: '1032' } },
    });
  });

  it('keeps an unknown CheckoutRequestID pending (400.002.02), never failed', async () => {
    expect(await client().c.check(statusQuery('stk', 'ws_CO_000000000000000000'))).toMatchObject({
      type: 'pending',
      providerCode: '400.002.02',
    });
  });

  it('answers credentials for a wrong passkey ("Wrong credentials", same code as pending)', async () => {
    const checkout = await partnerPushes(PAYS);
    const { c, warnings } = client({ passkey: 'not-the-passkey' });
    expect(await c.check(statusQuery('stk', checkout))).toMatchObject({
      type: 'error',
      error: 'credentials',
    });
    expect(warnings).toHaveLength(1);
  });

  it('rides out status-5xx and answers once the simulator is back', async () => {
    // Prepare
    const checkout = await partnerPushes(PAYS);
    await until('STK answered', () => simTransaction(sim, 'daraja', checkout)?.status === 'COMPLETED');
    const { c, calls } = client();
    sim.setFaults({ daraja: 'status-5xx=503,status-5xx-times=2' });

    // Act
    const answer = await c.check(statusQuery('stk', checkout));

    // Assess
    expect(answer).toMatchObject({ type: 'report', draft: { status: 'SUCCEEDED' } });
    expect(calls.filter((r) => r.url.endsWith('/stkpushquery/v1/query'))).toHaveLength(3);
  });

  it('refreshes a token that dies early (token-expire-early) once, with one extra token call', async () => {
    // The token's 100 ms are counted on the simulator's clock, which moves only when the test moves it.
    const shared = sim;
    const held = await startHeldSim({ approvalDelayMs: 150 });
    sim = held.sim;
    try {
      // Prepare
      const checkout = await partnerPushes(PAYS);
      await held.clock.advance(sim.options.approvalDelayMs);
      await until('STK answered', () => simTransaction(sim, 'daraja', checkout)?.status === 'COMPLETED');
      const { c } = client();
      sim.setFaults({ daraja: 'token-expire-early=100' });
      await c.check(statusQuery('stk', checkout));

      // Act
      await held.clock.advance(150);
      const answer = await c.check(statusQuery('stk', checkout));

      // Assess
      expect(answer).toMatchObject({ type: 'report', draft: { status: 'SUCCEEDED' } });
      expect(c.tokenRequests()).toBe(2);
    } finally {
      await held.sim.close();
      sim = shared;
    }
  });

  it('answers credentials for a wrong consumer secret (400.008.01), once per cooldown', async () => {
    const { c, calls } = client({ consumerSecret: 'nope' });
    expect(await c.check(statusQuery('stk', 'ws_CO_1'))).toMatchObject({
      type: 'error',
      error: 'credentials',
      httpStatus: 400,
    });
    expect(await c.check(statusQuery('stk', 'ws_CO_2'))).toMatchObject({
      type: 'error',
      error: 'credentials',
    });
    expect(calls).toHaveLength(1);
  });
});

describe('Daraja transaction status query against the simulator', () => {
  it('answers requested with the alias the status result carries, and the result names that alias first', async () => {
    // Prepare
    const oc = await partnerPaysOut(PAYS);
    await until('B2C result', () => simTransaction(sim, 'daraja', oc)?.status === 'completed');
    const { c, settings: s } = client();

    // Act
    const answer = await c.check(statusQuery('b2c', oc, { callbackBase: callbackBase() }));
    await until('status result sent', () => receiver.requests.some((r) => r.path.endsWith('/status/result')));

    // Assess
    expect(answer).toMatchObject({ type: 'requested', alias: { namespace: STATUS_QUERY } });
    if (answer.type !== 'requested') return;
    const [sent] = await statusResults();
    expect(sent!.url).toBe(`${callbackBase()}/status/result`);
    const body = JSON.parse(sent!.body) as { Result: Record<string, unknown> };
    expect(body.Result.ConversationID).toBe(answer.alias!.id);

    const parsed = parseStatusResult({
      account: { provider: 'daraja', id: 'demo', pathSecret: undefined, settings: s },
      route: 'status-result',
      params: {},
      body,
      rawBody: Buffer.from(sent!.body),
      headers: {},
      sourceIp: '196.201.214.200',
    });
    if (parsed.type !== 'reports') throw new Error('expected reports');
    const [intent] = parsed.reports;
    expect(intent!.correlate![0]).toEqual({ via: STATUS_QUERY, value: answer.alias!.id });
    expect(intent!.draft).toMatchObject({
      status: 'SUCCEEDED',
      providerTransactionId: simTransaction(sim, 'daraja', oc)?.transactionId,
    });
    // The relay's reference is there too: the original OriginatorConversationID and the echoed Occasion.
    expect(intent!.correlate).toContainEqual({ via: 'reference', value: oc });
  });

  it('queries a C2B payment by its TransID and gets its receipt back', async () => {
    // Prepare
    const token = await partnerToken();
    const simulated = await http(
      sim,
      'POST',
      '/mpesa/c2b/v1/simulate',
      { authorization: `Bearer ${token}` },
      {
        ShortCode: '600638',
        CommandID: 'CustomerPayBillOnline',
        Amount: 5,
        Msisdn: PAYS,
        BillRefNumber: 'INV-9',
      },
    );
    const transId = simulated.json.SimulatorOutcome.TransID as string;
    const { c } = client();

    // Act
    const answer = await c.check(statusQuery('c2b', transId, { callbackBase: callbackBase() }));
    await until('status result sent', () => receiver.requests.some((r) => r.path.endsWith('/status/result')));

    // Assess
    expect(answer).toMatchObject({ type: 'requested' });
    const [sent] = await statusResults();
    const body = JSON.parse(sent!.body) as {
      Result: { ResultParameters: { ResultParameter: { Key: string; Value: unknown }[] } };
    };
    expect(body.Result.ResultParameters.ResultParameter).toContainEqual({ Key: 'ReceiptNo', Value: transId });
  });

  it('answers unavailable after three attempts while the status query fails with 5xx', async () => {
    const { c, calls } = client();
    sim.setFaults({ daraja: 'status-5xx=500' });
    expect(await c.check(statusQuery('b2c', 'SIM-B2C-x', { callbackBase: callbackBase() }))).toMatchObject({
      type: 'error',
      error: 'unavailable',
    });
    expect(calls.filter((r) => r.url.endsWith('/transactionstatus/v1/query'))).toHaveLength(3);
  });
});
