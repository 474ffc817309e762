import {
  buildEvent,
  correlationIdOf,
  type EventEnvelope,
  STATUS_EVENT,
  transactionEventData,
} from '../events';
import { type Evidence, isEndToEnd, senderChecked } from '../evidence';
import { decideTransition, isFinal, type Transition } from '../status';
import { sameAmount } from '../../util/money';
import { namesAnotherMsisdn } from './business-check';
import type { NormalizedReport, TransactionRecord } from '../transaction';
import { conflict, conflictDetail, conflictKindOf, describeEvidence, sayConflict } from './conflict';
import { withEvidence } from './intake';
import { type ApplyContext, type ApplyOutcome, withEvents } from './outcome';
import { dueNow, reconcileAfter } from './schedule';

type Advance = Extract<Transition, { kind: 'advance' }>;

/**
 * Transition: a status change by the forward-only state machine, with the evidence behind it, the
 * conflict it overrules (`against`) and an unconfirmed claim of another amount it contradicts.
 */
export function advance(
  base: TransactionRecord,
  report: NormalizedReport,
  incoming: Evidence,
  ctx: ApplyContext,
  preEvents: EventEnvelope[],
  how: { isNew: boolean; orphan: boolean; born: boolean; against?: Evidence },
): ApplyOutcome {
  const transition = decideTransition(base.status, report.status);
  if (transition.kind === 'conflict') {
    const settled = [...(base.evidence ?? [])].reverse().find((e) => e.claim === transition.current);
    return conflict(
      base,
      report,
      ctx,
      settled ? conflictKindOf(settled, incoming) : 'STATUS',
      `${transition.reported} reported after ${transition.current}${settled ? ` (${describeEvidence(settled)})` : ''}`,
      preEvents,
      how.isNew,
      settled ? [settled, incoming] : [incoming],
    );
  }
  if (transition.kind === 'unchanged') {
    if (!how.isNew) return { kind: 'noop', why: transition.why };
    return {
      kind: 'write',
      effect: how.orphan ? 'orphan-created' : 'created',
      next: withEvents({ ...base, revision: 0, evidence: withEvidence(base.evidence, incoming) }, preEvents),
      events: preEvents,
    };
  }
  let next = transitioned(base, report, incoming, ctx, transition);
  const events = [...preEvents, ...statusEvents(next, report, transition)];
  if (how.against) {
    const overruled = overrule(next, report, incoming, how.against, transition.to);
    next = overruled.next;
    events.push(overruled.event);
  }
  const contradicted = amountClaimContradicted(base, next, report, incoming, transition.to);
  if (contradicted) {
    next = contradicted.next;
    events.push(contradicted.event);
  }
  return {
    kind: 'write',
    effect: how.orphan ? 'orphan-created' : how.born ? 'created' : 'advanced',
    next: withEvents(next, events),
    events,
  };
}

/**
 * The transaction moves to FAILED while it holds an unconfirmed success claim (evidence that claimed
 * SUCCEEDED and could not settle it): what that claim named is not the failed payment's.
 */
function refutesUnconfirmedSuccess(base: TransactionRecord, to: string): boolean {
  return to === 'FAILED' && (base.evidence ?? []).some((e) => e.claim === 'SUCCEEDED' && !e.conclusive);
}

/** Receipts claimed for one transaction that are kept to ask about: a flood of forged ones stays bounded. */
export const MAX_RECEIPT_CLAIMS = 3;

/**
 * `claims` with `receipt`, at most MAX_RECEIPT_CLAIMS. A claim whose sender passed a check (Daraja's own
 * address) goes first (asked first); one that only knew the path secret goes last, and only if there is
 * room: a flood of forged receipts never pushes out the one Daraja sent (which anyone may precede).
 */
export function withReceiptClaim(
  claims: readonly string[] | undefined,
  receipt: string,
  senderChecked: boolean,
): string[] {
  const others = (claims ?? []).filter((c) => c !== receipt);
  if (senderChecked) return [receipt, ...others].slice(0, MAX_RECEIPT_CLAIMS);
  return others.length < MAX_RECEIPT_CLAIMS ? [...others, receipt] : others;
}

/**
 * A success settled without a receipt of the provider's word while a claimed one waits: it stays due, for
 * one window, so the poller asks the provider about the claim (reconcile.ts receiptToConfirm).
 */
function receiptToAsk(
  base: TransactionRecord,
  to: TransactionRecord['status'],
  report: NormalizedReport,
  ctx: ApplyContext,
): boolean {
  if (to !== 'SUCCEEDED' || base.providerTransactionId || !base.receiptClaims?.length) return false;
  return !report.providerTransactionId && ctx.reconcileWindowSeconds > 0;
}

/** The transaction after the status change: what the report adds, its schedule, the transition kept. */
function transitioned(
  base: TransactionRecord,
  report: NormalizedReport,
  incoming: Evidence,
  ctx: ApplyContext,
  transition: Advance,
): TransactionRecord {
  const evidence =
    report.status === 'EXPIRED' ? (base.evidence ?? []) : withEvidence(base.evidence, incoming);
  // An unconfirmed report's transaction id is a claim: kept to ask about (receiptClaims, never published or
  // taught as the payment's id), adopted only from the provider's word. Nor does it give the transaction
  // its payer or bill reference (a C2B payment's account to credit): the report that settles it does (its
  // evidence keeps the claim's words, its receipt the body).
  const adoptAmount = incoming.conclusive ? report.amount : undefined;
  const refuted = refutesUnconfirmedSuccess(base, transition.to);
  const claimedId = incoming.conclusive ? undefined : report.providerTransactionId;
  const next: TransactionRecord = {
    ...base,
    status: transition.to,
    providerTransactionId: claimedId
      ? base.providerTransactionId
      : (report.providerTransactionId ?? base.providerTransactionId),
    ...(claimedId && !base.providerTransactionId
      ? { receiptClaims: withReceiptClaim(base.receiptClaims, claimedId, senderChecked(incoming)) }
      : {}),
    externalId: base.externalId ?? (incoming.conclusive ? report.externalId : undefined),
    amount: base.amount ?? adoptAmount,
    // Another MSISDN than the registered one never replaces the party (a success naming it is a conflict,
    // business-check.ts; a trusted AMBIGUOUS naming it would otherwise be what the success publishes).
    party: refuted
      ? report.party
      : incoming.conclusive && !namesAnotherMsisdn(base, report)
        ? (report.party ?? base.party)
        : base.party,
    reason: isFinal(transition.to) || transition.to === 'AMBIGUOUS' ? report.reason : base.reason,
    // Attributes are the provider's words (a settling report of the same message names each again) and the
    // relay's own notes on a held claim (StatusResultMismatch): kept from every report.
    attributes: { ...base.attributes, ...report.attributes },
    updatedAt: ctx.now,
    reconcile: receiptToAsk(base, transition.to, report, ctx)
      ? {
          ...dueNow(
            reconcileAfter(base, transition.to, report, ctx.now) ?? { checks: 0, recent: [] },
            ctx.now,
          ),
          recheckUntil: new Date(Date.parse(ctx.now) + ctx.reconcileWindowSeconds * 1000).toISOString(),
        }
      : reconcileAfter(base, transition.to, report, ctx.now),
    evidence,
    trusted: trustedAfter(base, report, incoming),
    transitions: [
      ...base.transitions,
      {
        from: transition.from,
        to: transition.to,
        at: report.receivedAt,
        origin: report.origin,
        receiptId: report.receiptId,
        ...(report.authenticated ? { authenticated: true } : {}),
        ...(report.status === 'EXPIRED' ? {} : { evidence: incoming }),
      },
    ],
  };
  if (!next.trusted) delete next.trusted;
  return next;
}

/** Ids and facts a status query may be built on: only from evidence vouched for end to end. */
function trustedAfter(tx: TransactionRecord, report: NormalizedReport, evidence: Evidence) {
  if (!isEndToEnd(evidence.authentication)) return tx.trusted;
  return {
    providerTransactionId: report.providerTransactionId ?? tx.trusted?.providerTransactionId,
    attributes: { ...tx.trusted?.attributes, ...report.attributes },
  };
}

/** The status's own event (TransactionSucceeded…), if the new status has one. */
function statusEvents(
  next: TransactionRecord,
  report: NormalizedReport,
  transition: Advance,
): EventEnvelope[] {
  const statusEvent = STATUS_EVENT[transition.to];
  if (!statusEvent) return [];
  return [
    buildEvent(statusEvent, correlationIdOf(next), transition.to, report.origin, report.receivedAt, {
      ...transactionEventData(next, report.receivedAt),
      ...report.eventDetail,
      ...(isFinal(transition.to) ? { evidence: next.evidence } : {}),
      ...(transition.late ? { lateResolution: true } : {}),
    }),
  ];
}

/**
 * Precedence settled it over weaker evidence that said otherwise: the disagreement is surfaced (an
 * unsigned success the status API denies is a security signal), the status is the stronger source's.
 */
function overrule(
  settled: TransactionRecord,
  report: NormalizedReport,
  incoming: Evidence,
  against: Evidence,
  to: TransactionRecord['status'],
): { next: TransactionRecord; event: EventEnvelope } {
  const kind = conflictKindOf(against, incoming);
  return sayConflict(settled, report, {
    kind,
    reportedStatus: against.claim === 'NOT_FOUND' ? 'FAILED' : against.claim,
    detail: conflictDetail(kind, against, incoming),
    evidence: [against, incoming],
    currentStatus: to,
    discriminator:
      kind === 'UNVERIFIED_SUCCESS' ? 'UNVERIFIED_SUCCESS:FAILED' : `${kind}:${against.claim}:${to}`,
  });
}

/**
 * An unconfirmed success claimed another amount than the one now confirmed: the claim never set the
 * amount, and the disagreement is said, not dropped (a forged 1 EUR before MTN's real 100 EUR).
 */
function amountClaimContradicted(
  base: TransactionRecord,
  settled: TransactionRecord,
  report: NormalizedReport,
  incoming: Evidence,
  to: TransactionRecord['status'],
): { next: TransactionRecord; event: EventEnvelope } | undefined {
  const amount = settled.amount;
  if (to !== 'SUCCEEDED' || !amount) return undefined;
  const claimedOther = (base.evidence ?? []).find(
    (e) =>
      e.claim === 'SUCCEEDED' &&
      !e.conclusive &&
      e.amount !== null &&
      !sameAmount(e.amount.value, amount.value),
  );
  if (!claimedOther) return undefined;
  const detail =
    `an unconfirmed success claimed ${claimedOther.amount!.value} ${claimedOther.amount!.currency ?? ''}`.trimEnd() +
    `; ${describeEvidence(incoming)} with ${amount.value} ${amount.currency ?? ''}`.trimEnd();
  return sayConflict(settled, report, {
    kind: 'AMOUNT_MISMATCH',
    reportedStatus: 'SUCCEEDED',
    detail,
    evidence: [claimedOther, incoming],
    currentStatus: 'SUCCEEDED',
    discriminator: 'AMOUNT_MISMATCH:unconfirmed:SUCCEEDED',
    // The conflict is about the earlier claim: its receipt and the amount it stated.
    receiptId: claimedOther.receiptId ?? undefined,
    reportedAmount: claimedOther.amount ?? undefined,
  });
}
