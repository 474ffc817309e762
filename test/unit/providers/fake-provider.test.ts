/**
 * Issue 32 item 2: adding a provider = one folder and one registry line. A provider folder kept under the
 * test fixtures (test/fixtures/providers/fake) is registered through the registry's injection point, the
 * one line a real provider adds to shared/providers/registry.ts, and nothing else: its accounts are
 * configured, its callback route is routed, its signature verified, its states mapped, its ack answered,
 * its secrets scrubbed and its timings read, all through the relay's shared code on the in-memory store.
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../shared/adapters/memory/memory-store';
import { callbackSilenceSeconds } from '../../../shared/app/callbacks/callback-health';
import { scheduleFor } from '../../../shared/app/reconciliation/reconcile-timing';
import type { RelayServices } from '../../../shared/app/services';
import { parseConfig } from '../../../shared/config/load';
import { MemoryStatementStore } from '../../../shared/adapters/memory/statement-store';
import { StatementLedger } from '../../../shared/app/statements/statement-sink';
import { registered } from '../../helpers/reports';
import { secretScrubber } from '../../../shared/config/secrets';
import { receiveCallback } from '../../../shared/http/callback-endpoint';
import type { InboundRequest } from '../../../shared/http/types';
import { handleManagementRequest } from '../../../shared/http/management-router';
import { findRegistrationRules } from '../../../shared/providers/registration-registry';
import { PROVIDER_INFRA, registerProvider } from '../../../shared/providers/registry';
import { providerAckLimits, providerCallbackSources, providerWords } from '../../../infra/relay/providers';
import { fakeProvider } from '../../fixtures/providers/fake';

const KEY = 'fakepay-signing-key-0123456789';
const TOKEN = 'management-token-0123456789';
const SECRET = 'fakepay-path-secret-0123456789';
let unregister: () => void;
let services: RelayServices;
let store: MemoryStore;

beforeAll(() => {
  unregister = registerProvider(fakeProvider);
  const config = parseConfig({
    management: { bearerToken: TOKEN },
    accounts: { fakepay: { shop: { pathSecret: SECRET, signingKey: KEY } } },
  });
  store = new MemoryStore();
  const silent = { debug() {}, info() {}, warn() {}, error() {} };
  services = {
    config,
    store,
    clock: { now: () => new Date('2026-11-29T10:00:01.000Z') },
    log: silent,
    scrub: secretScrubber(config),
  };
});
afterAll(() => unregister());

function callback(reference: string, body: object, signature?: string): InboundRequest {
  const raw = Buffer.from(JSON.stringify(body));
  return {
    requestId: `req-${reference}`,
    method: 'POST',
    path: `/v1/fakepay/shop/${SECRET}/payments/${reference}`,
    headers: {
      'content-type': 'application/json',
      'x-fakepay-signature': signature ?? createHmac('sha256', KEY).update(raw).digest('hex'),
    },
    query: {},
    rawBody: raw,
    sourceIp: '198.51.100.7',
    receivedAt: new Date('2026-11-29T10:00:00.000Z'),
  };
}

const key = (reference: string) => ({ provider: 'fakepay', account: 'shop', reference });

describe('a provider added as one folder and one registry line', () => {
  it('routes, verifies, maps and acknowledges its callbacks: PAID settles the payment once', async () => {
    // Act
    const paid = { state: 'PAID', amount: '250', currency: 'KES', payId: 'FP-1' };
    const first = await receiveCallback(services, callback('order-1', paid));
    const again = await receiveCallback(services, callback('order-1', paid));
    // Assess
    expect(first).toMatchObject({ statusCode: 200, body: { ok: true, duplicate: false } });
    expect(again).toMatchObject({ statusCode: 200, body: { ok: true, duplicate: true } });
    const tx = await store.getTransaction(key('order-1'));
    expect(tx).toMatchObject({
      status: 'SUCCEEDED',
      kind: 'payment',
      providerTransactionId: 'FP-1',
      amount: { value: '250', currency: 'KES' },
    });
    expect(store.receiptsOf(key('order-1'))[0]).toMatchObject({
      routeName: 'payment',
      verification: { signature: 'verified' },
    });
    expect(store.published.filter((e) => e.metadata.type === 'TransactionSucceeded')).toHaveLength(1);
  });

  it('maps DECLINED to a failure with its reason', async () => {
    // Act
    const answer = await receiveCallback(
      services,
      callback('order-2', { state: 'DECLINED', amount: '10', currency: 'KES', payId: 'FP-2' }),
    );
    // Assess
    expect(answer.statusCode).toBe(200);
    expect(await store.getTransaction(key('order-2'))).toMatchObject({
      status: 'FAILED',
      reason: { code: 'REJECTED_BY_CUSTOMER', providerCode: 'DECLINED' },
    });
  });

  it('refuses a callback whose signature does not match with 401, quarantined, the key never shown', async () => {
    // Act
    const forged = await receiveCallback(
      services,
      callback('order-3', { state: 'PAID', amount: '1', currency: 'KES', payId: 'FP-3' }, '00'.repeat(32)),
    );
    // Assess
    expect(forged.statusCode).toBe(401);
    expect(await store.getTransaction(key('order-3'))).toBeUndefined();
    const refused = store.quarantined.filter((q) => q.provider === 'fakepay');
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ errorCode: 'UNAUTHORIZED', httpStatus: 401 });
    expect(JSON.stringify(refused)).not.toContain(KEY);
    expect(JSON.stringify(refused)).not.toContain(SECRET);
    expect(JSON.stringify(forged.body)).not.toContain(SECRET);
  });

  it('answers 400 for a body that is not FakePay’s shape, and 404 for a route it does not have', async () => {
    // Act
    const bad = await receiveCallback(services, callback('order-4', { state: 'MAYBE' }));
    const elsewhere = await receiveCallback(services, {
      ...callback('order-5', {}),
      path: `/v1/fakepay/shop/${SECRET}/refunds/order-5`,
    });
    // Assess
    expect(bad.statusCode).toBe(400);
    expect(elsewhere.statusCode).toBe(404);
  });

  it('reads its timings and secrets through the registry', () => {
    // Act, Assess
    expect(scheduleFor('fakepay', 'payment').firstCheckSeconds).toBe(60);
    expect(callbackSilenceSeconds(services.config.reconciliation, 'fakepay', 'shop')).toBe(
      1200 * services.config.reconciliation.timeScale,
    );
    expect(services.scrub(`key ${KEY}`)).not.toContain(KEY);
  });

  it('matches its statement rows by the keys and on the business day its statements declaration names', async () => {
    // Prepare: a payment registered late on 29 Nov; its row at 23:30 UTC is 00:30 on 30 Nov in Lagos.
    const clock = { now: () => new Date('2026-11-30T08:00:00.000Z') };
    const books = new MemoryStore(clock);
    const statements = new MemoryStatementStore();
    const key = { provider: 'fakepay', account: 'shop', reference: 'order-77' };
    await books.createTransaction(
      registered({
        key,
        kind: 'payment',
        amount: { value: '1500', currency: 'NGN' },
        createdAt: '2026-11-29T23:00:00.000Z',
      }),
    );
    const ledger = new StatementLedger({
      config: services.config,
      store: books,
      statements,
      clock,
      log: services.log,
    });
    // Act
    const result = await ledger.ingestRows(
      [
        {
          provider: 'fakepay',
          account: 'shop',
          source: 'pull-api',
          providerId: 'FP-000001',
          externalId: 'order-77',
          time: '2026-11-29T23:30:00.000Z',
          amountIn: '1500',
          amountOut: '0',
          kind: 'payment',
          origin: { ref: 'pull', row: 1 },
        },
      ],
      { actor: { kind: 'system', name: 'pull' } },
    );
    // Assess
    expect(result).toMatchObject({ settled: 1, opened: 0, breaks: 0 });
    expect(await books.getTransaction(key)).toMatchObject({ status: 'SUCCEEDED' });
    const rows = await statements.listRows({ provider: 'fakepay', account: 'shop', day: '2026-11-30' });
    expect(rows.map((r) => r.providerId)).toEqual(['FP-000001']);
  });
});

function management(method: string, path: string, body?: object): InboundRequest {
  return {
    requestId: `mgmt-${method}-${path}`,
    method,
    path,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    query: {},
    rawBody: Buffer.from(body ? JSON.stringify(body) : ''),
    sourceIp: '192.0.2.10',
    receivedAt: new Date('2026-11-29T10:00:00.000Z'),
  };
}

describe('every list derived from the provider registry names the provider added as one folder and one line', () => {
  it('gives infra its declaration: ack limit, latency alarm, callback check, sources and operators’ words', () => {
    // Act, Assess
    expect(PROVIDER_INFRA.map((d) => d.id)).toContain('fakepay');
    expect(providerAckLimits()).toContainEqual({
      ms: 3000,
      label: 'FakePay limit (3 s)',
      phrase: "FakePay's 3 s",
    });
    expect(providerCallbackSources()).toMatchObject({ fakepay: ['203.0.113.0/24'] });
    expect(providerWords.all()).toContain('FakePay');
    expect(providerWords.nonRetrying()).toContain('FakePay');
    expect(providerWords.callbackChecks()).toContain('FakePay HMAC signature');
  });

  it('registers its transactions by its own rules: canonical reference, its kinds, its refusal', async () => {
    // Act
    const rules = findRegistrationRules('fakepay');
    const registered = await handleManagementRequest(
      services,
      management('POST', '/v1/transactions', {
        provider: 'fakepay',
        account: 'shop',
        reference: 'ORDER-9',
        kind: 'payment',
        amount: '40',
        currency: 'KES',
      }),
    );
    const refused = await handleManagementRequest(
      services,
      management('POST', '/v1/transactions', {
        provider: 'fakepay',
        account: 'shop',
        reference: 'not a reference!',
        kind: 'payment',
      }),
    );
    // Assess
    expect(rules?.normalizeReference?.('ORDER-9')).toBe('order-9');
    expect(registered.statusCode).toBe(201);
    expect(await store.getTransaction(key('order-9'))).toMatchObject({ kind: 'payment' });
    expect(refused.statusCode).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('1 to 40 letters');
  });

  it('offers it in the console’s provider filter (GET /v1/me), under its display name', async () => {
    // Act
    const me = await handleManagementRequest(services, management('GET', '/v1/me'));
    // Assess
    expect(me.statusCode).toBe(200);
    expect((me.body as { providers: unknown[] }).providers).toContainEqual({
      id: 'fakepay',
      name: 'FakePay',
    });
  });
});
