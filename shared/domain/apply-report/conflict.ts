import { withConflict } from '../bounded-history';
import { buildEvent, correlationIdOf, type EventEnvelope, transactionEventData } from '../events';
import { publishedReason } from '../reasons';
import { type Evidence, rankOf } from '../evidence';
import type { ConflictRecord, NormalizedReport, TransactionRecord } from '../transaction';
import { isOutcome, withEvidence } from './intake';
import { type ApplyContext, type ApplyOutcome, withEvents } from './outcome';

/** The conflict kind two disagreeing pieces of evidence make. */
export function conflictKindOf(known: Evidence, incoming: Evidence): ConflictRecord['kind'] {
  if (known.claim === 'NOT_FOUND' || incoming.claim === 'NOT_FOUND') return 'NOT_FOUND';
  if (known.claim === 'SUCCEEDED' && rankOf(known) <= 1 && incoming.source === 'status-api')
    return 'UNVERIFIED_SUCCESS';
  return 'STATUS';
}

export function describeEvidence(e: Evidence): string {
  const how = e.authentication.length ? e.authentication.join('+') : 'unauthenticated';
  return `${e.source} (${how}) said ${e.claim}${e.receiptId ? ` in receipt ${e.receiptId}` : ''} at ${e.at}`;
}

export function conflictDetail(kind: ConflictRecord['kind'], known: Evidence, incoming: Evidence): string {
  const notFound =
    incoming.claim === 'NOT_FOUND' ? incoming : known.claim === 'NOT_FOUND' ? known : undefined;
  const reported = notFound === incoming ? known : incoming;
  if (kind === 'NOT_FOUND' && notFound)
    return (
      `the status API does not know this reference, yet a ${describeEvidence(reported)}. ` +
      'Did the API user in accounts.<provider>.<account>.api make the request? Any other gets "not found". ' +
      'Not settled: a person must look.'
    );
  if (kind === 'UNVERIFIED_SUCCESS')
    return 'an unsigned success was reported; the status API answered FAILED';
  return `${describeEvidence(known)}; then ${describeEvidence(incoming)}`;
}

/**
 * One disagreement, described once: the transaction keeps it (keptConflict: a ConflictRecord) and
 * TransactionConflict publishes it (conflictEvent), both from this and the report that brought it.
 */
export interface ConflictSaid {
  kind: ConflictRecord['kind'];
  /** What the disagreeing claim said (the record's and the event's `reportedStatus`). */
  reportedStatus: NormalizedReport['status'];
  detail: string;
  evidence: Evidence[];
  /** The transaction's status once the conflict is said. */
  currentStatus: TransactionRecord['status'];
  /** The event's identity within the transaction: one event per distinct contradiction. */
  discriminator: string;
  /** When the event happened; the report's receipt time unless said. */
  occurredAt?: string;
  /** The receipt the conflict is about, when not the report's own (an earlier claim's; may be none). */
  receiptId?: string | undefined;
  /** The amount the disagreeing claim stated, when not the report's. */
  reportedAmount?: NormalizedReport['amount'];
  /** What a business-check conflict is about (ConflictRecord.subject). */
  subject?: string;
}

/**
 * What a success for another amount or payer is about: its amount and provider receipt, so a second,
 * different one is its own conflict (and event) while the same one again is a repeat. Bounded: both
 * come from the provider.
 */
export function mismatchSubject(report: NormalizedReport): string {
  const a = report.amount;
  return `${a?.value} ${a?.currency} ${report.providerTransactionId}`.slice(0, 160);
}

/** The conflict on the transaction's list (withConflict: a repeat is counted on the record it repeats). */
export function keptConflict(
  conflicts: readonly ConflictRecord[],
  report: NormalizedReport,
  said: ConflictSaid,
): ReturnType<typeof withConflict> {
  return withConflict(conflicts, {
    kind: said.kind,
    reportedStatus: said.reportedStatus,
    at: report.receivedAt,
    origin: report.origin,
    receiptId: 'receiptId' in said ? said.receiptId : report.receiptId,
    detail: said.detail,
    evidence: said.evidence,
    ...(said.subject !== undefined ? { subject: said.subject } : {}),
  });
}

/**
 * A conflict `tx` already kept, said again by stronger evidence, is news with an id of its own: consumers
 * dedupe on the id, and the same one would drop it. (The discriminator of `conflict()` says it already.)
 */
function restatedDiscriminator(tx: TransactionRecord, said: ConflictSaid): string {
  if (said.discriminator.includes(':rank')) return said.discriminator;
  const kept = tx.conflicts.filter(
    (c) => c.kind === said.kind && c.reportedStatus === said.reportedStatus && c.subject === said.subject,
  );
  const last = said.evidence.at(-1);
  return kept.length > 1 && last ? `${said.discriminator}:rank${rankOf(last)}` : said.discriminator;
}

/** TransactionConflict: what the transaction says and what the report said instead. */
export function conflictEvent(
  tx: TransactionRecord,
  report: NormalizedReport,
  said: ConflictSaid,
): EventEnvelope {
  return buildEvent(
    'TransactionConflict',
    correlationIdOf(tx),
    restatedDiscriminator(tx, said),
    report.origin,
    said.occurredAt ?? report.receivedAt,
    {
      ...transactionEventData(tx, report.receivedAt),
      conflict: {
        kind: said.kind,
        detail: said.detail,
        currentStatus: said.currentStatus,
        reportedStatus: said.reportedStatus,
        // The contract's code; the provider's code and words stay in it (the conflict's kind and detail say the rest).
        reportedReason: publishedReason(report.reason).reason,
        reportedAmount: ('reportedAmount' in said ? said.reportedAmount : report.amount) ?? null,
        reportedProviderTransactionId: report.providerTransactionId ?? null,
        evidence: said.evidence,
      },
    },
  );
}

/**
 * The conflict kept on `tx` and its event, whether or not it repeats one already kept (a status settled
 * over weaker evidence is said every time it is settled).
 */
export function sayConflict(
  tx: TransactionRecord,
  report: NormalizedReport,
  said: ConflictSaid,
): { next: TransactionRecord; event: EventEnvelope } {
  const next = { ...tx, conflicts: keptConflict(tx.conflicts, report, said).conflicts };
  return { next, event: conflictEvent(next, report, said) };
}

/** A report that contradicts the transaction without changing its status: the conflict is recorded and said. */
export function conflict(
  base: TransactionRecord,
  report: NormalizedReport,
  ctx: ApplyContext,
  kind: ConflictRecord['kind'],
  detail: string,
  preEvents: EventEnvelope[],
  isNew: boolean,
  evidence: Evidence[],
): ApplyOutcome {
  // The same disagreement is recorded once (repeats counted on it), unless stronger evidence now says
  // it: the status API confirming a late success that only a callback had claimed is news an operator
  // must see.
  const strength = evidence.at(-1) ? rankOf(evidence.at(-1)!) : 0;
  const business = kind === 'AMOUNT_MISMATCH' || kind === 'MSISDN_MISMATCH';
  const subject = business ? mismatchSubject(report) : undefined;
  const confirmed = base.conflicts.some(
    (c) => c.kind === kind && c.reportedStatus === report.status && c.subject === subject,
  );
  const said: ConflictSaid = {
    kind,
    reportedStatus: report.status,
    detail,
    evidence,
    currentStatus: base.status,
    // A stronger restatement of a recorded conflict is its own event (its own id).
    discriminator: `${kind}:${base.status}:${report.status}${subject ? `:${subject}` : ''}${confirmed ? `:rank${strength}` : ''}`,
    ...(subject ? { subject } : {}),
  };
  const kept = keptConflict(base.conflicts, report, said);
  if (!kept.changed && !isNew) return { kind: 'noop', why: 'conflict-already-recorded' };
  // A success for another amount or payer is not evidence about this transaction's status: it stays in
  // the conflict record only.
  const incoming = business ? undefined : evidence.at(-1);
  const next: TransactionRecord = {
    ...base,
    updatedAt: ctx.now,
    ...(incoming ? { evidence: withEvidence(base.evidence, incoming) } : {}),
    conflicts: kept.conflicts,
  };
  if (!kept.fresh && !isNew)
    return { kind: 'write', effect: 'recorded', next: withEvents(next, []), events: [] };
  const events = [...preEvents, conflictEvent(next, report, said)];
  return {
    kind: 'write',
    effect: isNew ? 'orphan-created' : 'conflict',
    next: withEvents(next, events),
    events,
  };
}

/**
 * A STATUS conflict about what a report claims, recorded once per distinct contradiction (withConflict:
 * a repeat is counted on the record it repeats, without an event).
 */
export function statusConflict(
  base: TransactionRecord,
  report: NormalizedReport,
  said: { detail: string; evidence: Evidence[]; discriminator: string },
): { next: TransactionRecord; events: EventEnvelope[]; changed: boolean; fresh: boolean } {
  const conflict: ConflictSaid = {
    ...said,
    kind: 'STATUS',
    reportedStatus: report.status,
    currentStatus: base.status,
  };
  const kept = keptConflict(base.conflicts, report, conflict);
  if (!kept.changed) return { next: base, events: [], changed: false, fresh: false };
  const next = { ...base, conflicts: kept.conflicts };
  // A repeat is counted on its record without an event (a flood of forged bodies builds none).
  if (!kept.fresh) return { next, events: [], changed: true, fresh: false };
  return { next, events: [conflictEvent(next, report, conflict)], changed: true, fresh: true };
}

/**
 * An unconfirmed claim of one outcome after an unconfirmed claim of the other (a held FAILED, then a
 * success on an account that confirms successes, or the reverse): a STATUS conflict naming both, once per
 * contradiction (repeats counted). The transaction's status is the caller's to decide.
 */
export function claimConflict(
  base: TransactionRecord,
  report: NormalizedReport,
  incoming: Evidence,
): { next: TransactionRecord; events: EventEnvelope[] } {
  const against = isOutcome(incoming.claim)
    ? [...(base.evidence ?? [])].reverse().find((e) => isOutcome(e.claim) && e.claim !== incoming.claim)
    : undefined;
  if (!against) return { next: base, events: [] };
  const { next, events } = statusConflict(base, report, {
    detail: `${describeEvidence(against)}; then ${describeEvidence(incoming)}; neither is confirmed: a status check follows`,
    evidence: [against, incoming],
    discriminator: `STATUS:claims:${against.claim}:${report.status}`,
  });
  return { next, events };
}
