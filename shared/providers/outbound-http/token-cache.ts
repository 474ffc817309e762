import type { StatusError } from './types';

export type TokenOutcome =
  | { ok: true; token: string; /** Lifetime the provider announced, in seconds. */ expiresInSeconds: number }
  | { ok: false; error: StatusError };

/**
 * `expires_in` as seconds: providers send a number (MoMo) or a string ("180" Airtel, "3599" Daraja).
 * Anything else (missing, not positive, not a number) gives the fallback.
 */
export function parseExpiresIn(value: unknown, fallbackSeconds: number): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value.trim()) : NaN;
  return Number.isFinite(n) && n > 0 ? n : fallbackSeconds;
}

export interface TokenCacheOptions {
  /** Asks the provider for a token (one call; the cache makes sure calls do not overlap). */
  fetchToken(): Promise<TokenOutcome>;
  now(): number;
  /** Refresh this long before the announced expiry (at most half the lifetime). Default 60 s. */
  refreshMarginMs?: number;
}

/**
 * One account's bearer token: cached until shortly before `expires_in`, refreshed by one request at a
 * time (concurrent checks share it: single flight), and dropped when the provider refuses it.
 * Failures are not cached here (the credentials gate decides how long a refusal holds).
 */
export class TokenCache {
  private current: { token: string; refreshAt: number } | undefined;
  private inflight: Promise<TokenOutcome> | undefined;
  /** Token requests made, for tests and logs. */
  requests = 0;

  constructor(private readonly options: TokenCacheOptions) {}

  /** A valid token: the cached one, or the result of the one refresh in flight, or a new request. */
  get(): Promise<TokenOutcome> {
    const now = this.options.now();
    if (this.current && now < this.current.refreshAt) {
      return Promise.resolve({
        ok: true,
        token: this.current.token,
        expiresInSeconds: (this.current.refreshAt - now) / 1000,
      });
    }
    this.inflight ??= this.refresh().finally(() => {
      this.inflight = undefined;
    });
    return this.inflight;
  }

  private async refresh(): Promise<TokenOutcome> {
    this.requests++;
    const requestedAt = this.options.now();
    const outcome = await this.options.fetchToken();
    if (outcome.ok) {
      const lifetimeMs = outcome.expiresInSeconds * 1000;
      const margin = Math.min(this.options.refreshMarginMs ?? 60_000, lifetimeMs / 2);
      // Measured from the request, not the answer: the lifetime started when the provider issued it.
      this.current = { token: outcome.token, refreshAt: requestedAt + lifetimeMs - margin };
    } else {
      this.current = undefined;
    }
    return outcome;
  }

  /**
   * The provider refused `token` (401, Daraja 400.003.01, an expired-token code). Only that token is
   * dropped: when a concurrent check already replaced it, its replacement stays.
   */
  invalidate(token: string): void {
    if (this.current?.token === token) this.current = undefined;
  }
}
