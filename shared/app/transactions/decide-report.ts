import {
  type ApplyContext,
  type ApplyOptions,
  type ApplyOutcome,
  applyReport,
  evidenceOf,
  withEvidence,
} from '../../domain/apply-report';
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
    ),
    options.samePaymentAs,
  );
}

/**
 * The provider's own record of a payment the relay already settled without its receipt (an STK push
 * settled by the STK query, docs/statements.md#pairing) agrees with the verdict: nothing is published, and
 * the row is kept as evidence with the receipt it names, which the transaction lacked.
 */
function withReceiptRecorded(
  current: TransactionRecord | undefined,
  report: NormalizedReport,
  ctx: ApplyContext,
  outcome: ApplyOutcome,
): ApplyOutcome {
  if (outcome.kind !== 'noop' || outcome.why !== 'same-status' || !current) return outcome;
  if (report.origin !== 'statement' || current.status !== report.status) return outcome;
  if (!report.providerTransactionId || current.providerTransactionId) return outcome;
  const next: TransactionRecord = {
    ...current,
    providerTransactionId: report.providerTransactionId,
    evidence: withEvidence(current.evidence, evidenceOf(report, true)),
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
