import { KindMismatchError } from './errors';
import type { Evidence } from './evidence';
import type { NormalizedReport, TransactionRecord } from './transaction';
import { businessMismatch } from './apply-report/business-check';
import { conflict } from './apply-report/conflict';
import { sameEvidence, takeIn } from './apply-report/intake';
import { applyNotFound } from './apply-report/not-found';
import type { ApplyContext, ApplyOptions, ApplyOutcome } from './apply-report/outcome';
import { applyByPrecedence } from './apply-report/precedence';
import { mismatched } from './apply-report/unsettled';
import { isFinal } from './status';

export type { ApplyContext, ApplyOptions, ApplyOutcome } from './apply-report/outcome';
export { escalationEvent } from './apply-report/unsettled';
export { evidenceOf, withEvidence } from './apply-report/intake';
export { describeEvidence, statusConflict } from './apply-report/conflict';
export { withEvents } from './apply-report/outcome';
export { MAX_RECEIPT_CLAIMS, withReceiptClaim } from './apply-report/transition';

/**
 * Pure decision: given what is stored and a new report, what to write and which events that write
 * publishes. Every report is evidence; the one precedence rule (decideByPrecedence) says what it
 * settles; the forward-only state machine (decideTransition) says which status change that is. Applying
 * the same report twice yields a no-op the second time, which is what makes duplicate and concurrent
 * deliveries safe (the store's conditional write picks one winner).
 *
 * A report's path, each step in its own module under `apply-report/`:
 * 1. intake: the transaction it meets (stored, born, orphan) and the evidence it is;
 * 2. business check: a success for another amount or payer is a conflict, never a success;
 * 3. a "not found" status answer (not-found);
 * 4. precedence: held for a status check (unconfirmed), a conflict (unsettled), or settled;
 * 5. transition: the state machine's status change, with the conflicts it overrules.
 */
export function applyReport(
  current: TransactionRecord | undefined,
  reported: NormalizedReport,
  ctx: ApplyContext,
  options: ApplyOptions = {},
): ApplyOutcome {
  if (current && reported.kindFromPath && current.kind !== reported.kind)
    throw new KindMismatchError(
      `The callback is for a ${reported.kind.slice(0, 40)}, but ${current.key.reference} was registered as a ${current.kind}`,
    );
  // A hint only points at a transaction it found; it never creates one.
  if (reported.hint && current === undefined) return { kind: 'noop', why: 'hint' };
  const intake = takeIn(current, reported, ctx, options);
  const { base, incoming, preEvents, isNew } = intake;
  // The very same delivery again (its receipt; direct or its copy from the buffer) is no news at all,
  // whether it was kept as evidence or only in a conflict (a success for another amount or payer). (A "not
  // found" answer is kept once and counted: the next one is news, not-found.ts.)
  if (!isNew && incoming.claim !== 'NOT_FOUND') {
    const inConflict = conflictRecords(base, incoming);
    if ((incoming.receiptId !== null && inConflict) || base.evidence?.some((e) => sameEvidence(e, incoming)))
      return { kind: 'noop', why: inConflict ? 'conflict-already-recorded' : 'same-status' };
  }
  // Checked on the claim as made: an unsigned success for another amount is a conflict, not a hint.
  const mismatch = businessMismatch(base, reported);
  // An open transaction a mismatching success contradicts is AMBIGUOUS and escalated; a final one (or
  // one this report creates) keeps its status.
  if (mismatch && !isNew && !isFinal(base.status)) return mismatched(base, reported, incoming, ctx, mismatch);
  if (mismatch)
    return conflict(base, reported, ctx, mismatch.kind, mismatch.detail, preEvents, isNew, [incoming]);
  if (reported.notFound) return applyNotFound(base, reported, incoming, ctx);
  return applyByPrecedence(intake, reported, ctx);
}

/** A conflict on `tx` already records this very delivery (its receipt; a receipt-less answer by its time). */
function conflictRecords(tx: TransactionRecord, delivery: Evidence): boolean {
  return tx.conflicts.some((c) =>
    delivery.receiptId !== null
      ? c.receiptId === delivery.receiptId || c.lastReceiptId === delivery.receiptId
      : c.at === delivery.at || c.lastAt === delivery.at,
  );
}
