export const TRANSACTION_STATUSES = ['PENDING', 'AMBIGUOUS', 'SUCCEEDED', 'FAILED', 'EXPIRED'] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];

const FINAL_STATUSES: ReadonlySet<TransactionStatus> = new Set(['SUCCEEDED', 'FAILED', 'EXPIRED']);

export function isFinal(status: TransactionStatus): boolean {
  return FINAL_STATUSES.has(status);
}

export type Transition =
  /** `late`: a provider's final answer after EXPIRED; it resolves the transaction (money may have moved). */
  | { kind: 'advance'; from: TransactionStatus; to: TransactionStatus; late?: boolean }
  | { kind: 'unchanged'; why: 'same-status' | 'stale' }
  | { kind: 'conflict'; current: TransactionStatus; reported: TransactionStatus };

const RANK: Record<TransactionStatus, number> = {
  PENDING: 0,
  AMBIGUOUS: 1,
  SUCCEEDED: 2,
  FAILED: 2,
  EXPIRED: 2,
};

/**
 * The forward-only state machine: PENDING → AMBIGUOUS → SUCCEEDED | FAILED | EXPIRED.
 * SUCCEEDED and FAILED never change; a different final report is a conflict, anything older is stale.
 * EXPIRED ("no final answer in the window") still takes a provider's final answer: a late resolution.
 */
export function decideTransition(current: TransactionStatus, reported: TransactionStatus): Transition {
  if (current === reported) return { kind: 'unchanged', why: 'same-status' };
  if (current === 'EXPIRED' && (reported === 'SUCCEEDED' || reported === 'FAILED'))
    return { kind: 'advance', from: current, to: reported, late: true };
  if (isFinal(current)) {
    return isFinal(reported) ? { kind: 'conflict', current, reported } : { kind: 'unchanged', why: 'stale' };
  }
  if (RANK[reported] <= RANK[current]) return { kind: 'unchanged', why: 'stale' };
  return { kind: 'advance', from: current, to: reported };
}
