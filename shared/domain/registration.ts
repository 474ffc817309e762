import { withConflict, withEventIds } from './bounded-history';
import {
  awaitsConfirmation,
  type BusinessMismatch,
  businessMismatch,
  unconfirmedSuccess,
} from './apply-report/business-check';
import { conflictEvent, mismatchSubject } from './apply-report/conflict';
import { evidenceOf, withEvidence } from './apply-report/intake';
import { mismatched } from './apply-report/unsettled';
import type { Evidence } from './evidence';
import type { EventEnvelope } from './events';
import { isFinal } from './status';
import type { Money, NormalizedReport, TransactionKey, TransactionRecord } from './transaction';

/** What the partner says about a transaction it initiated (already validated by the use case). */
export interface RegistrationTerms {
  key: TransactionKey;
  kind: string;
  amount: Money | undefined;
  msisdn: string | undefined;
  externalId: string | undefined;
  metadata: Record<string, unknown> | undefined;
  reconcileUntil: string;
  /** The first status check (the provider and kind's schedule). */
  firstCheckAt: string;
  /** A reference-less callback that came before the registration (kept as a hint): recorded as evidence. */
  hintEvidence?: Evidence;
}

export type RegistrationOutcome =
  | { kind: 'create'; next: TransactionRecord }
  | { kind: 'repeat'; current: TransactionRecord }
  | { kind: 'different'; current: TransactionRecord }
  | { kind: 'adopt'; next: TransactionRecord };

function registeredTransaction(terms: RegistrationTerms, now: string): TransactionRecord {
  return {
    key: terms.key,
    kind: terms.kind,
    status: 'PENDING',
    registered: true,
    amount: terms.amount,
    msisdn: terms.msisdn,
    externalId: terms.externalId,
    providerTransactionId: undefined,
    reason: undefined,
    party: terms.msisdn ? { idType: 'MSISDN', id: terms.msisdn } : undefined,
    metadata: terms.metadata,
    attributes: {},
    createdAt: now,
    updatedAt: now,
    reconcileUntil: terms.reconcileUntil,
    reconcile: { dueAt: terms.firstCheckAt, checks: 0, recent: [] },
    revision: 0,
    transitions: [],
    ...(terms.hintEvidence ? { evidence: [terms.hintEvidence] } : {}),
    conflicts: [],
    events: [],
    outbox: [],
  };
}

function sameTerms(tx: TransactionRecord, terms: RegistrationTerms): boolean {
  return (
    tx.kind === terms.kind &&
    (tx.registeredAmount ?? tx.amount)?.value === terms.amount?.value &&
    (tx.registeredAmount ?? tx.amount)?.currency === terms.amount?.currency &&
    tx.msisdn === terms.msisdn &&
    tx.externalId === terms.externalId
  );
}

/** What an orphan's reports said, as one report: adoption checks it like any report meeting a transaction. */
function orphanAsReport(orphan: TransactionRecord, kind: string, now: string): NormalizedReport {
  const last = orphan.transitions.at(-1);
  return {
    key: orphan.key,
    kind,
    status: orphan.status,
    reason: orphan.reason,
    providerTransactionId: orphan.providerTransactionId,
    externalId: orphan.externalId,
    // An unconfirmed claim's amount is not the orphan's, but it is still checked against the registration.
    amount:
      orphan.amount ??
      [...(orphan.evidence ?? [])].reverse().find((e) => e.claim === 'SUCCEEDED' && e.amount)?.amount ??
      undefined,
    party: orphan.party,
    receivedAt: last?.at ?? now,
    origin: 'registration',
    receiptId: last?.receiptId,
    attributes: orphan.attributes,
    authenticated: last?.authenticated === true,
  };
}

/**
 * Pure decision for a registration. A callback that beat the registration (an orphan) is adopted, but
 * only after the same business check a callback gets. A published orphan success (TransactionSucceeded)
 * stays SUCCEEDED whatever the registration says (statuses only move forward): for another amount,
 * currency or MSISDN, or an amount it never reported, the disagreement is a TransactionConflict. An orphan
 * claim not yet settled (AMBIGUOUS) for other terms does not become the registered transaction's success:
 * the registered transaction stays AMBIGUOUS, escalated, with a TransactionConflict, and reconciliation
 * asks the provider.
 */
export function applyRegistration(
  current: TransactionRecord | undefined,
  terms: RegistrationTerms,
  now: string,
): RegistrationOutcome {
  if (!current) return { kind: 'create', next: registeredTransaction(terms, now) };
  if (current.registered)
    return sameTerms(current, terms) ? { kind: 'repeat', current } : { kind: 'different', current };

  const registered = registeredTransaction(terms, now);
  // An orphan held as an unconfirmed success is still a success claim: its amount is checked too.
  const hinted = awaitsConfirmation(current);
  const asReported = orphanAsReport(current, terms.kind, now);
  const report: NormalizedReport = hinted ? { ...asReported, status: 'SUCCEEDED' } : asReported;
  const mismatch = businessMismatch(registered, report);
  const adopted = adoptedOrphan(current, terms, now);
  if (!mismatch && hinted)
    return {
      kind: 'adopt',
      // Due at once, unless a poller holds it (dueAt is then its lease).
      next: adopted.reconcile?.leaseOwner
        ? adopted
        : { ...adopted, reconcile: { checks: 0, recent: [], ...adopted.reconcile, dueAt: now } },
    };
  // A success already published (TransactionSucceeded) never changes (statuses only move forward): a
  // registration that disagrees with it, or that names an amount it never confirmed, is a conflict for a
  // person, with the success as it was published.
  if (current.status === 'SUCCEEDED') {
    const disagreement =
      mismatch ??
      (unconfirmedSuccess(registered, report)
        ? {
            kind: 'AMOUNT_MISMATCH' as const,
            detail: `no amount reported, ${[terms.amount?.value, terms.amount?.currency].filter(Boolean).join(' ')} registered`,
          }
        : undefined);
    if (!disagreement) return { kind: 'adopt', next: adopted };
    return { kind: 'adopt', next: conflictingSuccess(current, adopted, report, disagreement, now) };
  }
  if (!mismatch) return { kind: 'adopt', next: adopted };
  return { kind: 'adopt', next: conflictingOrphan(adopted, terms, report, mismatch, now) };
}

/** The orphan taken over by its registration: the registration's terms, the orphan's facts and schedule. */
function adoptedOrphan(current: TransactionRecord, terms: RegistrationTerms, now: string): TransactionRecord {
  return {
    ...current,
    registered: true,
    kind: terms.kind,
    amount: terms.amount ?? current.amount,
    msisdn: terms.msisdn ?? current.msisdn,
    externalId: terms.externalId ?? current.externalId,
    metadata: terms.metadata ?? current.metadata,
    reconcileUntil: terms.reconcileUntil,
    ...(terms.hintEvidence ? { evidence: withEvidence(current.evidence, terms.hintEvidence) } : {}),
    // A non-final orphan keeps its schedule; the registration may make it due sooner.
    reconcile: isFinal(current.status)
      ? current.reconcile
      : {
          checks: 0,
          recent: [],
          ...current.reconcile,
          dueAt: [current.reconcile?.dueAt, terms.firstCheckAt].filter(Boolean).sort()[0],
        },
    updatedAt: now,
    outbox: [],
  };
}

/**
 * An unconfirmed orphan success for another amount, currency or MSISDN: the registered transaction is
 * contradicted as any open one is (applyReport's `mismatched`): AMBIGUOUS (CONFLICTING_REPORTS), the
 * conflict said once, a person called (TransactionEscalated), reconciliation asks the provider. Never
 * back to PENDING: the orphan's TransactionAmbiguous was published, and statuses only move forward.
 */
function conflictingOrphan(
  adopted: TransactionRecord,
  terms: RegistrationTerms,
  report: NormalizedReport,
  mismatch: BusinessMismatch,
  now: string,
): TransactionRecord {
  const claim =
    [...(adopted.evidence ?? [])].reverse().find((e) => e.claim === 'SUCCEEDED') ?? evidenceOf(report, false);
  const ctx = {
    now,
    reconcileWindowSeconds: Math.max(0, (Date.parse(terms.reconcileUntil) - Date.parse(now)) / 1000),
  };
  const outcome = mismatched(adopted, report, claim, ctx, mismatch);
  // Said before (the same conflict on the orphan): the registration's terms, nothing published again.
  return outcome.kind === 'write' ? outcome.next : adopted;
}

/**
 * A published orphan success the registration disagrees with: it stays SUCCEEDED, for the amount its
 * success said (never read as paid what was only registered; the registered amount is kept beside it, so
 * the same registration again is a repeat), with the registration's other terms; the disagreement is a
 * TransactionConflict, said once.
 */
function conflictingSuccess(
  current: TransactionRecord,
  adopted: TransactionRecord,
  report: NormalizedReport,
  disagreement: Pick<BusinessMismatch, 'kind' | 'detail'>,
  now: string,
): TransactionRecord {
  const detail = `before registration, a callback reported SUCCEEDED with ${disagreement.detail}; the success stands as published`;
  const said = {
    kind: disagreement.kind,
    reportedStatus: 'SUCCEEDED' as const,
    detail,
    currentStatus: 'SUCCEEDED' as const,
    discriminator: `${disagreement.kind}:registration:SUCCEEDED`,
    occurredAt: now,
    evidence: current.evidence ?? [],
  };
  const next: TransactionRecord = {
    ...adopted,
    // Whatever the disagreement (an MSISDN one too), the amount is the one the success said, if any.
    ...(sameMoney(current.amount, adopted.amount)
      ? {}
      : { amount: current.amount, registeredAmount: adopted.amount }),
    conflicts: withConflict(current.conflicts, {
      kind: disagreement.kind,
      reportedStatus: 'SUCCEEDED',
      at: report.receivedAt,
      origin: 'registration',
      receiptId: report.receiptId,
      detail,
      evidence: current.evidence ?? [],
      // As a callback's mismatch names its claim: the orphan's own delivery again is a repeat of this one.
      subject: mismatchSubject(report),
    }).conflicts,
  };
  return publishing(next, conflictEvent(next, report, said), now);
}

const sameMoney = (a: Money | undefined, b: Money | undefined) =>
  a?.value === b?.value && a?.currency === b?.currency;

/** The adopted record with the one event its write publishes (the table's stream is the outbox). */
function publishing(next: TransactionRecord, event: EventEnvelope, now: string): TransactionRecord {
  return {
    ...next,
    events: withEventIds(next.events, [{ id: event.metadata.id, type: event.metadata.type, at: now }]),
    outbox: [event],
  };
}
