import { buildEvent, type EventEnvelope } from '../../domain/events';
import type { EventData } from '../../domain/event-schemas';

export type DestinationDisabledData = EventData<'DestinationDisabled'>;

import { OPERATOR_EVENT_TYPES } from '../../domain/event-envelope';

export { OPERATOR_EVENT_TYPES };

/** The correlation id of a destination's operator events. */
const destinationCorrelationId = (destination: string) => `destinations:${destination}`;

/**
 * `DestinationDisabled` (docs/events.md): the destination id and why, never its URL (it may carry
 * credentials) nor a secret. One per disabling: the id is deterministic in the destination and the time.
 */
export function destinationDisabledEvent(
  data: DestinationDisabledData,
): EventEnvelope<DestinationDisabledData> {
  const correlationId = destinationCorrelationId(data.destination);
  // Origin `poll`: the relay's own decision (docs/events.md#origins), as expiring a transaction is.
  return buildEvent('DestinationDisabled', correlationId, data.disabledAt, 'poll', data.disabledAt, data);
}
