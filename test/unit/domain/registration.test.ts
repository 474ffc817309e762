import { describe, expect, it } from 'vitest';
import { applyReport } from '../../../shared/domain/apply-report';
import { applyRegistration, type RegistrationTerms } from '../../../shared/domain/registration';
import type { NormalizedReport, TransactionRecord } from '../../../shared/domain/transaction';
import { KEY, report } from '../../helpers/reports';

const NOW = '2026-11-21T10:05:00.000Z';
const ctx = { now: '2026-11-21T10:00:01.000Z', reconcileWindowSeconds: 3600 };

function terms(overrides: Partial<RegistrationTerms> = {}): RegistrationTerms {
  return {
    key: KEY,
    kind: 'requesttopay',
    amount: { value: '100', currency: 'EUR' },
    msisdn: '46733123459',
    externalId: 'order-8841',
    metadata: { cart: 'c-1' },
    reconcileUntil: '2026-11-28T10:05:00.000Z',
    firstCheckAt: '2026-11-21T10:10:00.000Z',
    ...overrides,
  };
}

/** The transaction an orphan report leaves behind, as applyReport writes it. */
function orphanOf(overrides: Partial<NormalizedReport> = {}): TransactionRecord {
  const outcome = applyReport(undefined, report(overrides), ctx);
  if (outcome.kind !== 'write') throw new Error('expected the orphan to be written');
  return { ...outcome.next, revision: 1 };
}

function adopted(current: TransactionRecord, t: RegistrationTerms = terms()): TransactionRecord {
  const outcome = applyRegistration(current, t, NOW);
  if (outcome.kind !== 'adopt') throw new Error(`expected adopt, got ${outcome.kind}`);
  return outcome.next;
}

describe('applyRegistration', () => {
  it('creates a PENDING registered transaction from the terms when nothing is stored', () => {
    // Act
    const outcome = applyRegistration(undefined, terms(), NOW);

    // Assess
    expect(outcome.kind).toBe('create');
    if (outcome.kind !== 'create') return;
    expect(outcome.next).toMatchObject({
      key: KEY,
      status: 'PENDING',
      registered: true,
      amount: { value: '100', currency: 'EUR' },
      msisdn: '46733123459',
      party: { idType: 'MSISDN', id: '46733123459' },
      externalId: 'order-8841',
      metadata: { cart: 'c-1' },
      createdAt: NOW,
      updatedAt: NOW,
      reconcileUntil: '2026-11-28T10:05:00.000Z',
      transitions: [],
      conflicts: [],
      outbox: [],
    });
  });

  it('answers an identical registration of a registered transaction as a repeat', () => {
    // Prepare
    const created = applyRegistration(undefined, terms(), NOW);
    if (created.kind !== 'create') throw new Error('expected create');

    // Act
    const outcome = applyRegistration({ ...created.next, revision: 1 }, terms(), '2026-11-21T11:00:00.000Z');

    // Assess
    expect(outcome.kind).toBe('repeat');
  });

  it.each([
    ['kind', { kind: 'payment' }],
    ['amount', { amount: { value: '101', currency: 'EUR' } }],
    ['currency', { amount: { value: '100', currency: 'USD' } }],
    ['no amount', { amount: undefined }],
    ['msisdn', { msisdn: '46733000000' }],
    ['external id', { externalId: 'order-9999' }],
  ])('answers a registration with another %s as different', (_name, change) => {
    // Prepare
    const created = applyRegistration(undefined, terms(), NOW);
    if (created.kind !== 'create') throw new Error('expected create');

    // Act
    const outcome = applyRegistration({ ...created.next, revision: 1 }, terms(change), NOW);

    // Assess
    expect(outcome.kind).toBe('different');
  });

  it('adopts an orphan success for the same amount: SUCCEEDED, registered, no new event', () => {
    // Prepare
    const orphan = orphanOf();

    // Act
    const next = adopted(orphan);

    // Assess
    expect(next).toMatchObject({
      status: 'SUCCEEDED',
      registered: true,
      amount: { value: '100', currency: 'EUR' },
      providerTransactionId: '363440463',
      metadata: { cart: 'c-1' },
      createdAt: orphan.createdAt,
      updatedAt: NOW,
    });
    expect(next.transitions).toEqual(orphan.transitions);
    expect(next.events).toEqual(orphan.events);
    expect(next.outbox).toEqual([]);
  });

  it('compares amounts as decimals when adopting ("100.00" is "100")', () => {
    expect(adopted(orphanOf({ amount: { value: '100.00', currency: 'EUR' } })).status).toBe('SUCCEEDED');
  });

  it('keeps a published orphan success for another amount SUCCEEDED, with the registration’s terms and a conflict', () => {
    // Prepare
    const orphan = orphanOf({ amount: { value: '1', currency: 'EUR' } });

    // Act
    const next = adopted(orphan);

    // Assess: TransactionSucceeded went out; statuses only move forward.
    expect(next).toMatchObject({
      status: 'SUCCEEDED',
      registered: true,
      amount: { value: '1', currency: 'EUR' },
      registeredAmount: { value: '100', currency: 'EUR' },
      createdAt: orphan.createdAt,
      providerTransactionId: '363440463',
    });
    expect(next.transitions).toEqual(orphan.transitions);
    expect(next.conflicts).toMatchObject([
      { kind: 'AMOUNT_MISMATCH', reportedStatus: 'SUCCEEDED', origin: 'registration', receiptId: 'r1' },
    ]);
    expect(next.conflicts[0]!.detail).toBe(
      'before registration, a callback reported SUCCEEDED with amount 1 reported, 100 registered; the success stands as published',
    );
    expect(next.outbox).toHaveLength(1);
    const event = next.outbox[0]!;
    expect(event.metadata).toMatchObject({
      type: 'TransactionConflict',
      origin: 'registration',
      occurredAt: NOW,
    });
    expect(event.data).toMatchObject({
      status: 'SUCCEEDED',
      conflict: {
        kind: 'AMOUNT_MISMATCH',
        currentStatus: 'SUCCEEDED',
        reportedStatus: 'SUCCEEDED',
        reportedAmount: { value: '1', currency: 'EUR' },
        reportedProviderTransactionId: '363440463',
      },
    });
    expect(next.events.map((e) => e.type)).toEqual([
      'CallbackOrphaned',
      'TransactionSucceeded',
      'TransactionConflict',
    ]);
    expect(next.events.at(-1)!.id).toBe(event.metadata.id);
  });

  it('keeps an unconfirmed orphan claim for another amount AMBIGUOUS and escalated, never back to PENDING', () => {
    // Prepare: an unsigned success held AMBIGUOUS (UNCONFIRMED): TransactionAmbiguous was published.
    const orphan = orphanOf({
      amount: { value: '1', currency: 'EUR' },
      authenticated: false,
      needsConfirmation: true,
    });
    expect(orphan.status).toBe('AMBIGUOUS');
    expect(orphan.events.map((e) => e.type)).toContain('TransactionAmbiguous');

    // Act
    const next = adopted(orphan);

    // Assess: the registration's terms, the orphan's history, the conflict said and a person called.
    expect(next).toMatchObject({
      status: 'AMBIGUOUS',
      reason: { code: 'CONFLICTING_REPORTS' },
      registered: true,
      amount: { value: '100', currency: 'EUR' },
      externalId: 'order-8841',
      transitions: orphan.transitions,
    });
    expect(next.reconcile?.escalatedAt).toBe(NOW);
    expect(String(next.reconcile?.dueAt) <= NOW).toBe(true);
    expect(next.conflicts.map((c) => c.kind)).toEqual(['AMOUNT_MISMATCH']);
    expect(next.outbox.map((e) => e.metadata.type)).toEqual(['TransactionConflict', 'TransactionEscalated']);
    expect(next.outbox[0]!.data).toMatchObject({
      status: 'AMBIGUOUS',
      conflict: { kind: 'AMOUNT_MISMATCH', currentStatus: 'AMBIGUOUS', reportedStatus: 'SUCCEEDED' },
    });
    expect(next.events.slice(0, orphan.events.length)).toEqual(orphan.events);
  });

  it('treats another currency as an amount mismatch', () => {
    // Act
    const next = adopted(orphanOf({ amount: { value: '100', currency: 'USD' } }));

    // Assess
    expect(next.status).toBe('SUCCEEDED');
    expect(next.conflicts[0]).toMatchObject({ kind: 'AMOUNT_MISMATCH' });
    expect(next.conflicts[0]!.detail).toContain('currency USD reported, EUR registered');
  });

  it('keeps a published orphan success paid by another MSISDN SUCCEEDED with an MSISDN conflict, masking the numbers', () => {
    // Act
    const next = adopted(orphanOf({ party: { idType: 'MSISDN', id: '46799999999' } }));

    // Assess
    expect(next.status).toBe('SUCCEEDED');
    expect(next.conflicts[0]).toMatchObject({ kind: 'MSISDN_MISMATCH' });
    // The conflict's words mask both numbers (the payer stays in the party, as its success published it).
    expect(next.conflicts[0]!.detail).not.toContain('46799999999');
    expect(JSON.stringify(next.outbox[0]!.data.conflict)).not.toContain('46799999999');
  });

  it('keeps an amount-less orphan success paid by another MSISDN without the registered amount (never read as paid)', () => {
    // Prepare: a success published with no amount (nothing registered to check it against then).
    const orphan = orphanOf({ amount: undefined, party: { idType: 'MSISDN', id: '46799999999' } });
    expect(orphan).toMatchObject({ status: 'SUCCEEDED', amount: undefined });

    // Act
    const next = adopted(orphan);

    // Assess: the conflict names the payer; the amount stays what the success said (none), the registered
    // one beside it, so the same registration again is a repeat.
    expect(next.conflicts.map((c) => c.kind)).toEqual(['MSISDN_MISMATCH']);
    expect(next.amount).toBeUndefined();
    expect(next.registeredAmount).toEqual({ value: '100', currency: 'EUR' });
    expect(applyRegistration(next, terms(), NOW).kind).toBe('repeat');
  });

  it('does not compare a masked MSISDN', () => {
    expect(adopted(orphanOf({ party: { idType: 'MSISDN', id: '4673****459' } })).status).toBe('SUCCEEDED');
  });

  it('adopts an orphan failure as it is, whatever amount it names', () => {
    // Act
    const next = adopted(
      orphanOf({
        status: 'FAILED',
        amount: { value: '1', currency: 'EUR' },
        reason: { code: 'INSUFFICIENT_FUNDS', message: undefined, providerCode: 'NOT_ENOUGH_FUNDS' },
      }),
    );

    // Assess
    expect(next).toMatchObject({
      status: 'FAILED',
      reason: { code: 'INSUFFICIENT_FUNDS' },
      amount: { value: '100' },
    });
    expect(next.outbox).toEqual([]);
  });

  it('keeps what the orphan knew when the registration does not say it', () => {
    // Act
    const next = adopted(
      orphanOf(),
      terms({ amount: undefined, msisdn: undefined, externalId: undefined, metadata: undefined }),
    );

    // Assess
    expect(next).toMatchObject({
      status: 'SUCCEEDED',
      amount: { value: '100', currency: 'EUR' },
      externalId: 'order-8841',
    });
  });

  it('gives the adoption conflict the same event id every time it is decided (safe to retry)', () => {
    // Prepare
    const orphan = orphanOf({ amount: { value: '1', currency: 'EUR' } });

    // Act
    const first = adopted(orphan);
    const again = adopted(orphan);

    // Assess
    expect(again.outbox[0]!.metadata.id).toBe(first.outbox[0]!.metadata.id);
  });

  it('does not touch its inputs', () => {
    // Prepare
    const orphan = orphanOf({ amount: { value: '1', currency: 'EUR' } });
    const before = structuredClone(orphan);

    // Act
    adopted(orphan);

    // Assess
    expect(orphan).toEqual(before);
  });

  it('gives an adopted transaction that is not final the reconcile window of the registration', () => {
    // Prepare: an AMBIGUOUS orphan still needs reconciling; the registration asked for 7 days.
    const orphan = orphanOf({ status: 'AMBIGUOUS' });

    // Act
    const next = adopted(orphan);

    // Assess
    expect(next.status).toBe('AMBIGUOUS');
    expect(next.reconcileUntil).toBe('2026-11-28T10:05:00.000Z');
  });
});
