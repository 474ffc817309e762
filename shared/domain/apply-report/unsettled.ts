import { buildEvent, correlationIdOf, type EventEnvelope, transactionEventData } from '../events';
import type { Evidence } from '../evidence';
import { decideTransition, isFinal } from '../status';
import type { ConflictRecord, NormalizedReport, TransactionRecord } from '../transaction';
import {
  conflict,
  conflictDetail,
  conflictEvent,
  conflictKindOf,
  type ConflictSaid,
  keptConflict,
  mismatchSubject,
} from './conflict';
import type { BusinessMismatch } from './business-check';
import { MAX_EVIDENCE_TEXT, withEvidence } from './intake';
import { type ApplyContext, type ApplyOutcome, withEvents } from './outcome';
import { record } from './record';

/**
 * Sources disagree and precedence cannot pick one: an open transaction becomes (or stays) AMBIGUOUS with
 * reason CONFLICTING_REPORTS and is escalated at once; a final one keeps its status. Either way one
 * TransactionConflict names both pieces of evidence (once per kind and pair of claims).
 */
export function unsettled(
  base: TransactionRecord,
  report: NormalizedReport,
  incoming: Evidence,
  against: Evidence,
  ctx: ApplyContext,
): ApplyOutcome {
  const kind = conflictKindOf(against, incoming);
  const detail = conflictDetail(kind, against, incoming);
  if (isFinal(base.status)) return conflict(base, report, ctx, kind, detail, [], false, [against, incoming]);
  const said: ConflictSaid = {
    kind,
    reportedStatus: incoming.claim === 'NOT_FOUND' ? 'FAILED' : report.status,
    detail,
    evidence: [against, incoming],
    currentStatus: 'AMBIGUOUS',
    discriminator: `${kind}:${against.claim}:${incoming.claim}`,
  };
  const kept = keptConflict(base.conflicts, report, said);
  if (!kept.changed) return { kind: 'noop', why: 'conflict-already-recorded' };
  if (!kept.fresh)
    return record({ ...base, conflicts: kept.conflicts }, incoming, ctx, base.reconcile, [], false, [], true);
  return escalateAmbiguous(base, report, incoming, ctx, said, kept.conflicts);
}

/**
 * A success for another amount, currency or payer on an open transaction: the sources disagree, so it
 * becomes AMBIGUOUS and is escalated like any other conflict (escalateAmbiguous); the claim stays in the
 * conflict record only, never in the status evidence. One conflict per amount and receipt reported (an
 * identical repeat is counted on its record); a final transaction keeps its status (conflict).
 */
export function mismatched(
  base: TransactionRecord,
  report: NormalizedReport,
  incoming: Evidence,
  ctx: ApplyContext,
  mismatch: BusinessMismatch,
): ApplyOutcome {
  const subject = mismatchSubject(report);
  const said: ConflictSaid = {
    kind: mismatch.kind,
    reportedStatus: report.status,
    detail: mismatch.detail,
    evidence: [incoming],
    currentStatus: 'AMBIGUOUS',
    discriminator: `${mismatch.kind}:${subject}`,
    subject,
  };
  const kept = keptConflict(base.conflicts, report, said);
  // A repeat (or the same delivery again) is what conflict() does with any conflict: counted, or a noop.
  if (!kept.fresh) return conflict(base, report, ctx, said.kind, said.detail, [], false, said.evidence);
  return escalateAmbiguous(base, report, incoming, ctx, said, kept.conflicts, false);
}

/**
 * The open transaction made AMBIGUOUS (CONFLICTING_REPORTS), the conflict said, a person called. The
 * incoming claim joins the status evidence unless it is not about the status (`asEvidence` false).
 */
function escalateAmbiguous(
  base: TransactionRecord,
  report: NormalizedReport,
  incoming: Evidence,
  ctx: ApplyContext,
  said: ConflictSaid,
  conflicts: ConflictRecord[],
  asEvidence = true,
): ApplyOutcome {
  const reason = {
    code: 'CONFLICTING_REPORTS' as const,
    message: said.detail.slice(0, MAX_EVIDENCE_TEXT),
    providerCode: report.reason?.providerCode,
  };
  const transition = decideTransition(base.status, 'AMBIGUOUS');
  const state = base.reconcile ?? { checks: 0, recent: [] };
  let next: TransactionRecord = {
    ...base,
    status: 'AMBIGUOUS',
    reason,
    updatedAt: ctx.now,
    evidence: asEvidence ? withEvidence(base.evidence, incoming) : base.evidence,
    reconcile: { ...state, dueAt: state.dueAt ?? ctx.now, escalatedAt: state.escalatedAt ?? ctx.now },
    conflicts,
    transitions:
      transition.kind === 'advance'
        ? [
            ...base.transitions,
            {
              from: base.status,
              to: 'AMBIGUOUS',
              at: report.receivedAt,
              origin: report.origin,
              receiptId: report.receiptId,
              evidence: incoming,
            },
          ]
        : base.transitions,
  };
  const events: EventEnvelope[] = [];
  if (transition.kind === 'advance')
    events.push(
      buildEvent(
        'TransactionAmbiguous',
        correlationIdOf(next),
        'AMBIGUOUS',
        report.origin,
        report.receivedAt,
        {
          ...transactionEventData(next, report.receivedAt),
        },
      ),
    );
  events.push(conflictEvent(next, report, said));
  if (!state.escalatedAt) events.push(escalationEvent(next, ctx.now, report.origin));
  next = withEvents(next, events);
  return { kind: 'write', effect: 'conflict', next, events };
}

/** TransactionEscalated: an AMBIGUOUS transaction a person should look at (one per transaction). */
export function escalationEvent(
  tx: TransactionRecord,
  now: string,
  origin: EventEnvelope['metadata']['origin'],
) {
  return buildEvent('TransactionEscalated', correlationIdOf(tx), 'AMBIGUOUS:escalated', origin, now, {
    ...transactionEventData(tx, now),
    ambiguousSince: [...tx.transitions].reverse().find((t) => t.to === 'AMBIGUOUS')?.at ?? tx.createdAt,
    lastProviderAnswer: lastAnswerOf(tx),
  });
}

/** The latest status call as the events publish it (what was asked and by whom stay on the transaction). */
function lastAnswerOf(tx: TransactionRecord) {
  const last = tx.reconcile?.recent.at(-1);
  if (!last) return null;
  return {
    at: last.at,
    answer: last.answer,
    detail: last.detail,
    ...(last.providerCode !== undefined ? { providerCode: last.providerCode } : {}),
  };
}
