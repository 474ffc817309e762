import { buildEvent, correlationIdOf, type EventEnvelope, transactionEventData } from '../events';
import { type AuthenticationMethod, type Evidence, type EvidenceSource, isEndToEnd } from '../evidence';
import type { NormalizedReport, TransactionRecord } from '../transaction';
import { unconfirmedSuccess } from './business-check';
import type { ApplyContext, ApplyOptions } from './outcome';

/** Evidence kept on a transaction: the first few (what started it) and the latest. */
const EVIDENCE_HEAD = 3;
const MAX_EVIDENCE = 16;
export const MAX_EVIDENCE_TEXT = 300;

/** What the first step hands on: the transaction the report meets and the evidence the report is. */
export interface Intake {
  /** The stored transaction, or the one this report creates (born of it, or an orphan). */
  base: TransactionRecord;
  incoming: Evidence;
  /** Events any write of this report publishes first (CallbackOrphaned). */
  preEvents: EventEnvelope[];
  isNew: boolean;
  orphan: boolean;
  born: boolean;
}

/**
 * Evidence intake: the transaction the report meets (stored, born of the report, or an orphan nobody
 * registered) and the evidence the report is.
 */
export function takeIn(
  current: TransactionRecord | undefined,
  reported: NormalizedReport,
  ctx: ApplyContext,
  options: ApplyOptions,
): Intake {
  const born = current === undefined && options.born !== undefined;
  const orphan = current === undefined && !born;
  const created = newTransactionFromReport(reported, ctx);
  let base =
    current ??
    (born
      ? {
          ...created,
          amount: options.born?.amount ?? created.amount,
          attributes: { ...options.born?.attributes },
        }
      : created);
  const conclusive = isConclusive(
    current ? base : { ...base, amount: born ? options.born?.amount : undefined },
    reported,
  );
  const incoming = evidenceOf(reported, conclusive);
  // A transaction takes its amount, its payer (what later reports are checked against), its bill reference
  // and its receipt only from the registration or evidence that can settle it: an unconfirmed claim's are
  // claims (its evidence and receipt keep them).
  if (!current && !incoming.conclusive)
    base = {
      ...base,
      amount: born ? options.born?.amount : undefined,
      msisdn: undefined,
      party: undefined,
      externalId: undefined,
      providerTransactionId: undefined,
    };
  const preEvents: EventEnvelope[] = [];
  if (orphan) {
    preEvents.push(
      buildEvent('CallbackOrphaned', correlationIdOf(base), 'orphan', reported.origin, reported.receivedAt, {
        ...transactionEventData(base, reported.receivedAt),
        note: 'callback for a transaction nobody registered; stored and applied',
      }),
    );
  }
  return { base, incoming, preEvents, isNew: current === undefined, orphan, born };
}

/**
 * A transaction born of a report was created when that report arrived, not when it is applied (a few
 * milliseconds later on the ack path, hours later from the ingress buffer): its verdict, at the arrival,
 * is then no earlier than its creation, so the by-day entry places it and a first callback that settles
 * on arrival puts no account-day entry (adapters/dynamodb/table.ts accountDayKeyTime: a verdict before the
 * creation would need one).
 */
function createdAtOf(report: NormalizedReport, ctx: ApplyContext): string {
  return Date.parse(report.receivedAt) < Date.parse(ctx.now) ? report.receivedAt : ctx.now;
}

function newTransactionFromReport(report: NormalizedReport, ctx: ApplyContext): TransactionRecord {
  return {
    key: report.key,
    kind: report.kind,
    status: 'PENDING',
    registered: false,
    amount: report.amount,
    msisdn: report.party?.idType === 'MSISDN' ? report.party.id : undefined,
    externalId: report.externalId,
    providerTransactionId: report.providerTransactionId,
    reason: undefined,
    party: report.party,
    metadata: undefined,
    attributes: {},
    createdAt: createdAtOf(report, ctx),
    updatedAt: ctx.now,
    reconcileUntil: new Date(Date.parse(ctx.now) + ctx.reconcileWindowSeconds * 1000).toISOString(),
    reconcile: {
      dueAt: new Date(Date.parse(ctx.now) + (ctx.firstCheckSeconds ?? 0) * 1000).toISOString(),
      checks: 0,
      recent: [],
    },
    revision: 0,
    transitions: [],
    conflicts: [],
    events: [],
    outbox: [],
  };
}

function sourceOf(report: NormalizedReport): EvidenceSource {
  // A row of the provider's own records, whether the relay pulled it (poll) or a person brought the file (manual).
  if (report.statement) return 'statement';
  switch (report.origin) {
    case 'manual':
      return 'operator';
    case 'registration':
      return 'registration';
    case 'poll':
      return report.viaOwnQuery ? 'receipt' : 'status-api';
    case 'buffer':
      return 'buffer';
    case 'callback':
      return 'callback';
  }
}

function authenticationOf(report: NormalizedReport, source: EvidenceSource): AuthenticationMethod[] {
  if (source === 'operator') return ['operator'];
  if (source === 'status-api') return ['status-api'];
  if (source === 'receipt') return ['receipt'];
  // A pull is the provider's API answering the relay; a file is vouched for by the operator who uploaded it.
  if (source === 'statement')
    return [report.statement?.source === 'statement-file' ? 'operator' : 'provider-api'];
  const methods = new Set<AuthenticationMethod>(report.authentication ?? []);
  if (report.authenticated) methods.add('signature');
  return [...methods];
}

export const isOutcome = (status: string): status is 'SUCCEEDED' | 'FAILED' =>
  status === 'SUCCEEDED' || status === 'FAILED';

/**
 * Whether a report may settle its transaction on its own (precedence rank ≥ 2, docs/reconciliation.md):
 * the provider's own answers and an operator always (but a statement file's row above the four-eyes
 * limit: one person's upload); a callback unless it is only a hint, an unsigned
 * success the account confirms (or one without the registered amount), or an unsigned failure on an
 * account that confirms failures too.
 */
function isConclusive(tx: TransactionRecord, report: NormalizedReport): boolean {
  if (report.hint || report.statement?.aboveLimit !== undefined) return false;
  if (report.origin === 'manual' || report.origin === 'poll') return true;
  if (report.status === 'SUCCEEDED') return unconfirmedSuccess(tx, report) === undefined;
  if (report.status === 'FAILED') return report.authenticated === true || report.confirmFailure !== true;
  // Not an outcome (PENDING, AMBIGUOUS): trusted as far as a success from the same sender would be, since
  // the move adopts its amount and payer (a forged AMBIGUOUS of 1 EUR would otherwise set the amount the
  // provider's own answer is then checked against).
  return report.authenticated === true || report.needsConfirmation !== true;
}

/** The evidence a report is: where it came from, how it was authenticated, what it said, in its words. */
export function evidenceOf(report: NormalizedReport, conclusive: boolean): Evidence {
  const source = sourceOf(report);
  const authentication = authenticationOf(report, source);
  const description = report.notFound
    ? `${report.notFound.answers} "not found" answer(s) since ${report.notFound.since}${report.reason?.message ? `; ${report.reason.message}` : ''}`
    : (report.said?.description ?? report.reason?.message ?? null);
  return {
    source,
    claim: report.notFound ? 'NOT_FOUND' : report.status,
    authenticated: authentication.length > 0,
    authentication,
    // One person's upload above the four-eyes limit is authenticated (the operator) but settles nothing alone.
    conclusive: conclusive || (isEndToEnd(authentication) && report.statement?.aboveLimit === undefined),
    at: report.receivedAt,
    providerCode: report.said?.providerCode ?? report.reason?.providerCode ?? null,
    description: description === null ? null : description.slice(0, MAX_EVIDENCE_TEXT),
    amount: report.amount ?? null,
    receiptId: report.receiptId ?? null,
    ...(report.actor
      ? { actor: report.actor }
      : report.statement?.actor.ref
        ? { actor: report.statement.actor.ref }
        : {}),
    ...(report.approvedBy ? { approvedBy: report.approvedBy } : {}),
    ...(report.requestedBy ? { requestedBy: report.requestedBy } : {}),
  };
}

/** A delivery applied on arrival and its copy from the ingress buffer are one delivery (one receipt). */
const sameSource = (a: Evidence, b: Evidence) =>
  a.source === b.source ||
  (a.receiptId !== null &&
    a.receiptId === b.receiptId &&
    (a.source === 'callback' || a.source === 'buffer') &&
    (b.source === 'callback' || b.source === 'buffer'));

export const sameEvidence = (a: Evidence, b: Evidence) =>
  sameSource(a, b) &&
  a.claim === b.claim &&
  a.conclusive === b.conclusive &&
  a.receiptId === b.receiptId &&
  a.providerCode === b.providerCode &&
  (a.receiptId !== null || a.at === b.at || a.claim === 'NOT_FOUND');

/** The evidence list with one more entry: repeats are not kept twice, and the list stays bounded. */
export function withEvidence(list: readonly Evidence[] | undefined, evidence: Evidence): Evidence[] {
  const known = list ?? [];
  if (known.some((e) => sameEvidence(e, evidence))) return [...known];
  const all = [...known, evidence];
  if (all.length <= MAX_EVIDENCE) return all;
  return [...all.slice(0, EVIDENCE_HEAD), ...all.slice(all.length - (MAX_EVIDENCE - EVIDENCE_HEAD))];
}
