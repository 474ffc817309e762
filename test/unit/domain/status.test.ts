import { describe, expect, it } from 'vitest';
import {
  decideTransition,
  TRANSACTION_STATUSES,
  type TransactionStatus,
} from '../../../shared/domain/status';

type Expected = 'advance' | 'same-status' | 'stale' | 'conflict';

// Rows: current status; columns: reported status. The whole forward-only machine, cell by cell.
const TABLE: Record<TransactionStatus, Record<TransactionStatus, Expected>> = {
  PENDING: {
    PENDING: 'same-status',
    AMBIGUOUS: 'advance',
    SUCCEEDED: 'advance',
    FAILED: 'advance',
    EXPIRED: 'advance',
  },
  AMBIGUOUS: {
    PENDING: 'stale',
    AMBIGUOUS: 'same-status',
    SUCCEEDED: 'advance',
    FAILED: 'advance',
    EXPIRED: 'advance',
  },
  SUCCEEDED: {
    PENDING: 'stale',
    AMBIGUOUS: 'stale',
    SUCCEEDED: 'same-status',
    FAILED: 'conflict',
    EXPIRED: 'conflict',
  },
  FAILED: {
    PENDING: 'stale',
    AMBIGUOUS: 'stale',
    SUCCEEDED: 'conflict',
    FAILED: 'same-status',
    EXPIRED: 'conflict',
  },
  // A provider's final answer after the window's end resolves the transaction (a late resolution).
  EXPIRED: {
    PENDING: 'stale',
    AMBIGUOUS: 'stale',
    SUCCEEDED: 'advance',
    FAILED: 'advance',
    EXPIRED: 'same-status',
  },
};

describe('decideTransition', () => {
  const cases = TRANSACTION_STATUSES.flatMap((current) =>
    TRANSACTION_STATUSES.map((reported) => ({ current, reported, expected: TABLE[current][reported] })),
  );

  it.each(cases)('$current + reported $reported → $expected', ({ current, reported, expected }) => {
    // Act
    const transition = decideTransition(current, reported);
    // Assess
    const kind = transition.kind === 'unchanged' ? transition.why : transition.kind;
    expect(kind).toBe(expected);
    if (transition.kind === 'advance')
      expect(transition).toEqual({
        kind: 'advance',
        from: current,
        to: reported,
        ...(current === 'EXPIRED' ? { late: true } : {}),
      });
    if (transition.kind === 'conflict') expect(transition).toEqual({ kind: 'conflict', current, reported });
  });

  it('never moves SUCCEEDED or FAILED', () => {
    for (const current of ['SUCCEEDED', 'FAILED'] as const) {
      for (const reported of TRANSACTION_STATUSES) {
        expect(decideTransition(current, reported).kind).not.toBe('advance');
      }
    }
  });
});
