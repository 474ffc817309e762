/**
 * The `mtn-momo` npm client (2.0.0), unchanged, against the in-process simulator: what docs/clients/mtn-momo.md
 * promises partners, including the client's bugs and their workarounds.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMomoStatusApi } from '../../shared/providers/momo/api-client';
import { momoAccountSchema } from '../../shared/providers/momo/schema';
import { DEFAULTS } from '../../simulator/options';
import type { Simulator } from '../../simulator/server';
import { parse, startReceiver, startSim, type Receiver } from '../simulator/helpers';

const momo = (await import('mtn-momo')).default as typeof import('mtn-momo');
type MtnMoMoError = import('mtn-momo').MtnMoMoError;
type PayerType = import('mtn-momo').PayerType;
const apiUser = { userId: DEFAULTS.momo.apiUsers[0]!.id, userSecret: DEFAULTS.momo.apiUsers[0]!.apiKey };
const COLLECTION_KEY = DEFAULTS.momo.collectionSubscriptionKeys.primary;
const DISBURSEMENT_KEY = DEFAULTS.momo.disbursementSubscriptionKeys.primary;
const PAYS = '46733123499';
const REJECTS = '46733123451';
const EXPIRES = '46733123452';

let sim: Simulator;
let partner: Receiver;
let client: ReturnType<typeof momo.create>;

beforeAll(async () => {
  sim = await startSim();
  partner = await startReceiver();
  // Only the base URL changes: the rest is the client's README.
  client = momo.create({
    baseUrl: sim.url,
    environment: momo.Environment.SANDBOX,
    callbackHost: 'localhost',
  });
});

afterAll(async () => {
  await partner.close();
  await sim.close();
});

const collections = () => client.Collections({ ...apiUser, primaryKey: COLLECTION_KEY });
const disbursements = () => client.Disbursements({ ...apiUser, primaryKey: DISBURSEMENT_KEY });

function payment(payerMsisdn: string, externalId: string) {
  return {
    amount: '100',
    currency: 'EUR',
    externalId,
    payer: { partyIdType: momo.PayerType.MSISDN, partyId: payerMsisdn },
    payerMessage: 'Order',
    payeeNote: 'Thanks',
    callbackUrl: `${partner.url}/v1/momo/demo/requesttopay`,
  };
}

/** Runs a call expected to reject and returns what it rejected with. */
async function rejectionOf(call: Promise<unknown>): Promise<MtnMoMoError & { transaction?: any }> {
  return call.then(
    () => {
      throw new Error('expected the call to reject');
    },
    (error: MtnMoMoError) => error,
  );
}

describe('mtn-momo against the simulator', () => {
  it('reaches the simulator through baseUrl with its port and reads both products’ balances with their own tokens', async () => {
    // Act
    const collectionBalance = await collections().getBalance();
    const disbursementBalance = await disbursements().getBalance();
    // Assess
    expect(collectionBalance).toEqual({ availableBalance: expect.any(String), currency: 'EUR' });
    expect(disbursementBalance).toEqual({ availableBalance: expect.any(String), currency: 'EUR' });
  });

  it('requests a payment with a reference the client made up; the callback reaches the reference-less URL with the externalId', async () => {
    // Prepare
    const externalId = `order-${randomUUID().slice(0, 8)}`;
    // Act
    const reference = await collections().requestToPay(payment(PAYS, externalId));
    await sim.whenIdle();
    const transaction = await collections().getTransaction(reference);
    // Assess
    expect(reference).toMatch(/^[0-9a-f-]{36}$/);
    expect(transaction.status).toBe('SUCCESSFUL');
    const [callback] = partner.requests.filter((r) => parse(r).externalId === externalId);
    expect(callback?.method).toBe('PUT');
    expect(callback?.path).toBe('/v1/momo/demo/requesttopay');
    expect(parse(callback!)).toMatchObject({ status: 'SUCCESSFUL', externalId });
  });

  it('rejects a payment the payer rejected as UnspecifiedError, the object reason readable only on error.transaction', async () => {
    // Prepare
    const reference = await collections().requestToPay(payment(REJECTS, 'order-rejected'));
    await sim.whenIdle();
    // Act
    const error = await rejectionOf(collections().getTransaction(reference));
    // Assess: the client bug the recipe works around (it maps string reasons only).
    expect(error).toBeInstanceOf(momo.UnspecifiedError);
    expect(error.transaction).toMatchObject({ status: 'FAILED', reason: { code: 'APPROVAL_REJECTED' } });
  });

  it('rejects an expired payment with the error class of its string reason', async () => {
    // Prepare
    const reference = await collections().requestToPay(payment(EXPIRES, 'order-expired'));
    await sim.whenIdle();
    // Act
    const error = await rejectionOf(collections().getTransaction(reference));
    // Assess
    expect(error).toBeInstanceOf(momo.ExpiredError);
    expect(error.transaction).toMatchObject({ status: 'FAILED', reason: 'EXPIRED' });
  });

  it('refuses the collection account-holder check with its default upper-case MSISDN type and answers it in lower case', async () => {
    // Act
    const withDefault = await rejectionOf(collections().isPayerActive(PAYS));
    const lowerCase = await collections().isPayerActive(PAYS, 'msisdn' as PayerType);
    const notActive = await collections().isPayerActive(REJECTS, 'msisdn' as PayerType);
    // Assess
    expect(withDefault).toBeInstanceOf(momo.UnspecifiedError);
    expect(withDefault.message).toMatch(/msisdn/);
    expect(lowerCase).toEqual({ result: true });
    expect(notActive).toEqual({ result: false });
  });

  it('answers the disbursement account-holder check, which lower-cases the type itself, as a boolean', async () => {
    // Act
    const active = await disbursements().isPayerActive(PAYS);
    const notActive = await disbursements().isPayerActive(REJECTS);
    // Assess
    expect(active).toBe(true);
    expect(notActive).toBe(false);
  });

  it('transfers with the caller’s own referenceId, so the callback reaches the per-transaction URL', async () => {
    // Prepare
    const referenceId = randomUUID();
    const callbackUrl = `${partner.url}/v1/momo/demo/transfer/${referenceId}`;
    // Act
    const returned = await disbursements().transfer({
      referenceId,
      amount: '50',
      currency: 'EUR',
      externalId: 'payout-77',
      payee: { partyIdType: momo.PayerType.MSISDN, partyId: PAYS },
      payerMessage: 'Payout',
      payeeNote: 'Payout',
      callbackUrl,
    });
    await sim.whenIdle();
    const transaction = await disbursements().getTransaction(referenceId);
    // Assess
    expect(returned).toBe(referenceId);
    expect(transaction.status).toBe('SUCCESSFUL');
    const callback = partner.requests.find((r) => r.path === `/v1/momo/demo/transfer/${referenceId}`);
    expect(callback?.method).toBe('PUT');
    expect(parse(callback!)).toMatchObject({ status: 'SUCCESSFUL', externalId: 'payout-77' });
  });

  it('provisions a sandbox API user whose key then gets a collection token', async () => {
    // Prepare
    const users = client.Users({ primaryKey: COLLECTION_KEY });
    // Act
    const userId = await users.create('localhost');
    const { apiKey } = await users.login(userId);
    const balance = await client
      .Collections({ userId, userSecret: apiKey, primaryKey: COLLECTION_KEY })
      .getBalance();
    // Assess
    expect(apiKey).toEqual(expect.any(String));
    expect(balance.currency).toBe('EUR');
  });

  it("lets the relay confirm a payment only when its account is configured with the client's own API user", async () => {
    // Prepare: the docs' recipe (docs/clients/mtn-momo.md, "Use the relay's API user, or give the relay yours")
    const users = client.Users({ primaryKey: COLLECTION_KEY });
    const userId = await users.create('localhost');
    const { apiKey } = await users.login(userId);
    const own = client.Collections({ userId, userSecret: apiKey, primaryKey: COLLECTION_KEY });
    const reference = await own.requestToPay(payment(PAYS, `own-user-${randomUUID().slice(0, 8)}`));
    await sim.whenIdle();
    const relayAskingAs = (user: { id: string; key: string }) =>
      createMomoStatusApi(
        {
          provider: 'momo',
          id: 'demo',
          pathSecret: undefined,
          settings: momoAccountSchema.parse({
            targetEnvironment: 'sandbox',
            currency: 'EUR',
            api: {
              baseUrl: sim.url,
              apiUser: user.id,
              apiKey: user.key,
              collectionSubscriptionKey: COLLECTION_KEY,
            },
          }),
        },
        {
          fetch,
          now: Date.now,
          sleep: async () => undefined,
          log: { warn: () => undefined, info: () => undefined },
        },
      )!;
    const query = {
      kind: 'requesttopay',
      reference,
      amount: undefined,
      msisdn: undefined,
      externalId: undefined,
      providerTransactionId: undefined,
      attributes: {},
      trusted: { providerTransactionId: undefined, attributes: {} },
      createdAt: new Date().toISOString(),
      callbackBase: 'http://localhost:3000/v1/momo/demo',
    };
    // Act
    const asConfigured = await relayAskingAs({ id: userId, key: apiKey }).check(query);
    const asAnotherUser = await relayAskingAs({ id: apiUser.userId, key: apiUser.userSecret! }).check(query);
    // Assess: the same paid request is SUCCESSFUL for its own user and "never accepted" (404) for another
    expect(asConfigured).toMatchObject({ type: 'report', draft: { status: 'SUCCEEDED' } });
    expect(asAnotherUser).toMatchObject({ type: 'not-found', providerCode: 'RESOURCE_NOT_FOUND' });
  });
});
