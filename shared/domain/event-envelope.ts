/**
 * The envelope every normalized event travels in (docs/events.md). Kept apart from the event builders
 * so that the transaction model can carry its outbox without importing them.
 */
export const EVENT_TYPES = [
  'TransactionSucceeded',
  'TransactionFailed',
  'TransactionAmbiguous',
  'TransactionExpired',
  /** An AMBIGUOUS transaction outlived the configured age: a person should look (still reconciling). */
  'TransactionEscalated',
  'TransactionConflict',
  'C2BValidationDecided',
  'CallbackRejected',
  'CallbackOrphaned',
  /** Daraja reversal results (a new fact about a transaction that succeeded; its status stays). */
  'TransactionReversed',
  'ReversalFailed',
  'ReversalAmbiguous',
  /** Daraja account balance results: the short code's accounts, parsed. */
  'AccountBalanceReported',
  'AccountBalanceFailed',
  /** The badge change feed (docs/badges.md): a shop's badges as its badge API lists them. */
  'BadgeCreated',
  'BadgeUpdated',
  'BadgeDeleted',
  /** A badge's valid_from / valid_to passed (at that time, not at the next read). */
  'BadgeActivated',
  'BadgeExpired',
  /** An account's callbacks stopped while transactions wait for one, and came back (callback health). */
  'CallbackSilence',
  'CallbacksResumed',
  /** An account's business day closed against the provider's own records (docs/statements.md#the-close). */
  'DailyClosed',
  /** A webhook destination stopped receiving: 410 Gone or too many failures in a row (docs/webhooks.md). */
  'DestinationDisabled',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * How the fact behind an event reached the relay (`metadata.origin`): the contract's list, nothing else
 * (docs/events.md#origins); every origin goes through the same ingest pipeline. The precise source of a
 * report is on its evidence (`source`): a row of the provider's own records is `statement` there, and
 * `poll` (the relay's own pull) or `manual` (a file a person brought) here.
 */
export const EVENT_ORIGINS = ['callback', 'poll', 'registration', 'buffer', 'manual'] as const;
export type EventOrigin = (typeof EVENT_ORIGINS)[number];

export interface EventEnvelope<T = Record<string, unknown>> {
  metadata: {
    id: string;
    version: '1';
    type: EventType;
    occurredAt: string;
    correlationId: string;
    origin: EventOrigin;
    /**
     * The version of the correlated state that published the event (its item's revision): set by the
     * outbox on every published event (domain/outbox.ts); consumers drop an event older than one handled.
     */
    stateVersion?: number;
  };
  data: T;
}

/** Operator events about destinations: never delivered to a destination (they name other partners). */
export const OPERATOR_EVENT_TYPES: ReadonlySet<string> = new Set(['DestinationDisabled']);
