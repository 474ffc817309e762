/**
 * The toolkit the providers' status API clients share: one JSON call with timeout, retries (backoff with
 * full jitter, Retry-After), a token cache (single flight, refresh before expiry, one refresh on refusal),
 * the credentials gate (one error and one warning per account), a token bucket and a concurrency cap.
 * Node's fetch only (deps.fetch); no dependency.
 */
export { authorizedCall, type AuthorizedCallContext, requestToken } from './authorized';
export {
  backoffDelay,
  type CallOptions,
  type CallResult,
  callJson,
  DEFAULT_MAX_RETRIES,
  defaultVerdict,
  parseRetryAfter,
  type ResponseVerdict,
} from './call';
export { CredentialsGate, DEFAULT_CREDENTIALS_COOLDOWN_MS } from './credentials-gate';
export { type AccountGuards, accountGuards, ConcurrencyLimit, TokenBucket } from './limits';
export { guardedStatusApi } from './status-api';
export { parseExpiresIn, TokenCache, type TokenOutcome } from './token-cache';
export {
  clip,
  type HttpRequest,
  type HttpResponse,
  isRecord,
  type StatusError,
  statusError,
  textOf,
} from './types';

export const basicAuth = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

export const joinUrl = (base: string, path: string) =>
  `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
