/**
 * Daraja platform errors (Daraja API docs, `{requestId, errorCode, errorMessage}`): every code of the
 * documented table, produced the way simulator/daraja/README.md documents it, as a client sees it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stkPassword } from '../../simulator/daraja/stk';
import { DEFAULTS, type SimulatorOptions } from '../../simulator/options';
import type { Simulator } from '../../simulator/server';
import { call, type HttpResult, type Receiver, startReceiver, startSim } from './helpers';

const D = DEFAULTS.daraja;
const SHORT_CODE = '174379';
const TIMESTAMP = '20240101120000';
const BASIC = `Basic ${Buffer.from(`${D.consumerKey}:${D.consumerSecret}`).toString('base64')}`;
const TOKEN_PATH = '/oauth/v1/generate?grant_type=client_credentials';

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

/** A second simulator with other options, closed by the test's own `finally`. */
async function withSim<T>(options: SimulatorOptions, run: (s: Simulator) => Promise<T>): Promise<T> {
  const other = await startSim(options);
  try {
    return await run(other);
  } finally {
    await other.close();
  }
}

const tokenCall = (s: Simulator, headers: Record<string, string> = {}) =>
  call(s, 'GET', TOKEN_PATH, { headers: { Authorization: BASIC, ...headers } });

async function token(): Promise<string> {
  return (await tokenCall(sim)).json.access_token;
}

const auth = (t: string) => ({ Authorization: `Bearer ${t}` });

function stkBody(phone = '254708374149') {
  return {
    BusinessShortCode: 174379,
    Password: stkPassword(SHORT_CODE, D.passkeys[SHORT_CODE], TIMESTAMP),
    Timestamp: TIMESTAMP,
    TransactionType: 'CustomerPayBillOnline',
    Amount: 1,
    PartyA: Number(phone),
    PartyB: 174379,
    PhoneNumber: Number(phone),
    CallBackURL: `${rx.url}/stk`,
    AccountReference: 'ACC-001',
    TransactionDesc: 'Payment',
  };
}

function expectDarajaError(r: HttpResult, status: number, errorCode: string, errorMessage?: string): void {
  expect(r.status).toBe(status);
  expect(r.json).toStrictEqual({
    requestId: expect.stringMatching(/^\d{5}-\d{8}-1$/),
    errorCode,
    errorMessage: errorMessage ?? expect.any(String),
  });
}

/** Every Daraja operation the simulator serves; the gateway refusals must reach all of them. */
const OPERATIONS: [method: string, path: string][] = [
  ['GET', TOKEN_PATH],
  ['POST', '/mpesa/stkpush/v1/processrequest'],
  ['POST', '/mpesa/stkpushquery/v1/query'],
  ['POST', '/mpesa/c2b/v1/registerurl'],
  ['POST', '/mpesa/c2b/v2/registerurl'],
  ['POST', '/mpesa/c2b/v1/simulate'],
  ['POST', '/mpesa/b2c/v1/paymentrequest'],
  ['POST', '/mpesa/b2c/v3/paymentrequest'],
  ['POST', '/mpesa/transactionstatus/v1/query'],
  ['POST', '/mpesa/accountbalance/v1/query'],
  ['POST', '/mpesa/reversal/v1/request'],
  ['POST', '/wallet/stkpush/v1/processrequest'],
];

const KNOBS = [
  { fault: 'quota', errorCode: '500.003.03', errorMessage: 'Quota Violation' },
  { fault: 'spike', errorCode: '500.003.02', errorMessage: 'Spike Arrest Violation' },
] as const;

describe('500.003.03 quota violation and 500.003.02 spike arrest, by fault knob', () => {
  for (const knob of KNOBS) {
    for (const [method, path] of OPERATIONS) {
      it(`X-Sim-Fault: ${knob.fault} refuses ${method} ${path.split('?')[0]} with 429 ${knob.errorCode} and Retry-After, before the token is checked`, async () => {
        // Prepare: no Authorization header at all, so only the gateway can answer.
        const headers = { 'X-Sim-Fault': knob.fault };

        // Act
        const r = await call(sim, method, path, { headers, body: method === 'POST' ? {} : undefined });

        // Assess
        expectDarajaError(r, 429, knob.errorCode, knob.errorMessage);
        expect(r.headers.get('retry-after')).toBe('1');
      });
    }
  }

  it('a global quota=2 refuses the next two Daraja calls of any kind, then lets calls through', async () => {
    // Prepare
    await call(sim, 'PUT', '/_sim/faults', { body: { daraja: 'quota=2' } });

    // Act
    const first = await tokenCall(sim);
    const second = await call(sim, 'POST', '/mpesa/stkpush/v1/processrequest', { body: stkBody() });
    const third = await tokenCall(sim);
    const faults = await call(sim, 'GET', '/_sim/faults');

    // Assess
    expectDarajaError(first, 429, '500.003.03', 'Quota Violation');
    expectDarajaError(second, 429, '500.003.03', 'Quota Violation');
    expect(third.status).toBe(200);
    expect(third.json.access_token).toEqual(expect.any(String));
    expect(faults.json.daraja).toStrictEqual({ spec: 'quota=2', refusalsRemaining: { quota: 0 } });
  });

  it('a global spike in the "all" scope refuses Daraja calls until the faults are cleared, and leaves Airtel alone', async () => {
    // Prepare
    await call(sim, 'PUT', '/_sim/faults', { body: { all: 'spike' } });
    const airtelApp = DEFAULTS.airtel.apps[0];

    // Act
    const refused = await tokenCall(sim);
    const airtel = await call(sim, 'POST', '/auth/oauth2/token', {
      body: {
        client_id: airtelApp.clientId,
        client_secret: airtelApp.clientSecret,
        grant_type: 'client_credentials',
      },
    });
    await call(sim, 'DELETE', '/_sim/faults');
    const after = await tokenCall(sim);

    // Assess
    expectDarajaError(refused, 429, '500.003.02', 'Spike Arrest Violation');
    expect(airtel.status).toBe(200);
    expect(after.status).toBe(200);
  });

  it("a request's own quota header does not spend a global quota=1", async () => {
    // Prepare
    await call(sim, 'PUT', '/_sim/faults', { body: { daraja: 'quota=1' } });

    // Act
    await tokenCall(sim, { 'X-Sim-Fault': 'quota' });
    const faults = await call(sim, 'GET', '/_sim/faults');

    // Assess
    expect(faults.json.daraja.refusalsRemaining).toStrictEqual({ quota: 1 });
  });

  it('answers the refusal with the HTTP status set by daraja.throttleHttpStatus', async () => {
    await withSim({ daraja: { throttleHttpStatus: 500 } }, async (s) => {
      // Act
      const r = await tokenCall(s, { 'X-Sim-Fault': 'quota' });

      // Assess
      expectDarajaError(r, 500, '500.003.03', 'Quota Violation');
    });
  });

  it('refuses a malformed knob value with SIM_BAD_FAULT', async () => {
    const r = await tokenCall(sim, { 'X-Sim-Fault': 'quota=0' });
    expect(r.status).toBe(400);
    expect(r.json.error).toBe('SIM_BAD_FAULT');
  });
});

describe('500.003.03 and 500.003.02 from the limiter options', () => {
  it('daraja.quotaPerSecond=1: of three simultaneous calls one passes and the others get 500.003.03 with Retry-After', async () => {
    await withSim({ daraja: { quotaPerSecond: 1 } }, async (s) => {
      // Act
      const answers = await Promise.all([tokenCall(s), tokenCall(s), tokenCall(s)]);

      // Assess
      const refused = answers.filter((r) => r.status === 429);
      expect(answers.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(1);
      expect(refused.length).toBeGreaterThanOrEqual(1);
      for (const r of refused) {
        expectDarajaError(r, 429, '500.003.03', 'Quota Violation');
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      }
    });
  });

  it('daraja.spikeArrestPerSecond=1: of two simultaneous calls the second gets 500.003.02', async () => {
    await withSim({ daraja: { spikeArrestPerSecond: 1 } }, async (s) => {
      // Act
      const answers = await Promise.all([tokenCall(s), tokenCall(s)]);

      // Assess
      expect(answers.map((r) => r.status).sort()).toStrictEqual([200, 429]);
      const refused = answers.find((r) => r.status === 429)!;
      expectDarajaError(refused, 429, '500.003.02', 'Spike Arrest Violation');
      expect(refused.headers.get('retry-after')).toBe('1');
    });
  });

  it('POST /_sim/reset forgets the calls the quota has counted', async () => {
    await withSim({ daraja: { quotaPerSecond: 1 } }, async (s) => {
      // Prepare
      await tokenCall(s);

      // Act
      await call(s, 'POST', '/_sim/reset');
      const afterReset = await tokenCall(s);

      // Assess
      expect(afterReset.status).toBe(200);
    });
  });

  it('is off by default: ten simultaneous calls all pass', async () => {
    const answers = await Promise.all(Array.from({ length: 10 }, () => tokenCall(sim)));
    expect(answers.map((r) => r.status)).toStrictEqual(Array(10).fill(200));
  });
});

describe("Daraja's other documented platform errors", () => {
  it('500.003.1001: X-Sim-Fault internal-error refuses an STK push with 500 and creates no transaction', async () => {
    // Prepare
    const t = await token();

    // Act
    const r = await call(sim, 'POST', '/mpesa/stkpush/v1/processrequest', {
      headers: { ...auth(t), 'X-Sim-Fault': 'internal-error' },
      body: stkBody(),
    });
    const transactions = await call(sim, 'GET', '/_sim/transactions?provider=daraja');

    // Assess
    expectDarajaError(r, 500, '500.003.1001', 'Internal Server Error');
    expect(transactions.json).toStrictEqual([]);
  });

  it('500.003.1001: a global internal-error=1 refuses one B2C call only', async () => {
    // Prepare
    const t = await token();
    await call(sim, 'PUT', '/_sim/faults', { body: { daraja: 'internal-error=1' } });

    // Act
    const refused = await call(sim, 'POST', '/mpesa/b2c/v1/paymentrequest', { headers: auth(t), body: {} });
    const next = await call(sim, 'POST', '/mpesa/b2c/v1/paymentrequest', { headers: auth(t), body: {} });

    // Assess
    expectDarajaError(refused, 500, '500.003.1001', 'Internal Server Error');
    expectDarajaError(next, 400, '400.002.02');
  });

  it('500.003.1001: status-5xx=503 on the STK query answers 503 Service Unavailable', async () => {
    // Prepare
    const t = await token();

    // Act
    const r = await call(sim, 'POST', '/mpesa/stkpushquery/v1/query', {
      headers: { ...auth(t), 'X-Sim-Fault': 'status-5xx=503' },
      body: {
        BusinessShortCode: 174379,
        Password: stkPassword(SHORT_CODE, D.passkeys[SHORT_CODE], TIMESTAMP),
        Timestamp: TIMESTAMP,
        CheckoutRequestID: 'ws_CO_unknown',
      },
    });

    // Assess
    expectDarajaError(r, 503, '500.003.1001', 'Service Unavailable');
  });

  it('400.003.01: an unknown bearer token is refused with 401', async () => {
    const r = await call(sim, 'POST', '/mpesa/stkpush/v1/processrequest', {
      headers: auth('not-a-token'),
      body: stkBody(),
    });
    expectDarajaError(r, 401, '400.003.01', 'Invalid Access Token');
  });

  it('400.003.02: a register URL call whose ValidationURL names the operator is refused', async () => {
    const t = await token();
    const r = await call(sim, 'POST', '/mpesa/c2b/v1/registerurl', {
      headers: auth(t),
      body: {
        ShortCode: 600638,
        ResponseType: 'Completed',
        ConfirmationURL: `${rx.url}/confirmation`,
        ValidationURL: `${rx.url}/mpesa/validation`,
      },
    });
    expectDarajaError(r, 400, '400.003.02', 'Invalid ValidationURL - URL has the word MPESA');
  });

  it('404.003.01: an unknown path under /mpesa or /wallet is refused', async () => {
    const mpesa = await call(sim, 'POST', '/mpesa/nothing/v1/here', { body: {} });
    const wallet = await call(sim, 'POST', '/wallet/nothing/v1/here', { body: {} });
    expectDarajaError(mpesa, 404, '404.003.01', 'Resource not found');
    expectDarajaError(wallet, 404, '404.003.01', 'Resource not found');
  });

  it('404.001.04: a GET on a POST-only operation and a POST on token generation are refused', async () => {
    const getOnPost = await call(sim, 'GET', '/mpesa/stkpush/v1/processrequest');
    const postOnToken = await call(sim, 'POST', TOKEN_PATH, { headers: { Authorization: BASIC } });
    expectDarajaError(getOnPost, 404, '404.001.04', 'Invalid Authentication Header');
    expectDarajaError(postOnToken, 404, '404.001.04', 'Invalid Authentication Header');
  });

  it('400.002.05: a body that is not JSON, or not a JSON object, is refused', async () => {
    const t = await token();
    const notJson = await call(sim, 'POST', '/mpesa/stkpush/v1/processrequest', {
      headers: { ...auth(t), 'content-type': 'application/json' },
      raw: '{"BusinessShortCode": 174379,',
    });
    const array = await call(sim, 'POST', '/mpesa/b2c/v3/paymentrequest', { headers: auth(t), body: [] });
    expectDarajaError(notJson, 400, '400.002.05', 'Invalid request payload');
    expectDarajaError(array, 400, '400.002.05', 'Invalid request payload');
  });
});
