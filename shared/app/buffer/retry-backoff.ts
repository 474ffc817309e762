/**
 * How long a buffered callback waits before its next try, and how many tries it gets: the schedule
 * behind the ingress buffer's `maxReceiveCount` (docs/ingress-buffer.md, "Retries and the DLQ").
 *
 * While the store is down a record comes back after `min(BASE × 2^(receives − 1), CAP)` seconds, so
 * a short outage is retried within minutes and a long one costs one try per CAP. The receive count is
 * sized so that the backoff alone takes about 3.5 days before a record is dead-lettered: past any
 * storage outage worth waiting for, and still half a day inside the queue's 4-day retention (a message
 * that outlives the retention is deleted, not dead-lettered).
 */
const BUFFER_RETRY_BASE_SECONDS = 30;
const BUFFER_RETRY_CAP_SECONDS = 900;
/** A record SQS will never apply (garbage, no seal) reaches the DLQ quickly: one try every 5 s. */
export const BUFFER_UNAPPLIABLE_RETRY_SECONDS = 5;
import { BUFFER_MAX_RECEIVE_COUNT, BUFFER_RETENTION_DAYS } from '../../config/limits';
export { BUFFER_MAX_RECEIVE_COUNT, BUFFER_RETENTION_DAYS };

/** Seconds a record stays invisible after its `receiveCount`-th receive failed on the store. */
export function bufferRetryDelaySeconds(receiveCount: number): number {
  const n = Number.isFinite(receiveCount) && receiveCount >= 1 ? Math.floor(receiveCount) : 1;
  // 2^(n-1) overflows nothing here: the cap is reached at n = 6.
  return Math.min(BUFFER_RETRY_BASE_SECONDS * 2 ** Math.min(n - 1, 30), BUFFER_RETRY_CAP_SECONDS);
}

/**
 * The least time a record failing on the store at every receive spends in the buffer before SQS moves
 * it to the DLQ (its last receive's delay included), in seconds: 302,430 s ≈ 3.5 days for 340.
 */
export function bufferBackoffTotalSeconds(maxReceiveCount = BUFFER_MAX_RECEIVE_COUNT): number {
  let total = 0;
  for (let n = 1; n <= maxReceiveCount; n++) total += bufferRetryDelaySeconds(n);
  return total;
}
