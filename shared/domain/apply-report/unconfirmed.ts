import type { EventEnvelope } from '../events';
import type { Evidence } from '../evidence';
import { decideTransition, isFinal } from '../status';
import type { NormalizedReport, TransactionRecord } from '../transaction';
import { unconfirmedSuccess } from './business-check';
import { claimConflict, describeEvidence, statusConflict } from './conflict';
import { sameEvidence } from './intake';
import type { ApplyContext, ApplyOutcome } from './outcome';
import { record } from './record';
import { dueNow, hintDue } from './schedule';
import { advance } from './transition';

/**
 * A claim of an outcome that cannot settle on its own (a hint, an unsigned success the account confirms,
 * an unsigned failure on an account that confirms failures): kept as evidence and checked with the
 * status API. Open, an unconfirmed success makes the transaction AMBIGUOUS (UNCONFIRMED) meanwhile; a
 * hint or a held failure changes no status;
 * after the verdict, a contradicting claim is surfaced as a conflict and a status check is asked for, and
 * after EXPIRED the check can still resolve it (a late resolution).
 */
export function applyUnconfirmed(
  base: TransactionRecord,
  report: NormalizedReport,
  incoming: Evidence,
  ctx: ApplyContext,
  preEvents: EventEnvelope[],
  isNew: boolean,
): ApplyOutcome {
  if (!isFinal(base.status)) return unconfirmedWhileOpen(base, report, incoming, ctx, preEvents, isNew);
  return unconfirmedAfterVerdict(base, report, incoming, ctx, preEvents, isNew);
}

function unconfirmedWhileOpen(
  base: TransactionRecord,
  report: NormalizedReport,
  incoming: Evidence,
  ctx: ApplyContext,
  preEvents: EventEnvelope[],
  isNew: boolean,
): ApplyOutcome {
  const state = base.reconcile ?? { checks: 0, recent: [] };
  // A hint, or an unsigned failure: kept as evidence, the transaction due for its check at once. (A
  // failure held this way publishes nothing: the status check's answer is the first event.)
  if (report.hint) return record(base, incoming, ctx, hintDue(state, ctx), [], isNew, preEvents);
  // Two claims of opposite outcomes, neither confirmed: the status check decides, but the disagreement
  // is said now, whatever the account's trust settings (one of them may be forged).
  const claimed = claimConflict(base, report, incoming);
  const changed = claimed.next !== base;
  if (report.status === 'FAILED')
    return record(
      claimed.next,
      incoming,
      ctx,
      dueNow(state, ctx.now),
      claimed.events,
      isNew,
      preEvents,
      changed,
    );
  const held = unconfirmedSuccess(base, report) ?? report;
  const transition = decideTransition(base.status, 'AMBIGUOUS');
  if (transition.kind === 'advance')
    return advance(claimed.next, held, incoming, ctx, [...preEvents, ...claimed.events], {
      isNew,
      orphan: isNew && !base.registered,
      born: false,
    });
  const next = {
    ...claimed.next,
    reason: base.reason?.code === 'UNCONFIRMED' || !base.reason ? held.reason : base.reason,
  };
  return record(next, incoming, ctx, dueNow(state, ctx.now), claimed.events, isNew, preEvents, changed);
}

function unconfirmedAfterVerdict(
  base: TransactionRecord,
  report: NormalizedReport,
  incoming: Evidence,
  ctx: ApplyContext,
  preEvents: EventEnvelope[],
  isNew: boolean,
): ApplyOutcome {
  const state = base.reconcile ?? { checks: 0, recent: [] };
  if (base.status === report.status) return { kind: 'noop', why: 'same-status' };
  if (base.evidence?.some((e) => sameEvidence(e, incoming))) return { kind: 'noop', why: 'same-status' };
  const recheck = {
    ...state,
    dueAt: state.leaseOwner ? state.dueAt : ctx.now,
    recheckUntil: new Date(Date.parse(ctx.now) + ctx.reconcileWindowSeconds * 1000).toISOString(),
  };
  if (base.status === 'EXPIRED') return record(base, incoming, ctx, recheck, [], isNew, preEvents);
  const settled = [...(base.evidence ?? [])].reverse().find((e) => e.claim === base.status);
  const detail = `unconfirmed ${report.status} reported after ${base.status}${settled ? ` (${describeEvidence(settled)})` : ''}; a status check follows`;
  const said = statusConflict(base, report, {
    detail,
    evidence: settled ? [settled, incoming] : [incoming],
    discriminator: `STATUS:${base.status}:${report.status}`,
  });
  if (!said.changed) return { kind: 'noop', why: 'conflict-already-recorded' };
  // The same claim again (a flood of forged bodies): counted on its conflict, no event, no new check.
  if (!said.fresh) return record(said.next, incoming, ctx, base.reconcile, [], isNew, preEvents, true);
  return record(said.next, incoming, ctx, recheck, said.events, isNew, preEvents);
}
