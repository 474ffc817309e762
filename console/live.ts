/**
 * Counts are asked again at most once per this interval, however many live events come in (one per event
 * made 53 counts requests for 12 changes): the events of an interval share one refresh, at its end. Apart
 * from the views (no DOM here) so that `npm run bench` models the console with the same number.
 */
export const COUNTS_REFRESH_MS = 5000;
