import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { signAirtelRequest } from '../../simulator/airtel/signing';
import { ManualClock } from '../../simulator/core/clock';
import { formatFaults, parseFaults } from '../../simulator/core/faults';
import { stkPassword } from '../../simulator/daraja/stk';
import { DEFAULTS } from '../../simulator/options';
import type { Simulator } from '../../simulator/server';
import { call, hmacB64, parse, type Receiver, startReceiver, startSim } from './helpers';
import { basic, create, MOMO_USER, momoHeaders, momoToken, rtpBody, subKey } from './momo-helpers';

let sim: Simulator;
let rx: Receiver;
const APP = DEFAULTS.airtel.apps[0];

beforeEach(async () => {
  rx = await startReceiver();
  sim = await startSim({ airtel: { apps: [{ ...APP, callbackUrl: `${rx.url}/airtel/callback` }] } });
});
afterEach(async () => {
  await sim.close();
  await rx.close();
});

async function rtp(fault?: string, callback = true) {
  const token = await momoToken(sim);
  const { ref, res } = await create(sim, token, '/collection/v1_0/requesttopay', rtpBody('46700000001'), {
    ...(callback ? { callbackUrl: `${rx.url}/momo/cb` } : {}),
    headers: fault ? { 'X-Sim-Fault': fault } : {},
  });
  expect(res.status).toBe(202);
  return { token, ref };
}

async function airtelPay(msisdn: string, fault?: string) {
  const tok = (
    await call(sim, 'POST', '/auth/oauth2/token', {
      body: { client_id: APP.clientId, client_secret: APP.clientSecret, grant_type: 'client_credentials' },
    })
  ).json.access_token;
  const headers = { Authorization: `Bearer ${tok}`, 'X-Country': 'UG', 'X-Currency': 'UGX' };
  const key = (await call(sim, 'GET', '/v1/rsa/encryption-keys', { headers })).json.data.key;
  const signed = signAirtelRequest(
    {
      reference: 'r',
      subscriber: { country: 'UG', msisdn },
      transaction: { amount: 100, id: `AT-${Math.random()}` },
    },
    key,
  );
  await call(sim, 'POST', '/merchant/v2/payments/', {
    headers: {
      ...headers,
      ...signed.headers,
      'content-type': 'application/json',
      ...(fault ? { 'X-Sim-Fault': fault } : {}),
    },
    raw: signed.body,
  });
}

async function darajaToken(extra: Record<string, string> = {}) {
  const r = await call(sim, 'GET', '/oauth/v1/generate?grant_type=client_credentials', {
    headers: { Authorization: basic(DEFAULTS.daraja.consumerKey, DEFAULTS.daraja.consumerSecret), ...extra },
  });
  return r.json.access_token as string;
}

async function stk(fault?: string) {
  const t = await darajaToken();
  const ts = '20240101120000';
  return call(sim, 'POST', '/mpesa/stkpush/v1/processrequest', {
    headers: { Authorization: `Bearer ${t}`, ...(fault ? { 'X-Sim-Fault': fault } : {}) },
    body: {
      BusinessShortCode: '174379',
      Password: stkPassword('174379', DEFAULTS.daraja.passkeys['174379'], ts),
      Timestamp: ts,
      TransactionType: 'CustomerPayBillOnline',
      Amount: '1',
      PartyA: '254708374149',
      PartyB: '174379',
      PhoneNumber: '254708374149',
      CallBackURL: `${rx.url}/daraja/stk`,
      AccountReference: 'A1',
      TransactionDesc: 'Pay',
    },
  });
}

describe('callback faults', () => {
  it('drop: sends nothing and logs the callback as dropped', async () => {
    const { ref } = await rtp('drop');
    await sim.whenIdle();
    expect(rx.requests).toHaveLength(0);
    const log = (await call(sim, 'GET', `/_sim/callbacks?reference=${ref}`)).json;
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ outcome: 'dropped', provider: 'momo', kind: 'requesttopay' });
  });

  it('delay: sends the callback only after the delay', async () => {
    const started = Date.now();
    await rtp('delay=250');
    const [cb] = await rx.waitFor(1);
    expect(cb!.at - started).toBeGreaterThanOrEqual(250);
  });

  it('repeat: sends the same callback N times', async () => {
    await rtp('repeat=3');
    await sim.whenIdle();
    expect(rx.requests).toHaveLength(3);
    expect(new Set(rx.requests.map((r) => r.body)).size).toBe(1);
  });

  it('stale-after-final: follows the final MoMo callback with a PENDING one', async () => {
    await rtp('stale-after-final');
    await sim.whenIdle();
    expect(rx.requests.map((r) => parse(r).status)).toEqual(['SUCCESSFUL', 'PENDING']);
    expect(parse(rx.requests[1]!)).not.toHaveProperty('financialTransactionId');
  });

  it('stale-after-final: follows a final Airtel TS with a TIP status', async () => {
    await airtelPay('700000123', 'stale-after-final');
    await sim.whenIdle();
    expect(
      rx.requests.map((r) => parse<{ transaction: { status_code: string } }>(r).transaction.status_code),
    ).toEqual(['TS', 'TIP']);
  });

  it('corrupt-hash: sends a well-formed hash of the same length that does not verify', async () => {
    await airtelPay('700000123', 'corrupt-hash');
    const [cb] = await rx.waitFor(1);
    const body = parse<{ transaction: unknown; hash: string }>(cb!);
    const good = hmacB64(APP.callbackKey, JSON.stringify({ transaction: body.transaction }));
    expect(body.hash).toHaveLength(good.length);
    expect(body.hash).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(body.hash).not.toBe(good);
  });

  it('foreign-ip: sends the Daraja callback from 203.0.113.50 instead of the Safaricom address', async () => {
    await stk('foreign-ip');
    const [cb] = await rx.waitFor(1);
    expect(cb!.headers['x-forwarded-for']).toBe('203.0.113.50');
    // The simulator logs a callback once its answer is in: the receiver can see it first.
    await sim.whenIdle();
    const log = sim.callbacks();
    expect(log[0]!.tags).toContain('foreign-ip');
  });

  it('foreign-ip=ADDRESS: uses the given address', async () => {
    await stk('foreign-ip=198.51.100.7');
    const [cb] = await rx.waitFor(1);
    expect(cb!.headers['x-forwarded-for']).toBe('198.51.100.7');
  });

  it('applies global faults set through PUT /_sim/faults to later transactions, per provider', async () => {
    const put = await call(sim, 'PUT', '/_sim/faults', { body: { momo: 'repeat=2', daraja: 'drop' } });
    expect(put.json).toEqual({ momo: { spec: 'repeat=2' }, daraja: { spec: 'drop' } });
    await rtp();
    await stk();
    await sim.whenIdle();
    expect(rx.requests.filter((r) => r.path === '/momo/cb')).toHaveLength(2);
    expect(rx.requests.filter((r) => r.path === '/daraja/stk')).toHaveLength(0);
    await call(sim, 'DELETE', '/_sim/faults');
    expect((await call(sim, 'GET', '/_sim/faults')).json).toEqual({});
  });

  it('refuses an unknown fault with 400', async () => {
    const token = await momoToken(sim);
    const r = await call(sim, 'GET', '/collection/v1_0/account/balance', {
      headers: momoHeaders(token, 'collection', { 'X-Sim-Fault': 'explode' }),
    });
    expect(r.status).toBe(400);
    expect(r.json.error).toBe('SIM_BAD_FAULT');
    expect((await call(sim, 'PUT', '/_sim/faults', { body: { all: 'delay=soon' } })).status).toBe(400);
  });
});

describe('status-call faults', () => {
  it('status-5xx on the status call answers 500 there only', async () => {
    const { token, ref } = await rtp();
    const path = `/collection/v1_0/requesttopay/${ref}`;
    const failing = await call(sim, 'GET', path, {
      headers: momoHeaders(token, 'collection', { 'X-Sim-Fault': 'status-5xx' }),
    });
    expect(failing.status).toBe(500);
    expect(failing.json.code).toBe('INTERNAL_PROCESSING_ERROR');
    expect((await call(sim, 'GET', path, { headers: momoHeaders(token) })).status).toBe(200);
  });

  it('status-5xx set at creation applies to later polls that carry no header, status-5xx-times limits it', async () => {
    const { token, ref } = await rtp('status-5xx=503,status-5xx-times=2');
    const path = `/collection/v1_0/requesttopay/${ref}`;
    const codes: number[] = [];
    for (let i = 0; i < 3; i++)
      codes.push((await call(sim, 'GET', path, { headers: momoHeaders(token) })).status);
    expect(codes).toEqual([503, 503, 200]);
  });

  it('status-slow delays the status answer', async () => {
    await call(sim, 'PUT', '/_sim/faults', { body: { daraja: 'status-slow=300' } });
    const t = await darajaToken();
    const started = Date.now();
    const r = await call(sim, 'POST', '/mpesa/stkpushquery/v1/query', {
      headers: { Authorization: `Bearer ${t}` },
      body: {
        BusinessShortCode: 174379,
        Password: stkPassword('174379', DEFAULTS.daraja.passkeys['174379'], '20240101120000'),
        Timestamp: '20240101120000',
        CheckoutRequestID: 'ws_CO_none',
      },
    });
    // A lower bound only: a slow machine can only add to it.
    // eslint-disable-next-line no-restricted-syntax
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(r.json.errorCode).toBe('400.002.02');
  });

  it('status-5xx on the Airtel enquiry answers 500 with an envelope', async () => {
    await call(sim, 'PUT', '/_sim/faults', { body: { airtel: 'status-5xx' } });
    const tok = (
      await call(sim, 'POST', '/auth/oauth2/token', {
        body: { client_id: APP.clientId, client_secret: APP.clientSecret, grant_type: 'client_credentials' },
      })
    ).json.access_token;
    const r = await call(sim, 'GET', '/standard/v1/payments/any', {
      headers: { Authorization: `Bearer ${tok}`, 'X-Country': 'UG', 'X-Currency': 'UGX' },
    });
    expect(r.status).toBe(500);
    expect(r.json.status.success).toBe(false);
  });
});

describe('token faults', () => {
  it('token-expire-early on the token request: the token dies although expires_in says 3600', async () => {
    const r = await call(sim, 'POST', '/collection/token/', {
      headers: {
        'Ocp-Apim-Subscription-Key': subKey('collection'),
        Authorization: basic(MOMO_USER.id, MOMO_USER.apiKey),
        'X-Sim-Fault': 'token-expire-early',
      },
    });
    expect(r.json.expires_in).toBe(3600);
    const use = await call(sim, 'GET', '/collection/v1_0/account/balance', {
      headers: momoHeaders(r.json.access_token),
    });
    expect(use.status).toBe(401);
    expect(use.json.error).toBe('token_expired');
  });

  it('token-expire-early on an API call kills the presented token from then on', async () => {
    const t = await darajaToken();
    const body = {
      ShortCode: 600638,
      CommandID: 'CustomerPayBillOnline',
      Amount: 1,
      Msisdn: 254708374149,
      BillRefNumber: 'x',
    };
    const first = await call(sim, 'POST', '/mpesa/c2b/v1/simulate', {
      headers: { Authorization: `Bearer ${t}`, 'X-Sim-Fault': 'token-expire-early' },
      body,
    });
    expect(first.status).toBe(401);
    const second = await call(sim, 'POST', '/mpesa/c2b/v1/simulate', {
      headers: { Authorization: `Bearer ${t}` },
      body,
    });
    expect(second.json.errorCode).toBe('400.003.01');
  });

  it('global token-expire-early=MS makes new tokens expire after MS', async () => {
    // The token's life is counted on the simulator's clock, which moves only when the test moves it.
    const clock = new ManualClock();
    const held = await startSim({ clock });
    try {
      await call(held, 'PUT', '/_sim/faults', { body: { all: 'token-expire-early=600' } });
      const t = await momoToken(held);
      const balance = () =>
        call(held, 'GET', '/collection/v1_0/account/balance', { headers: momoHeaders(t) });
      await clock.advance(599);
      expect((await balance()).status).toBe(200);
      await clock.advance(1);
      expect((await balance()).status).toBe(401);
    } finally {
      await held.close();
    }
  });
});

describe('Daraja queue-timeout fault', () => {
  it('queue-timeout=result forces the notice on a B2C that would succeed', async () => {
    const t = await darajaToken();
    await call(sim, 'POST', '/mpesa/b2c/v3/paymentrequest', {
      headers: { Authorization: `Bearer ${t}`, 'X-Sim-Fault': 'queue-timeout=result' },
      body: {
        OriginatorConversationID: 'oc-1',
        InitiatorName: 'api',
        SecurityCredential: 'x',
        CommandID: 'SalaryPayment',
        Amount: 5,
        PartyA: 600981,
        PartyB: 254708374149,
        Remarks: 'r',
        QueueTimeOutURL: `${rx.url}/b2c/timeout`,
        ResultURL: `${rx.url}/b2c/result`,
      },
    });
    await sim.whenIdle();
    expect(rx.requests.map((r) => r.path)).toEqual(['/b2c/timeout']);
    expect(parse(rx.requests[0]!)).toHaveProperty('Result');
  });
});

describe('admin API', () => {
  it('lists transactions with masked MSISDNs and the callback log with status codes', async () => {
    rx.answer = () => ({ status: 202, body: { ok: 1 } });
    await rtp();
    await sim.whenIdle();
    const txns = (await call(sim, 'GET', '/_sim/transactions?provider=momo')).json;
    expect(txns[0]).toMatchObject({ provider: 'momo', status: 'SUCCESSFUL', msisdn: '4670****001' });
    const log = (await call(sim, 'GET', '/_sim/callbacks')).json;
    expect(log[0]).toMatchObject({
      outcome: 'delivered',
      status: 202,
      responseBody: '{"ok":1}',
      method: 'PUT',
    });
  });

  it('reset clears transactions, callbacks and faults but keeps credentials', async () => {
    await call(sim, 'PUT', '/_sim/faults', { body: { all: 'drop' } });
    await rtp();
    await sim.whenIdle();
    await call(sim, 'POST', '/_sim/reset');
    expect((await call(sim, 'GET', '/_sim/transactions')).json).toEqual([]);
    expect((await call(sim, 'GET', '/_sim/callbacks')).json).toEqual([]);
    expect((await call(sim, 'GET', '/_sim/faults')).json).toEqual({});
    await momoToken(sim);
  });

  it('reports failed deliveries in the log', async () => {
    const token = await momoToken(sim);
    await rx.close();
    await create(sim, token, '/collection/v1_0/requesttopay', rtpBody('46700000001'), {
      callbackUrl: rx.url.replace(/\d+$/, '1'),
    });
    await sim.whenIdle();
    expect(sim.callbacks()[0]).toMatchObject({ outcome: 'failed', error: expect.any(String) });
    rx = await startReceiver();
  });
});

describe('refusal knobs (quota, spike, internal-error, keys-unavailable)', () => {
  it('parses with or without a count and formats back to the same spec', () => {
    const spec = 'quota,spike=3,internal-error=1,keys-unavailable';
    expect(parseFaults(spec)).toStrictEqual({
      quota: true,
      spike: 3,
      internalError: 1,
      keysUnavailable: true,
    });
    expect(formatFaults(parseFaults(spec))).toBe(spec);
  });

  it('refuses a count below 1 or not a number', () => {
    expect(() => parseFaults('quota=0')).toThrow('between 1');
    expect(() => parseFaults('spike=soon')).toThrow('integer');
  });

  it('GET /_sim/faults shows what is left of a counted knob as calls spend it', async () => {
    // Prepare
    await call(sim, 'PUT', '/_sim/faults', { body: { daraja: 'spike=2,internal-error' } });

    // Act
    await darajaToken();
    const snapshot = (await call(sim, 'GET', '/_sim/faults')).json;

    // Assess
    expect(snapshot).toStrictEqual({
      daraja: { spec: 'spike=2,internal-error', refusalsRemaining: { spike: 1 } },
    });
  });
});
