import { sameAmount } from '../util/money';
import type { EventOrigin } from './event-envelope';
import { buildEvent, correlationIdOf, type EventEnvelope } from './events';
import { publishedReason } from './reasons';
import type { Money, TransactionRecord } from './transaction';

/**
 * A reversal success held as UNCONFIRMED (its sender passed no check: app/transactions/ingest-facts.ts) on
 * an account the relay can ask: the poller asks the provider's status query about the reversal's own
 * receipt a fixed number of times, with backoff (REVERSAL_ASK_GAPS_SECONDS); the answer confirms it
 * (counted as a reversal), contradicts it (refused, a conflict) or never comes (escalated for a person).
 * Kept on the payment it names, which is due for the poller while one waits (reconcile-schedule.ts dueAtOf).
 */
export interface HeldReversal {
  /** The held result's request id (its OriginatorConversationID as the result named it). */
  id: string;
  /** Where the held result is recorded (its fact namespace: `reversal-unconfirmed`). */
  namespace: string;
  /** The reversal's own receipt (Daraja's Result.TransactionID): what the status query asks about. */
  receipt: string;
  /** What the result said went back; null when it did not say (then it claims the whole payment). */
  amount: Money | null;
  heldAt: string;
  /** Status queries made about it. */
  asks: number;
  /** When the poller looks next: another ask, or (asks spent) the escalation. */
  dueAt: string;
  state: 'asking' | 'confirmed' | 'refused' | 'escalated';
  /** The provider's latest answer to a query about it, in words (kept for the escalation). */
  lastAnswer?: string;
  /** Why it ended (refused, escalated), for a person. */
  detail?: string;
  endedAt?: string;
}

/** Queries per held reversal: the first at once, then after each gap; never more. */
export const REVERSAL_ASKS = 3;
/** Seconds between the asks (before the time scale): a minute, then ten. */
const REVERSAL_ASK_GAPS_SECONDS: readonly number[] = [60, 600];
/** After the last ask, how long its answer may take before the reversal goes to a person. */
const REVERSAL_ANSWER_WAIT_SECONDS = 1800;
/** Held reversals asked about per payment: a flood of forged results costs a bounded number of queries. */
const MAX_HELD_REVERSALS = 5;

const later = (now: string, seconds: number, timeScale: number) =>
  new Date(Date.parse(now) + Math.max(1, seconds * timeScale * 1000)).toISOString();

/** The held reversals still waiting for an answer. */
export const pendingReversals = (tx: Pick<TransactionRecord, 'heldReversals'>): HeldReversal[] =>
  (tx.heldReversals ?? []).filter((h) => h.state === 'asking');

/** When the payment is next due for its held reversals, if any waits. */
export function nextReversalDue(tx: Pick<TransactionRecord, 'heldReversals'>): string | undefined {
  return pendingReversals(tx)
    .map((h) => h.dueAt)
    .sort()[0];
}

/** The held reversal the poller looks at now (the earliest due), if any. */
export function reversalDue(
  tx: Pick<TransactionRecord, 'heldReversals'>,
  now: string,
): HeldReversal | undefined {
  return pendingReversals(tx)
    .filter((h) => h.dueAt <= now)
    .sort((a, b) => a.dueAt.localeCompare(b.dueAt))[0];
}

/**
 * The payment with a held reversal to ask about (due at once), unless it is known already or the payment holds
 * MAX_HELD_REVERSALS (one the payment counts already is settled at the poller's look: withCountedSettled).
 */
export type HeldReversalClaim = Pick<HeldReversal, 'id' | 'namespace' | 'receipt' | 'amount'>;

export function withReversalHeld(
  tx: TransactionRecord,
  held: HeldReversalClaim,
  now: string,
): TransactionRecord | undefined {
  const all = tx.heldReversals ?? [];
  if (all.some((h) => h.id === held.id || h.receipt === held.receipt)) return undefined;
  if (all.length >= MAX_HELD_REVERSALS) return undefined;
  const state = tx.reconcile ?? { checks: 0, recent: [] };
  const entry: HeldReversal = { ...held, heldAt: now, asks: 0, dueAt: now, state: 'asking' };
  return {
    ...tx,
    heldReversals: [...all, entry],
    // Due at once, unless a poller holds the item (dueAt is its lease then; the reversal waits its turn).
    reconcile: { ...state, dueAt: state.leaseOwner && state.dueAt ? state.dueAt : now },
  };
}

/**
 * A reversal the payment counts (Daraja's own result, or a held one its status query confirmed) answers the
 * held reversals of the same request or receipt: nothing is left to ask about them.
 */
export function withCountedSettled(tx: TransactionRecord): TransactionRecord {
  const counted = (h: HeldReversal) =>
    (tx.reversals ?? []).find((r) => r.id === h.id || r.reversalReceipt === h.receipt);
  if (!pendingReversals(tx).some(counted)) return tx;
  return {
    ...tx,
    heldReversals: tx.heldReversals!.map((h) => {
      const reversal = h.state === 'asking' ? counted(h) : undefined;
      return reversal
        ? {
            ...h,
            state: 'confirmed',
            endedAt: reversal.at,
            detail: `counted: ${reversal.evidence.source} ${reversal.id}`,
          }
        : h;
    }),
  };
}

/** One held reversal changed. */
export function withHeldReversal(
  tx: TransactionRecord,
  id: string,
  change: (held: HeldReversal) => HeldReversal,
): TransactionRecord {
  return { ...tx, heldReversals: (tx.heldReversals ?? []).map((h) => (h.id === id ? change(h) : h)) };
}

/** After an ask: counted, and due for the next ask, or (asks spent) for the escalation once its answer is late. */
export function afterReversalAsk(
  held: HeldReversal,
  now: string,
  timeScale: number,
  lastAnswer: string,
): HeldReversal {
  const asks = held.asks + 1;
  const wait =
    asks < REVERSAL_ASKS
      ? (REVERSAL_ASK_GAPS_SECONDS[Math.min(asks - 1, REVERSAL_ASK_GAPS_SECONDS.length - 1)] ?? 600)
      : REVERSAL_ANSWER_WAIT_SECONDS;
  return { ...held, asks, dueAt: later(now, wait, timeScale), lastAnswer };
}

/** Whether the look due now is the escalation (every ask made, no answer that settles it). */
export const asksSpent = (held: HeldReversal): boolean => held.asks >= REVERSAL_ASKS;

/** What the provider's status answer about the reversal's receipt says, as the relay reads it. */
export interface ReversalAnswer {
  /** The answer's own status of that transaction: only a final one says something. */
  status: 'SUCCEEDED' | 'FAILED' | 'PENDING' | 'AMBIGUOUS' | 'EXPIRED';
  /** The receipt the answer is about (ReceiptNo). */
  receipt: string | undefined;
  amount: Money | undefined;
  /** What kind of movement it is, in the provider's words (Daraja's ReasonType). */
  reasonType: string | undefined;
  /** Whether the provider calls it a reversal (StatusApi.describeMovement decides, in its own words). */
  isReversal: boolean;
  /** The provider's status of it, in its words (Daraja's TransactionStatus), or its ResultDesc. */
  said: string;
}

export type ReversalVerdict =
  | { verdict: 'confirms' }
  | { verdict: 'contradicts'; kind: 'STATUS' | 'AMOUNT_MISMATCH'; detail: string }
  | { verdict: 'says-nothing'; detail: string };

/**
 * Whether the status answer about a held reversal's receipt confirms it: that transaction is a completed
 * reversal for the amount the held result claimed (or, claiming none, the payment's). A final answer that
 * says otherwise contradicts it; an answer about another receipt, or no final answer (the query failed,
 * "could not be found", still in progress), says nothing (the next ask, or the escalation, follows).
 */
export function judgeReversalAnswer(
  held: Pick<HeldReversal, 'receipt' | 'amount'>,
  payment: Pick<TransactionRecord, 'amount' | 'providerTransactionId'>,
  answer: ReversalAnswer,
): ReversalVerdict {
  const about = `reversal receipt ${held.receipt}`;
  if (answer.receipt !== held.receipt)
    return { verdict: 'says-nothing', detail: `the answer is about ${answer.receipt ?? 'no receipt'}` };
  if (answer.status !== 'SUCCEEDED' && answer.status !== 'FAILED')
    return { verdict: 'says-nothing', detail: `no final answer about ${about}: ${answer.said}` };
  if (answer.status === 'FAILED')
    return {
      verdict: 'contradicts',
      kind: 'STATUS',
      detail: `the status query says ${about} is ${answer.said}`,
    };
  const isReversal = answer.isReversal && answer.receipt !== payment.providerTransactionId;
  if (!isReversal)
    return {
      verdict: 'contradicts',
      kind: 'STATUS',
      detail: `the status query says ${about} is a ${answer.reasonType ?? 'movement of no stated type'}, not a reversal`,
    };
  const claimed = held.amount ?? payment.amount;
  if (!claimed || !answer.amount)
    return { verdict: 'says-nothing', detail: `the answer about ${about} names no amount to compare` };
  const sameCurrency =
    !claimed.currency || !answer.amount.currency || claimed.currency === answer.amount.currency;
  if (!sameCurrency || !sameAmount(claimed.value, answer.amount.value))
    return {
      verdict: 'contradicts',
      kind: 'AMOUNT_MISMATCH',
      detail:
        `the status query says ${about} reversed ${answer.amount.value} ${answer.amount.currency ?? ''}; the held result claimed ${claimed.value} ${claimed.currency ?? ''}`.trim(),
    };
  return { verdict: 'confirms' };
}

const text = (value: unknown) => (typeof value === 'string' ? value : null);

/**
 * The held reversal goes to a person: every ask made and no answer that settles it (or no status API left
 * to ask). A ReversalAmbiguous (reason NO_FINAL_ANSWER) on the payment, naming the request, the receipt
 * asked about and the provider's last answer; still not counted against the payment.
 */
export function heldReversalEscalation(
  tx: TransactionRecord,
  held: HeldReversal,
  /** The request's ids and the reversed receipt, as the held result named them. */
  request: Readonly<Record<string, unknown>>,
  now: string,
  origin: EventOrigin,
  why: string,
): EventEnvelope {
  const message = `not counted, for a person: ${why}; reversal receipt ${held.receipt} held since ${held.heldAt}${held.lastAnswer ? `; last answer: ${held.lastAnswer}` : ''}`;
  return buildEvent(
    'ReversalAmbiguous',
    correlationIdOf(tx),
    `escalated:${held.namespace}:${held.id}`,
    origin,
    now,
    {
      provider: tx.key.provider,
      account: tx.key.account,
      kind: tx.kind,
      reference: tx.key.reference,
      transactionStatus: tx.status,
      originatorConversationId: text(request.originatorConversationId),
      conversationId: text(request.conversationId),
      originalReceipt: text(request.originalReceipt),
      // The contract's vocabulary (UNKNOWN, the finer reason beside it), by the one table of reasons.ts.
      ...publishedReason({
        code: 'NO_FINAL_ANSWER',
        message: message.slice(0, 1024),
        providerCode: undefined,
      }),
      receiptId: null,
      receivedAt: now,
    },
  );
}
