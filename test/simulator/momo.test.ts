import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../simulator/options';
import type { Simulator } from '../../simulator/server';
import { call, parse, type Receiver, slowPayer, startReceiver, startSim } from './helpers';
import { basic, create, MOMO_USER, momoHeaders, momoToken, msisdn, rtpBody, subKey } from './momo-helpers';

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

describe('MoMo provisioning', () => {
  for (const prefix of ['', '/v1_0']) {
    it(`creates an API user, an API key and reads the user back under "${prefix}/apiuser"`, async () => {
      const id = randomUUID();
      const key = { 'Ocp-Apim-Subscription-Key': subKey('collection') };
      const created = await call(sim, 'POST', `${prefix}/apiuser`, {
        headers: { ...key, 'X-Reference-Id': id },
        body: { providerCallbackHost: 'localhost' },
      });
      expect(created.status).toBe(201);
      const apiKey = await call(sim, 'POST', `${prefix}/apiuser/${id}/apikey`, { headers: key });
      expect(apiKey.status).toBe(201);
      expect(apiKey.json.apiKey).toMatch(/^[0-9a-f]{32}$/);
      const user = await call(sim, 'GET', `${prefix}/apiuser/${id}`, { headers: key });
      expect(user.json).toEqual({ providerCallbackHost: 'localhost', targetEnvironment: 'sandbox' });

      const token = await call(sim, 'POST', '/collection/token/', {
        headers: { ...key, Authorization: basic(id, apiKey.json.apiKey) },
      });
      expect(token.status).toBe(200);
      expect(token.json).toMatchObject({ token_type: 'access_token', expires_in: 3600 });
      expect(token.json.access_token.split('.')).toHaveLength(3);
    });
  }

  it('answers 409 RESOURCE_ALREADY_EXIST when an API user id is reused', async () => {
    const headers = { 'Ocp-Apim-Subscription-Key': subKey('collection'), 'X-Reference-Id': MOMO_USER.id };
    const r = await call(sim, 'POST', '/apiuser', { headers, body: { providerCallbackHost: 'localhost' } });
    expect(r.status).toBe(409);
    expect(r.json.code).toBe('RESOURCE_ALREADY_EXIST');
  });

  it('answers 404 for the API key of an unknown API user', async () => {
    const r = await call(sim, 'POST', `/apiuser/${randomUUID()}/apikey`, {
      headers: { 'Ocp-Apim-Subscription-Key': subKey('collection') },
    });
    expect(r.status).toBe(404);
  });
});

describe('MoMo gateway checks and tokens', () => {
  it('answers 401 with the documented message when the subscription key is wrong', async () => {
    const r = await call(sim, 'POST', '/collection/token/', {
      headers: { 'Ocp-Apim-Subscription-Key': 'nope', Authorization: basic(MOMO_USER.id, MOMO_USER.apiKey) },
    });
    expect(r.status).toBe(401);
    expect(r.json.code).toBe('ACCESS DENIED DUE TO INVALID SUBSCRIPTION KEY');
    expect(r.json.message.toUpperCase()).toContain('ACCESS DENIED DUE TO INVALID SUBSCRIPTION KEY');
  });

  it('accepts the secondary subscription key', async () => {
    const r = await call(sim, 'POST', '/collection/token/', {
      headers: {
        'Ocp-Apim-Subscription-Key': DEFAULTS.momo.collectionSubscriptionKeys.secondary,
        Authorization: basic(MOMO_USER.id, MOMO_USER.apiKey),
      },
    });
    expect(r.status).toBe(200);
  });

  it('keeps disbursement on its own subscription key and its own tokens', async () => {
    const wrongKey = await call(sim, 'POST', '/disbursement/token/', {
      headers: {
        'Ocp-Apim-Subscription-Key': subKey('collection'),
        Authorization: basic(MOMO_USER.id, MOMO_USER.apiKey),
      },
    });
    expect(wrongKey.status).toBe(401);
    const collectionToken = await momoToken(sim, 'collection');
    const r = await call(sim, 'GET', '/disbursement/v1_0/account/balance', {
      headers: momoHeaders(collectionToken, 'disbursement'),
    });
    expect(r.status).toBe(401);
    const disbursementToken = await momoToken(sim, 'disbursement');
    const ok = await call(sim, 'GET', '/disbursement/v1_0/account/balance', {
      headers: momoHeaders(disbursementToken, 'disbursement'),
    });
    expect(ok.json).toEqual({ availableBalance: '1000000', currency: 'EUR' });
  });

  it('answers 400 when a body is sent to the token operation', async () => {
    const r = await call(sim, 'POST', '/collection/token/', {
      headers: {
        'Ocp-Apim-Subscription-Key': subKey('collection'),
        Authorization: basic(MOMO_USER.id, MOMO_USER.apiKey),
      },
      body: { grant_type: 'client_credentials' },
    });
    expect(r.status).toBe(400);
  });

  it('answers 401 {error} when the API key is wrong', async () => {
    const r = await call(sim, 'POST', '/collection/token/', {
      headers: {
        'Ocp-Apim-Subscription-Key': subKey('collection'),
        Authorization: basic(MOMO_USER.id, 'wrong'),
      },
    });
    expect(r.status).toBe(401);
    expect(r.json).toEqual({ error: 'login_failed' });
  });

  it('answers 500 NOT_ALLOWED_TARGET_ENVIRONMENT for a wrong X-Target-Environment', async () => {
    const token = await momoToken(sim);
    const r = await call(sim, 'GET', '/collection/v1_0/account/balance', {
      headers: momoHeaders(token, 'collection', { 'X-Target-Environment': 'mtnuganda' }),
    });
    expect(r.status).toBe(500);
    expect(r.json.code).toBe('NOT_ALLOWED_TARGET_ENVIRONMENT');
  });

  it('answers 401 for a missing bearer token', async () => {
    const r = await call(sim, 'GET', '/collection/v1_0/account/balance', {
      headers: { 'Ocp-Apim-Subscription-Key': subKey('collection'), 'X-Target-Environment': 'sandbox' },
    });
    expect(r.status).toBe(401);
  });
});

describe('MoMo request to pay', () => {
  it('accepts with 202, then sends the SUCCESSFUL callback once by PUT, without referenceId', async () => {
    const token = await momoToken(sim);
    const { ref, res } = await create(sim, token, '/collection/v1_0/requesttopay', rtpBody('46700000001'), {
      callbackUrl: `${rx.url}/v1/momo/acc/requesttopay/x`,
    });
    expect(res.status).toBe(202);
    expect(res.text).toBe('');
    const [cb] = await rx.waitFor(1);
    await sim.whenIdle();
    expect(rx.requests).toHaveLength(1);
    expect(cb!.method).toBe('PUT');
    const body = parse(cb!);
    expect(body).toMatchObject({
      externalId: 'order-1',
      amount: '100',
      currency: 'EUR',
      payer: { partyIdType: 'MSISDN', partyId: '46700000001' },
      status: 'SUCCESSFUL',
    });
    expect(body.financialTransactionId).toMatch(/^\d{9}$/);
    expect(body).not.toHaveProperty('referenceId');
    expect(body).not.toHaveProperty('reason');

    const status = await call(sim, 'GET', `/collection/v1_0/requesttopay/${ref}`, {
      headers: momoHeaders(token),
    });
    expect(status.status).toBe(200);
    expect(status.json).toEqual(body);
  });

  it('shows PENDING before the payer answers', async () => {
    const token = await momoToken(sim);
    await slowPayer(sim);
    const { ref } = await create(sim, token, '/collection/v1_0/requesttopay', rtpBody('46700000001'));
    const r = await call(sim, 'GET', `/collection/v1_0/requesttopay/${ref}`, { headers: momoHeaders(token) });
    expect(r.json.status).toBe('PENDING');
  });

  it('answers 400 when X-Reference-Id is not a UUID v4', async () => {
    const token = await momoToken(sim);
    const { res } = await create(sim, token, '/collection/v1_0/requesttopay', rtpBody('46700000001'), {
      ref: 'order-1',
    });
    expect(res.status).toBe(400);
    const get = await call(sim, 'GET', '/collection/v1_0/requesttopay/not-a-uuid', {
      headers: momoHeaders(token),
    });
    expect(get.status).toBe(400);
  });

  it('answers 409 RESOURCE_ALREADY_EXIST when a reference is reused', async () => {
    const token = await momoToken(sim);
    const { ref } = await create(sim, token, '/collection/v1_0/requesttopay', rtpBody('46700000001'));
    const { res } = await create(sim, token, '/collection/v1_0/requesttopay', rtpBody('46700000001'), {
      ref,
    });
    expect(res.status).toBe(409);
    expect(res.json.code).toBe('RESOURCE_ALREADY_EXIST');
  });

  it('answers 404 RESOURCE_NOT_FOUND for an unknown reference', async () => {
    const token = await momoToken(sim);
    const r = await call(sim, 'GET', `/collection/v1_0/requesttopay/${randomUUID()}`, {
      headers: momoHeaders(token),
    });
    expect(r.status).toBe(404);
    expect(r.json.code).toBe('RESOURCE_NOT_FOUND');
  });

  it('answers 500 INVALID_CALLBACK_URL_HOST when the callback host is not the providerCallbackHost or is an IP', async () => {
    const token = await momoToken(sim);
    for (const url of ['http://example.org/cb', 'http://127.0.0.1:3000/cb']) {
      const { ref, res } = await create(sim, token, '/collection/v1_0/requesttopay', rtpBody('46700000001'), {
        callbackUrl: url,
      });
      expect(res.status).toBe(500);
      expect(res.json.code).toBe('INVALID_CALLBACK_URL_HOST');
      const get = await call(sim, 'GET', `/collection/v1_0/requesttopay/${ref}`, {
        headers: momoHeaders(token),
      });
      expect(get.status).toBe(404);
    }
  });

  it('answers 400 for a message over 160 characters or with an apostrophe', async () => {
    const token = await momoToken(sim);
    for (const payerMessage of ['x'.repeat(161), "Bob's order"]) {
      const { res } = await create(
        sim,
        token,
        '/collection/v1_0/requesttopay',
        rtpBody('46700000001', { payerMessage }),
      );
      expect(res.status).toBe(400);
    }
  });

  it('accepts a 129–160 character note, then fails it with VALIDATION_ERROR', async () => {
    const token = await momoToken(sim);
    const { res } = await create(
      sim,
      token,
      '/collection/v1_0/requesttopay',
      rtpBody('46700000001', { payeeNote: 'n'.repeat(129) }),
      {
        callbackUrl: `${rx.url}/cb`,
      },
    );
    expect(res.status).toBe(202);
    const [cb] = await rx.waitFor(1);
    expect(parse(cb!)).toMatchObject({ status: 'FAILED', reason: { code: 'VALIDATION_ERROR' } });
  });

  it('answers 500 INVALID_CURRENCY for a currency other than the sandbox EUR', async () => {
    const token = await momoToken(sim);
    const { res } = await create(
      sim,
      token,
      '/collection/v1_0/requesttopay',
      rtpBody('46700000001', { currency: 'UGX' }),
    );
    expect(res.status).toBe(500);
    expect(res.json.code).toBe('INVALID_CURRENCY');
  });

  it('answers 400 for a malformed body', async () => {
    const token = await momoToken(sim);
    const { res } = await create(sim, token, '/collection/v1_0/requesttopay', { amount: 5 });
    expect(res.status).toBe(400);
  });
});

describe('MoMo callback methods per operation', () => {
  const cases = [
    {
      path: '/collection/v1_0/requesttowithdraw',
      status: '/collection/v1_0/requesttowithdraw',
      method: 'POST',
      product: 'collection',
    },
    {
      path: '/collection/v2_0/requesttowithdraw',
      status: '/collection/v1_0/requesttowithdraw',
      method: 'PUT',
      product: 'collection',
    },
    {
      path: '/disbursement/v1_0/transfer',
      status: '/disbursement/v1_0/transfer',
      method: 'PUT',
      product: 'disbursement',
    },
    {
      path: '/disbursement/v1_0/deposit',
      status: '/disbursement/v1_0/deposit',
      method: 'POST',
      product: 'disbursement',
    },
    {
      path: '/disbursement/v2_0/deposit',
      status: '/disbursement/v2_0/deposit',
      method: 'PUT',
      product: 'disbursement',
    },
  ] as const;
  for (const c of cases) {
    it(`sends the ${c.path} callback by ${c.method}`, async () => {
      const token = await momoToken(sim, c.product);
      const party = { partyIdType: 'MSISDN', partyId: '46700000009' };
      const body =
        c.product === 'collection'
          ? rtpBody('46700000009')
          : {
              amount: '50',
              currency: 'EUR',
              externalId: 'payout-1',
              payee: party,
              payerMessage: 'Salary',
              payeeNote: 'Nov',
            };
      const { ref, res } = await create(sim, token, c.path, body, {
        callbackUrl: `${rx.url}/cb`,
        product: c.product,
      });
      expect(res.status).toBe(202);
      const [cb] = await rx.waitFor(1);
      expect(cb!.method).toBe(c.method);
      const sent = parse(cb!);
      expect(sent.status).toBe('SUCCESSFUL');
      if (c.product === 'disbursement') expect(sent.payee).toEqual(party);
      const get = await call(sim, 'GET', `${c.status}/${ref}`, { headers: momoHeaders(token, c.product) });
      expect(get.json.status).toBe('SUCCESSFUL');
    });
  }
});

describe('MoMo invoice, payment and pre-approval', () => {
  it('creates an invoice whose callback carries referenceId and errorReason after a cancel', async () => {
    const token = await momoToken(sim);
    // Ongoing keeps the invoice pending, so it can be cancelled.
    const { ref, res } = await create(
      sim,
      token,
      '/collection/v2_0/invoice',
      {
        externalId: 'inv-1',
        amount: '75',
        currency: 'EUR',
        validityDuration: '3600',
        intendedPayer: { partyIdType: 'MSISDN', partyId: msisdn(3) },
        payee: { partyIdType: 'MSISDN', partyId: '46700000100' },
        description: 'Invoice 1',
      },
      { callbackUrl: `${rx.url}/cb` },
    );
    expect(res.status).toBe(202);
    const cancel = await call(sim, 'DELETE', `/collection/v2_0/invoice/${ref}`, {
      headers: momoHeaders(token, 'collection', { 'X-Reference-Id': randomUUID() }),
      body: { externalId: 'cancel-1' },
    });
    expect(cancel.status).toBe(200);
    expect(cancel.json).toEqual({ externalId: 'cancel-1' });
    const [cb] = await rx.waitFor(1);
    expect(cb!.method).toBe('PUT');
    const body = parse(cb!);
    expect(body).toMatchObject({
      referenceId: ref,
      status: 'FAILED',
      errorReason: { code: 'TRANSACTION_CANCELED' },
    });
    expect(body.expiryDateTime).toMatch(/^\d{4}-\d{2}-\d{2}:T\d{2}:\d{2}:\d{2}$/);
    expect(body).not.toHaveProperty('reason');
  });

  it('completes a payment with referenceId and financialTransactionId', async () => {
    const token = await momoToken(sim);
    const { ref } = await create(
      sim,
      token,
      '/collection/v2_0/payment',
      {
        externalTransactionId: 'p-1',
        money: { amount: '10', currency: 'EUR' },
        customerReference: 'meter-7',
      },
      { callbackUrl: `${rx.url}/cb` },
    );
    const [cb] = await rx.waitFor(1);
    expect(parse(cb!)).toMatchObject({
      referenceId: ref,
      status: 'SUCCESSFUL',
      financialTransactionId: expect.any(String),
    });
  });

  it('approves a pre-approval, lists it, cancels it and stops listing it', async () => {
    const token = await momoToken(sim);
    const payer = { partyIdType: 'MSISDN', partyId: '46700000200' };
    const { ref } = await create(
      sim,
      token,
      '/collection/v2_0/preapproval',
      { payer, payerCurrency: 'EUR', payerMessage: 'Monthly plan', validityTime: 3600 },
      { callbackUrl: `${rx.url}/cb` },
    );
    const [cb] = await rx.waitFor(1);
    expect(parse(cb!)).toMatchObject({
      payer,
      payerCurrency: 'EUR',
      status: 'SUCCESSFUL',
      expirationDateTime: expect.any(String),
    });
    const list = await call(sim, 'GET', '/collection/v1_0/preapprovals/msisdn/46700000200', {
      headers: momoHeaders(token),
    });
    expect(list.json).toHaveLength(1);
    expect(list.json[0]).toMatchObject({ preApprovalId: ref, fromCurrency: 'EUR', status: 'APPROVED' });
    const cancel = await call(sim, 'DELETE', `/collection/v1_0/preapproval/${ref}`, {
      headers: momoHeaders(token),
    });
    expect(cancel.status).toBe(200);
    const after = await call(sim, 'GET', '/collection/v1_0/preapprovals/msisdn/46700000200', {
      headers: momoHeaders(token),
    });
    expect(after.json).toEqual([]);
  });
});

describe('MoMo account queries', () => {
  it('adds successful collections to the balance', async () => {
    const token = await momoToken(sim);
    await create(sim, token, '/collection/v1_0/requesttopay', rtpBody('46700000001', { amount: '25' }));
    await sim.whenIdle();
    const r = await call(sim, 'GET', '/collection/v1_0/account/balance/EUR', { headers: momoHeaders(token) });
    expect(r.json).toEqual({ availableBalance: '25', currency: 'EUR' });
  });

  it('answers account holder active per the sandbox table and requires lower-case types', async () => {
    const token = await momoToken(sim);
    const active = (type: string, id: string) =>
      call(sim, 'GET', `/collection/v1_0/accountholder/${type}/${id}/active`, {
        headers: momoHeaders(token),
      });
    expect((await active('msisdn', '46700000001')).json).toEqual({ result: true });
    expect((await active('msisdn', msisdn(0))).json).toEqual({ result: false }); // NotFound
    expect((await active('msisdn', msisdn(1))).json).toEqual({ result: false }); // NotActive
    expect((await active('msisdn', msisdn(2))).json.code).toBe('NOT_ALLOWED');
    expect((await active('msisdn', msisdn(5))).status).toBe(503);
    expect((await active('MSISDN', '46700000001')).status).toBe(400);
  });

  it('answers basic user info', async () => {
    const token = await momoToken(sim);
    const r = await call(sim, 'GET', '/collection/v1_0/accountholder/MSISDN/46700000001/basicuserinfo', {
      headers: momoHeaders(token),
    });
    expect(r.json).toMatchObject({
      given_name: 'Sand',
      family_name: 'Box',
      locale: 'sv-SE',
      status: 'ACTIVE',
    });
    const missing = await call(
      sim,
      'GET',
      `/collection/v1_0/accountholder/msisdn/${msisdn(0)}/basicuserinfo`,
      {
        headers: momoHeaders(token),
      },
    );
    expect(missing.status).toBe(404);
  });
});
