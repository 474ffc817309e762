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
  | { kind: 'noop'; why: 'same-status' | 'stale' | 'conflict-already-recorded' };

/** Conflicts are a signal for people, not a log; a flood of them must not grow the item without bound. */
const MAX_CONFLICTS = 20;

export interface ApplyContext {
  now: string;
  reconcileWindowSeconds: number;
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
 * A success with no amount cannot be checked against a transaction registered with one. Unless the body
 * was authenticated end to end it is recorded as AMBIGUOUS (UNCONFIRMED), and reconciliation asks the
 * provider's status API, whose answer carries the amount.
 */
export function unconfirmedSuccess(
  tx: TransactionRecord,
  report: NormalizedReport,
): NormalizedReport | undefined {
  if (report.status !== 'SUCCEEDED' || report.amount || !tx.amount || report.authenticated) return undefined;
  return {
    ...report,
    status: 'AMBIGUOUS',
    reason: {
      code: 'UNCONFIRMED',
      message: `success reported without an amount; ${tx.amount.value}${tx.amount.currency ? ` ${tx.amount.currency}` : ''} registered, awaiting confirmation`,
      providerCode: report.reason?.providerCode,
    },
  };
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

  const mismatch = businessMismatch(base, report);
  if (mismatch)
    return conflict(base, report, ctx, mismatch.kind, mismatch.detail, preEvents, current === undefined);

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
      buildEvent(
        statusEvent,
        correlationId,
        transition.to,
        report.origin,
        report.receivedAt,
        transactionEventData(next, report.receivedAt),
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
