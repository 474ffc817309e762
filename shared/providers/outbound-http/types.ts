import type { StatusAnswer } from '../types';

/** The error answer of a status call (the poller backs off; nothing is settled by it). */
export type StatusError = Extract<StatusAnswer, { type: 'error' }>;

export function statusError(
  error: StatusError['error'],
  detail: string,
  extra: { retryAfterMs?: number; httpStatus?: number } = {},
): StatusError {
  return {
    type: 'error',
    error,
    detail,
    ...(extra.retryAfterMs !== undefined ? { retryAfterMs: extra.retryAfterMs } : {}),
    ...(extra.httpStatus !== undefined ? { httpStatus: extra.httpStatus } : {}),
  };
}

export interface HttpRequest {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export interface HttpResponse {
  status: number;
  headers: Headers;
  /** The body as text (bounded). */
  text: string;
  /** The body parsed as JSON; undefined when empty or not JSON (then `garbage` says which). */
  json: unknown;
  /** The body is not empty and not JSON. */
  garbage: boolean;
}

/** A member of a JSON object as trimmed text (numbers too), else undefined. */
export function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() || undefined;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** At most `max` characters of a provider message, for a check record's detail. */
export function clip(text: string | undefined, max = 160): string {
  if (!text) return '';
  const single = text.replace(/\s+/g, ' ').trim();
  return single.length > max ? `${single.slice(0, max - 1)}…` : single;
}
