import {
  type ApplyContext,
  type ApplyOptions,
  type ApplyOutcome,
  applyReport,
  describeEvidence,
  evidenceOf,
  statusConflict,
  withEvidence,
  withEvents,
  withReceiptClaim,
} from '../../domain/apply-report';
import { isEndToEnd, senderChecked } from '../../domain/evidence';
import type { NormalizedReport, TransactionKey, TransactionRecord } from '../../domain/transaction';
import type { ReportIntent } from '../../providers/types';
import { reconcileTiming, type ReconciliationSettings } from '../reconciliation/reconcile-timing';

/** How often hints may bring a transaction's status check forward (× timeScale). */
export const HINT_RECHECK_SECONDS = 60;

/**
 * The one builder of the decision's context, whatever the origin: the transaction's provider and kind
 * give its reconciliation window and first check (config overrides and time scale included).
 */
export function decisionContext(
  settings: ReconciliationSettings,
  subject: { key: Pick<TransactionKey, 'provider'>; kind: string },
  now: string,
): ApplyContext {
  const timing = reconcileTiming(settings, subject.key.provider, subject.kind);
  return {
    now,
    reconcileWindowSeconds: timing.windowSeconds,
    firstCheckSeconds: timing.firstCheckSeconds,
    hintRecheckSeconds: HINT_RECHECK_SECONDS * (settings.timeScale ?? 1),
  };
}

export interface DecideOptions extends ApplyOptions {
  /** What the answer to the relay's own status query claims (ReportIntent.ownQuery): checked first. */
  ownQueryClaims?: NonNullable<ReportIntent['ownQuery']>['claims'];
  /** The payment's success is already published under this transaction (ReportIntent.samePaymentAs). */
  samePaymentAs?: TransactionKey & { kind: string };
  /** The provider's status API can confirm the report's receipt (ReportIntent.receiptConfirmable). */
  receiptConfirmable?: boolean;
}

/**
 * The one entry every report reaches the decision through, whatever its origin: a callback (and a
 * buffered or recovered one, through ingestReport), a status check (checkTransaction), an operator's
 * resolution (resolveByHand) and a registration's adoption. The relay's own checks around the domain's
 * applyReport live here, once: an answer to its own status query naming another receipt is a conflict,
 * and a payment's success already published under another transaction is not published again.
 */
export function decideReport(
  current: TransactionRecord | undefined,
  report: NormalizedReport,
  ctx: ApplyContext,
  options: DecideOptions = {},
): ApplyOutcome {
  return withoutSecondSuccess(
    withReceiptRecorded(
      current,
      report,
      ctx,
      applyReport(current, ownQueryMismatch(current, report, options.ownQueryClaims), ctx, options),
      options.receiptConfirmable === true,
    ),
    options.samePaymentAs,
  );
}

/**
 * A success reported again on a payment already SUCCEEDED, naming a receipt: the same status changes
 * nothing, but the receipt matters (reversals, statement matching and partners name the payment by it).
 * - From the provider's own word (a statement row, docs/statements.md#pairing) or evidence authenticated
 *   end to end (the answer to the relay's own status query about that receipt, a signature): a payment
 *   without a receipt adopts it, kept as evidence; nothing is published (the success is out already). One
 *   that names another receipt than the payment's is a TransactionConflict, never a silent rewrite.
 * - From an unauthenticated callback the provider can be asked about (receiptConfirmable: Daraja's STK
 *   result after the STK query settled the push, docs/reconciliation.md#receipts-learnt-after-the-verdict):
 *   kept as evidence and as a claim, and the payment is due for a status check that asks about that
 *   receipt. The claim is never adopted on the callback's word.
 */
function withReceiptRecorded(
  current: TransactionRecord | undefined,
  report: NormalizedReport,
  ctx: ApplyContext,
  outcome: ApplyOutcome,
  confirmable: boolean,
): ApplyOutcome {
  if (outcome.kind !== 'noop' || outcome.why !== 'same-status' || !current) return outcome;
  const receipt = report.providerTransactionId;
  if (current.status !== 'SUCCEEDED' || report.status !== 'SUCCEEDED' || !receipt) return outcome;
  const incoming = evidenceOf(report, true);
  const providersWord = report.statement
    ? report.statement.aboveLimit === undefined
    : isEndToEnd(incoming.authentication);
  if (providersWord) {
    if (current.providerTransactionId === receipt) return outcome;
    // A row naming another receipt is another payment's (matched by externalId): the close's breaks say it.
    if (current.providerTransactionId)
      return report.statement ? outcome : receiptConflict(current, report, incoming, ctx);
    return adoptReceipt(current, report, incoming, ctx);
  }
  if (!confirmable || current.providerTransactionId) return outcome;
  return claimReceipt(current, report, ctx, outcome);
}

/** The receipt the provider's word names, adopted by a payment that had none (no event: nothing new happened). */
function adoptReceipt(
  current: TransactionRecord,
  report: NormalizedReport,
  incoming: ReturnType<typeof evidenceOf>,
  ctx: ApplyContext,
): ApplyOutcome {
  const receipt = report.providerTransactionId!;
  const { receiptClaims: _claims, ...rest } = current;
  const next: TransactionRecord = {
    ...rest,
    providerTransactionId: receipt,
    evidence: withEvidence(current.evidence, incoming),
    updatedAt: ctx.now,
    outbox: [],
  };
  // A statement row is the provider's record, not an answer a status query may be built on.
  if (!report.statement)
    next.trusted = { attributes: {}, ...current.trusted, providerTransactionId: receipt };
  if (current.receiptClaims && next.reconcile?.recheckUntil) {
    // The claims are answered: the payment leaves the due index (a poller's lease ends on its own).
    const { recheckUntil: _until, dueAt, ...schedule } = next.reconcile;
    next.reconcile = schedule.leaseOwner ? { ...schedule, dueAt } : schedule;
  }
  return { kind: 'write', effect: 'recorded', next, events: [] };
}

/** The provider's word names another receipt than the one the payment holds: said, never settled silently. */
function receiptConflict(
  current: TransactionRecord,
  report: NormalizedReport,
  incoming: ReturnType<typeof evidenceOf>,
  ctx: ApplyContext,
): ApplyOutcome {
  const held = [...(current.evidence ?? [])].reverse().find((e) => e.claim === 'SUCCEEDED');
  const said = statusConflict(current, report, {
    detail: `receipt ${current.providerTransactionId} kept; ${describeEvidence(incoming)}, receipt ${report.providerTransactionId}`,
    evidence: held ? [held, incoming] : [incoming],
    discriminator: `STATUS:receipt:${current.providerTransactionId}:${report.providerTransactionId}`,
  });
  if (!said.changed) return { kind: 'noop', why: 'conflict-already-recorded' };
  const next = withEvents(
    { ...said.next, evidence: withEvidence(current.evidence, incoming), updatedAt: ctx.now },
    said.events,
  );
  return { kind: 'write', effect: said.fresh ? 'conflict' : 'recorded', next, events: said.events };
}

/**
 * An unauthenticated report's receipt for a payment without one: kept as evidence and as a claim (asked
 * first, at most MAX_RECEIPT_CLAIMS), the payment due for a status check about it, for at most one window.
 */
function claimReceipt(
  current: TransactionRecord,
  report: NormalizedReport,
  ctx: ApplyContext,
  unchanged: ApplyOutcome,
): ApplyOutcome {
  const receipt = report.providerTransactionId!;
  const claims = current.receiptClaims ?? [];
  if (claims.includes(receipt)) return unchanged;
  const incoming = evidenceOf(report, false);
  const receiptClaims = withReceiptClaim(claims, receipt, senderChecked(incoming));
  // No room for a claim nobody checked (the list full): it changes nothing (its body is in its receipt).
  if (!receiptClaims.includes(receipt)) return unchanged;
  const state = current.reconcile ?? { checks: 0, recent: [] };
  const next: TransactionRecord = {
    ...current,
    receiptClaims,
    evidence: withEvidence(current.evidence, incoming),
    reconcile: {
      ...state,
      // Due at once, unless a poller holds the item (dueAt is its lease then; it checks anyway).
      dueAt: state.leaseOwner ? state.dueAt : ctx.now,
      recheckUntil: new Date(Date.parse(ctx.now) + ctx.reconcileWindowSeconds * 1000).toISOString(),
    },
    updatedAt: ctx.now,
    outbox: [],
  };
  return { kind: 'write', effect: 'recorded', next, events: [] };
}

/**
 * The answer to the relay's own status query names another receipt than the one the transaction's
 * trusted evidence holds: not its answer. It stays a report (AMBIGUOUS, CONFLICTING_REPORTS) so the
 * disagreement is seen, never a status answer that settles.
 */
function ownQueryMismatch(
  current: TransactionRecord | undefined,
  report: NormalizedReport,
  claims: DecideOptions['ownQueryClaims'],
): NormalizedReport {
  const claimed = claims?.providerTransactionId;
  const trusted = current?.trusted?.providerTransactionId;
  if (!claimed || !trusted || claimed === trusted) return report;
  const { viaOwnQuery: _own, ...rest } = report;
  return {
    ...rest,
    // Not the provider's answer to the relay: what a callback claimed (never trusted for queries).
    origin: report.origin === 'poll' ? 'callback' : report.origin,
    status: 'AMBIGUOUS',
    authenticated: false,
    providerTransactionId: undefined,
    reason: {
      code: 'CONFLICTING_REPORTS',
      message: `the answer to the relay's status query names receipt ${claimed}; the transaction's is ${trusted}`,
      providerCode: 'STATUS_RESULT_MISMATCH',
    },
    attributes: { ...report.attributes, StatusResultMismatch: `receipt ${claimed} ≠ ${trusted}` },
  };
}

/** The success of a payment already published under another transaction is not published again. */
function withoutSecondSuccess(outcome: ApplyOutcome, same: DecideOptions['samePaymentAs']): ApplyOutcome {
  if (!same || outcome.kind !== 'write') return outcome;
  const second = (type: string) => type === 'TransactionSucceeded';
  const outbox = outcome.next.outbox.filter((e) => !second(e.metadata.type));
  const dropped = new Set(
    outcome.next.outbox.filter((e) => second(e.metadata.type)).map((e) => e.metadata.id),
  );
  const next: TransactionRecord = {
    ...outcome.next,
    attributes: { ...outcome.next.attributes, SamePaymentAs: `${same.kind}/${same.reference}` },
    events: outcome.next.events.filter((e) => !dropped.has(e.id)),
    outbox,
  };
  return { ...outcome, next, events: outbox };
}
