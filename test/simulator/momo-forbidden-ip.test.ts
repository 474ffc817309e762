import { afterEach, describe, expect, it } from 'vitest';
import type { Simulator } from '../../simulator/server';
import { call, startSim } from './helpers';
import { basic, create, MOMO_USER, momoToken, type Product, subKey, transferBody } from './momo-helpers';

let sim: Simulator | undefined;

afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const tokenCall = (s: Simulator, product: Product, extra: Record<string, string> = {}) =>
  call(s, 'POST', `/${product}/token/`, {
    headers: {
      'Ocp-Apim-Subscription-Key': subKey(product),
      Authorization: basic(MOMO_USER.id, MOMO_USER.apiKey),
      ...extra,
    },
  });

describe('MoMo disbursement IP allow-list (403 FORBIDDEN IP)', () => {
  it('refuses a disbursement token from an address outside the list with 403 FORBIDDEN IP', async () => {
    sim = await startSim({ momo: { disbursementAllowList: ['10.0.0.0/8'] } });

    const r = await tokenCall(sim, 'disbursement');

    expect(r.status).toBe(403);
    expect(r.json).toEqual({ code: 'FORBIDDEN IP', message: expect.stringContaining('127.0.0.1') });
  });

  it('refuses a disbursement transfer from X-Sim-Source-Ip outside the list', async () => {
    sim = await startSim({ momo: { disbursementAllowList: ['127.0.0.1'] } });
    const token = await momoToken(sim, 'disbursement');

    const { res } = await create(sim, token, '/disbursement/v1_0/transfer', transferBody('46700000001'), {
      product: 'disbursement',
      headers: { 'X-Sim-Source-Ip': '198.51.100.7' },
    });

    expect(res.status).toBe(403);
    expect(res.json.code).toBe('FORBIDDEN IP');
  });

  it('accepts a caller inside a listed CIDR range', async () => {
    sim = await startSim({ momo: { disbursementAllowList: ['10.0.0.0/8'] } });

    const r = await tokenCall(sim, 'disbursement', { 'X-Sim-Source-Ip': '10.20.30.40' });

    expect(r.status).toBe(200);
  });

  it('allows every caller when the list is empty (the default)', async () => {
    sim = await startSim();

    const r = await tokenCall(sim, 'disbursement', { 'X-Sim-Source-Ip': '198.51.100.7' });

    expect(r.status).toBe(200);
  });

  it('does not restrict collection calls', async () => {
    sim = await startSim({ momo: { disbursementAllowList: ['10.0.0.0/8'] } });

    const r = await tokenCall(sim, 'collection');

    expect(r.status).toBe(200);
  });

  it('leaves remittance open unless remittanceAllowList is set, then refuses with FORBIDDEN IP', async () => {
    sim = await startSim({ momo: { disbursementAllowList: ['10.0.0.0/8'] } });
    const open = await tokenCall(sim, 'remittance');
    await sim.close();
    sim = await startSim({ momo: { remittanceAllowList: ['10.0.0.0/8'] } });

    const closed = await tokenCall(sim, 'remittance');

    expect(open.status).toBe(200);
    expect(closed.status).toBe(403);
    expect(closed.json.code).toBe('FORBIDDEN IP');
  });
});
