/**
 * The Airtel status API client against the provider simulator: push payments are made the way a partner
 * makes them (scripts/sim/airtel.ts: token, RSA key, signed payment), then `check` must classify what the
 * simulator's enquiry says.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AirtelStatusApi, createAirtelStatusApi } from '../../../shared/providers/airtel/api-client';
import { airtelAccountSchema } from '../../../shared/providers/airtel/schema';
import { signAirtelRequest } from '../../../simulator/airtel/signing';
import { DEFAULTS } from '../../../simulator/options';
import type { Simulator } from '../../../simulator/server';
import { http, liveDeps, simTransaction, startHeldSim, startSim, statusQuery, until } from './support';

const APP = DEFAULTS.airtel.apps[0];
let sim: Simulator;

beforeAll(async () => {
  // TA settles to TS after 5 minutes of provider time: 30 s at this scale, long after these tests.
  sim = await startSim({ timeScale: 0.1 });
});
afterAll(async () => {
  await sim.close();
});
beforeEach(() => {
  sim.reset();
});

function client(api: Record<string, unknown> = {}) {
  const live = liveDeps();
  const settings = airtelAccountSchema.parse({
    callbackKey: APP.callbackKey,
    country: 'UG',
    currency: 'UGX',
    api: { baseUrl: sim.url, clientId: APP.clientId, clientSecret: APP.clientSecret, ...api },
  });
  const c = createAirtelStatusApi(
    { provider: 'airtel', id: 'demo', pathSecret: undefined, settings },
    live.deps,
  ) as AirtelStatusApi;
  return { c, ...live };
}

let seq = 0;
/** What a partner does: OAuth token, RSA key, signed push payment. Returns the partner transaction id. */
async function partnerPays(msisdn: string): Promise<string> {
  const token = (
    await http(
      sim,
      'POST',
      '/auth/oauth2/token',
      {},
      { client_id: APP.clientId, client_secret: APP.clientSecret, grant_type: 'client_credentials' },
    )
  ).json.access_token as string;
  const common = { authorization: `Bearer ${token}`, 'x-country': 'UG', 'x-currency': 'UGX' };
  const key = (await http(sim, 'GET', '/v1/rsa/encryption-keys', common)).json.data.key as string;
  const id = `AT-${Date.now()}-${++seq}`;
  const signed = signAirtelRequest(
    {
      reference: 'Order',
      subscriber: { country: 'UG', currency: 'UGX', msisdn },
      transaction: { amount: 5000, country: 'UG', currency: 'UGX', id },
    },
    key,
  );
  const res = await http(
    sim,
    'POST',
    '/merchant/v2/payments/',
    { ...common, ...signed.headers, 'content-type': 'application/json' },
    signed.body,
  );
  expect(res.status).toBe(200);
  return id;
}

const answered = (id: string) =>
  until(`Airtel ${id} answered`, () => simTransaction(sim, 'airtel', id)?.status !== 'TIP');

describe('Airtel status API against the simulator', () => {
  it('reads a paid push payment (TS) as SUCCEEDED with the airtel_money_id', async () => {
    // Prepare
    const id = await partnerPays('752123456');
    await answered(id);

    // Act
    const answer = await client().c.check(statusQuery('payment', id));

    // Assess
    expect(answer).toMatchObject({
      type: 'report',
      draft: { status: 'SUCCEEDED', providerTransactionId: simTransaction(sim, 'airtel', id)?.airtelMoneyId },
    });
  });

  it.each([
    ['752123901', 'INSUFFICIENT_FUNDS'],
    ['752123902', 'WRONG_PIN'],
    ['752123910', 'REJECTED_BY_CUSTOMER'],
  ])('reads TF for %s as FAILED with reason %s', async (msisdn, reason) => {
    const id = await partnerPays(msisdn);
    await answered(id);
    expect(await client().c.check(statusQuery('payment', id))).toMatchObject({
      type: 'report',
      draft: { status: 'FAILED', reason: { code: reason } },
    });
  });

  it('reads TE (expired) as FAILED with TIMED_OUT', async () => {
    const id = await partnerPays('752123905');
    await answered(id);
    expect(await client().c.check(statusQuery('payment', id))).toMatchObject({
      type: 'report',
      draft: { status: 'FAILED', reason: { code: 'TIMED_OUT', providerCode: 'DP00800001029' } },
    });
  });

  it('reads TA as an AMBIGUOUS draft', async () => {
    const id = await partnerPays('752123903');
    await answered(id);
    expect(await client().c.check(statusQuery('payment', id))).toMatchObject({
      type: 'report',
      draft: { status: 'AMBIGUOUS' },
    });
  });

  it('keeps TIP pending after the moment a payer answers', async () => {
    // The payer's moment is counted on the simulator's clock, which moves only when the test moves it.
    const shared = sim;
    const held = await startHeldSim({ timeScale: 0.1 });
    sim = held.sim;
    try {
      // Prepare
      const id = await partnerPays('752123904');
      // Act: the clock passes the moment a payer answers (a paying MSISDN is settled by then).
      await held.clock.advance(sim.options.approvalDelayMs);
      const answer = await client().c.check(statusQuery('payment', id));
      // Assess
      expect(answer).toMatchObject({ type: 'pending', providerCode: 'TIP:DP00800001006' });
    } finally {
      await held.sim.close();
      sim = shared;
    }
  });

  it('answers not-found (DP00800001025) for an id the simulator never saw', async () => {
    expect(await client().c.check(statusQuery('payment', 'AT-never-sent'))).toMatchObject({
      type: 'not-found',
      providerCode: 'DP00800001025',
    });
  });

  it('rides out status-5xx and answers once the simulator is back', async () => {
    // Prepare
    const id = await partnerPays('752123456');
    await answered(id);
    const { c, calls } = client();
    sim.setFaults({ airtel: 'status-5xx=502,status-5xx-times=2' });

    // Act
    const answer = await c.check(statusQuery('payment', id));

    // Assess
    expect(answer).toMatchObject({ type: 'report', draft: { status: 'SUCCEEDED' } });
    expect(calls.filter((r) => r.url.includes('/standard/v1/payments/'))).toHaveLength(3);
  });

  it('refreshes a token that dies early (token-expire-early) once, with one extra token call', async () => {
    // The token's 100 ms are counted on the simulator's clock, which moves only when the test moves it.
    const shared = sim;
    const held = await startHeldSim({ timeScale: 0.1 });
    sim = held.sim;
    try {
      // Prepare
      const id = await partnerPays('752123456');
      await held.clock.advance(sim.options.approvalDelayMs);
      await answered(id);
      const { c } = client();
      sim.setFaults({ airtel: 'token-expire-early=100' });
      await c.check(statusQuery('payment', id));

      // Act
      await held.clock.advance(150);
      const answer = await c.check(statusQuery('payment', id));

      // Assess
      expect(answer).toMatchObject({ type: 'report', draft: { status: 'SUCCEEDED' } });
      expect(c.tokenRequests()).toBe(2);
    } finally {
      await held.sim.close();
      sim = shared;
    }
  });

  it('answers credentials for a wrong client secret, once, with one warning', async () => {
    const { c, calls, warnings } = client({ clientSecret: 'nope' });
    expect(await c.check(statusQuery('payment', 'x'))).toMatchObject({ type: 'error', error: 'credentials' });
    expect(await c.check(statusQuery('payment', 'y'))).toMatchObject({ type: 'error', error: 'credentials' });
    expect(calls).toHaveLength(1);
    expect(warnings).toHaveLength(1);
  });
});
