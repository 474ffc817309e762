import type { NormalizedReport, TransactionRecord } from '../../shared/domain/transaction';

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
  return {
    key: KEY,
    kind: 'requesttopay',
    status: 'PENDING',
    registered: true,
    amount: { value: '100', currency: 'EUR' },
    msisdn: undefined,
    externalId: 'order-8841',
    providerTransactionId: undefined,
    reason: undefined,
    party: undefined,
    metadata: undefined,
    attributes: {},
    createdAt: '2026-11-21T09:59:00.000Z',
    updatedAt: '2026-11-21T09:59:00.000Z',
    reconcileUntil: '2026-11-22T09:59:00.000Z',
    revision: 1,
    transitions: [],
    conflicts: [],
    events: [],
    outbox: [],
    ...overrides,
  };
}
