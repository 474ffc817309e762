import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../simulator/options';
import type { Simulator } from '../../simulator/server';
import { call, eventually, parse, type Receiver, startReceiver, startSim } from './helpers';
import {
  basic,
  create,
  MOMO_USER,
  momoHeaders,
  momoToken,
  msisdn,
  subKey,
  transferBody,
} from './momo-helpers';

let sim: Simulator;
let rx: Receiver;

beforeEach(async () => {
  sim = await startSim();
  rx = await startReceiver();
});
afterEach(async () => {
  await sim.close();
  await rx.close();
});

const remittanceToken = (key: string = subKey('remittance')) =>
  call(sim, 'POST', '/remittance/token/', {
    headers: { 'Ocp-Apim-Subscription-Key': key, Authorization: basic(MOMO_USER.id, MOMO_USER.apiKey) },
  });

describe('MoMo remittance product', () => {
  it('issues a token for the remittance subscription key, primary or secondary', async () => {
    const primary = await remittanceToken();
    const secondary = await remittanceToken(DEFAULTS.momo.remittanceSubscriptionKeys.secondary);

    expect(primary.status).toBe(200);
    expect(primary.json).toMatchObject({ token_type: 'access_token', expires_in: 3600 });
    expect(secondary.status).toBe(200);
  });

  it('refuses the remittance token for another product’s subscription key with 401', async () => {
    const r = await remittanceToken(subKey('disbursement'));

    expect(r.status).toBe(401);
    expect(r.json.code).toBe('ACCESS DENIED DUE TO INVALID SUBSCRIPTION KEY');
  });

  it('refuses a disbursement token on a remittance transfer with 401', async () => {
    const token = await momoToken(sim, 'disbursement');

    const { res } = await create(sim, token, '/remittance/v1_0/transfer', transferBody('46700000001'), {
      product: 'remittance',
    });

    expect(res.status).toBe(401);
  });

  it('transfers: 202, PUT callback SUCCESSFUL, status GET with the financial transaction id', async () => {
    const token = await momoToken(sim, 'remittance');

    const { ref, res } = await create(sim, token, '/remittance/v1_0/transfer', transferBody('46700000001'), {
      product: 'remittance',
      callbackUrl: `${rx.url}/remit`,
    });
    const [cb] = await rx.waitFor(1, (r) => r.path === '/remit');
    const status = await call(sim, 'GET', `/remittance/v1_0/transfer/${ref}`, {
      headers: momoHeaders(token, 'remittance'),
    });

    expect(res.status).toBe(202);
    expect(cb!.method).toBe('PUT');
    expect(parse(cb!)).toMatchObject({ status: 'SUCCESSFUL', payee: { partyId: '46700000001' } });
    expect(status.json).toMatchObject({ status: 'SUCCESSFUL', financialTransactionId: expect.any(String) });
  });

  it('does not show a remittance transfer on the disbursement status path', async () => {
    const token = await momoToken(sim, 'remittance');
    const { ref } = await create(sim, token, '/remittance/v1_0/transfer', transferBody('46700000001'), {
      product: 'remittance',
    });
    const disbursement = await momoToken(sim, 'disbursement');

    const r = await call(sim, 'GET', `/disbursement/v1_0/transfer/${ref}`, {
      headers: momoHeaders(disbursement, 'disbursement'),
    });

    expect(r.status).toBe(404);
  });

  it('debits the remittance balance by a successful transfer', async () => {
    const token = await momoToken(sim, 'remittance');
    const balance = () =>
      call(sim, 'GET', '/remittance/v1_0/account/balance', { headers: momoHeaders(token, 'remittance') });
    const before = Number((await balance()).json.availableBalance);

    await create(sim, token, '/remittance/v1_0/transfer', transferBody('46700000001', { amount: '30' }), {
      product: 'remittance',
    });

    await eventually(async () => {
      expect(Number((await balance()).json.availableBalance)).toBe(before - 30);
    });
  });

  it('answers account holder active and basic user info, with the documented trigger rows', async () => {
    const token = await momoToken(sim, 'remittance');
    const headers = momoHeaders(token, 'remittance');

    const activeHolder = await call(sim, 'GET', '/remittance/v1_0/accountholder/msisdn/46700000001/active', {
      headers,
    });
    const notActive = await call(sim, 'GET', `/remittance/v1_0/accountholder/msisdn/${msisdn(1)}/active`, {
      headers,
    });
    const info = await call(sim, 'GET', '/remittance/v1_0/accountholder/MSISDN/46700000001/basicuserinfo', {
      headers,
    });

    expect(activeHolder.json).toEqual({ result: true });
    expect(notActive.json).toEqual({ result: false });
    expect(info.json).toMatchObject({ given_name: 'Sand', family_name: 'Box', status: 'ACTIVE' });
  });
});
