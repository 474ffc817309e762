/**
 * The decision about a held (UNCONFIRMED) reversal: what the provider's status answer about its own receipt
 * says of it, and how often the poller asks (domain/held-reversal.ts). Pure.
 */
import { describe, expect, it } from 'vitest';
import {
  afterReversalAsk,
  asksSpent,
  type HeldReversal,
  judgeReversalAnswer,
  nextReversalDue,
  REVERSAL_ASKS,
  type ReversalAnswer,
  withCountedSettled,
  withReversalHeld,
} from '../../../shared/domain/held-reversal';
import { dueAtOf } from '../../../shared/domain/reconcile-schedule';
import { registered } from '../../helpers/reports';

const KES = (value: string) => ({ value, currency: 'KES' });
const PAYMENT = { amount: KES('100'), providerTransactionId: 'PAYMENT001' };
const HELD = { receipt: 'REVERSAL01', amount: KES('40') };

function answer(overrides: Partial<ReversalAnswer> = {}): ReversalAnswer {
  return {
    status: 'SUCCEEDED',
    receipt: 'REVERSAL01',
    amount: KES('40'),
    reasonType: 'Reversal',
    isReversal: true,
    said: 'TransactionStatus Completed, ReasonType Reversal',
    ...overrides,
  };
}

describe('the status answer about a held reversal', () => {
  it('confirms it when that transaction is a completed reversal for the amount claimed', () => {
    expect(judgeReversalAnswer(HELD, PAYMENT, answer())).toEqual({ verdict: 'confirms' });
  });

  it('compares with the whole payment when the held result named no amount', () => {
    const held = { ...HELD, amount: null };
    expect(judgeReversalAnswer(held, PAYMENT, answer({ amount: KES('100') })).verdict).toBe('confirms');
    expect(judgeReversalAnswer(held, PAYMENT, answer({ amount: KES('40') })).verdict).toBe('contradicts');
  });

  it.each([
    ['another amount', answer({ amount: KES('41') }), 'AMOUNT_MISMATCH'],
    ['another currency', answer({ amount: { value: '40', currency: 'UGX' } }), 'AMOUNT_MISMATCH'],
    [
      'a movement that is no reversal',
      answer({ reasonType: 'Pay Bill Online', isReversal: false }),
      'STATUS',
    ],
    ['no type at all', answer({ reasonType: undefined, isReversal: false }), 'STATUS'],
    ['the payment itself', answer({ receipt: 'PAYMENT001' }), 'STATUS'],
    ['a failed transaction', answer({ status: 'FAILED', said: 'TransactionStatus Failed' }), 'STATUS'],
  ])('contradicts it when Daraja names %s', (_, said, kind) => {
    const held = said.receipt === 'PAYMENT001' ? { ...HELD, receipt: 'PAYMENT001' } : HELD;
    expect(judgeReversalAnswer(held, PAYMENT, said)).toMatchObject({ verdict: 'contradicts', kind });
  });

  it.each([
    ['no final answer (the query failed)', answer({ status: 'PENDING', said: 'could not be found' })],
    ['an answer about another receipt', answer({ receipt: 'OTHER00001' })],
    ['no amount', answer({ amount: undefined })],
  ])('says nothing with %s', (_, said) => {
    expect(judgeReversalAnswer(HELD, PAYMENT, said).verdict).toBe('says-nothing');
  });
});

describe('the asks about a held reversal', () => {
  const NOW = '2026-12-01T04:00:00.000Z';
  const claim = { id: 'req-1', namespace: 'reversal-unconfirmed', receipt: 'REVERSAL01', amount: KES('40') };
  const paid = () => ({
    ...registered({ key: { provider: 'daraja', account: 'ke', reference: 'ws_CO_1' }, kind: 'stk' }),
    status: 'SUCCEEDED' as const,
  });

  it('makes a final payment due at once, and due no more once nothing waits', () => {
    // Act
    const held = withReversalHeld(paid(), claim, NOW)!;
    // Assess
    expect(dueAtOf(held)).toBe(NOW);
    const ended = {
      ...held,
      heldReversals: held.heldReversals!.map((h) => ({ ...h, state: 'refused' as const })),
    };
    expect(dueAtOf(ended)).toBeUndefined();
  });

  it('is one per request and receipt; settled once the payment counts a reversal of that receipt', () => {
    // Prepare
    const held = withReversalHeld(paid(), claim, NOW)!;
    expect(withReversalHeld(held, claim, NOW)).toBeUndefined();
    expect(withReversalHeld(held, { ...claim, id: 'req-2' }, NOW)).toBeUndefined();
    const reversal = {
      id: 'req-9',
      amount: KES('40'),
      at: NOW,
      reversalReceipt: 'REVERSAL01',
      eventId: 'e',
      evidence: { source: 'callback' } as never,
    };
    // Act
    const counted = withCountedSettled({ ...held, reversals: [reversal] });
    // Assess
    expect(counted.heldReversals?.[0]?.state).toBe('confirmed');
    expect(dueAtOf(counted)).toBeUndefined();
  });

  it('backs off between a fixed number of asks, then waits once for the last answer', () => {
    // Prepare
    let held: HeldReversal = withReversalHeld(paid(), claim, NOW)!.heldReversals![0]!;
    const dues: string[] = [];
    // Act
    let at = NOW;
    while (!asksSpent(held)) {
      held = afterReversalAsk(held, at, 1, 'requested');
      dues.push(held.dueAt);
      at = held.dueAt;
    }
    // Assess
    expect(held.asks).toBe(REVERSAL_ASKS);
    const gaps = dues.map((due, i) => (Date.parse(due) - Date.parse(i ? dues[i - 1]! : NOW)) / 1000);
    expect(gaps).toEqual([60, 600, 1800]);
    expect(nextReversalDue({ heldReversals: [held] })).toBe(held.dueAt);
  });
});
