import type { EventEnvelope } from '../../domain/event-envelope';
import type { EventSink } from '../ports';
import type { DeliveryEngine } from './engine';

/**
 * The event sink that also hands every published event to the webhook engine: the same events, from the
 * same stream, that EventBridge (or the local events file) receives. Handing over only queues the
 * deliveries, so a slow destination never holds the publisher.
 */
export function deliveringSink(base: EventSink, engine: DeliveryEngine): EventSink {
  return {
    async publish(events: readonly EventEnvelope[]): Promise<void> {
      await base.publish(events);
      for (const event of events) await engine.submit(event);
    },
  };
}
