import { withEventIds } from '../bounded-history';
import type { EventEnvelope } from '../events';
import type { Money, TransactionRecord } from '../transaction';

/** What applying a report decided: the write (and the events it publishes), or why nothing is written. */
export type ApplyOutcome =
  | {
      kind: 'write';
      /** `recorded`: evidence kept (and a status check asked for) without a change of status. */
      effect: 'advanced' | 'conflict' | 'orphan-created' | 'created' | 'recorded';
      next: TransactionRecord;
      events: EventEnvelope[];
    }
  | { kind: 'noop'; why: 'same-status' | 'stale' | 'conflict-already-recorded' | 'hint' | 'unasked' };

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

/** The transaction with the events its write publishes: ids kept (bounded) for dedupe, the outbox set. */
export function withEvents(tx: TransactionRecord, events: EventEnvelope[]): TransactionRecord {
  return {
    ...tx,
    events: withEventIds(
      tx.events,
      events.map((e) => ({ id: e.metadata.id, type: e.metadata.type, at: e.metadata.occurredAt })),
    ),
    outbox: events,
  };
}
