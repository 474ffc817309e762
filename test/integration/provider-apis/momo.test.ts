/**
 * The MoMo status API client against the provider simulator: transactions are created the way a partner
 * creates them (scripts/sim/momo.ts), then `check` must classify what the simulator's status GET says.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMomoStatusApi, type MomoStatusApi } from '../../../shared/providers/momo/api-client';
import { momoAccountSchema } from '../../../shared/providers/momo/schema';
import { DEFAULTS } from '../../../simulator/options';
import type { Simulator } from '../../../simulator/server';
import { http, liveDeps, simTransaction, startHeldSim, startSim, statusQuery, until } from './support';

const USER = DEFAULTS.momo.apiUsers[0];
const KEYS = {
  collection: DEFAULTS.momo.collectionSubscriptionKeys.primary,
  disbursement: DEFAULTS.momo.disbursementSubscriptionKeys.primary,
  remittance: DEFAULTS.momo.remittanceSubscriptionKeys.primary,
};
const BASE = Number(DEFAULTS.momo.sandboxMsisdnBase);
const msisdn = (index: number) => String(BASE + index);
const PAYS = '46733123499';

let sim: Simulator;

beforeAll(async () => {
  sim = await startSim();
});
afterAll(async () => {
  await sim.close();
});
beforeEach(() => {
  sim.reset();
});

function client(api: Record<string, unknown> = {}, targetEnvironment = 'sandbox') {
  const live = liveDeps();
  const settings = momoAccountSchema.parse({
    targetEnvironment,
    currency: 'EUR',
    api: {
      baseUrl: sim.url,
      apiUser: USER.id,
      apiKey: USER.apiKey,
      collectionSubscriptionKey: KEYS.collection,
      disbursementSubscriptionKey: KEYS.disbursement,
      ...api,
    },
  });
  const c = createMomoStatusApi(
    { provider: 'momo', id: 'demo', pathSecret: undefined, settings },
    live.deps,
  ) as MomoStatusApi;
  return { c, ...live };
}

/** What a partner does: a product token, then the create POST with a fresh X-Reference-Id. */
async function partnerCreates(
  path: string,
  body: unknown,
  product: 'collection' | 'disbursement' | 'remittance' = 'collection',
) {
  const basic = `Basic ${Buffer.from(`${USER.id}:${USER.apiKey}`).toString('base64')}`;
  const token = await http(sim, 'POST', `/${product}/token/`, {
    authorization: basic,
    'ocp-apim-subscription-key': KEYS[product],
  });
  const ref = randomUUID();
  const res = await http(
    sim,
    'POST',
    path,
    {
      authorization: `Bearer ${token.json.access_token}`,
      'x-reference-id': ref,
      'x-target-environment': 'sandbox',
      'ocp-apim-subscription-key': KEYS[product],
    },
    body,
  );
  expect(res.status).toBe(202);
  return ref;
}

const rtp = (payer: string) => ({
  amount: '100',
  currency: 'EUR',
  externalId: 'order-1',
  payer: { partyIdType: 'MSISDN', partyId: payer },
  payerMessage: 'Order 1',
  payeeNote: 'Thanks',
});
const transfer = (payee: string) => ({
  amount: '25',
  currency: 'EUR',
  externalId: 'payout-1',
  payee: { partyIdType: 'MSISDN', partyId: payee },
  payerMessage: 'Payout',
  payeeNote: 'Payout',
});

const settled = (ref: string) =>
  until(`MoMo ${ref} final`, () => simTransaction(sim, 'momo', ref)?.status !== 'PENDING');

describe('MoMo status API against the simulator', () => {
  it('reads a paid request to pay as SUCCEEDED with its amount, payer and financialTransactionId', async () => {
    // Prepare
    const ref = await partnerCreates('/collection/v1_0/requesttopay', rtp(PAYS));
    await settled(ref);
    const { c } = client();

    // Act
    const answer = await c.check(statusQuery('requesttopay', ref));

    // Assess
    expect(answer).toMatchObject({
      type: 'report',
      draft: {
        status: 'SUCCEEDED',
        amount: { value: '100', currency: 'EUR' },
        party: { idType: 'MSISDN', id: PAYS },
        externalId: 'order-1',
        providerTransactionId: simTransaction(sim, 'momo', ref)?.financialTransactionId,
      },
    });
  });

  it.each([
    [0, 'Failed'],
    [1, 'Rejected'],
  ])('reads the sandbox outcome %i (%s) as FAILED with a reason', async (index) => {
    // Prepare
    const ref = await partnerCreates('/collection/v1_0/requesttopay', rtp(msisdn(index)));
    await settled(ref);

    // Act
    const answer = await client().c.check(statusQuery('requesttopay', ref));

    // Assess
    expect(answer.type).toBe('report');
    if (answer.type !== 'report') return;
    expect(answer.draft.status).toBe('FAILED');
    expect(answer.draft.reason?.providerCode).toBe(
      (simTransaction(sim, 'momo', ref)?.reason as { code: string }).code,
    );
  });

  it('keeps an unanswered request (Ongoing) pending while the approval window runs', async () => {
    // The payer's moment is counted on the simulator's clock, which moves only when the test moves it.
    const shared = sim;
    const held = await startHeldSim();
    sim = held.sim;
    try {
      // Prepare
      const ref = await partnerCreates('/collection/v1_0/requesttopay', rtp(msisdn(3)));

      // Act: the clock passes the moment a payer answers (a paying MSISDN is settled by then), still
      // inside the approval window.
      await held.clock.advance(sim.options.approvalDelayMs);
      const answer = await client().c.check(statusQuery('requesttopay', ref));

      // Assess
      expect(simTransaction(sim, 'momo', ref)?.status).toBe('PENDING');
      expect(answer).toMatchObject({ type: 'pending', providerCode: 'PENDING' });
    } finally {
      await held.sim.close();
      sim = shared;
    }
  });

  it('answers not-found for a reference the simulator never accepted', async () => {
    expect(await client().c.check(statusQuery('requesttopay', randomUUID()))).toMatchObject({
      type: 'not-found',
      providerCode: 'RESOURCE_NOT_FOUND',
    });
  });

  it.each([
    ['requesttowithdraw', '/collection/v1_0/requesttowithdraw', rtp(PAYS), 'collection'],
    ['requesttowithdraw', '/collection/v2_0/requesttowithdraw', rtp(PAYS), 'collection'],
    [
      'invoice',
      '/collection/v2_0/invoice',
      {
        externalId: 'inv-1',
        amount: '40',
        currency: 'EUR',
        validityDuration: '3600',
        intendedPayer: { partyIdType: 'MSISDN', partyId: PAYS },
        payee: { partyIdType: 'MSISDN', partyId: '46733120000' },
        description: 'Invoice',
      },
      'collection',
    ],
    [
      'payment',
      '/collection/v2_0/payment',
      {
        externalTransactionId: 'pay-1',
        money: { amount: '12', currency: 'EUR' },
        customerReference: PAYS,
        senderNote: 'n',
        receiverMessage: 'm',
      },
      'collection',
    ],
    [
      'preapproval',
      '/collection/v2_0/preapproval',
      {
        payer: { partyIdType: 'MSISDN', partyId: PAYS },
        payerCurrency: 'EUR',
        payerMessage: 'Subscription',
        validityTime: 3600,
      },
      'collection',
    ],
    ['transfer', '/disbursement/v1_0/transfer', transfer(PAYS), 'disbursement'],
    ['deposit', '/disbursement/v1_0/deposit', transfer(PAYS), 'disbursement'],
    ['deposit', '/disbursement/v2_0/deposit', transfer(PAYS), 'disbursement'],
  ] as const)('reads a successful %s created at %s', async (kind, path, body, product) => {
    // Prepare
    const ref = await partnerCreates(path, body, product);
    await settled(ref);

    // Act
    const answer = await client().c.check(statusQuery(kind, ref));

    // Assess
    expect(answer).toMatchObject({ type: 'report', draft: { status: 'SUCCEEDED', kind } });
  });

  it('reads a failed transfer (payee outcome Failed) as FAILED', async () => {
    const ref = await partnerCreates('/disbursement/v1_0/transfer', transfer(msisdn(0)), 'disbursement');
    await settled(ref);
    expect(await client().c.check(statusQuery('transfer', ref))).toMatchObject({
      type: 'report',
      draft: { status: 'FAILED' },
    });
  });

  it("reads refunds at MTN's path without any path configured, cash transfers where api.paths points (the MoMo sandbox's 1–13 triggers)", async () => {
    // Prepare
    const refund = (externalId: string) => ({
      amount: '25',
      currency: 'EUR',
      externalId,
      payerMessage: 'Refund',
      payeeNote: 'Refund',
      referenceIdToRefund: randomUUID(),
    });
    const cash = (externalId: string) => ({ ...transfer(PAYS), externalId });
    const paid = await partnerCreates('/disbursement/v1_0/refund', refund('order-77'), 'disbursement');
    const rejected = await partnerCreates('/disbursement/v1_0/refund', refund('3'), 'disbursement');
    const payeeMissing = await partnerCreates('/disbursement/v2_0/cashtransfer', cash('5'), 'disbursement');
    for (const ref of [paid, rejected, payeeMissing]) await settled(ref);
    const { c } = client({ paths: { cashtransfer: '/disbursement/v2_0/cashtransfer/{ref}' } });
    // Act
    const answers = [
      await c.check(statusQuery('refund', paid)),
      await c.check(statusQuery('refund', rejected)),
      await c.check(statusQuery('cashtransfer', payeeMissing)),
    ];
    // Assess
    expect(
      answers.map((a) => (a.type === 'report' ? [a.draft.status, a.draft.reason?.code] : a.type)),
    ).toEqual([
      ['SUCCEEDED', undefined],
      ['FAILED', 'REJECTED_BY_CUSTOMER'],
      ['FAILED', 'PAYEE_NOT_FOUND'],
    ]);
  });

  it('reads a remittance transfer with the Remittance product when api.paths points there', async () => {
    // Prepare
    const ref = await partnerCreates('/remittance/v1_0/transfer', transfer(PAYS), 'remittance');
    await settled(ref);
    const { c } = client({
      remittanceSubscriptionKey: KEYS.remittance,
      paths: { transfer: '/remittance/v1_0/transfer/{ref}' },
    });
    // Act
    const answer = await c.check(statusQuery('transfer', ref));
    // Assess
    expect(answer).toMatchObject({ type: 'report', draft: { status: 'SUCCEEDED', kind: 'transfer' } });
    expect(c.tokenRequests('remittance')).toBe(1);
    expect(c.tokenRequests('disbursement')).toBe(0);
  });

  it('rides out status-5xx (retried) and answers once the simulator is back', async () => {
    // Prepare
    const ref = await partnerCreates('/collection/v1_0/requesttopay', rtp(PAYS));
    await settled(ref);
    const { c, calls } = client();
    sim.setFaults({ momo: 'status-5xx=503,status-5xx-times=2' });

    // Act
    const answer = await c.check(statusQuery('requesttopay', ref));

    // Assess
    expect(answer).toMatchObject({ type: 'report', draft: { status: 'SUCCEEDED' } });
    expect(calls.filter((r) => r.url.includes('/requesttopay/'))).toHaveLength(3);
  });

  it('answers unavailable after three attempts while status calls fail, then reads the status when they stop', async () => {
    // Prepare
    const ref = await partnerCreates('/collection/v1_0/requesttopay', rtp(PAYS));
    await settled(ref);
    const { c, calls } = client();
    sim.setFaults({ momo: 'status-5xx=500' });

    // Act
    const during = await c.check(statusQuery('requesttopay', ref));
    sim.setFaults({});
    const after = await c.check(statusQuery('requesttopay', ref));

    // Assess
    expect(during).toMatchObject({ type: 'error', error: 'unavailable', httpStatus: 500 });
    expect(after).toMatchObject({ type: 'report', draft: { status: 'SUCCEEDED' } });
    expect(calls.filter((r) => r.url.includes('/requesttopay/'))).toHaveLength(4);
  });

  it('refreshes a token that dies early (token-expire-early) once, with one extra token call', async () => {
    // The token's 100 ms are counted on the simulator's clock, which moves only when the test moves it.
    const shared = sim;
    const held = await startHeldSim();
    sim = held.sim;
    try {
      // Prepare
      const ref = await partnerCreates('/collection/v1_0/requesttopay', rtp(PAYS));
      await held.clock.advance(sim.options.approvalDelayMs);
      await settled(ref);
      const { c } = client();
      sim.setFaults({ momo: 'token-expire-early=100' });
      expect(await c.check(statusQuery('requesttopay', ref))).toMatchObject({ type: 'report' });

      // Act
      await held.clock.advance(150);
      const answer = await c.check(statusQuery('requesttopay', ref));

      // Assess
      expect(answer).toMatchObject({ type: 'report', draft: { status: 'SUCCEEDED' } });
      expect(c.tokenRequests('collection')).toBe(2);
    } finally {
      await held.sim.close();
      sim = shared;
    }
  });

  it('answers credentials for a wrong API key, warns once and calls nobody during the cooldown', async () => {
    // Prepare
    const { c, calls, warnings } = client({ apiKey: 'wrong-key' });

    // Act
    const first = await c.check(statusQuery('requesttopay', randomUUID()));
    const second = await c.check(statusQuery('requesttopay', randomUUID()));

    // Assess
    expect(first).toMatchObject({ type: 'error', error: 'credentials', httpStatus: 401 });
    expect(second).toMatchObject({ type: 'error', error: 'credentials' });
    expect(calls).toHaveLength(1);
    expect(warnings).toHaveLength(1);
    expect(JSON.stringify(warnings)).not.toContain('wrong-key');
  });

  it('answers credentials for a wrong target environment without retrying it', async () => {
    const { c, calls } = client({}, 'mtnghana');
    expect(await c.check(statusQuery('requesttopay', randomUUID()))).toMatchObject({
      type: 'error',
      error: 'credentials',
    });
    expect(calls.filter((r) => r.url.includes('/requesttopay/'))).toHaveLength(1);
  });
});
