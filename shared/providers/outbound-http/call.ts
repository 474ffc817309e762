import { retryAfterMs as readRetryAfter } from '../../util/retry-after';
import type { StatusApiDeps } from '../types';
import type { TokenBucket } from './limits';
import { type HttpRequest, type HttpResponse, type StatusError, statusError } from './types';

/** What the caller makes of one response: keep it, or try again (a transient failure, throttling). */
type ResponseVerdict = 'ok' | 'retry' | 'throttled';

export interface CallOptions {
  /** Per attempt, headers and body included. */
  timeoutMs: number;
  /** Further attempts after the first (network errors, 5xx, throttling). Default 2: at most 3 attempts. */
  maxRetries?: number;
  /** Backoff: full jitter over min(maxDelayMs, baseDelayMs × 2^retry). */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** A Retry-After longer than this is not waited for: the answer is `throttled` with it. */
  maxRetryAfterMs?: number;
  /** The poller's own deadline; an abort ends the call (no retry). */
  signal?: AbortSignal;
  /** Taken before every attempt (the account's rate limit). */
  limiter?: Pick<TokenBucket, 'acquire'>;
  /** Default: 429 → throttled, 5xx → retry, anything else → ok. */
  classify?(response: HttpResponse): ResponseVerdict;
  /** [0, 1) for the jitter; default Math.random. */
  random?(): number;
  /** Names the call in details: "MoMo requesttopay status". Never a URL with credentials in it. */
  what: string;
}

export type CallResult =
  | { ok: true; response: HttpResponse; attempts: number }
  | { ok: false; error: StatusError; attempts: number };

/** Bodies larger than this are not worth reading: a status answer is a few hundred bytes. */
const MAX_BODY_CHARS = 256 * 1024;

const DEFAULT_MAX_RETRIES = 2;

function defaultVerdict(response: HttpResponse): ResponseVerdict {
  if (response.status === 429) return 'throttled';
  if (response.status >= 500) return 'retry';
  return 'ok';
}

/** Full jitter (AWS architecture blog): uniform in [0, min(cap, base × 2^retry)]. */
export function backoffDelay(retry: number, baseMs: number, capMs: number, random: () => number): number {
  return Math.floor(random() * Math.min(capMs, baseMs * 2 ** retry));
}

type Attempt =
  | { kind: 'response'; response: HttpResponse }
  | { kind: 'timeout' }
  | { kind: 'aborted' }
  | { kind: 'network'; detail: string };

async function attempt(
  fetchImpl: typeof fetch,
  request: HttpRequest,
  timeoutMs: number,
  outer: AbortSignal | undefined,
): Promise<Attempt> {
  if (outer?.aborted) return { kind: 'aborted' };
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const onAbort = () => controller.abort();
  outer?.addEventListener('abort', onAbort, { once: true });
  try {
    const res = await fetchImpl(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: controller.signal,
      redirect: 'error',
    });
    let text = await res.text();
    if (text.length > MAX_BODY_CHARS) text = text.slice(0, MAX_BODY_CHARS);
    let json: unknown;
    let garbage = false;
    if (text.trim()) {
      try {
        json = JSON.parse(text);
      } catch {
        garbage = true;
      }
    }
    return { kind: 'response', response: { status: res.status, headers: res.headers, text, json, garbage } };
  } catch (error) {
    if (timedOut) return { kind: 'timeout' };
    if (outer?.aborted) return { kind: 'aborted' };
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    return { kind: 'network', detail: cause ?? (error as Error).message ?? String(error) };
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener('abort', onAbort);
  }
}

/**
 * One JSON call with a timeout per attempt, and retries (at most `maxRetries`) on network errors, 5xx
 * and throttling, with exponential backoff and full jitter, honouring Retry-After. Sleeps through
 * `deps.sleep`, so tests run at full speed. Timeouts are not retried: the attempt already took the
 * whole budget, and the poller checks again on its schedule.
 */
export async function callJson(
  deps: Pick<StatusApiDeps, 'fetch' | 'sleep' | 'now'>,
  request: HttpRequest,
  options: CallOptions,
): Promise<CallResult> {
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  const baseDelayMs = options.baseDelayMs ?? 200;
  const maxDelayMs = options.maxDelayMs ?? 3000;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? 10_000;
  const classify = options.classify ?? defaultVerdict;
  const random = options.random ?? Math.random;
  let last: StatusError = statusError('unavailable', `${options.what}: no attempt made`);
  let attempts = 0;
  for (let retry = 0; retry <= maxRetries; retry++) {
    const limited = await options.limiter?.acquire();
    if (limited) return { ok: false, error: limited, attempts };
    attempts++;
    const result = await attempt(deps.fetch, request, options.timeoutMs, options.signal);
    let waitMs: number | undefined;
    if (result.kind === 'timeout') {
      return {
        ok: false,
        error: statusError('timeout', `${options.what}: no answer within ${options.timeoutMs} ms`),
        attempts,
      };
    }
    if (result.kind === 'aborted') {
      return { ok: false, error: statusError('timeout', `${options.what}: aborted by the caller`), attempts };
    }
    if (result.kind === 'network') {
      last = statusError('unavailable', `${options.what}: network error (${result.detail})`);
    } else {
      const verdict = classify(result.response);
      if (verdict === 'ok') return { ok: true, response: result.response, attempts };
      const status = result.response.status;
      const retryAfterMs = readRetryAfter(result.response.headers.get('retry-after'), deps.now());
      if (verdict === 'throttled') {
        last = statusError('throttled', `${options.what}: throttled (HTTP ${status})`, {
          httpStatus: status,
          ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
        });
        if (retryAfterMs !== undefined && retryAfterMs > maxRetryAfterMs)
          return { ok: false, error: last, attempts };
      } else {
        last = statusError('unavailable', `${options.what}: HTTP ${status}`, {
          httpStatus: status,
          ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
        });
      }
      if (retryAfterMs !== undefined && retryAfterMs <= maxRetryAfterMs) waitMs = retryAfterMs;
    }
    if (retry === maxRetries) break;
    await deps.sleep(waitMs ?? backoffDelay(retry, baseDelayMs, maxDelayMs, random));
    if (options.signal?.aborted)
      return { ok: false, error: statusError('timeout', `${options.what}: aborted by the caller`), attempts };
  }
  return {
    ok: false,
    error: { ...last, detail: `${last.detail}${attempts > 1 ? ` after ${attempts} attempts` : ''}` },
    attempts,
  };
}
