/**
 * The toolkit the providers' status API clients share: one JSON call with timeout, retries (backoff with
 * full jitter, Retry-After), a token cache (single flight, refresh before expiry, one refresh on refusal),
 * the credentials gate (one error and one warning per account), a token bucket and a concurrency cap.
 * Node's fetch only (deps.fetch); no dependency.
 */
export { authorizedCall, requestToken } from './authorized';
export { backoffDelay, callJson } from './call';
export { CredentialsGate } from './credentials-gate';
export { accountGuards, ConcurrencyLimit, TokenBucket } from './limits';
export { guardedStatusApi } from './status-api';
export { parseExpiresIn, TokenCache, type TokenOutcome } from './token-cache';
export { clip, type HttpResponse, isRecord, type StatusError, statusError, textOf } from './types';

export const basicAuth = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/**
 * A status call as the history shows it (StatusAnswer.request): the method and the URL's path only, so no
 * host, query string or credential is ever kept; `about` names what the body asked about, when it has one.
 */
export function requestLine(method: string, url: string, about?: Record<string, string | undefined>): string {
  const named = Object.entries(about ?? {}).filter((e): e is [string, string] => Boolean(e[1]));
  const what = named.length ? ` (${named.map(([k, v]) => `${k} ${v}`).join(', ')})` : '';
  return `${method} ${new URL(url).pathname}${what}`;
}

export const joinUrl = (base: string, path: string) =>
  `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
