import type { NormalizedReport, TransactionKey, TransactionRecord } from '../../shared/domain/transaction';

export const KEY = { provider: 'momo', account: 'demo', reference: '6f1c2a9e-4b7d-4e2a-9c3b-1a2b3c4d5e6f' };

export function report(overrides: Partial<NormalizedReport> = {}): NormalizedReport {
  return {
    key: KEY,
    kind: 'requesttopay',
    status: 'SUCCEEDED',
    reason: undefined,
    providerTransactionId: '363440463',
    externalId: 'order-8841',
    amount: { value: '100', currency: 'EUR' },
    party: { idType: 'MSISDN', id: '46733123459' },
    receivedAt: '2026-11-21T10:00:00.000Z',
    origin: 'callback',
    receiptId: 'r1',
    attributes: undefined,
    ...overrides,
  };
}

export function registered(overrides: Partial<TransactionRecord> = {}): TransactionRecord {
  return storedTransaction(KEY, '2026-11-21T09:59:00.000Z', {
    externalId: 'order-8841',
    reconcileUntil: '2026-11-22T09:59:00.000Z',
    ...overrides,
  });
}

/**
 * A transaction as the relay stores it, for tests that seed a store directly: a registered PENDING
 * request to pay of 100 EUR, created and last changed `at`, with no history. `overrides` says what the
 * test's transaction has of its own (its kind, status, reconciliation state, reconcileUntil…).
 */
export function storedTransaction(
  key: TransactionKey,
  at: string,
  overrides: Partial<TransactionRecord> = {},
): TransactionRecord {
  return {
    key,
    kind: 'requesttopay',
    status: 'PENDING',
    registered: true,
    amount: { value: '100', currency: 'EUR' },
    msisdn: undefined,
    externalId: undefined,
    providerTransactionId: undefined,
    reason: undefined,
    party: undefined,
    metadata: undefined,
    attributes: {},
    createdAt: at,
    updatedAt: at,
    reconcileUntil: at,
    revision: 1,
    transitions: [],
    conflicts: [],
    events: [],
    outbox: [],
    ...overrides,
  };
}
