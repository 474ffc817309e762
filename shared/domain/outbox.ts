import { correlationIdOf, type EventEnvelope } from './events';

/**
 * The table's stream is the outbox: a write that carries `outbox` events and moves the item's
 * revision publishes them. Re-delivered stream records publish again (at least once); consumers
 * dedupe on metadata.id, which is deterministic.
 */
export function eventsFromChange(
  oldImage: Record<string, unknown> | undefined,
  newImage: Record<string, unknown> | undefined,
): EventEnvelope[] {
  if (!newImage) return [];
  const outbox = newImage.outbox;
  if (!Array.isArray(outbox) || outbox.length === 0) return [];
  if (oldImage && oldImage.revision === newImage.revision) return [];
  // The item's revision versions its events (consumers drop stale ones: the subscriber kit). An item
  // without one publishes on its only write (an update must move the revision to publish): version 1.
  const stateVersion = typeof newImage.revision === 'number' ? newImage.revision : 1;
  return expandOutbox(outbox as StoredOutboxEntry[], newImage).map((event) => ({
    ...event,
    metadata: { ...event.metadata, stateVersion },
  }));
}

/**
 * An outbox event as a transaction item stores it: the `data` fields whose values the item itself holds
 * under the same name (provider, reference, status, amount, party, evidence…) are named in `fromItem`
 * instead of stored twice. A first callback's events otherwise repeat most of the transaction: about
 * 1 KB more per item, which takes its write past 1 KB (one more write unit) and is stored for the whole
 * retention. Entries written before (no `fromItem`) are read as they are.
 */
export type StoredOutboxEntry = Omit<EventEnvelope, 'metadata'> & {
  metadata: Omit<EventEnvelope['metadata'], 'correlationId'> & { correlationId?: string };
  fromItem?: string;
};

/** In `fromItem`: metadata.correlationId is the item's own (provider, account, reference). */
const CORRELATION_ID = '@correlationId';

function itemCorrelationId(item: Record<string, unknown>): string | undefined {
  const { provider, account, reference } = item;
  return typeof provider === 'string' && typeof account === 'string' && typeof reference === 'string'
    ? correlationIdOf({ key: { provider, account, reference } })
    : undefined;
}

/** Key-order independent equality of stored values (what DynamoDB gives back for what was put). */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  return (
    ka.length === kb.length &&
    ka.every((k) => sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
  );
}

/** The outbox to store on `item`: each event's data minus what `item` already holds under the same name. */
export function compactOutbox(
  events: readonly EventEnvelope[],
  item: Record<string, unknown>,
): StoredOutboxEntry[] {
  return events.map((event) => {
    const stored = event as StoredOutboxEntry;
    // Already compact (carried over from a read): expanded by toRecord, so this only guards misuse.
    if (stored.fromItem !== undefined) return stored;
    const data = (event.data ?? {}) as Record<string, unknown>;
    const shared = Object.keys(data).filter(
      (name) =>
        name !== 'outbox' && data[name] !== undefined && name in item && sameValue(item[name], data[name]),
    );
    // The correlation id is the item's key (correlationIdOf): named, not repeated.
    const { correlationId, ...metadata } = event.metadata;
    const derived = correlationId === itemCorrelationId(item);
    if (shared.length === 0 && !derived) return event;
    const rest = Object.fromEntries(Object.entries(data).filter(([name]) => !shared.includes(name)));
    return {
      metadata: derived ? metadata : event.metadata,
      data: rest,
      fromItem: [...(derived ? [CORRELATION_ID] : []), ...shared].join(','),
    };
  });
}

/** The events of a stored outbox, their data completed from the item that carries them. */
export function expandOutbox(
  entries: readonly StoredOutboxEntry[],
  item: Record<string, unknown>,
): EventEnvelope[] {
  return entries.map((entry): EventEnvelope => {
    const { fromItem, ...event } = entry;
    const names = fromItem === undefined ? [] : fromItem.split(',');
    const shared = Object.fromEntries(
      names.filter((name) => name !== CORRELATION_ID).map((name) => [name, item[name]]),
    );
    const correlationId = names.includes(CORRELATION_ID)
      ? itemCorrelationId(item)
      : event.metadata.correlationId;
    if (fromItem === undefined) return entry as EventEnvelope;
    return {
      ...event,
      metadata: { ...event.metadata, correlationId: correlationId ?? '' },
      data: { ...shared, ...(event.data as Record<string, unknown>) },
    };
  });
}

/** One line a person can read per event, for the local console. */
export function summarizeEvent(event: EventEnvelope): string {
  const d = event.data as Record<string, unknown>;
  const subject = d.provider
    ? `${d.provider}/${d.account}${d.reference ? `/${d.reference}` : ''}`
    : event.metadata.correlationId;
  const amount = d.amount as { value?: string; currency?: string } | null | undefined;
  const reason = d.reason as { code?: string } | null | undefined;
  const parts = [
    event.metadata.type.padEnd(22),
    subject,
    d.status ? String(d.status) : undefined,
    amount?.value ? `${amount.value}${amount.currency ? ` ${amount.currency}` : ''}` : undefined,
    // The contract's code, and the relay's finer one when there is one: reason=UNKNOWN/UNCONFIRMED.
    reason?.code ? `reason=${reason.code}${d.reasonDetail ? `/${String(d.reasonDetail)}` : ''}` : undefined,
    d.errorCode ? `error=${d.errorCode}` : undefined,
    d.decision ? `decision=${d.decision}` : undefined,
    Array.isArray(d.accounts) ? `accounts=${d.accounts.length}` : undefined,
    d.originalReceipt ? `receipt=${d.originalReceipt}` : undefined,
    conflictOf(d),
    d.lateResolution === true ? 'late-resolution' : undefined,
    evidenceOf(d),
    `(${event.metadata.origin})`,
  ];
  return parts.filter(Boolean).join(' ');
}

function conflictOf(d: Record<string, unknown>): string | undefined {
  const conflict = d.conflict as { kind?: string } | undefined;
  return conflict?.kind ? `conflict=${conflict.kind}` : undefined;
}

/** Why the relay believes a verdict: `evidence=callback(path-secret)+status-api`. */
function evidenceOf(d: Record<string, unknown>): string | undefined {
  if (!Array.isArray(d.evidence) || d.evidence.length === 0) return undefined;
  const items = (d.evidence as { source?: string; authentication?: string[] }[]).map((e) =>
    e.source === 'callback' || e.source === 'buffer'
      ? `${e.source}(${e.authentication?.length ? e.authentication.join('+') : 'unauthenticated'})`
      : String(e.source),
  );
  return `evidence=${items.join('+')}`;
}
