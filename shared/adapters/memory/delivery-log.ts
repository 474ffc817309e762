import { SchemaValidationError } from '../../domain/errors';
import type {
  DeliveredEvent,
  DeliveryAttempt,
  DeliveryAttemptPage,
  DeliveryLog,
  DestinationAttemptQuery,
  DeliverySelector,
  ReplayAudit,
} from '../../app/delivery/ports';

/** Whether a logged event matches a replay selector (shared by the log adapters). */
export function matchesSelector(event: DeliveredEvent, selector: DeliverySelector): boolean {
  return (
    (selector.correlationId === undefined || event.correlationId === selector.correlationId) &&
    (selector.eventType === undefined || event.eventType === selector.eventType) &&
    (selector.from === undefined || event.occurredAt >= selector.from) &&
    (selector.to === undefined || event.occurredAt <= selector.to)
  );
}

/**
 * The delivery log in a process's memory: tests, and `npm start`, whose deliveries are a demonstration
 * (a restart forgets them; the events themselves stay in .relay/events.ndjson).
 */
export class MemoryDeliveryLog implements DeliveryLog {
  readonly eventsById = new Map<string, DeliveredEvent>();
  readonly attemptList: DeliveryAttempt[] = [];
  readonly replays: ReplayAudit[] = [];

  async recordEvent(event: DeliveredEvent): Promise<void> {
    this.eventsById.set(event.eventId, event);
  }

  async recordAttempt(attempt: DeliveryAttempt): Promise<void> {
    this.attemptList.push(attempt);
  }

  async attempts(filter: {
    correlationId: string;
    eventId?: string;
    destination?: string;
  }): Promise<DeliveryAttempt[]> {
    return this.attemptList
      .filter(
        (a) =>
          a.correlationId === filter.correlationId &&
          (filter.eventId === undefined || a.eventId === filter.eventId) &&
          (filter.destination === undefined || a.destination === filter.destination),
      )
      .sort((a, b) => a.at.localeCompare(b.at) || a.attempt - b.attempt);
  }

  async attemptsOf(destination: string, query: DestinationAttemptQuery): Promise<DeliveryAttemptPage> {
    const offset = query.cursor === undefined ? 0 : Number(query.cursor);
    if (!Number.isSafeInteger(offset) || offset < 0)
      throw new SchemaValidationError('cursor: not a cursor this API gave', {
        details: { parameter: 'cursor' },
      });
    const matching = this.attemptList
      .filter(
        (a) =>
          a.destination === destination &&
          a.at >= query.from &&
          a.at <= `${query.to}~` &&
          (query.outcome === undefined || a.outcome === query.outcome),
      )
      .sort((a, b) => b.at.localeCompare(a.at) || b.attempt - a.attempt);
    const attempts = matching.slice(offset, offset + query.limit);
    const next = offset + query.limit < matching.length ? String(offset + query.limit) : undefined;
    return { attempts, ...(next ? { next } : {}) };
  }

  async events(selector: DeliverySelector): Promise<DeliveredEvent[]> {
    return [...this.eventsById.values()]
      .filter((event) => matchesSelector(event, selector))
      .sort((a, b) => a.occurredAt.localeCompare(b.occurredAt));
  }

  async recordReplay(audit: ReplayAudit): Promise<void> {
    this.replays.push(audit);
  }

  async deadLetters(
    destination: string,
    options: { from?: string; limit?: number } = {},
  ): Promise<DeliveryAttempt[]> {
    return this.attemptList
      .filter(
        (a) =>
          a.destination === destination &&
          a.outcome === 'dead-letter' &&
          (options.from === undefined || a.at >= options.from),
      )
      .sort((a, b) => a.at.localeCompare(b.at))
      .slice(0, options.limit ?? Number.POSITIVE_INFINITY);
  }
}
