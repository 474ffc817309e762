import { maskMsisdn } from '../util/mask';
import { sameAmount } from '../util/money';
import {
  buildEvent,
  correlationIdOf,
  type EventEnvelope,
  STATUS_EVENT,
  transactionEventData,
} from './events';
import { decideTransition, isFinal } from './status';
import type { ConflictRecord, Money, NormalizedReport, TransactionRecord } from './transaction';

export type ApplyOutcome =
  | {
      kind: 'write';
      effect: 'advanced' | 'conflict' | 'orphan-created' | 'created';
      next: TransactionRecord;
      events: EventEnvelope[];
    }
  | { kind: 'noop'; why: 'same-status' | 'stale' | 'conflict-already-recorded' | 'hint' };

/** Conflicts are a signal for people, not a log; a flood of them must not grow the item without bound. */
const MAX_CONFLICTS = 20;

export interface ApplyContext {
  now: string;
  reconcileWindowSeconds: number;
  /** Seconds until the first status check of a transaction a report creates (default: due at once). */
  firstCheckSeconds?: number;
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
    const { dueAt: _due, leaseOwner: _owner, ...rest } = state;
    return rest;
  }
  // Due at once, unless a poller holds the item (dueAt is then its lease; it checks anyway).
  if (to === 'AMBIGUOUS' && report.reason?.code === 'UNCONFIRMED')
    return state.leaseOwner ? state : { ...state, dueAt: now };
  return { ...state, dueAt: state.dueAt ?? now };
}

function withEvents(tx: TransactionRecord, events: EventEnvelope[]): TransactionRecord {
  return {
    ...tx,
    events: [
      ...tx.events,
      ...events.map((e) => ({ id: e.metadata.id, type: e.metadata.type, at: e.metadata.occurredAt })),
    ],
    outbox: events,
  };
}

/**
 * Pure decision: given what is stored and a new report, what to write and which events that write
 * publishes. Applying the same report twice yields a no-op the second time, which is what makes
 * duplicate and concurrent deliveries safe (the store's conditional write picks one winner).
 */
export function applyReport(
  current: TransactionRecord | undefined,
  reported: NormalizedReport,
  ctx: ApplyContext,
  options: ApplyOptions = {},
): ApplyOutcome {
  const born = current === undefined && options.born !== undefined;
  const orphan = current === undefined && !born;
  const created = newTransactionFromReport(reported, ctx);
  const base =
    current ??
    (born
      ? {
          ...created,
          amount: options.born?.amount ?? created.amount,
          attributes: { ...options.born?.attributes },
        }
      : created);
  const report = unconfirmedSuccess(base, reported) ?? reported;
  const correlationId = correlationIdOf(base);
  const preEvents: EventEnvelope[] = [];
  if (orphan) {
    preEvents.push(
      buildEvent('CallbackOrphaned', correlationId, 'orphan', report.origin, report.receivedAt, {
        ...transactionEventData(base, report.receivedAt),
        note: 'callback for a transaction nobody registered; stored and applied',
      }),
    );
  }

  // Checked on the claim as made: an unsigned success for another amount is a conflict, not a hint.
  const mismatch = businessMismatch(base, reported);
  if (mismatch)
    return conflict(base, reported, ctx, mismatch.kind, mismatch.detail, preEvents, current === undefined);

  const transition = decideTransition(base.status, report.status);
  if (transition.kind === 'conflict') {
    return conflict(
      base,
      report,
      ctx,
      'STATUS',
      `${transition.reported} reported after ${transition.current}`,
      preEvents,
      current === undefined,
    );
  }
  if (transition.kind === 'unchanged') {
    if (current === undefined) {
      return {
        kind: 'write',
        effect: orphan ? 'orphan-created' : 'created',
        next: withEvents({ ...base, revision: 0 }, preEvents),
        events: preEvents,
      };
    }
    return { kind: 'noop', why: transition.why };
  }

  const next: TransactionRecord = {
    ...base,
    status: transition.to,
    providerTransactionId: report.providerTransactionId ?? base.providerTransactionId,
    externalId: base.externalId ?? report.externalId,
    amount: base.amount ?? report.amount,
    party: report.party ?? base.party,
    reason: isFinal(transition.to) || transition.to === 'AMBIGUOUS' ? report.reason : base.reason,
    attributes: { ...base.attributes, ...report.attributes },
    updatedAt: ctx.now,
    reconcile: reconcileAfter(base, transition.to, report, ctx.now),
    transitions: [
      ...base.transitions,
      {
        from: transition.from,
        to: transition.to,
        at: report.receivedAt,
        origin: report.origin,
        receiptId: report.receiptId,
        ...(report.authenticated ? { authenticated: true } : {}),
      },
    ],
  };
  const events = [...preEvents];
  const statusEvent = STATUS_EVENT[transition.to];
  if (statusEvent) {
    events.push(
      buildEvent(statusEvent, correlationId, transition.to, report.origin, report.receivedAt, {
        ...transactionEventData(next, report.receivedAt),
        ...report.eventDetail,
        ...(transition.late ? { lateResolution: true } : {}),
      }),
    );
  }
  // An unsigned success the status API contradicts: the transaction fails (the provider's word is
  // final) and the disagreement is a security signal for people.
  const disagreement = awaitsConfirmation(base) && transition.to === 'FAILED' && report.origin === 'poll';
  if (disagreement) {
    const detail = 'an unsigned success was reported; the status API answered FAILED';
    next.conflicts = [
      ...next.conflicts,
      {
        kind: 'UNVERIFIED_SUCCESS' as const,
        reportedStatus: 'SUCCEEDED' as const,
        at: report.receivedAt,
        origin: report.origin,
        receiptId: report.receiptId,
        detail,
      },
    ].slice(-MAX_CONFLICTS);
    events.push(
      conflictEvent(
        next,
        { ...report, status: 'SUCCEEDED' },
        {
          kind: 'UNVERIFIED_SUCCESS',
          detail,
          currentStatus: 'FAILED',
          discriminator: 'UNVERIFIED_SUCCESS:FAILED',
          occurredAt: report.receivedAt,
        },
      ),
    );
  }
  return {
    kind: 'write',
    effect: orphan ? 'orphan-created' : born ? 'created' : 'advanced',
    next: withEvents(next, events),
    events,
  };
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
): ApplyOutcome {
  const seen = base.conflicts.some((c) => c.kind === kind && c.reportedStatus === report.status);
  if (seen && !isNew) return { kind: 'noop', why: 'conflict-already-recorded' };
  const record = {
    kind,
    reportedStatus: report.status,
    at: report.receivedAt,
    origin: report.origin,
    receiptId: report.receiptId,
    detail,
  };
  const next: TransactionRecord = {
    ...base,
    updatedAt: ctx.now,
    conflicts: [...base.conflicts, record].slice(-MAX_CONFLICTS),
  };
  const event = conflictEvent(next, report, {
    kind,
    detail,
    currentStatus: base.status,
    discriminator: `${kind}:${base.status}:${report.status}`,
    occurredAt: report.receivedAt,
  });
  const events = [...preEvents, event];
  return {
    kind: 'write',
    effect: isNew ? 'orphan-created' : 'conflict',
    next: withEvents(next, events),
    events,
  };
}
