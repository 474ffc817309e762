import { readFileSync } from 'node:fs';
import { MemoryDestinationStates } from '../../../shared/adapters/memory/destination-states';
import { wordPressBadgeApi } from '../../../shared/adapters/badges/wordpress-badge-api';
import { join } from 'node:path';
import { beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import * as z from 'zod';
import {
  committedEventSchemaFiles,
  generateEventSchemaFiles,
  REPO_ROOT,
  SCHEMAS_DIR,
} from '../../../scripts/event-schemas';
import { MemoryStore } from '../../../shared/adapters/memory/memory-store';
import { applyBufferedCallback } from '../../../shared/app/buffer/apply-buffered-callback';
import { runBadgeCycle } from '../../../shared/app/badges/badge-feed';
import { ingestReport } from '../../../shared/app/transactions/ingest-report';
import { forceCheck, resolveByHand } from '../../../shared/app/transactions/operate-transaction';
import type { BufferedMessage } from '../../../shared/app/ports';
import { receiveCallback } from '../../../shared/http/callback-endpoint';
import type { ReconcileServices } from '../../../shared/app/reconciliation/reconcile';
import { runPollCycle } from '../../../shared/app/reconciliation/poll-cycle';
import { registerTransaction } from '../../../shared/app/transactions/register-transaction';
import { parseConfig } from '../../../shared/config/load';
import { secretScrubber } from '../../../shared/config/secrets';
import {
  CALLBACK_HEALTH_NAMESPACE,
  runCallbackHealthCycle,
} from '../../../shared/app/callbacks/callback-health';
import { EVENT_ORIGINS, EVENT_TYPES, type EventEnvelope } from '../../../shared/domain/event-envelope';
import {
  EVENT_DATA_SCHEMAS,
  EVENT_DETAIL_SCHEMAS,
  EVENT_PROVIDERS,
  type EventData,
} from '../../../shared/domain/event-schemas';
import type { NormalizedReport } from '../../../shared/domain/transaction';
import type { InboundRequest } from '../../../shared/http/types';
import type { C2BDecision, C2BOutcome } from '../../../shared/providers/daraja/c2b-validation';
import { PROVIDERS } from '../../../shared/providers/registry';
import type { StatusAnswer } from '../../../shared/providers/types';
import { hmacB64 } from '../providers/airtel/support';
import { MemoryStatementStore } from '../../../shared/adapters/memory/statement-store';
import { StatementLedger } from '../../../shared/app/statements/statement-sink';
import { closeDay } from '../../../shared/app/statements/close-day';
import { DeliveryEngine } from '../../../shared/app/delivery/engine';
import { MemoryDeliveryLog } from '../../../shared/adapters/memory/delivery-log';
import { destinationSchema } from '../../../shared/config/schema';

/*
 * Every event real producers emit (the use cases on the in-memory store: callbacks of the three providers,
 * C2B validation, rejections, the poller, operator actions, registrations adopting orphans) must validate
 * against the schema of its detail-type, as it goes over the wire (JSON). The schemas are strict, so a
 * field added to an event without adding it to shared/domain/event-schemas.ts fails here.
 */

const MOMO_SECRET = 'momo-path-secret-0123456789';
const DARAJA_SECRET = 'daraja-path-secret-0123456789';
const AIRTEL_KEY = 'airtel-callback-key-0123456789';
const SAFARICOM_IP = '196.201.214.200';
const START = Date.parse('2026-11-23T10:00:00.000Z');

const config = parseConfig({
  management: { bearerToken: 'management-token-0123456789' },
  reconciliation: { windowSeconds: 3600, escalateAmbiguousAfterSeconds: 600, notFoundGraceSeconds: 120 },
  accounts: {
    momo: { demo: { pathSecret: MOMO_SECRET, currency: 'EUR', confirmSuccess: false } },
    daraja: {
      ke: {
        pathSecret: DARAJA_SECRET,
        shortCode: '600638',
        c2b: {
          deadlineMs: 300,
          defaultDecision: 'reject',
          defaultRejectCode: 'C2B00016',
          knownAccounts: true,
        },
        sourceIp: { allow: [`${SAFARICOM_IP}/32`] },
      },
    },
    airtel: { ug: { callbackKey: AIRTEL_KEY } },
  },
});

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const fixture = (path: string) => readFileSync(new URL(`../../fixtures/${path}`, import.meta.url), 'utf8');

/** A store, services for every use case, a status API that answers `answer`, and a clock to move. */
function world(
  answer: () => StatusAnswer = () => ({ type: 'pending', providerCode: 'PENDING', detail: 'PENDING' }),
) {
  const store = new MemoryStore();
  let now = START;
  const services: ReconcileServices = {
    config,
    store,
    clock: { now: () => new Date(now) },
    log: silent,
    scrub: secretScrubber(config),
    statusApi: () => ({ check: async () => answer() }),
    metrics: { count: () => {}, timing: () => {}, flush: () => {} },
  };
  const ingestDeps = { store, clock: services.clock, log: silent, reconciliation: config.reconciliation };
  return { store, services, ingestDeps, advance: (seconds: number) => void (now += seconds * 1000) };
}

type World = ReturnType<typeof world>;

function request(method: string, path: string, body: string, overrides: Partial<InboundRequest> = {}) {
  return {
    requestId: 'req-1',
    method,
    path,
    headers: { 'content-type': 'application/json' },
    query: {},
    rawBody: Buffer.from(body, 'utf8'),
    sourceIp: '198.51.100.7',
    receivedAt: new Date(START),
    ...overrides,
  } satisfies InboundRequest;
}

const momoRef = (n: number) => `6f1c2a9e-4b7d-4e2a-9c3b-1a2b3c4d5e${String(n).padStart(2, '0')}`;

async function registerMomo(w: World, reference: string, overrides: Record<string, unknown> = {}) {
  await registerTransaction(w.services, {
    provider: 'momo',
    account: 'demo',
    kind: 'requesttopay',
    reference,
    amount: '100',
    currency: 'EUR',
    msisdn: '46733123459',
    externalId: 'order-8841',
    ...overrides,
  });
}

function momoReport(
  reference: string,
  status: NormalizedReport['status'],
  overrides: Partial<NormalizedReport> = {},
) {
  return {
    key: { provider: 'momo', account: 'demo', reference },
    kind: 'requesttopay',
    status,
    reason:
      status === 'FAILED'
        ? { code: 'REJECTED_BY_CUSTOMER', message: 'APPROVAL_REJECTED', providerCode: 'APPROVAL_REJECTED' }
        : undefined,
    providerTransactionId: status === 'SUCCEEDED' ? '363440463' : undefined,
    externalId: 'order-8841',
    amount: { value: '100', currency: 'EUR' },
    party: { idType: 'MSISDN', id: '46733123459' },
    attributes: undefined,
    receivedAt: new Date(START).toISOString(),
    origin: 'callback',
    receiptId: 'r1',
    ...overrides,
  } satisfies NormalizedReport;
}

const succeededAnswer = (reference: string): StatusAnswer => ({
  type: 'report',
  draft: momoReport(reference, 'SUCCEEDED'),
  providerCode: 'SUCCESSFUL',
  detail: 'SUCCESSFUL',
});
const failedAnswer = (reference: string): StatusAnswer => ({
  type: 'report',
  draft: momoReport(reference, 'FAILED'),
  providerCode: 'FAILED',
  detail: 'FAILED APPROVAL_REJECTED',
});

async function pollUntilExpired(w: World, reference: string) {
  const key = `momo#demo#${reference}`;
  for (let i = 0; i < 40 && w.store.transactions.get(key)?.status !== 'EXPIRED'; i++) {
    w.advance(300);
    await runPollCycle(w.services, { owner: 'p1' });
  }
  expect(w.store.transactions.get(key)?.status).toBe('EXPIRED');
}

/** The producers, each in its own world; every event they publish, as EventBridge gets it (JSON). */
const scenarios: Record<string, () => Promise<MemoryStore>> = {
  'MoMo callbacks: success and failure of registered transactions, a wrong path secret': async () => {
    const w = world();
    await registerMomo(w, momoRef(1));
    await registerMomo(w, momoRef(2), { amount: '250', externalId: 'order-8843' });
    const momo = (ref: string, body: string, secret = MOMO_SECRET) =>
      receiveCallback(w.services, request('PUT', `/v1/momo/demo/${secret}/requesttopay/${ref}`, body));
    expect((await momo(momoRef(1), fixture('momo/requesttopay-successful.json'))).statusCode).toBe(200);
    expect((await momo(momoRef(2), fixture('momo/requesttopay-failed-object-reason.json'))).statusCode).toBe(
      200,
    );
    expect((await momo(momoRef(3), '{}', 'not-the-path-secret-0000')).statusCode).toBe(401);
    return w.store;
  },
  'the ingress buffer: a MoMo callback taken while the store is down, applied later': async () => {
    const w = world();
    await registerMomo(w, momoRef(1));
    const buffered: BufferedMessage[] = [];
    w.services.ingressBuffer = {
      accept: async (message) => (buffered.push(message), { id: `m${buffered.length}` }),
    };
    w.store.failure = 'error';
    const body = fixture('momo/requesttopay-successful.json');
    const path = `/v1/momo/demo/${MOMO_SECRET}/requesttopay/${momoRef(1)}`;
    const response = await receiveCallback(w.services, request('PUT', path, body));
    expect(response.statusCode).toBe(200);
    w.store.failure = 'none';
    expect(buffered).toHaveLength(1);
    for (const message of buffered)
      await applyBufferedCallback(w.services, JSON.parse(JSON.stringify(message)));
    return w.store;
  },
  'the ingress buffer: a Daraja C2B validation answered while the store is down, applied later': async () => {
    const w = world();
    const buffered: BufferedMessage[] = [];
    w.services.ingressBuffer = {
      accept: async (message) => (buffered.push(message), { id: `m${buffered.length}` }),
    };
    w.store.failure = 'error';
    const path = `/v1/daraja/ke/${DARAJA_SECRET}/c2b/validation`;
    const response = await receiveCallback(
      w.services,
      request('POST', path, fixture('daraja/c2b-validation.json'), { sourceIp: SAFARICOM_IP }),
    );
    expect(response.statusCode).toBe(200);
    w.store.failure = 'none';
    expect(buffered.map((m) => m.kind)).toEqual(['decision']);
    for (const message of buffered)
      await applyBufferedCallback(w.services, JSON.parse(JSON.stringify(message)));
    return w.store;
  },
  'Airtel callbacks: an orphan TA (ambiguous), a bad hash': async () => {
    const w = world();
    const transaction = { id: 'AT-ORDER-7', message: 'Ambiguous', status_code: 'TA', airtel_money_id: 'MP1' };
    const signed = JSON.stringify({
      transaction,
      hash: hmacB64(AIRTEL_KEY, JSON.stringify({ transaction })),
    });
    const forged = JSON.stringify({
      transaction,
      hash: hmacB64('wrong-key-0123456789', JSON.stringify({ transaction })),
    });
    expect(
      (await receiveCallback(w.services, request('POST', '/v1/airtel/ug/callback', signed))).statusCode,
    ).toBe(200);
    expect(
      (await receiveCallback(w.services, request('POST', '/v1/airtel/ug/callback', forged))).statusCode,
    ).toBe(401);
    return w.store;
  },
  'Daraja callbacks: C2B validation and confirmation, an orphan STK success': async () => {
    const w = world();
    await w.store.putRecord({
      provider: 'daraja',
      account: 'ke',
      namespace: 'c2b-account',
      id: 'ACC-001',
      data: { active: true },
      createdAt: '2026-11-21T09:00:00.000Z',
    });
    const daraja = (route: string, body: string) =>
      receiveCallback(
        w.services,
        request('POST', `/v1/daraja/ke/${DARAJA_SECRET}/${route}`, body, { sourceIp: SAFARICOM_IP }),
      );
    expect((await daraja('c2b/validation', fixture('daraja/c2b-validation.json'))).body).toEqual({
      ResultCode: '0',
      ResultDesc: 'Accepted',
    });
    expect((await daraja('c2b/confirmation', fixture('daraja/c2b-confirmation.json'))).statusCode).toBe(200);
    expect((await daraja('stk', fixture('daraja/stk-success.json'))).statusCode).toBe(200);
    return w.store;
  },
  'Daraja balance and reversal results: a reversed STK payment, a refused and a timed-out reversal, balances':
    async () => {
      const w = world();
      const daraja = (route: string, body: string) =>
        receiveCallback(
          w.services,
          request('POST', `/v1/daraja/ke/${DARAJA_SECRET}/${route}`, body, { sourceIp: SAFARICOM_IP }),
        );
      await registerTransaction(w.services, {
        provider: 'daraja',
        account: 'ke',
        kind: 'stk',
        reference: 'ws_CO_191220191020363925',
        amount: '1',
        currency: 'KES',
      });
      for (const [route, file] of [
        ['stk', 'stk-success'],
        ['reversal/result', 'reversal-result-success'],
        ['reversal/result', 'reversal-result-failure'],
        ['reversal/timeout', 'reversal-timeout-echo'],
        ['balance/result', 'balance-result-success'],
        ['balance/result', 'balance-result-failure'],
        ['balance/timeout', 'balance-timeout-echo'],
      ])
        expect((await daraja(route!, fixture(`daraja/${file}.json`))).statusCode).toBe(200);
      return w.store;
    },
  'the poller: success by poll, expiry, a late callback, a resolution by hand': async () => {
    let answer: (ref: string) => StatusAnswer = succeededAnswer;
    let asked = momoRef(1);
    const w = world(() => answer(asked));
    await registerMomo(w, momoRef(1));
    w.advance(300);
    await runPollCycle(w.services, { owner: 'p1' });
    answer = () => ({
      type: 'error',
      error: 'unavailable',
      detail: 'HTTP 500 after 3 attempts',
      httpStatus: 500,
    });
    for (const n of [2, 3]) {
      asked = momoRef(n);
      await registerMomo(w, momoRef(n));
      await pollUntilExpired(w, momoRef(n));
    }
    await ingestReport(
      w.ingestDeps,
      momoReport(momoRef(2), 'SUCCEEDED', { receivedAt: w.services.clock.now().toISOString() }),
    );
    await resolveByHand(
      w.services,
      { provider: 'momo', account: 'demo', reference: momoRef(3) },
      {
        status: 'FAILED',
        note: 'MTN support ticket 4411: never paid',
        reasonCode: 'REJECTED_BY_CUSTOMER',
      },
      {
        actor: { id: 'ana', name: 'ana', email: null, role: 'operator', via: 'token' },
        approvedBy: {
          id: 'sub-1',
          name: 'bo@example.com',
          email: 'bo@example.com',
          role: 'admin',
          via: 'cognito',
        },
      },
    );
    return w.store;
  },
  'the poller: escalation of an old AMBIGUOUS transaction': async () => {
    const w = world();
    await registerMomo(w, momoRef(1));
    await ingestReport(
      w.ingestDeps,
      momoReport(momoRef(1), 'AMBIGUOUS', {
        amount: undefined,
        reason: { code: 'TIMED_OUT', message: undefined, providerCode: 'TA' },
      }),
    );
    for (let i = 0; i < 6; i++) {
      w.advance(300);
      await runPollCycle(w.services, { owner: 'p1' });
    }
    return w.store;
  },
  'conflicts: unverified success, status, amount and MSISDN mismatch': async () => {
    let answer: (ref: string) => StatusAnswer = failedAnswer;
    let asked = momoRef(1);
    const w = world(() => answer(asked));
    // An unsigned success the status API denies (UNVERIFIED_SUCCESS, with TransactionFailed).
    await registerMomo(w, momoRef(1));
    await ingestReport(w.ingestDeps, momoReport(momoRef(1), 'SUCCEEDED', { needsConfirmation: true }));
    await runPollCycle(w.services, { owner: 'p1' });
    // A proven success the status API calls FAILED (STATUS).
    asked = momoRef(2);
    await registerMomo(w, momoRef(2));
    await ingestReport(w.ingestDeps, momoReport(momoRef(2), 'SUCCEEDED', { authenticated: true }));
    await forceCheck(w.services, { provider: 'momo', account: 'demo', reference: momoRef(2) }, CHECKER);
    // Another amount, another payer.
    answer = () => ({ type: 'pending', providerCode: 'PENDING', detail: 'PENDING' });
    await registerMomo(w, momoRef(3));
    await ingestReport(
      w.ingestDeps,
      momoReport(momoRef(3), 'SUCCEEDED', { amount: { value: '1', currency: 'EUR' } }),
    );
    await registerMomo(w, momoRef(4));
    await ingestReport(
      w.ingestDeps,
      momoReport(momoRef(4), 'SUCCEEDED', { party: { idType: 'MSISDN', id: '46700000001' } }),
    );
    // A status API that does not know a reference a callback reported on (NOT_FOUND).
    answer = () => ({ type: 'not-found', providerCode: 'RESOURCE_NOT_FOUND', detail: 'HTTP 404' });
    asked = momoRef(5);
    await registerMomo(w, momoRef(5));
    await ingestReport(w.ingestDeps, momoReport(momoRef(5), 'SUCCEEDED', { needsConfirmation: true }));
    await forceCheck(w.services, { provider: 'momo', account: 'demo', reference: momoRef(5) }, CHECKER);
    return w.store;
  },
  'the badge feed: a badge created, activated, updated, expired and deleted': async () => {
    const store = new MemoryStore();
    let now = START;
    const badges = new Map<string, Record<string, unknown>>();
    const put = (id: string, overrides: Record<string, unknown>) =>
      badges.set(id, {
        id,
        badge_name: 'Sale',
        badge_type: 'image',
        filter: [
          { id: 101, name: 'Kitenge Shirt', sku: 'KIT-SHIRT-01', image: 'https://shop.example/a.jpg' },
        ],
        badge_style: '<span>Sale</span>',
        badge_settings: { display: 'block' },
        priority: '1',
        status: '1',
        created_by: 'admin',
        valid_from: '2026-11-23T13:01:00+03:00',
        valid_to: '2026-11-23T10:03:00Z',
        created_at: '2026-11-23 12:00:00',
        updated_at: '2026-11-23 12:00:00',
        _links: { self: [{ href: 'https://shop.example/wp-json/cpbw/v1/badges/7' }] },
        ...badges.get(id),
        ...overrides,
      });
    const services = {
      config: parseConfig({
        management: { bearerToken: 'management-token-0123456789' },
        badges: { shops: { demo: { baseUrl: 'https://shop.example', pollSeconds: 60 } } },
      }),
      store,
      clock: { now: () => new Date(now) },
      log: silent,
      badgeApi: wordPressBadgeApi({
        fetchImpl: async (url: string) => {
          const id = /\/badges\/([^/]+)$/.exec(url)?.[1];
          if (id === undefined) return new Response(JSON.stringify([...badges.values()]));
          return badges.has(id)
            ? new Response(JSON.stringify(badges.get(id)))
            : new Response(
                '{"code":"rest_badge_invalid_id","message":"Invalid badge ID.","data":{"status":404}}',
                {
                  status: 404,
                },
              );
        },
      }),
    };
    put('7', {});
    put('8', { filter: 'all', valid_from: '', valid_to: '' });
    await runBadgeCycle(services);
    now += 90_000;
    put('8', { filter: 12, badge_name: 'Big sale' });
    await runBadgeCycle(services);
    now += 120_000;
    badges.delete('8');
    await runBadgeCycle(services);
    return store;
  },
  'registrations adopting orphans: a mismatch, an unsigned success without an amount': async () => {
    const w = world();
    await ingestReport(
      w.ingestDeps,
      momoReport(momoRef(1), 'SUCCEEDED', { amount: { value: '1', currency: 'EUR' } }),
    );
    await registerMomo(w, momoRef(1));
    await ingestReport(w.ingestDeps, momoReport(momoRef(2), 'SUCCEEDED', { amount: undefined }));
    await registerMomo(w, momoRef(2));
    return w.store;
  },
};

/** Callback health: an account silent for its silence time while a transaction waits, then a callback. */
scenarios['callback silence and resumption'] = async () => {
  const w = world();
  await registerMomo(w, momoRef(90));
  w.advance(1000);
  await runCallbackHealthCycle(w.services);
  w.advance(60);
  await w.store.putRecord({
    provider: 'momo',
    account: 'demo',
    namespace: CALLBACK_HEALTH_NAMESPACE,
    id: 'last-callback',
    data: { lastCallbackAt: new Date(w.services.clock.now()).toISOString() },
    createdAt: new Date(w.services.clock.now()).toISOString(),
  });
  await runCallbackHealthCycle(w.services);
  return w.store;
};

/**
 * The provider's own records (docs/statements.md): a pull row opening a C2B payment the callback never
 * reported, an uploaded row settling an AMBIGUOUS payment, a row contradicting a FAILED verdict, a day closed.
 */
scenarios['statement rows and the daily close'] = async () => {
  const w = world();
  const statements = new MemoryStatementStore();
  const deps = { config, store: w.store, statements, clock: w.services.clock, log: silent };
  const ledger = new StatementLedger(deps);
  const at = new Date(w.services.clock.now()).toISOString();
  const row = (providerId: string, source: 'pull-api' | 'statement-file' = 'pull-api') => ({
    provider: 'daraja',
    account: 'ke',
    source,
    providerId,
    time: at,
    amountIn: '100',
    amountOut: '0',
    currency: 'KES',
    kind: 'payment' as const,
    origin: { ref: 'statement.csv', row: 2 },
  });
  await ledger.ingestRows([row('SKS0000001')], { actor: { kind: 'system', name: 'pull' } });
  await registerTransaction(w.services, {
    provider: 'daraja',
    account: 'ke',
    kind: 'stk',
    reference: 'ws_CO_statement_1',
    amount: '100',
    currency: 'KES',
  });
  await ingestReport(w.ingestDeps, {
    key: { provider: 'daraja', account: 'ke', reference: 'ws_CO_statement_1' },
    kind: 'stk',
    status: 'FAILED',
    reason: { code: 'REJECTED_BY_CUSTOMER', message: 'cancelled', providerCode: '1032' },
    providerTransactionId: undefined,
    externalId: undefined,
    amount: undefined,
    party: undefined,
    receivedAt: at,
    origin: 'poll',
    receiptId: undefined,
    attributes: undefined,
  });
  await w.store.putRecord({
    provider: 'daraja',
    account: 'ke',
    namespace: 'alias:receipt',
    id: 'SKS0000002',
    data: { reference: 'ws_CO_statement_1' },
    createdAt: at,
  });
  await ledger.ingestRows([row('SKS0000002', 'statement-file')], {
    actor: {
      kind: 'person',
      name: 'jane.doe',
      ref: { id: 'jane.doe', name: 'jane.doe', email: null, role: 'operator', via: 'token' },
    },
  });
  w.advance(3 * 86_400);
  await closeDay(
    deps,
    { provider: 'daraja', account: 'ke', day: at.slice(0, 10) },
    {
      actor: {
        kind: 'person',
        name: 'jane.doe',
        ref: { id: 'jane.doe', name: 'jane.doe', email: null, role: 'operator', via: 'token' },
      },
    },
  );
  w.store.published.push(...statements.published);
  return w.store;
};

/** The delivery engine's operator event: a destination answering 410 (the engine's own code path). */
scenarios['webhook destination answering 410 Gone: DestinationDisabled'] = async () => {
  const w = world();
  const destinations = {
    shop: destinationSchema.parse({
      url: 'https://shop.example.com/hooks',
      signingSecrets: [`whsec_${Buffer.alloc(32, 7).toString('base64')}`],
    }),
  };
  const engine = new DeliveryEngine({
    destinations,
    secretsOf: (name) => destinations[name as 'shop'].signingSecrets,
    sender: { send: async () => ({ kind: 'answered', status: 410, excerpt: 'gone' }) },
    log: new MemoryDeliveryLog(),
    states: new MemoryDestinationStates(),
    clock: { now: () => new Date(START) },
    scheduler: { after: () => {} },
    scrub: (text) => text,
    runtime: 'aws',
    onDisabled: (_d, _r, _at, event) => w.store.published.push(event),
  });
  // Any event the filter takes; only what the engine publishes is checked here.
  await engine.submit({
    metadata: {
      id: '0b7c1a52-3f9e-4a0b-9d35-2f4f1f0c9a11',
      version: '1',
      type: 'TransactionSucceeded',
      occurredAt: new Date(START).toISOString(),
      correlationId: 'momo:ug:ref-1',
      origin: 'callback',
    },
    data: { provider: 'momo', account: 'ug' },
  });
  await engine.settled();
  return w.store;
};

const emitted: { scenario: string; event: EventEnvelope }[] = [];

beforeAll(async () => {
  for (const [scenario, run] of Object.entries(scenarios)) {
    const store = await run();
    for (const event of store.published)
      emitted.push({ scenario, event: JSON.parse(JSON.stringify(event)) as EventEnvelope });
  }
});

const byType = (type: string) => emitted.filter((e) => e.event.metadata.type === type).map((e) => e.event);

/** The operator behind a check now: named in the events it causes (checkedByHand). */
const CHECKER = { id: 'cy', name: 'cy', email: null, role: 'operator', via: 'token' } as const;

describe('event schemas: every event the producers emit', () => {
  it('validates against the schema of its detail-type (strict: no field the schema does not name)', () => {
    expect(emitted.length).toBeGreaterThan(20);
    const failures = emitted.flatMap(({ scenario, event }) => {
      const result = EVENT_DETAIL_SCHEMAS[event.metadata.type].safeParse(event);
      return result.success
        ? []
        : [{ scenario, type: event.metadata.type, issues: z.prettifyError(result.error), event }];
    });
    expect(failures).toEqual([]);
  });

  it('covers every detail-type and the variants of their data', () => {
    expect([...new Set(emitted.map((e) => e.event.metadata.type))].sort()).toEqual([...EVENT_TYPES].sort());
    expect(new Set(emitted.map((e) => e.event.metadata.origin))).toEqual(new Set(EVENT_ORIGINS));
    const transactional = emitted.filter(
      (e) => !e.event.metadata.type.startsWith('Badge') && e.event.metadata.type !== 'DestinationDisabled',
    );
    expect(new Set(transactional.map((e) => e.event.data.provider))).toEqual(new Set(EVENT_PROVIDERS));
    expect(new Set(byType('BadgeUpdated').flatMap((e) => e.data.changedFields as string[]))).toEqual(
      new Set(['badge_name', 'filter']),
    );
    // The three filter forms of a badge: "all", a product id, the products.
    const filters = [...byType('BadgeCreated'), ...byType('BadgeUpdated')].map(
      (e) => (e.data.badge as { filter: unknown }).filter,
    );
    expect(filters).toEqual(expect.arrayContaining(['all', 12, [expect.objectContaining({ id: 101 })]]));
    const conflicts = byType('TransactionConflict') as EventEnvelope<EventData<'TransactionConflict'>>[];
    expect(new Set(conflicts.map((e) => e.data.conflict.kind))).toEqual(
      new Set(EVENT_DATA_SCHEMAS.TransactionConflict.shape.conflict.shape.kind.options),
    );
    const finals = [...byType('TransactionSucceeded'), ...byType('TransactionFailed')];
    expect(finals.some((e) => e.data.lateResolution === true && e.metadata.origin === 'callback')).toBe(true);
    expect(finals.some((e) => e.data.resolvedByHand !== undefined && e.data.lateResolution === true)).toBe(
      true,
    );
    // A buffered C2B validation's decision carries origin buffer, like every applied buffered message.
    expect(byType('C2BValidationDecided').map((e) => e.metadata.origin)).toEqual(
      expect.arrayContaining(['callback', 'buffer']),
    );
    expect(byType('TransactionExpired').every((e) => e.data.lastProviderAnswer !== undefined)).toBe(true);
    expect(byType('TransactionEscalated').some((e) => e.data.lastProviderAnswer !== null)).toBe(true);
    // What the wire drops: an undefined member is absent, never null (reason.message here).
    expect(byType('TransactionEscalated')[0]!.data.reason).toEqual({ code: 'TIMED_OUT', providerCode: 'TA' });
  });

  it('names the transaction in correlationId (a badge event: its shop and badge; a destination event: the destination)', () => {
    for (const { event } of emitted) {
      if (event.metadata.type.startsWith('Badge')) {
        const b = event.data as { shop: string; badgeId: string };
        expect(event.metadata.correlationId).toBe(`badges:${b.shop}:${b.badgeId}`);
        continue;
      }
      if (event.metadata.type === 'DestinationDisabled') {
        const { destination } = event.data as { destination: string };
        expect(event.metadata.correlationId).toBe(`destinations:${destination}`);
        continue;
      }
      const d = event.data as {
        provider: string;
        account: string;
        reference?: string | null;
        originatorConversationId?: string | null;
      };
      // A fact about no known transaction (a balance) is correlated by its request id (or its digest).
      const subject =
        event.metadata.type === 'CallbackRejected'
          ? 'quarantine'
          : (d.reference ?? d.originatorConversationId ?? event.metadata.correlationId.split(':')[2]);
      expect(event.metadata.correlationId).toBe(`${d.provider}:${d.account}:${subject}`);
    }
  });

  it('refuses a field the schema does not name, and an amount that is not a canonical decimal string', () => {
    const [succeeded] = byType('TransactionSucceeded');
    const schema = EVENT_DETAIL_SCHEMAS.TransactionSucceeded;
    expect(schema.safeParse(succeeded).success).toBe(true);
    expect(schema.safeParse({ ...succeeded, data: { ...succeeded!.data, surprise: 1 } }).success).toBe(false);
    expect(
      schema.safeParse({ ...succeeded, data: { ...succeeded!.data, amount: { value: 100 } } }).success,
    ).toBe(false);
    expect(
      schema.safeParse({ ...succeeded, data: { ...succeeded!.data, amount: { value: '100.00' } } }).success,
    ).toBe(false);
    expect(EVENT_DETAIL_SCHEMAS.TransactionFailed.safeParse(succeeded).success).toBe(false);
  });
});

describe('event schemas: ties to the code', () => {
  it('lists the providers of the registry', () => {
    expect(PROVIDERS.map((p) => p.id).sort()).toEqual([...EVENT_PROVIDERS].sort());
  });

  it('matches the C2B decision types of the Daraja engine', () => {
    type Decided = EventData<'C2BValidationDecided'>;
    expectTypeOf<C2BDecision['decision']>().toEqualTypeOf<Decided['decision']>();
    expectTypeOf<C2BDecision['resultCode']>().toEqualTypeOf<Decided['resultCode']>();
    expectTypeOf<C2BDecision['rule']>().toEqualTypeOf<Decided['rule']>();
    expectTypeOf<Pick<C2BOutcome, 'deadlineApplied' | 'defaultApplied' | 'elapsedMs' | 'detail'>>().toExtend<
      Pick<Decided, 'deadlineApplied' | 'defaultApplied' | 'elapsedMs' | 'detail'>
    >();
  });
});

describe('event schemas: the committed JSON Schema files', () => {
  let generated: Map<string, string>;
  beforeAll(async () => {
    generated = await generateEventSchemaFiles();
  });

  it('are what `npm run schemas` generates now', async () => {
    const committed = await committedEventSchemaFiles();
    const hint =
      'the JSON Schema files under schemas/events are out of date: run `npm run schemas` and commit them';
    expect(committed, hint).toEqual([...generated.keys()].sort());
    for (const [path, content] of generated) {
      expect(readFileSync(join(REPO_ROOT, path), 'utf8'), `${path}: ${hint}`).toBe(content);
    }
  });

  it('name one detail-type each, draft 2020-12, with $id, title and description', () => {
    for (const type of EVENT_TYPES) {
      const schema = JSON.parse(generated.get(`${SCHEMAS_DIR}/${type}.json`)!);
      expect(schema).toMatchObject({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        $id: expect.stringContaining(type),
        title: type,
        description: expect.any(String),
      });
      expect(schema.properties.metadata.properties.type.const).toBe(type);
    }
  });

  it('accept every emitted event and refuse an unknown field (read back as schemas)', () => {
    for (const { event } of emitted) {
      const type = event.metadata.type;
      const detail = z.fromJSONSchema(JSON.parse(generated.get(`${SCHEMAS_DIR}/${type}.json`)!));
      expect(detail.safeParse(event).success, `${type} against ${SCHEMAS_DIR}/${type}.json`).toBe(true);
      expect(detail.safeParse({ ...event, data: { ...event.data, surprise: 1 } }).success).toBe(false);
      const whole = z.fromJSONSchema(JSON.parse(generated.get(`${SCHEMAS_DIR}/draft-04/${type}.json`)!));
      const eventBridgeEvent = {
        version: '0',
        id: event.metadata.id,
        'detail-type': type,
        source: 'mobile-money.relay',
        detail: event,
      };
      expect(whole.safeParse(eventBridgeEvent).success, `${type} against draft-04/${type}.json`).toBe(true);
    }
  });
});
