import type { EventEnvelope } from './event-envelope';

/** Names one provider-specific record: a C2B decision, a known account number, a reference alias… */
export interface ProviderRecordRef {
  provider: string;
  account: string;
  /** What kind of record, chosen by the provider (e.g. "c2b-validation", "alias:ConversationID"). */
  namespace: string;
  id: string;
}

export interface ProviderRecord extends ProviderRecordRef {
  data: Record<string, unknown>;
  createdAt: string;
  /** Events this record publishes when it is first written (the table's stream is the outbox). */
  outbox?: EventEnvelope[];
  /**
   * Kept this long after createdAt instead of the transactions' retention (a hint nobody adopts is gone
   * after a day); past it the record reads as absent even before the store's TTL deletes it.
   */
  lifetimeSeconds?: number;
}
