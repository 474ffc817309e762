import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AIRTEL_OUTCOMES } from '../../simulator/airtel/outcomes';
import { signAirtelRequest } from '../../simulator/airtel/signing';
import { DEFAULTS } from '../../simulator/options';
import type { Simulator } from '../../simulator/server';
import {
  call,
  eventually,
  hmacB64,
  hmacHex,
  parse,
  type Receiver,
  slowPayer,
  startReceiver,
  startSim,
} from './helpers';

const APP = DEFAULTS.airtel.apps[0];
const KEY = APP.callbackKey;

let sim: Simulator;
let rx: Receiver;

beforeEach(async () => {
  rx = await startReceiver();
  sim = await startSim({
    airtel: {
      apps: [{ ...APP, callbackUrl: `${rx.url}/v1/airtel/ug/callback` }],
      ambiguousResolveMs: 500_000,
    },
  });
});
afterEach(async () => {
  await sim.close();
  await rx.close();
});

async function token(): Promise<string> {
  const r = await call(sim, 'POST', '/auth/oauth2/token', {
    body: { client_id: APP.clientId, client_secret: APP.clientSecret, grant_type: 'client_credentials' },
  });
  return r.json.access_token;
}

const common = (t: string) => ({ Authorization: `Bearer ${t}`, 'X-Country': 'UG', 'X-Currency': 'UGX' });

async function publicKey(t: string): Promise<string> {
  const r = await call(sim, 'GET', '/v1/rsa/encryption-keys', { headers: common(t) });
  return r.json.data.key;
}

let seq = 0;
function paymentBody(msisdn: string, amount = 5000) {
  seq++;
  return {
    reference: 'Order',
    subscriber: { country: 'UG', currency: 'UGX', msisdn },
    transaction: { amount, country: 'UG', currency: 'UGX', id: `AT-${Date.now()}-${seq}` },
  };
}

async function pay(t: string, body: ReturnType<typeof paymentBody>, extra: Record<string, string> = {}) {
  const signed = signAirtelRequest(body, await publicKey(t));
  return call(sim, 'POST', '/merchant/v2/payments/', {
    headers: { ...common(t), ...signed.headers, 'content-type': 'application/json', ...extra },
    raw: signed.body,
  });
}

const enquire = async (t: string, id: string) =>
  (await call(sim, 'GET', `/standard/v1/payments/${id}`, { headers: common(t) })).json;

describe('Airtel token and keys', () => {
  it('issues a bearer token with expires_in as a string', async () => {
    const r = await call(sim, 'POST', '/auth/oauth2/token', {
      body: { client_id: APP.clientId, client_secret: APP.clientSecret, grant_type: 'client_credentials' },
    });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      expires_in: '180',
      token_type: 'bearer',
      access_token: expect.any(String),
    });
  });

  it('refuses a wrong client secret with 401', async () => {
    const r = await call(sim, 'POST', '/auth/oauth2/token', {
      body: { client_id: APP.clientId, client_secret: 'nope', grant_type: 'client_credentials' },
    });
    expect(r.status).toBe(401);
  });

  it('serves the RSA public key with DP02010001001', async () => {
    const t = await token();
    const r = await call(sim, 'GET', '/v1/rsa/encryption-keys', { headers: common(t) });
    expect(r.json.data).toMatchObject({
      key_id: expect.any(Number),
      key: expect.any(String),
      valid_upto: expect.any(String),
    });
    expect(r.json.status).toMatchObject({ response_code: 'DP02010001001', success: true });
  });
});

describe('Airtel push payment', () => {
  it('accepts a correctly signed payment as in progress (SUCCESS + DP00800001006), then TS', async () => {
    const t = await token();
    await slowPayer(sim);
    const body = paymentBody('700000123');
    const r = await pay(t, body);
    expect(r.status).toBe(200);
    expect(r.json.data.transaction).toEqual({ id: false, status: 'SUCCESS' });
    expect(r.json.status).toMatchObject({ response_code: 'DP00800001006', success: true });
    const before = await enquire(t, body.transaction.id);
    expect(before.data.transaction.status).toBe('TIP');
    expect(before.data.transaction).not.toHaveProperty('airtel_money_id');
    await rx.waitFor(1);
    const after = await enquire(t, body.transaction.id);
    expect(after.data.transaction).toMatchObject({
      id: body.transaction.id,
      status: 'TS',
      airtel_money_id: expect.any(String),
    });
    expect(after.status.response_code).toBe('DP00800001001');
  });

  it('answers DP00800001026 when the body does not match x-signature', async () => {
    const t = await token();
    const body = paymentBody('700000123');
    const signed = signAirtelRequest(body, await publicKey(t));
    const tampered = signed.body.replace('5000', '9000');
    const r = await call(sim, 'POST', '/merchant/v2/payments/', {
      headers: { ...common(t), ...signed.headers, 'content-type': 'application/json' },
      raw: tampered,
    });
    expect(r.status).toBe(403);
    expect(r.json.status).toMatchObject({ response_code: 'DP00800001026', success: false });
  });

  it('answers DP00800001026 when the signature headers are missing', async () => {
    const t = await token();
    const r = await call(sim, 'POST', '/merchant/v2/payments/', {
      headers: common(t),
      body: paymentBody('700000123'),
    });
    expect(r.json.status.response_code).toBe('DP00800001026');
  });

  it('refuses a reused transaction id', async () => {
    const t = await token();
    const body = paymentBody('700000123');
    await pay(t, body);
    const again = await pay(t, body);
    expect(again.status).toBe(400);
  });

  for (const o of AIRTEL_OUTCOMES.filter((x) => x.callback !== null)) {
    it(`msisdn …${o.suffix} ends ${o.status} ${o.responseCode} with a ${o.callback} callback`, async () => {
      const t = await token();
      const body = paymentBody(`700000${o.suffix}`);
      await pay(t, body);
      const [cb] = await rx.waitFor(1);
      expect(parse<{ transaction: Record<string, string> }>(cb!).transaction).toMatchObject({
        id: body.transaction.id,
        status_code: o.callback,
        airtel_money_id: expect.any(String),
      });
      const e = await enquire(t, body.transaction.id);
      expect(e.data.transaction.status).toBe(o.status);
      expect(e.status.response_code).toBe(o.responseCode);
    });
  }

  it('fails an amount below the minimum with DP00800001004', async () => {
    const t = await token();
    const body = paymentBody('700000123', 0.5);
    await pay(t, body);
    await sim.whenIdle();
    expect((await enquire(t, body.transaction.id)).status.response_code).toBe('DP00800001004');
  });

  it('keeps …904 in progress (TIP) with no callback', async () => {
    const t = await token();
    const body = paymentBody('700000904');
    await pay(t, body);
    await sim.whenIdle();
    expect(rx.requests).toHaveLength(0);
    expect((await enquire(t, body.transaction.id)).data.transaction.status).toBe('TIP');
  });

  it('reports …903 as ambiguous (TA) with no callback, then settles to TS with a callback', async () => {
    const t = await token();
    const body = paymentBody('700000903');
    await pay(t, body);
    await eventually(async () => {
      const e = await enquire(t, body.transaction.id);
      expect(e.data.transaction.status).toBe('TA');
      expect(e.status.response_code).toBe('DP00800001000');
    });
    expect(rx.requests).toHaveLength(0);
    const [cb] = await rx.waitFor(1); // ambiguousResolveMs 500 s × 0.001
    expect(parse<{ transaction: { status_code: string } }>(cb!).transaction.status_code).toBe('TS');
  });

  it('answers 404 DP00800001025 for an unknown transaction', async () => {
    const t = await token();
    const r = await call(sim, 'GET', '/standard/v1/payments/nope', { headers: common(t) });
    expect(r.status).toBe(404);
    expect(r.json.status.response_code).toBe('DP00800001025');
  });
});

describe('Airtel callback hash recipes', () => {
  it('stringify-without-hash: HMAC over JSON.stringify of the body without hash, hash last', async () => {
    const t = await token();
    await pay(t, paymentBody('700000123'));
    const [cb] = await rx.waitFor(1);
    const body = parse<{ transaction: unknown; hash: string }>(cb!);
    expect(Object.keys(body)).toEqual(['transaction', 'hash']);
    expect(body.hash).toHaveLength(44);
    expect(body.hash).toBe(hmacB64(KEY, JSON.stringify({ transaction: body.transaction })));
    expect(cb!.method).toBe('POST');
  });

  it('stringify-transaction: HMAC over {transaction} only, with other top-level members present', async () => {
    const t = await token();
    await pay(t, paymentBody('700000123'), { 'X-Sim-Hash-Recipe': 'stringify-transaction' });
    const [cb] = await rx.waitFor(1);
    const { hash, ...rest } = parse<{ transaction: unknown; status: unknown; hash: string }>(cb!);
    expect(rest).toHaveProperty('status');
    expect(hash).toBe(hmacB64(KEY, JSON.stringify({ transaction: rest.transaction })));
    expect(hash).not.toBe(hmacB64(KEY, JSON.stringify(rest)));
  });

  it('raw-without-hash: HMAC over the exact bytes before the hash member was spliced in', async () => {
    const t = await token();
    await pay(t, paymentBody('700000123'), { 'X-Sim-Hash-Recipe': 'raw-without-hash' });
    const [cb] = await rx.waitFor(1);
    const match = cb!.body.match(/^([\s\S]*),"hash":"([^"]+)"\}$/);
    expect(match).not.toBeNull();
    const [, head, hash] = match!;
    const original = `${head}}`;
    expect(hash).toBe(hmacB64(KEY, original));
    const { hash: _h, ...withoutHash } = JSON.parse(cb!.body);
    expect(hash).not.toBe(hmacB64(KEY, JSON.stringify(withoutHash)));
  });

  it('header-hex: hex HMAC over the whole raw body in X-Airtel-Signature, no hash member', async () => {
    const t = await token();
    await pay(t, paymentBody('700000123'), { 'X-Sim-Hash-Recipe': 'header-hex' });
    const [cb] = await rx.waitFor(1);
    expect(parse(cb!)).not.toHaveProperty('hash');
    expect(cb!.headers['x-airtel-signature']).toBe(hmacHex(KEY, cb!.body));
  });

  it('uses the recipe configured for the app through PATCH /_sim/config', async () => {
    await call(sim, 'PATCH', '/_sim/config', { body: { airtel: { hashRecipe: 'header-hex' } } });
    const t = await token();
    await pay(t, paymentBody('700000123'));
    const [cb] = await rx.waitFor(1);
    expect(cb!.headers['x-airtel-signature']).toBe(hmacHex(KEY, cb!.body));
  });

  it('sends no hash when callback authentication is off', async () => {
    await call(sim, 'PATCH', '/_sim/config', { body: { airtel: { callbackAuth: false } } });
    const t = await token();
    await pay(t, paymentBody('700000123'));
    const [cb] = await rx.waitFor(1);
    expect(Object.keys(parse(cb!))).toEqual(['transaction']);
  });
});

describe('Airtel refund', () => {
  it('refunds a successful payment once, then refuses, and 404s an unknown id', async () => {
    const t = await token();
    const body = paymentBody('700000123');
    await pay(t, body);
    await rx.waitFor(1);
    const moneyId = (await enquire(t, body.transaction.id)).data.transaction.airtel_money_id;
    const refund = async (id: string) => {
      const signed = signAirtelRequest({ transaction: { airtel_money_id: id } }, await publicKey(t));
      return call(sim, 'POST', '/standard/v2/payments/refund', {
        headers: { ...common(t), ...signed.headers, 'content-type': 'application/json' },
        raw: signed.body,
      });
    };
    const first = await refund(moneyId);
    expect(first.status).toBe(200);
    expect(first.json.data.transaction).toEqual({ airtel_money_id: moneyId, status: 'SUCCESS' });
    expect((await refund(moneyId)).json.status.response_code).toBe('DP00800001008');
    expect((await refund('MP000000.0000.A00000')).status).toBe(404);
  });

  it("makes a refund with the partner's own transaction.id a transaction of its own: enquiry at the refund path, one TS callback", async () => {
    // Prepare: a paid payment
    const t = await token();
    const body = paymentBody('700000123');
    await pay(t, body);
    await rx.waitFor(1);
    const moneyId = (await enquire(t, body.transaction.id)).data.transaction.airtel_money_id;
    const signed = signAirtelRequest(
      { transaction: { airtel_money_id: moneyId, id: 'RF-7001' } },
      await publicKey(t),
    );

    // Act
    const refunded = await call(sim, 'POST', '/standard/v2/payments/refund', {
      headers: { ...common(t), ...signed.headers, 'content-type': 'application/json' },
      raw: signed.body,
    });
    const [, cb] = await rx.waitFor(2);
    const status = await call(sim, 'GET', '/standard/v1/payments/refund/RF-7001', { headers: common(t) });
    const unknown = await call(sim, 'GET', '/standard/v1/payments/refund/RF-0000', { headers: common(t) });

    // Assess
    expect(refunded.status).toBe(200);
    const callback = parse<{ transaction: Record<string, string> }>(cb!);
    expect(callback.transaction).toMatchObject({ id: 'RF-7001', status_code: 'TS' });
    expect(callback.transaction.message).toMatch(/^Refunded UGX 5000 of Trans ID /);
    expect(status.status).toBe(200);
    expect(status.json.data.transaction).toMatchObject({ id: 'RF-7001', status: 'TS' });
    expect(status.json.data.transaction.airtel_money_id).not.toBe(moneyId);
    expect(unknown.status).toBe(404);
  });
});
