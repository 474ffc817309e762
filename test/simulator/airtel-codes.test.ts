/**
 * Every `status.response_code` of the Airtel Money Open API documentation, produced the way simulator/airtel/README.md documents it, as a
 * partner sees it: HTTP status, envelope, enquiry answer and callback.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { signAirtelRequest } from '../../simulator/airtel/signing';
import { DEFAULTS } from '../../simulator/options';
import type { Simulator } from '../../simulator/server';
import { call, eventually, parse, type Receiver, slowPayer, startReceiver, startSim } from './helpers';

const APP = DEFAULTS.airtel.apps[0];

let sim: Simulator;
let rx: Receiver;

beforeEach(async () => {
  rx = await startReceiver();
  sim = await startSim({
    airtel: {
      apps: [{ ...APP, callbackUrl: `${rx.url}/airtel/callback` }],
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

const keys = (t: string, extra: Record<string, string> = {}) =>
  call(sim, 'GET', '/v1/rsa/encryption-keys', { headers: { ...common(t), ...extra } });

let seq = 0;
function paymentBody(msisdn: string, amount = 5000) {
  seq++;
  return {
    reference: 'Order',
    subscriber: { country: 'UG', currency: 'UGX', msisdn },
    transaction: { amount, country: 'UG', currency: 'UGX', id: `AT-CODES-${seq}` },
  };
}

async function pay(t: string, body: ReturnType<typeof paymentBody>) {
  const signed = signAirtelRequest(body, (await keys(t)).json.data.key);
  return call(sim, 'POST', '/merchant/v2/payments/', {
    headers: { ...common(t), ...signed.headers, 'content-type': 'application/json' },
    raw: signed.body,
  });
}

const enquire = (t: string, id: string) =>
  call(sim, 'GET', `/standard/v1/payments/${encodeURIComponent(id)}`, { headers: common(t) });

interface CallbackBody {
  transaction: { id: string; message: string; status_code: string; airtel_money_id: string };
  hash?: string;
}

/** Rows that end with a callback: suffix of `subscriber.msisdn`, enquiry status, callback status_code. */
const FINAL_ROWS: { code: string; suffix: string; status: 'TF' | 'TE'; message: string }[] = [
  {
    code: 'DP00800001002',
    suffix: '902',
    status: 'TF',
    message: 'Transaction failed: incorrect PIN entered',
  },
  {
    code: 'DP00800001003',
    suffix: '906',
    status: 'TF',
    message: 'Transaction failed: wallet transaction limit exceeded',
  },
  {
    code: 'DP00800001004',
    suffix: '907',
    status: 'TF',
    message: 'Transaction failed: invalid amount, below the minimum allowed',
  },
  {
    code: 'DP00800001005',
    suffix: '911',
    status: 'TF',
    message: 'Transaction id invalid: the user did not enter the PIN',
  },
  { code: 'DP00800001007', suffix: '901', status: 'TF', message: 'Transaction failed: insufficient balance' },
  { code: 'DP00800001008', suffix: '910', status: 'TF', message: 'Transaction refused' },
  { code: 'DP00800001010', suffix: '908', status: 'TF', message: 'Transaction not permitted to payee' },
  { code: 'DP00800001024', suffix: '909', status: 'TF', message: 'Transaction timed out' },
  { code: 'DP00800001029', suffix: '905', status: 'TE', message: 'Transaction expired' },
];

describe('payment outcomes by the last three digits of subscriber.msisdn', () => {
  for (const row of FINAL_ROWS) {
    it(`${row.code}: …${row.suffix} ends ${row.status} in the enquiry with a TF callback and no airtel_money_id shown`, async () => {
      // Prepare
      const t = await token();
      const body = paymentBody(`752123${row.suffix}`);

      // Act
      const accepted = await pay(t, body);
      const [received] = await rx.waitFor(1);
      const e = await enquire(t, body.transaction.id);

      // Assess
      expect(accepted.json.status.response_code).toBe('DP00800001006');
      expect(parse<CallbackBody>(received!).transaction).toMatchObject({
        id: body.transaction.id,
        message: row.message,
        status_code: 'TF',
      });
      expect(e.status).toBe(200);
      expect(e.json.data.transaction).toStrictEqual({
        id: body.transaction.id,
        message: row.message,
        status: row.status,
      });
      expect(e.json.status).toMatchObject({ response_code: row.code, success: true });
    });
  }

  it('DP00800001001: any other number ends TS with a TS callback carrying the airtel_money_id', async () => {
    const t = await token();
    const body = paymentBody('752123456');
    await pay(t, body);
    const [received] = await rx.waitFor(1);
    const e = await enquire(t, body.transaction.id);
    const cb = parse<CallbackBody>(received!).transaction;
    expect(cb.status_code).toBe('TS');
    expect(e.json.status.response_code).toBe('DP00800001001');
    expect(e.json.data.transaction).toMatchObject({ status: 'TS', airtel_money_id: cb.airtel_money_id });
  });

  it('DP00800001006: the payment answer and the enquiry before the payer answers say "in progress" (TIP)', async () => {
    // Prepare
    const t = await token();
    await slowPayer(sim);
    const body = paymentBody('752123456');

    // Act
    const accepted = await pay(t, body);
    const e = await enquire(t, body.transaction.id);

    // Assess
    expect(accepted.status).toBe(200);
    expect(accepted.json).toStrictEqual({
      data: { transaction: { id: false, status: 'SUCCESS' } },
      status: expect.objectContaining({ code: '200', response_code: 'DP00800001006', success: true }),
    });
    expect(e.json.data.transaction.status).toBe('TIP');
    expect(e.json.status.response_code).toBe('DP00800001006');
  });

  it('DP00800001006: …904 stays in progress with no callback', async () => {
    const t = await token();
    const body = paymentBody('752123904');
    await pay(t, body);
    await sim.whenIdle();
    const e = await enquire(t, body.transaction.id);
    expect(e.json.data.transaction.status).toBe('TIP');
    expect(e.json.status.response_code).toBe('DP00800001006');
    expect(rx.requests).toHaveLength(0);
  });

  it('DP00800001000: …903 is ambiguous (TA) with no callback until it settles', async () => {
    const t = await token();
    const body = paymentBody('752123903');
    await pay(t, body);
    await eventually(async () => {
      const e = await enquire(t, body.transaction.id);
      expect(e.json.data.transaction.status).toBe('TA');
      expect(e.json.status.response_code).toBe('DP00800001000');
    });
    expect(rx.requests).toHaveLength(0);
  });
});

describe('refusals', () => {
  it('DP00800001008: a reused transaction id is refused with 400', async () => {
    const t = await token();
    const body = paymentBody('752123456');
    await pay(t, body);
    const again = await pay(t, body);
    expect(again.status).toBe(400);
    expect(again.json.status).toMatchObject({ response_code: 'DP00800001008', success: false });
  });

  it('DP00800001025: the enquiry and the refund of an unknown transaction answer 404', async () => {
    // Prepare
    const t = await token();
    const refundBody = { transaction: { airtel_money_id: 'MP000000.0000.A00000' } };
    const signed = signAirtelRequest(refundBody, (await keys(t)).json.data.key);

    // Act
    const e = await enquire(t, 'AT-NEVER-SEEN');
    const refund = await call(sim, 'POST', '/standard/v2/payments/refund', {
      headers: { ...common(t), ...signed.headers, 'content-type': 'application/json' },
      raw: signed.body,
    });

    // Assess
    expect(e.status).toBe(404);
    expect(e.json.status).toMatchObject({ code: '404', response_code: 'DP00800001025', success: false });
    expect(refund.status).toBe(404);
    expect(refund.json.status).toMatchObject({ response_code: 'DP00800001025', success: false });
  });

  it('DP00800001026: a payment whose body does not match x-signature is forbidden (403)', async () => {
    // Prepare
    const t = await token();
    const body = paymentBody('752123456');
    const signed = signAirtelRequest(body, (await keys(t)).json.data.key);

    // Act
    const r = await call(sim, 'POST', '/merchant/v2/payments/', {
      headers: { ...common(t), ...signed.headers, 'content-type': 'application/json' },
      raw: signed.body.replace('5000', '5001'),
    });

    // Assess
    expect(r.status).toBe(403);
    expect(r.json.status).toMatchObject({ code: '403', response_code: 'DP00800001026', success: false });
    expect(rx.requests).toHaveLength(0);
  });
});

describe('refund signature', () => {
  it('DP00800001026: a refund whose body does not match x-signature is forbidden (403) and refunds nothing', async () => {
    // Prepare
    const t = await token();
    const body = paymentBody('752123456');
    await pay(t, body);
    await rx.waitFor(1);
    const moneyId = (await enquire(t, body.transaction.id)).json.data.transaction.airtel_money_id as string;
    const refundBody = { transaction: { airtel_money_id: moneyId } };
    const signed = signAirtelRequest(refundBody, (await keys(t)).json.data.key);

    // Act
    const r = await call(sim, 'POST', '/standard/v2/payments/refund', {
      headers: { ...common(t), ...signed.headers, 'content-type': 'application/json' },
      raw: JSON.stringify({ transaction: { airtel_money_id: moneyId }, extra: true }),
    });
    const transactions = await call(sim, 'GET', '/_sim/transactions?provider=airtel');

    // Assess
    expect(r.status).toBe(403);
    expect(r.json.status).toMatchObject({ response_code: 'DP00800001026', success: false });
    expect(transactions.json[0].refunded).toBe(false);
  });
});

describe('encryption keys', () => {
  it('DP02010001001: the key is served with its id and validity', async () => {
    const t = await token();
    const r = await keys(t);
    expect(r.status).toBe(200);
    expect(r.json.data).toStrictEqual({
      key_id: expect.any(Number),
      key: expect.stringMatching(/^[A-Za-z0-9+/]+=*$/),
      valid_upto: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
    });
    expect(r.json.status).toMatchObject({ response_code: 'DP02010001001', success: true });
  });

  it('DP02010001000: X-Sim-Fault keys-unavailable answers 500 without a key', async () => {
    // Prepare
    const t = await token();

    // Act
    const r = await keys(t, { 'X-Sim-Fault': 'keys-unavailable' });

    // Assess
    expect(r.status).toBe(500);
    expect(r.json).toStrictEqual({
      status: {
        code: '500',
        message: 'Encryption key could not be fetched',
        result_code: 'ESB000008',
        response_code: 'DP02010001000',
        success: false,
      },
    });
  });

  it('DP02010001000: a global airtel keys-unavailable=2 fails the next two key fetches, then serves the key', async () => {
    // Prepare
    const t = await token();
    await call(sim, 'PUT', '/_sim/faults', { body: { airtel: 'keys-unavailable=2' } });

    // Act
    const answers = [await keys(t), await keys(t), await keys(t)];

    // Assess
    expect(answers.map((r) => r.status)).toStrictEqual([500, 500, 200]);
    expect(answers[0]!.json.status.response_code).toBe('DP02010001000');
    expect(answers[2]!.json.status.response_code).toBe('DP02010001001');
  });

  it('keys-unavailable does not touch the other operations: the enquiry still answers', async () => {
    const t = await token();
    await call(sim, 'PUT', '/_sim/faults', { body: { airtel: 'keys-unavailable' } });
    const e = await call(sim, 'GET', '/standard/v1/payments/AT-X', {
      headers: { ...common(t), 'X-Sim-Fault': 'keys-unavailable' },
    });
    expect(e.json.status.response_code).toBe('DP00800001025');
  });
});
