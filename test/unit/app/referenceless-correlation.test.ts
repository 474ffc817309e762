import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../shared/adapters/memory/memory-store';
import { HINT_NAMESPACE, ingestIntents } from '../../../shared/app/transactions/ingest-report';
import { registerTransaction } from '../../../shared/app/transactions/register-transaction';
import { parseConfig } from '../../../shared/config/load';
import type { ReportDraft } from '../../../shared/domain/transaction';
import { findRegistrationRules } from '../../../shared/providers/registration-registry';
import type { ReportIntent } from '../../../shared/providers/types';
import { allReceipts } from '../../helpers/receipts';

const NOW = '2026-11-23T10:00:00.000Z';
const config = parseConfig({
  management: { bearerToken: 'a-long-enough-token' },
  accounts: { momo: { demo: { pathSecret: 'momo-path-secret-0123' } } },
});
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const A = '6f1c2a9e-4b7d-4e2a-9c3b-1a2b3c4d5e6f';
const B = '7f1c2a9e-4b7d-4e2a-9c3b-1a2b3c4d5e6f';

function setup() {
  const clock = { now: () => new Date(NOW) };
  const store = new MemoryStore(clock);
  return {
    store,
    deps: { config, store, clock },
    ingest: { store, clock, log: silent, reconciliation: config.reconciliation },
  };
}

/** What MoMo's reference-less route parses: a hint correlated by externalId. */
function hint(externalId: string): ReportIntent {
  const draft: ReportDraft = {
    key: { provider: 'momo', account: 'demo', reference: externalId },
    kind: 'requesttopay',
    status: 'SUCCEEDED',
    reason: undefined,
    providerTransactionId: '363440463',
    externalId,
    amount: { value: '100', currency: 'EUR' },
    party: undefined,
    attributes: undefined,
  };
  return { draft, correlate: [{ via: 'externalId', value: externalId }], hint: true };
}

const batch = (intent: ReportIntent) => ({
  provider: 'momo',
  account: 'demo',
  origin: 'callback' as const,
  receivedAt: NOW,
  authenticated: false,
  intents: [intent],
});

const registration = (reference: string, externalId = 'order-8841') => ({
  provider: 'momo',
  account: 'demo',
  kind: 'requesttopay',
  reference,
  amount: '100',
  currency: 'EUR',
  externalId,
});

describe('reference-less correlation by externalId', () => {
  it('is switched on for MoMo registrations only', () => {
    expect(findRegistrationRules('momo')?.externalIdAliases).toBe(true);
    expect(findRegistrationRules('daraja')?.externalIdAliases).not.toBe(true);
  });

  it('makes the registered transaction with that externalId due now, without changing its status', async () => {
    // Prepare
    const { store, deps, ingest } = setup();
    await registerTransaction(deps, registration(A));
    // Act
    await ingestIntents(ingest, batch(hint('order-8841')));
    // Assess
    const tx = await store.getTransaction({ provider: 'momo', account: 'demo', reference: A });
    expect(tx?.status).toBe('PENDING');
    expect(tx?.reconcile?.dueAt).toBe(NOW);
    expect(store.published).toEqual([]);
  });

  it('keeps a hint that came before the registration, and the registration adopts it (due at once)', async () => {
    // Prepare
    const { store, deps, ingest } = setup();
    await ingestIntents(ingest, batch(hint('order-8841')));
    // Act
    await registerTransaction(deps, registration(A));
    // Assess
    const kept = await store.getRecord({
      provider: 'momo',
      account: 'demo',
      namespace: HINT_NAMESPACE,
      id: 'order-8841',
    });
    expect(kept?.data.status).toBe('SUCCEEDED');
    const tx = await store.getTransaction({ provider: 'momo', account: 'demo', reference: A });
    expect(tx?.reconcile?.dueAt).toBe(NOW);
    expect(store.transactions.size).toBe(1);
  });

  it('matches nothing when two registrations share the externalId (never guessed)', async () => {
    // Prepare
    const { store, deps, ingest } = setup();
    await registerTransaction(deps, registration(A));
    await registerTransaction(deps, registration(B));
    // Act
    await ingestIntents(ingest, batch(hint('order-8841')));
    // Assess
    for (const reference of [A, B]) {
      const tx = await store.getTransaction({ provider: 'momo', account: 'demo', reference });
      expect(tx?.reconcile?.dueAt).not.toBe(NOW);
    }
  });
});

/** A store whose first read of one provider-record namespace misses: what a racing writer looks like. */
function missingFirstRead(store: MemoryStore, namespace: string): MemoryStore {
  let missed = false;
  const getRecord = store.getRecord.bind(store);
  store.getRecord = async (ref, options) => {
    if (!missed && ref.namespace === namespace) {
      missed = true;
      return undefined;
    }
    return getRecord(ref, options);
  };
  return store;
}

describe('a reference-less callback racing its registration', () => {
  it('is evidence on the transaction when it lands between the registration reading hints and writing its alias', async () => {
    // Prepare: the callback's hint is stored, but the registration's first look missed it.
    const { store, deps, ingest } = setup();
    await ingestIntents(ingest, batch(hint('order-8841')));
    missingFirstRead(store, HINT_NAMESPACE);
    // Act
    await registerTransaction(deps, registration(A));
    // Assess
    const tx = await store.getTransaction({ provider: 'momo', account: 'demo', reference: A });
    expect(tx?.evidence?.map((e) => [e.source, e.claim, e.conclusive])).toEqual([
      ['callback', 'SUCCEEDED', false],
    ]);
    expect(tx?.reconcile?.dueAt).toBe(NOW);
  });

  it('is evidence on the transaction when its alias lookup missed a registration that wrote it meanwhile', async () => {
    // Prepare: the registration and its alias exist, but the callback's first alias lookup missed them.
    const { store, deps, ingest } = setup();
    await registerTransaction(deps, registration(A));
    missingFirstRead(store, 'alias:externalId');
    // Act
    await ingestIntents(ingest, batch(hint('order-8841')));
    // Assess
    const tx = await store.getTransaction({ provider: 'momo', account: 'demo', reference: A });
    expect(tx?.evidence?.map((e) => [e.source, e.claim, e.conclusive])).toEqual([
      ['callback', 'SUCCEEDED', false],
    ]);
  });
});

describe('a reference-less callback whose externalId is some transaction reference', () => {
  it("is not filed as that transaction's callback", async () => {
    // Prepare: a transaction whose reference is what the hint's externalId says.
    const { store, deps, ingest } = setup();
    await registerTransaction(deps, registration(A, 'order-1'));
    // Act
    await ingestIntents(ingest, { ...batch(hint(A)), receipt: receiptDraft() });
    // Assess
    const key = { provider: 'momo', account: 'demo', reference: A };
    expect(await allReceipts(store, key)).toEqual([]);
    expect((await store.getTransaction(key))?.evidence ?? []).toEqual([]);
  });
});

function receiptDraft() {
  return {
    routeName: 'callback-by-external-id',
    method: 'PUT',
    path: '/v1/momo/demo/{secret}/requesttopay',
    headers: {},
    sourceIp: '203.0.113.9',
    body: '{"status":"SUCCESSFUL"}',
    rawBody: Buffer.from('{"status":"SUCCESSFUL"}'),
    receivedAt: NOW,
    verification: {},
  };
}
