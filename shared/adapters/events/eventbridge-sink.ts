import {
  EventBridgeClient,
  PutEventsCommand,
  type PutEventsRequestEntry,
  type PutEventsResultEntry,
} from '@aws-sdk/client-eventbridge';
import type { EventEnvelope } from '../../domain/events';
import type { EventSink } from '../../app/ports';

/** PutEvents limits: 10 entries and 256 KB per call. */
const MAX_ENTRIES_PER_CALL = 10;
export const MAX_BYTES_PER_CALL = 256 * 1024;

export class EventPublishError extends Error {
  constructor(
    message: string,
    readonly failedEventIds: string[],
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
    this.name = 'EventPublishError';
  }
}

export class EventTooLargeError extends Error {
  constructor(
    readonly eventId: string,
    readonly bytes: number,
  ) {
    super(`Event ${eventId} is ${bytes} bytes; EventBridge accepts at most ${MAX_BYTES_PER_CALL}`);
    this.name = 'EventTooLargeError';
  }
}

/** Size as EventBridge counts it (PutEvents quota documentation): Time + Source + DetailType + Detail + bus. */
export function entrySize(entry: PutEventsRequestEntry): number {
  return (
    14 +
    Buffer.byteLength(entry.Source ?? '') +
    Buffer.byteLength(entry.DetailType ?? '') +
    Buffer.byteLength(entry.Detail ?? '') +
    Buffer.byteLength(entry.EventBusName ?? '')
  );
}

export function batchEntries(entries: PutEventsRequestEntry[]): PutEventsRequestEntry[][] {
  const batches: PutEventsRequestEntry[][] = [];
  let current: PutEventsRequestEntry[] = [];
  let bytes = 0;
  for (const entry of entries) {
    const size = entrySize(entry);
    if (
      current.length === MAX_ENTRIES_PER_CALL ||
      (current.length > 0 && bytes + size > MAX_BYTES_PER_CALL)
    ) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(entry);
    bytes += size;
  }
  if (current.length) batches.push(current);
  return batches;
}

export interface EventBridgeSinkOptions {
  busName: string;
  source: string;
  /** Attempts for entries PutEvents reports as failed (throttling, internal errors). */
  maxAttempts?: number;
  baseDelayMs?: number;
}

export class EventBridgeSink implements EventSink {
  constructor(
    private readonly client: EventBridgeClient,
    private readonly options: EventBridgeSinkOptions,
  ) {}

  toEntry(event: EventEnvelope): PutEventsRequestEntry {
    return {
      EventBusName: this.options.busName,
      Source: this.options.source,
      DetailType: event.metadata.type,
      Detail: JSON.stringify(event),
      Time: new Date(event.metadata.occurredAt),
    };
  }

  async publish(events: readonly EventEnvelope[]): Promise<void> {
    const entries = events.map((event) => {
      const entry = this.toEntry(event);
      const size = entrySize(entry);
      if (size > MAX_BYTES_PER_CALL) throw new EventTooLargeError(event.metadata.id, size);
      return entry;
    });
    for (const batch of batchEntries(entries)) await this.putWithRetry(batch);
  }

  /** PutEvents is not all-or-nothing: resend only the entries it reports failed, with backoff. */
  private async putWithRetry(batch: PutEventsRequestEntry[]): Promise<void> {
    const maxAttempts = this.options.maxAttempts ?? 5;
    const baseDelay = this.options.baseDelayMs ?? 100;
    let pending = batch;
    let lastErrors: PutEventsResultEntry[] = [];
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      const result = await this.client.send(new PutEventsCommand({ Entries: pending }));
      if (!result.FailedEntryCount) return;
      const results = result.Entries ?? [];
      lastErrors = results.filter((r) => r.ErrorCode);
      const named = pending.filter((_, i) => results[i]?.ErrorCode);
      // Failures counted but not told apart (entries missing or not lined up with the request): all of
      // them again, since a duplicate is allowed and a lost event is not.
      if (results.length === pending.length && named.length > 0) pending = named;
      if (attempt < maxAttempts) await new Promise((r) => setTimeout(r, baseDelay * 2 ** (attempt - 1)));
    }
    const ids = pending.map((e) => (JSON.parse(e.Detail ?? '{}') as EventEnvelope).metadata?.id ?? 'unknown');
    const codes = [...new Set(lastErrors.map((e) => e.ErrorCode))].join(', ') || 'failures not named';
    throw new EventPublishError(
      `${pending.length} event(s) still failing after ${maxAttempts} attempts (${codes})`,
      ids,
    );
  }
}

/** The publisher's client: adaptive retry spreads throttled PutEvents calls; entry-level failures are retried by the sink. */
export function createEventBridgeClient(): EventBridgeClient {
  return new EventBridgeClient({ maxAttempts: 5, retryMode: 'adaptive' });
}
