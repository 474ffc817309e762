/**
 * An idempotent consumer for the relay's events. The relay delivers at least once: a retry, a replay or
 * EventBridge's own retry can bring an event again (same `webhook-id` = `metadata.id`), and events of
 * one transaction can arrive out of order. `consume()` runs the handler once per event id, and never for
 * an event older than one already handled for the same transaction (`metadata.correlationId`), as told
 * by the event's version (see `versionOf`).
 */

/** The least the helper reads of an event: every relay event has it. */
export interface ConsumableEvent {
  metadata: { id: string; correlationId: string; type?: string; stateVersion?: number };
  data?: unknown;
}

/**
 * Where the helper remembers what it handled. The in-memory store is for one process; several processes
 * (or restarts) need a shared one:
 *
 * - Redis: `claim` = `SET seen:<id> 1 NX EX <ttl>` (true when it answered OK), `release` = `DEL seen:<id>`,
 *   `version` = `GET version:<stream>`, `raiseVersion` = a Lua script that sets `version:<stream>` only when
 *   the stored value is absent or lower, answering whether it did.
 * - SQL: a table `seen(id primary key, at)` where `claim` is `INSERT … ON CONFLICT DO NOTHING` (true when a
 *   row was inserted) and `release` a `DELETE`; a table `versions(stream primary key, version)` where
 *   `raiseVersion` is `INSERT … ON CONFLICT (stream) DO UPDATE SET version = excluded.version WHERE
 *   versions.version < excluded.version` (true when a row changed).
 * - DynamoDB: `PutItem` with `attribute_not_exists(pk)` for `claim`, `UpdateItem` with
 *   `attribute_not_exists(version) OR version < :v` for `raiseVersion`.
 *
 * Keep the ids at least as long as the relay may deliver again: its retry schedule spans about 4 days by
 * default, and a replay can come any time later (a replay you asked for you may want handled: clear the
 * ids first, or use a shorter retention).
 */
export interface IdempotencyStore {
  /** Marks an event id as taken; false when it already was (handled, or being handled now). Atomic. */
  claim(eventId: string): Promise<boolean>;
  /** Forgets a claim whose handler failed, so the next delivery of that event is handled. */
  release(eventId: string): Promise<void>;
  /** The highest version handled for a stream (a transaction), if any. */
  version(stream: string): Promise<number | undefined>;
  /** Stores `version` for the stream when it is higher than the stored one; false when it was not. Atomic. */
  raiseVersion(stream: string, version: number): Promise<boolean>;
}

/**
 * The default store: two bounded maps in this process. When full, the oldest entries are forgotten
 * (a duplicate older than `maxEntries` events would then be handled again).
 */
export class MemoryIdempotencyStore implements IdempotencyStore {
  private readonly seen = new Set<string>();
  private readonly versions = new Map<string, number>();

  constructor(private readonly maxEntries = 100_000) {}

  async claim(eventId: string): Promise<boolean> {
    if (this.seen.has(eventId)) return false;
    this.seen.add(eventId);
    if (this.seen.size > this.maxEntries) this.seen.delete(this.seen.values().next().value!);
    return true;
  }

  async release(eventId: string): Promise<void> {
    this.seen.delete(eventId);
  }

  async version(stream: string): Promise<number | undefined> {
    return this.versions.get(stream);
  }

  async raiseVersion(stream: string, version: number): Promise<boolean> {
    const current = this.versions.get(stream);
    if (current !== undefined && current >= version) return false;
    // Delete first so the map's order is the order of last use: the oldest stream is forgotten first.
    this.versions.delete(stream);
    this.versions.set(stream, version);
    if (this.versions.size > this.maxEntries) this.versions.delete(this.versions.keys().next().value!);
    return true;
  }
}

/**
 * An event's version within its transaction: `metadata.stateVersion` (the relay sets it on every event it
 * publishes), else `data.stateVersion` or `data.revision` (events from elsewhere), else none (the event is
 * only deduplicated by id). Pass your own `versionOf` to order other events.
 */
export function defaultVersionOf(event: ConsumableEvent): number | undefined {
  if (typeof event.metadata.stateVersion === 'number') return event.metadata.stateVersion;
  const data = event.data as { stateVersion?: unknown; revision?: unknown } | null | undefined;
  if (typeof data?.stateVersion === 'number') return data.stateVersion;
  if (typeof data?.revision === 'number') return data.revision;
  return undefined;
}

export interface IdempotentConsumerOptions<E extends ConsumableEvent> {
  store?: IdempotencyStore;
  /** The event's version within its stream (default: defaultVersionOf). */
  versionOf?: (event: E) => number | undefined;
  /** The stream an event's version is compared within (default: `metadata.correlationId`, the transaction). */
  streamOf?: (event: E) => string;
}

export type ConsumeResult<R> =
  | { outcome: 'handled'; result: R }
  /** The same event id was handled before (or is being handled now). */
  | { outcome: 'duplicate' }
  /** A higher version of the same transaction was handled already. */
  | { outcome: 'stale'; version: number; current: number };

export class IdempotentConsumer<E extends ConsumableEvent = ConsumableEvent> {
  private readonly store: IdempotencyStore;
  private readonly versionOf: (event: E) => number | undefined;
  private readonly streamOf: (event: E) => string;

  constructor(options: IdempotentConsumerOptions<E> = {}) {
    this.store = options.store ?? new MemoryIdempotencyStore();
    this.versionOf = options.versionOf ?? defaultVersionOf;
    this.streamOf = options.streamOf ?? ((event) => event.metadata.correlationId);
  }

  /**
   * Runs `handler` unless the event is a duplicate or stale. When the handler throws, the claim is
   * released and the error rethrown: answer non-2xx (or let the Lambda fail) and the relay's retry is
   * handled. Answer 2xx for `duplicate` and `stale`, or the relay retries them for days.
   * Two events of one transaction handled at the same moment are both run (the version is compared before
   * and raised after the handler): make the handler's own write conditional on the version when that matters.
   */
  async consume<R>(event: E, handler: (event: E) => R | Promise<R>): Promise<ConsumeResult<R>> {
    const id = event.metadata.id;
    if (!(await this.store.claim(id))) return { outcome: 'duplicate' };
    const version = this.versionOf(event);
    const stream = this.streamOf(event);
    if (version !== undefined) {
      const current = await this.store.version(stream);
      // Equal is not stale: one change of a transaction can publish several events (a conflict and its
      // escalation). A stale event keeps its claim: delivered again, it is still stale.
      if (current !== undefined && current > version) return { outcome: 'stale', version, current };
    }
    let result: R;
    try {
      result = await handler(event);
    } catch (error) {
      await this.store.release(id);
      throw error;
    }
    if (version !== undefined) await this.store.raiseVersion(stream, version);
    return { outcome: 'handled', result };
  }
}
