import { isFinal } from '../status';
import type { NormalizedReport, TransactionRecord } from '../transaction';
import type { ApplyContext } from './outcome';

type ReconcileState = NonNullable<TransactionRecord['reconcile']>;

/** The reconciliation state after a status change: final leaves the due index, a hint is due at once. */
export function reconcileAfter(
  tx: TransactionRecord,
  to: TransactionRecord['status'],
  report: NormalizedReport,
  now: string,
): TransactionRecord['reconcile'] {
  const state = tx.reconcile ?? { checks: 0, recent: [] };
  if (isFinal(to)) {
    const { dueAt: _due, leaseOwner: _owner, recheckUntil: _recheck, ...rest } = state;
    return rest;
  }
  // Due at once, unless a poller holds the item (dueAt is then its lease; it checks anyway).
  if (to === 'AMBIGUOUS' && report.reason?.code === 'UNCONFIRMED') return dueNow(state, now);
  return { ...state, dueAt: state.dueAt ?? now };
}

export function dueNow(state: ReconcileState, now: string): ReconcileState {
  return state.leaseOwner || (state.dueAt !== undefined && state.dueAt <= now)
    ? state
    : { ...state, dueAt: now };
}

/** Due at once, unless the last status check is younger than `hintRecheckSeconds`: then due after it. */
export function hintDue(state: ReconcileState, ctx: ApplyContext): ReconcileState {
  const last = state.recent.at(-1)?.at;
  if (!last || state.leaseOwner) return dueNow(state, ctx.now);
  const next = new Date(Date.parse(last) + (ctx.hintRecheckSeconds ?? 60) * 1000).toISOString();
  if (next <= ctx.now) return dueNow(state, ctx.now);
  return state.dueAt !== undefined && state.dueAt <= next ? state : { ...state, dueAt: next };
}
