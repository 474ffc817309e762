import { maskMsisdn } from '../util/mask';
import { KindMismatchError } from './errors';
import { sameAmount } from '../util/money';
import {
  buildEvent,
  correlationIdOf,
  type EventEnvelope,
  STATUS_EVENT,
  transactionEventData,
} from './events';
import {
  type AuthenticationMethod,
  decideByPrecedence,
  type Evidence,
  type EvidenceSource,
  isEndToEnd,
  rankOf,
} from './evidence';
import { withConflict, withEventIds } from './bounded-history';
import { decideTransition, isFinal } from './status';
import type { ConflictRecord, Money, NormalizedReport, TransactionRecord } from './transaction';

export type ApplyOutcome =
  | {
      kind: 'write';
      /** `recorded`: evidence kept (and a status check asked for) without a change of status. */
      effect: 'advanced' | 'conflict' | 'orphan-created' | 'created' | 'recorded';
      next: TransactionRecord;
      events: EventEnvelope[];
    }
  | { kind: 'noop'; why: 'same-status' | 'stale' | 'conflict-already-recorded' | 'hint' };

/** Evidence kept on a transaction: the first few (what started it) and the latest. */
const EVIDENCE_HEAD = 3;
const MAX_EVIDENCE = 16;
const MAX_EVIDENCE_TEXT = 300;

export interface ApplyContext {
  now: string;
  reconcileWindowSeconds: number;
  /** Seconds until the first status check of a transaction a report creates (default: due at once). */
  firstCheckSeconds?: number;
  /**
   * A hint brings a status check forward at most this often (default 60): a flood of reference-less
   * callbacks for one transaction costs one status call per this many seconds, not one per poll cycle.
   */
  hintRecheckSeconds?: number;
}

/**
 * A report may create its transaction rather than find an orphan: a C2B confirmation is how a C2B
 * payment comes into being. `expected` carries what an earlier step (the C2B validation) already knew.
 */
export interface ApplyOptions {
  born?: { amount?: Money; attributes?: Record<string, string> };
}

export function newTransactionFromReport(report: NormalizedReport, ctx: ApplyContext): TransactionRecord {
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
    createdAt: ctx.now,
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

function amountMismatch(tx: TransactionRecord, report: NormalizedReport): string | undefined {
  if (!tx.amount || !report.amount) return undefined;
  if (!sameAmount(tx.amount.value, report.amount.value)) {
    return `amount ${report.amount.value} reported, ${tx.amount.value} registered`;
  }
  if (tx.amount.currency && report.amount.currency && tx.amount.currency !== report.amount.currency) {
    return `currency ${report.amount.currency} reported, ${tx.amount.currency} registered`;
  }
  return undefined;
}

/** Digits in national form ("+254 708 374149", "0708374149" → "708374149"…); undefined when masked or hashed. */
function msisdnDigits(value: string): string | undefined {
  if (/[^\d\s+()-]/.test(value)) return undefined;
  const digits = value.replace(/\D/g, '').replace(/^0+/, '');
  return digits.length >= 6 ? digits : undefined;
}

/** A report naming another payer/payee MSISDN than the registered one (compared on the last 9 digits). */
function msisdnMismatch(tx: TransactionRecord, report: NormalizedReport): string | undefined {
  if (!tx.msisdn || report.party?.idType !== 'MSISDN') return undefined;
  const registered = msisdnDigits(tx.msisdn);
  const reported = msisdnDigits(report.party.id);
  if (!registered || !reported || registered.slice(-9) === reported.slice(-9)) return undefined;
  return `msisdn ${maskMsisdn(reported)} reported, ${maskMsisdn(registered)} registered`;
}

export interface BusinessMismatch {
  kind: 'AMOUNT_MISMATCH' | 'MSISDN_MISMATCH';
  detail: string;
}

/**
 * The business check applied wherever a success report meets a transaction (callback, poll, adoption
 * at registration): another amount, currency or payer/payee than the transaction's is never a success.
 */
export function businessMismatch(
  tx: TransactionRecord,
  report: NormalizedReport,
): BusinessMismatch | undefined {
  if (report.status !== 'SUCCEEDED') return undefined;
  const amount = amountMismatch(tx, report);
  if (amount) return { kind: 'AMOUNT_MISMATCH', detail: amount };
  const party = msisdnMismatch(tx, report);
  if (party) return { kind: 'MSISDN_MISMATCH', detail: party };
  return undefined;
}

/**
 * A success that is only a hint: it carries no amount while the transaction was registered with one, or
 * the account confirms unsigned successes with the status API (MoMo by default). Unless the body was
 * authenticated end to end it is recorded as AMBIGUOUS (UNCONFIRMED) and due for a status check at once;
 * the status API's answer (with its amount) settles it. The provider's ack never waits for that.
 */
export function unconfirmedSuccess(
  tx: TransactionRecord,
  report: NormalizedReport,
): NormalizedReport | undefined {
  if (report.status !== 'SUCCEEDED' || report.authenticated) return undefined;
  const missingAmount = !report.amount && tx.amount !== undefined;
  if (!missingAmount && !report.needsConfirmation) return undefined;
  const registered = tx.amount
    ? `${tx.amount.value}${tx.amount.currency ? ` ${tx.amount.currency}` : ''} registered`
    : undefined;
  return {
    ...report,
    status: 'AMBIGUOUS',
    reason: {
      code: 'UNCONFIRMED',
      message: missingAmount
        ? `success reported without an amount; ${registered}, awaiting confirmation`
        : 'unsigned success reported; awaiting confirmation by the status API',
      providerCode: report.reason?.providerCode,
    },
  };
}

/** The transaction was AMBIGUOUS because of an unsigned success that is still unconfirmed. */
export function awaitsConfirmation(tx: Pick<TransactionRecord, 'status' | 'reason'>): boolean {
  return tx.status === 'AMBIGUOUS' && tx.reason?.code === 'UNCONFIRMED';
}

/** The reconciliation state after a status change: final leaves the due index, a hint is due at once. */
function reconcileAfter(
  tx: TransactionRecord,
  to: TransactionRecord['status'],
  report: NormalizedReport,
  now: string,
): TransactionRecord['reconcile'] {
  const state = tx.reconcile ?? { checks: 0, recent: [] };
  if (isFinal(to)) {
    const { dueAt: _due, leaseOwner: _owner, recheckUntil: _recheck, ...rest } = state;
    return rest;
  }
  // Due at once, unless a poller holds the item (dueAt is then its lease; it checks anyway).
  if (to === 'AMBIGUOUS' && report.reason?.code === 'UNCONFIRMED') return dueNow(state, now);
  return { ...state, dueAt: state.dueAt ?? now };
}

function dueNow(
  state: NonNullable<TransactionRecord['reconcile']>,
  now: string,
): NonNullable<TransactionRecord['reconcile']> {
  return state.leaseOwner || (state.dueAt !== undefined && state.dueAt <= now)
    ? state
    : { ...state, dueAt: now };
}

/** Due at once, unless the last status check is younger than `hintRecheckSeconds`: then due after it. */
function hintDue(
  state: NonNullable<TransactionRecord['reconcile']>,
  ctx: ApplyContext,
): NonNullable<TransactionRecord['reconcile']> {
  const last = state.recent.at(-1)?.at;
  if (!last || state.leaseOwner) return dueNow(state, ctx.now);
  const next = new Date(Date.parse(last) + (ctx.hintRecheckSeconds ?? 60) * 1000).toISOString();
  if (next <= ctx.now) return dueNow(state, ctx.now);
  return state.dueAt !== undefined && state.dueAt <= next ? state : { ...state, dueAt: next };
}

function withEvents(tx: TransactionRecord, events: EventEnvelope[]): TransactionRecord {
  return {
    ...tx,
    events: withEventIds(
      tx.events,
      events.map((e) => ({ id: e.metadata.id, type: e.metadata.type, at: e.metadata.occurredAt })),
    ),
    outbox: events,
  };
}

function sourceOf(report: NormalizedReport): EvidenceSource {
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
    case 'statement':
      return 'statement';
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

const isOutcome = (status: string): status is 'SUCCEEDED' | 'FAILED' =>
  status === 'SUCCEEDED' || status === 'FAILED';

/**
 * Whether a report may settle its transaction on its own (precedence rank ≥ 2, docs/reconciliation.md):
 * the provider's own answers and an operator always; a callback unless it is only a hint, an unsigned
 * success the account confirms (or one without the registered amount), or an unsigned failure on an
 * account that confirms failures too.
 */
function isConclusive(tx: TransactionRecord, report: NormalizedReport): boolean {
  if (report.hint) return false;
  if (report.origin === 'manual' || report.origin === 'poll' || report.origin === 'statement') return true;
  if (report.status === 'SUCCEEDED') return unconfirmedSuccess(tx, report) === undefined;
  if (report.status === 'FAILED') return report.authenticated === true || report.confirmFailure !== true;
  return true;
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
    conclusive: conclusive || isEndToEnd(authentication),
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

const sameEvidence = (a: Evidence, b: Evidence) =>
  a.source === b.source &&
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

/** Ids and facts a status query may be built on: only from evidence vouched for end to end. */
function trustedAfter(tx: TransactionRecord, report: NormalizedReport, evidence: Evidence) {
  if (!isEndToEnd(evidence.authentication)) return tx.trusted;
  return {
    providerTransactionId: report.providerTransactionId ?? tx.trusted?.providerTransactionId,
    attributes: { ...tx.trusted?.attributes, ...report.attributes },
  };
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

/** The conflict kind two disagreeing pieces of evidence make. */
function conflictKindOf(known: Evidence, incoming: Evidence): ConflictRecord['kind'] {
  if (known.claim === 'NOT_FOUND' || incoming.claim === 'NOT_FOUND') return 'NOT_FOUND';
  if (known.claim === 'SUCCEEDED' && rankOf(known) <= 1 && incoming.source === 'status-api')
    return 'UNVERIFIED_SUCCESS';
  return 'STATUS';
}

function describeEvidence(e: Evidence): string {
  const how = e.authentication.length ? e.authentication.join('+') : 'unauthenticated';
  return `${e.source} (${how}) said ${e.claim}${e.receiptId ? ` in receipt ${e.receiptId}` : ''} at ${e.at}`;
}

function conflictDetail(kind: ConflictRecord['kind'], known: Evidence, incoming: Evidence): string {
  const notFound =
    incoming.claim === 'NOT_FOUND' ? incoming : known.claim === 'NOT_FOUND' ? known : undefined;
  const reported = notFound === incoming ? known : incoming;
  if (kind === 'NOT_FOUND' && notFound)
    return (
      `the status API does not know this reference, yet a ${describeEvidence(reported)}. ` +
      'Check that the API user (or client credentials) that made the request is the one this account is ' +
      'configured with (accounts.<provider>.<account>.api): the provider answers "not found" to any other. ' +
      'Not settled: a person must look.'
    );
  if (kind === 'UNVERIFIED_SUCCESS')
    return 'an unsigned success was reported; the status API answered FAILED';
  return `${describeEvidence(known)}; then ${describeEvidence(incoming)}`;
}

/**
 * Pure decision: given what is stored and a new report, what to write and which events that write
 * publishes. Every report is evidence; the one precedence rule (decideByPrecedence) says what it
 * settles; the forward-only state machine (decideTransition) says which status change that is. Applying
 * the same report twice yields a no-op the second time, which is what makes duplicate and concurrent
 * deliveries safe (the store's conditional write picks one winner).
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
  // A transaction takes its amount only from the registration or evidence that can settle it.
  if (!current && !incoming.conclusive) base = { ...base, amount: born ? options.born?.amount : undefined };
  const correlationId = correlationIdOf(base);
  const preEvents: EventEnvelope[] = [];
  if (orphan) {
    preEvents.push(
      buildEvent('CallbackOrphaned', correlationId, 'orphan', reported.origin, reported.receivedAt, {
        ...transactionEventData(base, reported.receivedAt),
        note: 'callback for a transaction nobody registered; stored and applied',
      }),
    );
  }
  const isNew = current === undefined;

  // Checked on the claim as made: an unsigned success for another amount is a conflict, not a hint.
  const mismatch = businessMismatch(base, reported);
  if (mismatch)
    return conflict(base, reported, ctx, mismatch.kind, mismatch.detail, preEvents, isNew, [incoming]);

  if (reported.notFound) return applyNotFound(base, reported, incoming, ctx);

  const claim = reported.status;
  // A final status reported again agrees with itself, whatever a conflict recorded since said.
  if (isOutcome(claim) && base.status !== claim) {
    if (!incoming.conclusive) return applyUnconfirmed(base, reported, incoming, ctx, preEvents, isNew);
    const verdict = decideByPrecedence(base.evidence ?? [], incoming);
    if (verdict.kind === 'conflict') return unsettled(base, reported, incoming, verdict.against, ctx);
    if (verdict.kind === 'settle' && verdict.against)
      return advance(base, reported, incoming, ctx, preEvents, {
        isNew,
        orphan,
        born,
        against: verdict.against,
      });
  }
  return advance(base, reported, incoming, ctx, preEvents, { isNew, orphan, born });
}

/** A status change by the state machine, with the evidence behind it (and a conflict it overrules). */
function advance(
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
    if (how.isNew) {
      return {
        kind: 'write',
        effect: how.orphan ? 'orphan-created' : 'created',
        next: withEvents(
          { ...base, revision: 0, evidence: withEvidence(base.evidence, incoming) },
          preEvents,
        ),
        events: preEvents,
      };
    }
    return { kind: 'noop', why: transition.why };
  }
  const evidence =
    report.status === 'EXPIRED' ? (base.evidence ?? []) : withEvidence(base.evidence, incoming);
  const adoptAmount = incoming.conclusive ? report.amount : undefined;
  const next: TransactionRecord = {
    ...base,
    status: transition.to,
    providerTransactionId: report.providerTransactionId ?? base.providerTransactionId,
    externalId: base.externalId ?? report.externalId,
    amount: base.amount ?? adoptAmount,
    party: report.party ?? base.party,
    reason: isFinal(transition.to) || transition.to === 'AMBIGUOUS' ? report.reason : base.reason,
    attributes: { ...base.attributes, ...report.attributes },
    updatedAt: ctx.now,
    reconcile: reconcileAfter(base, transition.to, report, ctx.now),
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
  const events = [...preEvents];
  const statusEvent = STATUS_EVENT[transition.to];
  if (statusEvent) {
    events.push(
      buildEvent(statusEvent, correlationIdOf(next), transition.to, report.origin, report.receivedAt, {
        ...transactionEventData(next, report.receivedAt),
        ...report.eventDetail,
        ...(isFinal(transition.to) ? { evidence } : {}),
        ...(transition.late ? { lateResolution: true } : {}),
      }),
    );
  }
  // Precedence settled it over weaker evidence that said otherwise: the disagreement is surfaced (an
  // unsigned success the status API denies is a security signal), the status is the stronger source's.
  if (how.against) {
    const kind = conflictKindOf(how.against, incoming);
    const detail = conflictDetail(kind, how.against, incoming);
    const kept = withConflict(next.conflicts, {
      kind,
      reportedStatus: how.against.claim === 'NOT_FOUND' ? 'FAILED' : how.against.claim,
      at: report.receivedAt,
      origin: report.origin,
      receiptId: report.receiptId,
      detail,
      evidence: [how.against, incoming],
    });
    next.conflicts = kept.conflicts;
    events.push(
      conflictEvent(
        next,
        { ...report, status: how.against.claim === 'NOT_FOUND' ? 'FAILED' : how.against.claim },
        {
          kind,
          detail,
          currentStatus: transition.to,
          discriminator:
            kind === 'UNVERIFIED_SUCCESS'
              ? 'UNVERIFIED_SUCCESS:FAILED'
              : `${kind}:${how.against.claim}:${transition.to}`,
          occurredAt: report.receivedAt,
          evidence: [how.against, incoming],
        },
      ),
    );
  }
  // An unconfirmed success claimed another amount than the one now confirmed: the claim never set the
  // amount, and the disagreement is said, not dropped (a forged 1 EUR before MTN's real 100 EUR).
  const claimedOther =
    transition.to === 'SUCCEEDED' && next.amount
      ? (base.evidence ?? []).find(
          (e) =>
            e.claim === 'SUCCEEDED' &&
            !e.conclusive &&
            e.amount !== null &&
            !sameAmount(e.amount.value, next.amount!.value),
        )
      : undefined;
  if (claimedOther && next.amount) {
    const detail =
      `an unconfirmed success claimed ${claimedOther.amount!.value} ${claimedOther.amount!.currency ?? ''}`.trimEnd() +
      `; ${describeEvidence(incoming)} with ${next.amount.value} ${next.amount.currency ?? ''}`.trimEnd();
    const evidencePair = [claimedOther, incoming];
    next.conflicts = withConflict(next.conflicts, {
      kind: 'AMOUNT_MISMATCH',
      reportedStatus: 'SUCCEEDED',
      at: report.receivedAt,
      origin: report.origin,
      receiptId: claimedOther.receiptId ?? undefined,
      detail,
      evidence: evidencePair,
    }).conflicts;
    events.push(
      conflictEvent(
        next,
        { ...report, amount: claimedOther.amount ?? undefined },
        {
          kind: 'AMOUNT_MISMATCH',
          detail,
          currentStatus: 'SUCCEEDED',
          discriminator: 'AMOUNT_MISMATCH:unconfirmed:SUCCEEDED',
          occurredAt: report.receivedAt,
          evidence: evidencePair,
        },
      ),
    );
  }
  return {
    kind: 'write',
    effect: how.orphan ? 'orphan-created' : how.born ? 'created' : 'advanced',
    next: withEvents(next, events),
    events,
  };
}

/**
 * A claim of an outcome that cannot settle on its own (a hint, an unsigned success the account confirms,
 * an unsigned failure on an account that confirms failures): kept as evidence and checked with the
 * status API. Open, an unconfirmed success makes the transaction AMBIGUOUS (UNCONFIRMED) meanwhile; a
 * hint or a held failure changes no status;
 * after the verdict, a contradicting claim is surfaced as a conflict and a status check is asked for, and
 * after EXPIRED the check can still resolve it (a late resolution).
 */
function applyUnconfirmed(
  base: TransactionRecord,
  report: NormalizedReport,
  incoming: Evidence,
  ctx: ApplyContext,
  preEvents: EventEnvelope[],
  isNew: boolean,
): ApplyOutcome {
  const state = base.reconcile ?? { checks: 0, recent: [] };
  if (!isFinal(base.status)) {
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

/**
 * A STATUS conflict about what a report claims, recorded once per distinct contradiction (withConflict:
 * a repeat is counted on the record it repeats, without an event).
 */
function statusConflict(
  base: TransactionRecord,
  report: NormalizedReport,
  said: { detail: string; evidence: Evidence[]; discriminator: string },
): { next: TransactionRecord; events: EventEnvelope[]; changed: boolean; fresh: boolean } {
  const kept = withConflict(base.conflicts, {
    kind: 'STATUS',
    reportedStatus: report.status,
    at: report.receivedAt,
    origin: report.origin,
    receiptId: report.receiptId,
    detail: said.detail,
    evidence: said.evidence,
  });
  if (!kept.changed) return { next: base, events: [], changed: false, fresh: false };
  const next = { ...base, conflicts: kept.conflicts };
  if (!kept.fresh) return { next, events: [], changed: true, fresh: false };
  const event = conflictEvent(next, report, {
    kind: 'STATUS',
    detail: said.detail,
    currentStatus: base.status,
    discriminator: said.discriminator,
    occurredAt: report.receivedAt,
    evidence: said.evidence,
  });
  return { next, events: [event], changed: true, fresh: true };
}

/**
 * An unconfirmed claim of one outcome after an unconfirmed claim of the other (a held FAILED, then a
 * success on an account that confirms successes, or the reverse): a STATUS conflict naming both, once per
 * contradiction (repeats counted). The transaction's status is the caller's to decide.
 */
function claimConflict(
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

/** Evidence kept (and maybe a status check asked for) without a change of status. */
function record(
  base: TransactionRecord,
  incoming: Evidence,
  ctx: ApplyContext,
  reconcile: TransactionRecord['reconcile'],
  extra: EventEnvelope[],
  isNew: boolean,
  preEvents: EventEnvelope[],
  /** Something besides evidence and schedule changed (a conflict's repeat count): write even so. */
  changed = false,
): ApplyOutcome {
  const evidence = withEvidence(base.evidence, incoming);
  const unchanged =
    !changed &&
    !isNew &&
    extra.length === 0 &&
    evidence.length === (base.evidence?.length ?? 0) &&
    JSON.stringify(reconcile) === JSON.stringify(base.reconcile);
  if (unchanged) return { kind: 'noop', why: 'same-status' };
  const events = [...preEvents, ...extra];
  const next: TransactionRecord = {
    ...base,
    evidence,
    reconcile,
    updatedAt: ctx.now,
    ...(isNew ? { revision: 0 } : {}),
  };
  return {
    kind: 'write',
    effect: isNew ? (base.registered ? 'created' : 'orphan-created') : 'recorded',
    next: withEvents(next, events),
    events,
  };
}

/**
 * A "not found" status answer. It never settles while any callback reported on the reference: that is a
 * conflict (often the request was made with another API user), and the transaction is escalated. With
 * no such report it settles FAILED (NOT_ACCEPTED) only when the not-found rule is met (`settles`).
 */
function applyNotFound(
  base: TransactionRecord,
  report: NormalizedReport,
  incoming: Evidence,
  ctx: ApplyContext,
): ApplyOutcome {
  const verdict = decideByPrecedence(base.evidence ?? [], incoming);
  if (verdict.kind === 'conflict') return unsettled(base, report, incoming, verdict.against, ctx);
  if (!report.notFound?.settles || isFinal(base.status)) return { kind: 'noop', why: 'stale' };
  return advance(base, report, incoming, ctx, [], { isNew: false, orphan: false, born: false });
}

/**
 * Sources disagree and precedence cannot pick one: an open transaction becomes (or stays) AMBIGUOUS with
 * reason CONFLICTING_REPORTS and is escalated at once; a final one keeps its status. Either way one
 * TransactionConflict names both pieces of evidence (once per kind and pair of claims).
 */
function unsettled(
  base: TransactionRecord,
  report: NormalizedReport,
  incoming: Evidence,
  against: Evidence,
  ctx: ApplyContext,
): ApplyOutcome {
  const kind = conflictKindOf(against, incoming);
  const detail = conflictDetail(kind, against, incoming);
  if (isFinal(base.status)) return conflict(base, report, ctx, kind, detail, [], false, [against, incoming]);
  const reportedStatus = incoming.claim === 'NOT_FOUND' ? 'FAILED' : report.status;
  const kept = withConflict(base.conflicts, {
    kind,
    reportedStatus,
    at: report.receivedAt,
    origin: report.origin,
    receiptId: report.receiptId,
    detail,
    evidence: [against, incoming],
  });
  if (!kept.changed) return { kind: 'noop', why: 'conflict-already-recorded' };
  if (!kept.fresh)
    return record({ ...base, conflicts: kept.conflicts }, incoming, ctx, base.reconcile, [], false, [], true);
  const reason = {
    code: 'CONFLICTING_REPORTS' as const,
    message: detail.slice(0, MAX_EVIDENCE_TEXT),
    providerCode: report.reason?.providerCode,
  };
  const transition = decideTransition(base.status, 'AMBIGUOUS');
  const state = base.reconcile ?? { checks: 0, recent: [] };
  let next: TransactionRecord = {
    ...base,
    status: 'AMBIGUOUS',
    reason,
    updatedAt: ctx.now,
    evidence: withEvidence(base.evidence, incoming),
    reconcile: { ...state, dueAt: state.dueAt ?? ctx.now, escalatedAt: state.escalatedAt ?? ctx.now },
    conflicts: kept.conflicts,
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
  events.push(
    conflictEvent(
      next,
      { ...report, status: reportedStatus },
      {
        kind,
        detail,
        currentStatus: 'AMBIGUOUS',
        discriminator: `${kind}:${against.claim}:${incoming.claim}`,
        occurredAt: report.receivedAt,
        evidence: [against, incoming],
      },
    ),
  );
  if (!state.escalatedAt) events.push(escalationEvent(next, ctx.now, report.origin));
  next = withEvents(next, events);
  return { kind: 'write', effect: 'conflict', next, events };
}

/** TransactionConflict: what the transaction says and what the report said instead. */
export function conflictEvent(
  tx: TransactionRecord,
  report: NormalizedReport,
  conflict: {
    kind: ConflictRecord['kind'];
    detail: string;
    currentStatus: TransactionRecord['status'];
    discriminator: string;
    occurredAt: string;
    evidence: Evidence[];
  },
): EventEnvelope {
  return buildEvent(
    'TransactionConflict',
    correlationIdOf(tx),
    conflict.discriminator,
    report.origin,
    conflict.occurredAt,
    {
      ...transactionEventData(tx, report.receivedAt),
      conflict: {
        kind: conflict.kind,
        detail: conflict.detail,
        currentStatus: conflict.currentStatus,
        reportedStatus: report.status,
        reportedReason: report.reason ?? null,
        reportedAmount: report.amount ?? null,
        reportedProviderTransactionId: report.providerTransactionId ?? null,
        evidence: conflict.evidence,
      },
    },
  );
}

function conflict(
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
  const confirmed = base.conflicts.some((c) => c.kind === kind && c.reportedStatus === report.status);
  const kept = withConflict(base.conflicts, {
    kind,
    reportedStatus: report.status,
    at: report.receivedAt,
    origin: report.origin,
    receiptId: report.receiptId,
    detail,
    evidence,
  });
  if (!kept.changed && !isNew) return { kind: 'noop', why: 'conflict-already-recorded' };
  // A success for another amount or payer is not evidence about this transaction's status: it stays in
  // the conflict record only.
  const incoming = kind === 'AMOUNT_MISMATCH' || kind === 'MSISDN_MISMATCH' ? undefined : evidence.at(-1);
  const next: TransactionRecord = {
    ...base,
    updatedAt: ctx.now,
    ...(incoming ? { evidence: withEvidence(base.evidence, incoming) } : {}),
    conflicts: kept.conflicts,
  };
  if (!kept.fresh && !isNew)
    return { kind: 'write', effect: 'recorded', next: withEvents(next, []), events: [] };
  const event = conflictEvent(next, report, {
    kind,
    detail,
    currentStatus: base.status,
    // A stronger restatement of a recorded conflict is its own event (its own id).
    discriminator: `${kind}:${base.status}:${report.status}${confirmed ? `:rank${strength}` : ''}`,
    occurredAt: report.receivedAt,
    evidence,
  });
  const events = [...preEvents, event];
  return {
    kind: 'write',
    effect: isNew ? 'orphan-created' : 'conflict',
    next: withEvents(next, events),
    events,
  };
}
