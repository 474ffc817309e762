/**
 * The one reader of a `Retry-After` header (RFC 9110 §10.2.3), for the provider API calls
 * (shared/providers/outbound-http) and the webhook deliveries (shared/app/delivery): each caller applies
 * its own ceiling to what it reads.
 */

/** delta-seconds ("1.5" tolerated as 1.5 s). Never signed: "-5" is no delta-seconds. */
const DELTA_SECONDS = /^\d+(\.\d+)?$/;
/**
 * The three HTTP-date forms, a weekday first and the time last but a zone or a year: IMF-fixdate and the
 * obsolete RFC 850 ("Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT") and asctime
 * ("Sun Nov  6 08:49:37 1994", GMT though it does not say so).
 */
const HTTP_DATE = /^[A-Z]\w+,? [\w -]+ [\d:]{8} (GMT|\d{4})$/;

/**
 * A Retry-After value as milliseconds to wait from `nowMs`: delta-seconds, or an HTTP-date (one in the
 * past is 0: retry now). Undefined when there is none or it is neither form: a negative number, a word,
 * a date in another format (Date.parse alone would read "-5" or "Retry 12" as dates in 2001), or a delta
 * too large for a number (no pause rather than Infinity).
 */
export function retryAfterMs(value: string | null | undefined, nowMs: number): number | undefined {
  const text = value?.trim() ?? '';
  const date = HTTP_DATE.exec(text);
  const at = DELTA_SECONDS.test(text)
    ? nowMs + Number(text) * 1000
    : date
      ? Date.parse(date[1] === 'GMT' ? text : `${text} GMT`)
      : NaN;
  return Number.isFinite(at) ? Math.max(0, Math.round(at - nowMs)) : undefined;
}
