import type { RelayEvent, RelayEventOf, RelayEventType } from './events.js';

/**
 * Narrows an event to one type. `if (event.metadata.type === 'TransactionSucceeded')` does not narrow
 * `event` itself (TypeScript narrows a union only on a discriminant of the object, not of a nested one),
 * so `event.data` would stay the union of every event's data.
 */
export function isRelayEvent<T extends RelayEventType>(event: RelayEvent, type: T): event is RelayEventOf<T> {
  return event.metadata.type === type;
}
