import { SchemaValidationError, TransactionNotFoundError } from '../../domain/errors';
import type { Evidence } from '../../domain/evidence';
import type { Money, ReceiptTally, TransactionKey, TransactionRecord } from '../../domain/transaction';
import { findRegistrationRules } from '../../providers/registration-registry';
import { type AnsweredAck, answeredAck } from '../callbacks/answered-ack';
import type { ReceiptSummary, RefusedCallbackRef } from '../ports';
import type { ActorRef } from '../../domain/actor';
import { findProvider } from '../../providers/registry';
import { type StoryModel, storyOf } from '../console/story';
import { maskMsisdnsIn } from '../../util/mask';
import { type ManagementDeps, maskedEvidence, type TransactionView, toView } from './register-transaction';
import { type DeliveryAdmin, transactionDeliveries } from '../delivery/destinations-admin';
import type { TransactionDeliveriesAnswer } from '../management-answers';

export type HistoryEntry =
  | { at: string; type: 'registered' | 'first-seen'; detail: string }
  | {
      at: string;
      type: 'callback';
      receiptId: string;
      route: string;
      method: string;
      deliveries: number;
      sourceIp: string;
      lastReceivedAt: string;
      verification: Record<string, unknown>;
      bodyBytes: number;
      /** Stored without its body: the transaction's receipt budget was spent. */
      bodyDropped: boolean;
      /** What the relay answered it (answered-ack.ts); null for a question's decision. */
      ack: AnsweredAck | null;
    }
  | {
      at: string;
      type: 'transition';
      from: string;
      to: string;
      origin: string;
      receiptId: string | null;
      /** What caused it (null on an expiry, which the relay decides, and on transitions older than evidence). */
      evidence: Evidence | null;
    }
  | {
      at: string;
      type: 'conflict';
      kind: string;
      reportedStatus: string;
      detail: string;
      origin: string;
      receiptId: string | null;
      /** The pieces of evidence that disagree. */
      evidence: Evidence[];
      /** The same contradiction said again since (counted on this entry, never a new event), and when last. */
      repeats: number;
      lastAt: string | null;
    }
  | {
      at: string;
      type: 'reversal';
      /** What went back (null: the result did not say; it counts as the whole payment). */
      amount: Money | null;
      reversalReceipt: string | null;
      receiptId: string | null;
      /** The reversal result it rests on. */
      evidence: Evidence;
    }
  | { at: string; type: 'event'; eventId: string; eventType: string }
  | {
      at: string;
      type: 'status-check';
      answer: string;
      detail: string;
      providerCode: string | null;
      /** What was asked (method and path); absent on checks recorded before it was kept. */
      request?: string;
      /** Identical answers in a row kept as one (CheckRecord.count), and when the first came. */
      count?: number;
      since?: string;
      /** Who asked (check now); absent: the poller's schedule. */
      by?: ActorRef;
    };

/** Refused callbacks a story links at most (the quarantine view lists them all). */
const REFUSED_SHOWN = 20;

/** Receipts listed per GET: the history of a flooded transaction is read a page at a time. */
const RECEIPTS_PER_PAGE = 50;
export const MAX_RECEIPTS_PER_PAGE = 200;

export interface ReceiptPaging {
  /** `receiptsAfter` of the previous answer's `receipts.next`. */
  after?: string;
  limit?: number;
}

/** Query parameters `receiptsAfter` and `receiptsLimit`, checked: a bad one is a 400 naming it. */
export function receiptPaging(query: Record<string, string | undefined>): ReceiptPaging {
  const after = query.receiptsAfter;
  if (after !== undefined && !/^[0-9a-f]{32}$/.test(after))
    throw new SchemaValidationError('receiptsAfter must be the receipts.next of a previous answer');
  const rawLimit = query.receiptsLimit;
  const limit = rawLimit === undefined ? undefined : Number(rawLimit);
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= MAX_RECEIPTS_PER_PAGE))
    throw new SchemaValidationError(`receiptsLimit must be an integer from 1 to ${MAX_RECEIPTS_PER_PAGE}`);
  return { ...(after ? { after } : {}), ...(limit ? { limit } : {}) };
}

/** GET /v1/transactions/{provider}/{account}/{reference}: the transaction and all the relay knows of it. */
interface TransactionAnswer {
  transaction: TransactionView;
  reconciliation: {
    statusChecks: number;
    nextCheckAt: string | null;
    reconcileUntil: string;
    escalatedAt: string | null;
  };
  /** Every report the status rests on (docs/reconciliation.md#evidence), oldest first. */
  evidence: Evidence[];
  /**
   * The callbacks stored about it: counted in full (`tally`), listed a page at a time in the history
   * (`listed`); `next` asks for the following page (query `receiptsAfter`).
   */
  receipts: { tally: ReceiptTally | null; listed: number; next: string | null };
  history: HistoryEntry[];
  /** Why it has its status, in one sentence, and the history with repeated checks collapsed. */
  story: StoryModel;
  /** Refused callbacks that named this reference (newest first, at most REFUSED_SHOWN): the quarantine's. */
  refused: RefusedCallbackRef[];
  /**
   * Its events' webhook deliveries, per event and destination, each attempt with its time, status, latency
   * and number (docs/webhooks.md#delivery-log-and-replay); empty without destinations.
   */
  deliveries: TransactionDeliveriesAnswer['deliveries'];
}

export async function getTransaction(
  deps: ManagementDeps & { deliveries?: DeliveryAdmin },
  key: TransactionKey,
  paging: ReceiptPaging = {},
  /** The zone the story's sentence tells times in (`?timeZone=`, shared/app/console/time-zones.ts). */
  timeZone = 'UTC',
): Promise<TransactionAnswer> {
  const reference = findRegistrationRules(key.provider)?.normalizeReference?.(key.reference) ?? key.reference;
  const normalizedKey = { ...key, reference };
  const tx = await deps.store.getTransaction(normalizedKey, { consistent: true });
  if (!tx)
    throw new TransactionNotFoundError(`No transaction ${key.provider}/${key.account}/${key.reference}`);
  const page = await deps.store.listReceipts(normalizedKey, {
    limit: paging.limit ?? RECEIPTS_PER_PAGE,
    ...(paging.after ? { after: paging.after } : {}),
  });
  const receipts: ReceiptSummary[] = page.receipts;
  const history = historyOf(tx, receipts);
  const evidence = (tx.evidence ?? []).map(maskedEvidence);
  const [refused, deliveries] = await Promise.all([
    deps.store.listRefusedFor(normalizedKey, REFUSED_SHOWN),
    deps.deliveries
      ? transactionDeliveries(deps.deliveries, normalizedKey).then((answer) => answer.deliveries)
      : [],
  ]);
  return {
    transaction: toView(tx),
    reconciliation: {
      statusChecks: tx.reconcile?.checks ?? 0,
      nextCheckAt: tx.reconcile?.dueAt ?? null,
      reconcileUntil: tx.reconcileUntil,
      escalatedAt: tx.reconcile?.escalatedAt ?? null,
    },
    evidence,
    receipts: { tally: tx.receipts ?? null, listed: receipts.length, next: page.next ?? null },
    history,
    // After the raw facts: a reader of the API meets the transaction first (docs/management-api.md).
    story: storyOf({
      transaction: { status: tx.status, provider: tx.key.provider },
      providerName: findProvider(key.provider)?.displayName ?? key.provider,
      history,
      evidence,
      statusChecks: tx.reconcile?.checks ?? 0,
      timeZone,
    }),
    refused,
    deliveries,
  };
}

/**
 * What happened to it, oldest first: its registration (or first sighting), then its callbacks, status
 * checks, transitions, conflicts, reversals and events.
 */
function historyOf(tx: TransactionRecord, receipts: readonly ReceiptSummary[]): HistoryEntry[] {
  const history: HistoryEntry[] = [
    {
      at: tx.createdAt,
      type: tx.registered ? 'registered' : 'first-seen',
      detail: tx.registered ? 'registered by the partner' : 'first seen in a callback (orphan)',
    },
    ...receipts.map((r) => ({
      at: r.firstReceivedAt,
      type: 'callback' as const,
      receiptId: r.receiptId,
      route: r.routeName,
      method: r.method,
      deliveries: r.deliveries,
      sourceIp: r.sourceIp,
      lastReceivedAt: r.lastReceivedAt,
      verification: r.verification,
      bodyBytes: r.bodyBytes,
      bodyDropped: r.bodyDropped === true,
      ack: answeredAck(tx.key.provider, r.routeName, r.receiptId),
    })),
    ...(tx.reconcile?.recent ?? []).map((c) => ({
      at: c.at,
      type: 'status-check' as const,
      answer: c.answer,
      detail: c.detail,
      providerCode: c.providerCode ?? null,
      ...(c.request ? { request: c.request } : {}),
      ...(c.count ? { count: c.count, since: c.since } : {}),
      ...(c.by ? { by: c.by } : {}),
    })),
    ...tx.transitions.map((t) => ({
      at: t.at,
      type: 'transition' as const,
      from: t.from,
      to: t.to,
      origin: t.origin,
      receiptId: t.receiptId ?? null,
      evidence: t.evidence ? maskedEvidence(t.evidence) : null,
    })),
    ...tx.conflicts.map((c) => ({
      at: c.at,
      type: 'conflict' as const,
      kind: c.kind,
      reportedStatus: c.reportedStatus,
      detail: maskMsisdnsIn(c.detail),
      origin: c.origin,
      receiptId: c.receiptId ?? null,
      evidence: (c.evidence ?? []).map(maskedEvidence),
      repeats: c.repeats ?? 0,
      lastAt: c.lastAt ?? null,
    })),
    ...(tx.reversals ?? []).map((r) => ({
      at: r.at,
      type: 'reversal' as const,
      amount: r.amount,
      reversalReceipt: r.reversalReceipt,
      receiptId: r.evidence.receiptId,
      evidence: maskedEvidence(r.evidence),
    })),
    ...tx.events.map((e) => ({ at: e.at, type: 'event' as const, eventId: e.id, eventType: e.type })),
  ];
  // A status check and the transition it caused share their time: the check comes first (stable sort).
  // The registration (or first sighting) opens the history even when a callback's receivedAt precedes
  // the moment the item was written.
  const [opening, ...rest] = history;
  rest.sort((a, b) => a.at.localeCompare(b.at));
  history.splice(0, history.length, opening!, ...rest);
  return history;
}
