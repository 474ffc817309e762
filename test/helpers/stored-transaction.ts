import type { TransactionKey, TransactionRecord } from '../../shared/domain/transaction';

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
