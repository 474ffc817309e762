import type { StatusApiDeps } from '../types';
import { CredentialsGate } from './credentials-gate';
import { type StatusError, statusError } from './types';

/**
 * A token bucket: `ratePerSecond` requests on average, bursts of at most `burst`. A caller that would
 * wait longer than `maxWaitMs` is not made to wait: it gets a `throttled` answer with the wait as
 * `retryAfterMs`, so the poller reschedules instead of holding a Lambda (Daraja's STK query allows
 * about 5 a minute; waiting 12 s per item would eat a cycle).
 */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly options: {
      ratePerSecond: number;
      burst: number;
      maxWaitMs: number;
      now(): number;
      sleep(ms: number): Promise<void>;
      /** For details: "MoMo status calls". */
      what: string;
    },
  ) {
    if (!(options.ratePerSecond > 0)) throw new RangeError('ratePerSecond must be positive');
    if (!(options.burst >= 1)) throw new RangeError('burst must be at least 1');
    this.tokens = options.burst;
    this.last = options.now();
  }

  private refill(): void {
    const now = this.options.now();
    const elapsed = Math.max(0, now - this.last);
    this.last = now;
    this.tokens = Math.min(this.options.burst, this.tokens + (elapsed / 1000) * this.options.ratePerSecond);
  }

  /** Milliseconds until a request may go (0: now). */
  waitMs(): number {
    this.refill();
    if (this.tokens >= 1) return 0;
    return Math.ceil(((1 - this.tokens) / this.options.ratePerSecond) * 1000);
  }

  /** Takes one request's worth, waiting (deps.sleep) up to maxWaitMs; otherwise a throttled answer. */
  async acquire(): Promise<StatusError | undefined> {
    const wait = this.waitMs();
    if (wait > this.options.maxWaitMs) {
      return statusError(
        'throttled',
        `${this.options.what}: the account's rate limit (${formatRate(this.options.ratePerSecond)}) is used up; next call in ${Math.ceil(wait / 1000)} s`,
        { retryAfterMs: wait },
      );
    }
    // Reserve now (tokens may go negative) so concurrent callers queue up behind each other.
    this.tokens -= 1;
    if (wait > 0) await this.options.sleep(wait);
    return undefined;
  }
}

function formatRate(perSecond: number): string {
  return perSecond >= 1 ? `${perSecond}/s` : `${Math.round(perSecond * 60 * 100) / 100}/min`;
}

/** At most `max` tasks at once; the others queue in arrival order. */
export class ConcurrencyLimit {
  private active = 0;
  private readonly queue: (() => void)[] = [];

  constructor(readonly max: number) {
    if (!(max >= 1)) throw new RangeError('max must be at least 1');
  }

  get running(): number {
    return this.active;
  }

  get waiting(): number {
    return this.queue.length;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.max) await new Promise<void>((resolve) => this.queue.push(resolve));
    else this.active++;
    try {
      return await task();
    } finally {
      const next = this.queue.shift();
      // The slot passes straight to the next waiter: `active` stays the same.
      if (next) next();
      else this.active--;
    }
  }
}

/** What every provider's client guards one account's calls with. */
export interface AccountGuards {
  gate: CredentialsGate;
  bucket: TokenBucket;
  limit: ConcurrencyLimit;
}

/**
 * The credentials gate, the rate limit (`maxRequestsPerSecond`, never waiting past the call timeout or
 * 2 s) and the concurrency cap of one account's status calls.
 */
export function accountGuards(input: {
  provider: string;
  account: string;
  api: { maxRequestsPerSecond: number; timeoutMs: number; concurrency: number };
  deps: Pick<StatusApiDeps, 'now' | 'sleep' | 'log'>;
  credentialsCooldownMs?: number;
}): AccountGuards {
  const { api, deps } = input;
  return {
    gate: new CredentialsGate({
      provider: input.provider,
      account: input.account,
      now: deps.now,
      log: deps.log,
      cooldownMs: input.credentialsCooldownMs,
    }),
    bucket: new TokenBucket({
      ratePerSecond: api.maxRequestsPerSecond,
      burst: Math.max(1, Math.floor(api.maxRequestsPerSecond)),
      maxWaitMs: Math.min(api.timeoutMs, 2000),
      now: deps.now,
      sleep: deps.sleep,
      what: `${input.provider}/${input.account} status calls`,
    }),
    limit: new ConcurrencyLimit(api.concurrency),
  };
}
