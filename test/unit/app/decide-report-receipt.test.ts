/**
 * A success reported again on a payment already SUCCEEDED without its receipt (a Daraja STK push the STK
 * query settled): the receipt is adopted only from the provider's word (the answer to the relay's own
 * query about it, a signature), kept as a claim to ask about when an unauthenticated callback names it,
 * and a confirmed receipt that disagrees with the recorded one is a conflict (decide-report.ts).
 */
import { describe, expect, it } from 'vitest';
import { decideReport } from '../../../shared/app/transactions/decide-report';
import { MAX_RECEIPT_CLAIMS } from '../../../shared/domain/apply-report';
import type { NormalizedReport, TransactionRecord } from '../../../shared/domain/transaction';
import { registered, report } from '../../helpers/reports';

const ctx = { now: '2026-11-21T10:05:00.000Z', reconcileWindowSeconds: 3600 };
const KEY = { provider: 'daraja', account: 'demo', reference: 'ws_CO_191220191020363925' };

/** Settled by the STK query: SUCCEEDED, no receipt, off the due index. */
function settledWithoutReceipt(overrides: Partial<TransactionRecord> = {}): TransactionRecord {
  return registered({
    key: KEY,
    kind: 'stk',
    status: 'SUCCEEDED',
    amount: { value: '1', currency: 'KES' },
    msisdn: '254708374149',
    reconcile: { checks: 1, recent: [] },
    evidence: [
      {
        source: 'status-api',
        claim: 'SUCCEEDED',
        authenticated: true,
        authentication: ['status-api'],
        conclusive: true,
        at: '2026-11-21T10:02:00.000Z',
        providerCode: '0',
        description: null,
        amount: null,
        receiptId: null,
      },
    ],
    ...overrides,
  });
}

/** The STK callback: path secret and source IP, no signature. */
function stkCallback(receipt: string, overrides: Partial<NormalizedReport> = {}): NormalizedReport {
  return report({
    key: KEY,
    kind: 'stk',
    providerTransactionId: receipt,
    externalId: undefined,
    amount: { value: '1', currency: 'KES' },
    party: { idType: 'MSISDN', id: '254708374149' },
    receivedAt: '2026-11-21T10:04:00.000Z',
    authentication: ['path-secret', 'source-ip'],
    ...overrides,
  });
}

/** Daraja's result of the relay's own transaction status query about a receipt (evidence `receipt`). */
function ownAnswer(receipt: string, overrides: Partial<NormalizedReport> = {}): NormalizedReport {
  return stkCallback(receipt, {
    kind: 'status',
    origin: 'poll',
    viaOwnQuery: true,
    authenticated: true,
    receiptId: 'r-status',
    receivedAt: '2026-11-21T10:05:00.000Z',
    ...overrides,
  });
}

describe('decideReport: the receipt of a payment already SUCCEEDED', () => {
  it('keeps an unauthenticated callback’s receipt as a claim to ask about, never as the receipt', () => {
    // Act
    const outcome = decideReport(settledWithoutReceipt(), stkCallback('NLJ7RT61SV'), ctx, {
      receiptConfirmable: true,
    });

    // Assess
    expect(outcome.kind).toBe('write');
    if (outcome.kind !== 'write') return;
    expect(outcome.events).toEqual([]);
    expect(outcome.next.providerTransactionId).toBeUndefined();
    expect(outcome.next.trusted).toBeUndefined();
    expect(outcome.next.receiptClaims).toEqual(['NLJ7RT61SV']);
    expect(outcome.next.reconcile).toMatchObject({
      dueAt: ctx.now,
      recheckUntil: '2026-11-21T11:05:00.000Z',
    });
    expect(outcome.next.evidence?.at(-1)).toMatchObject({
      source: 'callback',
      claim: 'SUCCEEDED',
      conclusive: false,
    });
  });

  it('keeps no claim where the provider cannot be asked about a receipt', () => {
    const outcome = decideReport(settledWithoutReceipt(), stkCallback('NLJ7RT61SV'), ctx);
    expect(outcome).toEqual({ kind: 'noop', why: 'same-status' });
  });

  it('asks the newest claim first and keeps at most a few, so a flood of forged ones stays bounded', () => {
    // Prepare
    let tx = settledWithoutReceipt();
    // Act
    for (const receipt of ['SBX0FORGE1', 'SBX0FORGE2', 'SBX0FORGE3', 'NLJ7RT61SV']) {
      const outcome = decideReport(tx, stkCallback(receipt, { receiptId: receipt }), ctx, {
        receiptConfirmable: true,
      });
      if (outcome.kind === 'write') tx = outcome.next;
    }
    const again = decideReport(tx, stkCallback('NLJ7RT61SV', { receiptId: 'again' }), ctx, {
      receiptConfirmable: true,
    });
    // Assess
    expect(tx.receiptClaims).toHaveLength(MAX_RECEIPT_CLAIMS);
    expect(tx.receiptClaims![0]).toBe('NLJ7RT61SV');
    expect(again).toEqual({ kind: 'noop', why: 'same-status' });
  });

  it('adopts the receipt Daraja’s answer to its own query names, with that answer as evidence and no event', () => {
    // Prepare
    const claimed = decideReport(settledWithoutReceipt(), stkCallback('NLJ7RT61SV'), ctx, {
      receiptConfirmable: true,
    });
    if (claimed.kind !== 'write') throw new Error('expected the claim to be kept');

    // Act
    const outcome = decideReport(claimed.next, ownAnswer('NLJ7RT61SV'), ctx);

    // Assess
    expect(outcome.kind).toBe('write');
    if (outcome.kind !== 'write') return;
    expect(outcome.events).toEqual([]);
    expect(outcome.next.providerTransactionId).toBe('NLJ7RT61SV');
    expect(outcome.next.trusted?.providerTransactionId).toBe('NLJ7RT61SV');
    expect(outcome.next.receiptClaims).toBeUndefined();
    expect(outcome.next.reconcile?.dueAt).toBeUndefined();
    expect(outcome.next.reconcile?.recheckUntil).toBeUndefined();
    expect(outcome.next.evidence?.at(-1)).toMatchObject({
      source: 'receipt',
      authentication: ['receipt'],
      claim: 'SUCCEEDED',
    });
  });

  it('never adopts a receipt whose answer names another amount: a conflict says it', () => {
    const outcome = decideReport(
      settledWithoutReceipt({ receiptClaims: ['NLJ7RT61SV'] }),
      ownAnswer('NLJ7RT61SV', { amount: { value: '250', currency: 'KES' } }),
      ctx,
    );
    expect(outcome.kind).toBe('write');
    if (outcome.kind !== 'write') return;
    expect(outcome.next.providerTransactionId).toBeUndefined();
    expect(outcome.events.map((e) => e.metadata.type)).toEqual(['TransactionConflict']);
    expect(outcome.events[0]!.data).toMatchObject({ conflict: { kind: 'AMOUNT_MISMATCH' } });
  });

  it('publishes a conflict when the provider confirms another receipt than the one recorded, and keeps it', () => {
    // Prepare: the receipt a statement row named.
    const tx = settledWithoutReceipt({ providerTransactionId: 'NLJ7RT61SV' });

    // Act
    const outcome = decideReport(tx, ownAnswer('NLJ0OTHER1'), ctx);
    const again =
      outcome.kind === 'write' ? decideReport(outcome.next, ownAnswer('NLJ0OTHER1'), ctx) : undefined;

    // Assess
    expect(outcome.kind).toBe('write');
    if (outcome.kind !== 'write') return;
    expect(outcome.next.providerTransactionId).toBe('NLJ7RT61SV');
    expect(outcome.next.status).toBe('SUCCEEDED');
    expect(outcome.events.map((e) => e.metadata.type)).toEqual(['TransactionConflict']);
    expect(outcome.events[0]!.data).toMatchObject({
      conflict: { kind: 'STATUS', currentStatus: 'SUCCEEDED', reportedProviderTransactionId: 'NLJ0OTHER1' },
    });
    expect(again?.kind === 'write' ? again.events : []).toEqual([]);
  });

  it('changes nothing when the provider confirms the receipt already recorded', () => {
    const tx = settledWithoutReceipt({ providerTransactionId: 'NLJ7RT61SV' });
    expect(decideReport(tx, ownAnswer('NLJ7RT61SV'), ctx)).toEqual({ kind: 'noop', why: 'same-status' });
  });
});
