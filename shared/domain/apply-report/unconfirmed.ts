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
 * after the verdict (EXPIRED included), a contradicting claim is surfaced as a conflict and a status check
 * is asked for; after EXPIRED the check can still resolve it (a late resolution).
 */
export function applyUnconfirmed(
  base: TransactionRecord,
  report: NormalizedReport,
  incoming: Evidence,
  ctx: ApplyContext,
  preEvents: EventEnvelope[],
  isNew: boolean,
): ApplyOutcome {
  const claim: Claim = {
    base,
    report,
    incoming,
    ctx,
    state: base.reconcile ?? { checks: 0, recent: [] },
    keep: (next, reconcile, events, changed = false) =>
      record(next, incoming, ctx, reconcile, events, isNew, preEvents, changed),
    preEvents,
    isNew,
  };
  return isFinal(base.status) ? unconfirmedAfterVerdict(claim) : unconfirmedWhileOpen(claim);
}

/** The claim being applied, with what both of its cases use. */
interface Claim {
  base: TransactionRecord;
  report: NormalizedReport;
  incoming: Evidence;
  ctx: ApplyContext;
  /** The transaction's status-check schedule as it stands. */
  state: NonNullable<TransactionRecord['reconcile']>;
  /** The evidence kept on `next` with this schedule and these events (record.ts), no status change. */
  keep: (
    next: TransactionRecord,
    reconcile: TransactionRecord['reconcile'],
    events: EventEnvelope[],
    changed?: boolean,
  ) => ApplyOutcome;
  preEvents: EventEnvelope[];
  isNew: boolean;
}

function unconfirmedWhileOpen(claim: Claim): ApplyOutcome {
  const { base, report, incoming, ctx, state, keep, preEvents, isNew } = claim;
  // A hint, or an unsigned failure: kept as evidence, the transaction due for its check at once. (A
  // failure held this way publishes nothing: the status check's answer is the first event.)
  if (report.hint) return keep(base, hintDue(state, ctx), []);
  // Two claims of opposite outcomes, neither confirmed: the status check decides, but the disagreement
  // is said now, whatever the account's trust settings (one of them may be forged).
  const claimed = claimConflict(base, report, incoming);
  const changed = claimed.next !== base;
  if (report.status === 'FAILED') return keep(claimed.next, dueNow(state, ctx.now), claimed.events, changed);
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
  return keep(next, dueNow(state, ctx.now), claimed.events, changed);
}

function unconfirmedAfterVerdict(claim: Claim): ApplyOutcome {
  const { base, report, incoming, ctx, state, keep } = claim;
  if (base.status === report.status) return { kind: 'noop', why: 'same-status' };
  if (base.evidence?.some((e) => sameEvidence(e, incoming))) return { kind: 'noop', why: 'same-status' };
  const recheck = {
    ...state,
    dueAt: state.leaseOwner ? state.dueAt : ctx.now,
    recheckUntil: new Date(Date.parse(ctx.now) + ctx.reconcileWindowSeconds * 1000).toISOString(),
  };
  // After EXPIRED as after SUCCEEDED or FAILED: said at once (a late answer is never kept silently), then
  // checked; a status answer may still resolve an EXPIRED one (a late resolution), else a person does.
  const settled = [...(base.evidence ?? [])].reverse().find((e) => e.claim === base.status);
  const detail = `unconfirmed ${report.status} reported after ${base.status}${settled ? ` (${describeEvidence(settled)})` : ''}; a status check follows, if one can be made`;
  const said = statusConflict(base, report, {
    detail,
    evidence: settled ? [settled, incoming] : [incoming],
    discriminator: `STATUS:${base.status}:${report.status}`,
  });
  if (!said.changed) return { kind: 'noop', why: 'conflict-already-recorded' };
  // The same claim again (a flood of forged bodies): counted on its conflict, no event, no new check while
  // the one it asked for runs. Once that recheck has lapsed (the status API down or still pending through
  // it), another body of the claim asks for one more: the provider's own late answer (MTN's unsigned
  // callback, after a forger's) must still reach a status check. At most one recheck per window, however
  // many bodies come.
  if (!said.fresh) return keep(said.next, recheckLapsed(state, ctx.now) ? recheck : base.reconcile, [], true);
  return keep(said.next, recheck, said.events);
}

/** Whether no recheck asked for after the verdict still runs (none was, or its window has ended). */
function recheckLapsed(state: Claim['state'], now: string): boolean {
  return !state.recheckUntil || Date.parse(state.recheckUntil) <= Date.parse(now);
}
