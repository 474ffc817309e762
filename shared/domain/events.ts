import { deterministicUuid } from '../util/ids';
import type { EventEnvelope, EventOrigin, EventType } from './event-envelope';
export type { EventEnvelope, EventOrigin, EventType } from './event-envelope';
import { publishedReason, type PublishedReason, type ReasonDetail } from './reasons';
import type { TransactionStatus } from './status';
import type { Money, Party, TransactionRecord } from './transaction';

export interface TransactionEventData extends Record<string, unknown> {
  provider: string;
  account: string;
  kind: string;
  reference: string;
  providerTransactionId: string | null;
  externalId: string | null;
  status: TransactionStatus;
  /** The contract's code (docs/events.md#reason-codes); the relay's finer one, if any, in `reasonDetail`. */
  reason: PublishedReason | null;
  reasonDetail?: ReasonDetail;
  amount: Money | null;
  party: Party | null;
  receivedAt: string;
}

export const STATUS_EVENT: Partial<Record<TransactionStatus, EventType>> = {
  SUCCEEDED: 'TransactionSucceeded',
  FAILED: 'TransactionFailed',
  AMBIGUOUS: 'TransactionAmbiguous',
  EXPIRED: 'TransactionExpired',
};

export function correlationIdOf(tx: Pick<TransactionRecord, 'key'>): string {
  return `${tx.key.provider}:${tx.key.account}:${tx.key.reference}`;
}

/**
 * `discriminator` names the fact: the same transaction reaching the same status always yields the
 * same id, whichever path (callback, poll, retry) produced it, so consumers can dedupe on it.
 */
export function buildEvent<T extends Record<string, unknown>>(
  type: EventType,
  correlationId: string,
  discriminator: string,
  origin: EventOrigin,
  occurredAt: string,
  data: T,
): EventEnvelope<T> {
  return {
    metadata: {
      id: deterministicUuid(type, correlationId, discriminator),
      version: '1',
      type,
      occurredAt,
      correlationId,
      origin,
    },
    data,
  };
}

export function transactionEventData(tx: TransactionRecord, receivedAt: string): TransactionEventData {
  return {
    provider: tx.key.provider,
    account: tx.key.account,
    kind: tx.kind,
    reference: tx.key.reference,
    providerTransactionId: tx.providerTransactionId ?? null,
    externalId: tx.externalId ?? null,
    status: tx.status,
    ...publishedReason(tx.reason),
    amount: tx.amount ?? null,
    party: tx.party ?? null,
    receivedAt,
  };
}
