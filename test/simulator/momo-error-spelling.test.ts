import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { Simulator, SimulatorOptions } from '../../simulator/server';
import { call, parse, type Receiver, startReceiver, startSim } from './helpers';
import { create, momoHeaders, momoToken, msisdn, transferBody } from './momo-helpers';

let sim: Simulator | undefined;
let rx: Receiver | undefined;

afterEach(async () => {
  await sim?.close();
  await rx?.close();
  sim = undefined;
  rx = undefined;
});

async function start(options: SimulatorOptions = {}) {
  sim = await startSim(options);
  rx = await startReceiver();
  return { sim, rx };
}

/** A disbursement transfer; resolves with the callback's reason code. */
async function transferReason(
  s: Simulator,
  r: Receiver,
  payee: string,
  headers: Record<string, string> = {},
) {
  const token = await momoToken(s, 'disbursement');
  const { res } = await create(s, token, '/disbursement/v1_0/transfer', transferBody(payee), {
    product: 'disbursement',
    callbackUrl: `${r.url}/cb`,
    headers,
  });
  expect(res.status).toBe(202);
  const [cb] = await r.waitFor(1, (x) => x.path === '/cb');
  const reason = parse<{ reason: string | { code: string } }>(cb!).reason;
  return typeof reason === 'string' ? reason : reason.code;
}

describe('MoMo failure reasons no sandbox table reaches (X-Sim-Outcome)', () => {
  const ROWS: [string, string][] = [
    ['SenderAccountNotActive', 'SENDER_ACCOUNT_NOT_ACTIVE'],
    ['PayeeLimitReached', 'PAYEE_LIMIT_REACHED'],
    ['TransactionNotFound', 'TRANSACTION_NOT_FOUND'],
    // The payee's cancellation, exactly as CancelInvoice produces it.
    ['TransactionCanceled', 'TRANSACTION_CANCELED'],
  ];
  for (const [outcome, code] of ROWS) {
    it(`X-Sim-Outcome: ${outcome} fails the transfer with ${code}`, async () => {
      const { sim: s, rx: r } = await start();

      const code_ = await transferReason(s, r, '46700000001', { 'X-Sim-Outcome': outcome });

      expect(code_).toBe(code);
    });
  }

  it('refuses an unknown X-Sim-Outcome with 400', async () => {
    const { sim: s } = await start();
    const token = await momoToken(s, 'disbursement');

    const { res } = await create(s, token, '/disbursement/v1_0/transfer', transferBody('46700000001'), {
      product: 'disbursement',
      headers: { 'X-Sim-Outcome': 'Bogus' },
    });

    expect(res.status).toBe(400);
  });
});

describe('MoMo error spellings (momo.errorSpelling)', () => {
  it('uses MTN’s underscore codes by default', async () => {
    const { sim: s, rx: r } = await start();
    const token = await momoToken(s);

    const missing = await call(s, 'GET', `/collection/v1_0/requesttopay/${randomUUID()}`, {
      headers: momoHeaders(token),
    });
    const funds = await transferReason(s, r, msisdn(5));

    expect(missing.json.code).toBe('RESOURCE_NOT_FOUND');
    expect(funds).toBe('NOT_ENOUGH_FUNDS');
  });

  it('answers 404 RESOURCE NOT FOUND under the documented spelling', async () => {
    const { sim: s } = await start({ momo: { errorSpelling: 'seed' } });
    const token = await momoToken(s);

    const r = await call(s, 'GET', `/collection/v1_0/requesttopay/${randomUUID()}`, {
      headers: momoHeaders(token),
    });

    expect(r.status).toBe(404);
    expect(r.json.code).toBe('RESOURCE NOT FOUND');
  });

  it('answers 400 REQUEST REJECTED/ BAD REQUEST under the documented spelling', async () => {
    const { sim: s } = await start({ momo: { errorSpelling: 'seed' } });
    const token = await momoToken(s);

    const { res } = await create(s, token, '/collection/v1_0/requesttopay', {}, { ref: 'not-a-uuid' });

    expect(res.status).toBe(400);
    expect(res.json.code).toBe('REQUEST REJECTED/ BAD REQUEST');
  });

  it('keeps ACCESS DENIED DUE TO INVALID SUBSCRIPTION KEY and FORBIDDEN IP under the documented spelling', async () => {
    const { sim: s } = await start({ momo: { errorSpelling: 'seed', disbursementAllowList: ['10.0.0.1'] } });

    const key = await call(s, 'POST', '/collection/token/', {
      headers: { 'Ocp-Apim-Subscription-Key': 'x' },
    });
    const ip = await call(s, 'POST', '/disbursement/token/', { headers: {} });

    expect(key.json.code).toBe('ACCESS DENIED DUE TO INVALID SUBSCRIPTION KEY');
    expect(ip.json.code).toBe('FORBIDDEN IP');
  });

  it('reports NOT ENOUGH_FUNDS in the callback under the documented spelling', async () => {
    const { sim: s, rx: r } = await start({ momo: { errorSpelling: 'seed' } });

    expect(await transferReason(s, r, msisdn(5))).toBe('NOT ENOUGH_FUNDS');
  });

  it('reports PAYEE LIMIT_REACHED in the callback under the documented spelling', async () => {
    const { sim: s, rx: r } = await start({ momo: { errorSpelling: 'seed' } });

    expect(await transferReason(s, r, '46700000001', { 'X-Sim-Outcome': 'PayeeLimitReached' })).toBe(
      'PAYEE LIMIT_REACHED',
    );
  });
});
