import { eventsFromChange } from '../../domain/outbox';
import { type EventSink, noMetrics, type RelayLogger, type RelayMetrics } from '../ports';
import { EVENT_PUBLISH_FAILURES_METRIC } from '../../config/metric-names';

/** One stored change of an item, as the store's change stream gives it (DynamoDB Streams, the local pump). */
export interface StoredChange {
  /** Where the change sits in the stream: what a retry resumes from. */
  readonly position: string;
  readonly oldImage: Record<string, unknown> | undefined;
  readonly newImage: Record<string, unknown> | undefined;
}

export interface PublishOutboxDeps {
  readonly sink: EventSink;
  readonly log: RelayLogger;
  readonly metrics?: RelayMetrics;
}

/**
 * Publishes the events each change carries (the outbox a write added), in order. On the first failure it
 * stops and names that change's position, so the stream retries from there and, when its retries run out,
 * the change goes to the dead-letter queue: nothing after a failed change is published before it.
 */
export async function publishOutbox(
  changes: readonly StoredChange[],
  deps: PublishOutboxDeps,
): Promise<{ failedAt?: string }> {
  const metrics = deps.metrics ?? noMetrics;
  for (const change of changes) {
    const events = eventsFromChange(change.oldImage, change.newImage);
    if (events.length === 0) continue;
    try {
      await deps.sink.publish(events);
      // No count metric of its own ($0.30 a month, read by no alarm): the line below counts, and
      // EventBridge's own AWS/Events metrics (PutEvents entries per bus) are free.
      deps.log.info('events published', {
        count: events.length,
        types: events.map((e) => e.metadata.type),
      });
    } catch (error) {
      metrics.count(EVENT_PUBLISH_FAILURES_METRIC, 1);
      deps.log.error('event publishing failed; batch will be retried from this record', {
        sequenceNumber: change.position,
        eventIds: events.map((e) => e.metadata.id),
        error,
      });
      return { failedAt: change.position };
    }
  }
  return {};
}
