import { withEventIds } from './bounded-history';
import { decimalSum } from '../util/money';
import type { EventEnvelope } from './event-envelope';
import type { ReversalRecord, TransactionRecord } from './transaction';

/**
 * What the reversals of a payment add up to (docs/events.md#transactionreversed). `full` when nothing is
 * left; a reversal whose result does not say how much counts as the whole payment (as the relay's
 * reversal slots count it). Amounts are decimal strings in the payment's currency; null when unknown.
 */
export interface ReversalState {
  state: 'full' | 'partial';
  amountReversed: string | null;
  netAmount: string | null;
  reversals: number;
}

/** The payment's reversal state, or undefined when nothing went back. */
export function reversalStateOf(
  tx: Pick<TransactionRecord, 'amount' | 'reversals'>,
): ReversalState | undefined {
  const reversals = tx.reversals ?? [];
  if (reversals.length === 0) return undefined;
  const paid = tx.amount?.value;
  const counted = reversals.map((r) => r.amount?.value ?? paid);
  const amountReversed = counted.every((v): v is string => v !== undefined)
    ? decimalSum(...counted.map((value) => ({ value, sign: 1 as const })))
    : null;
  const netAmount =
    paid !== undefined && amountReversed !== null
      ? decimalSum({ value: paid, sign: 1 }, { value: amountReversed, sign: -1 })
      : null;
  // Nothing (or less than nothing: never published, but a record may say so) left is a full reversal.
  const full =
    netAmount !== null
      ? netAmount === '0' || netAmount.startsWith('-')
      : reversals.some((r) => r.amount === null);
  return { state: full ? 'full' : 'partial', amountReversed, netAmount, reversals: reversals.length };
}

/**
 * The transaction with a fact event about it on its timeline and, for a TransactionReversed, its
 * reversal; undefined when both are there already (a repeated result changes nothing). The event was
 * published by the fact's own record: this write's outbox is empty, so nothing is published twice.
 */
export function withFactNoted(
  tx: TransactionRecord,
  event: Pick<EventEnvelope, 'metadata'>,
  reversal: ReversalRecord | undefined,
): TransactionRecord | undefined {
  const { id, type, occurredAt } = event.metadata;
  const eventKnown = tx.events.some((e) => e.id === id);
  const reversalKnown = !reversal || (tx.reversals ?? []).some((r) => r.id === reversal.id);
  if (eventKnown && reversalKnown) return undefined;
  return {
    ...tx,
    events: withEventIds(tx.events, [{ id, type, at: occurredAt }]),
    ...(reversalKnown ? {} : { reversals: [...(tx.reversals ?? []), reversal!] }),
    updatedAt: occurredAt > tx.updatedAt ? occurredAt : tx.updatedAt,
    outbox: [],
  };
}
