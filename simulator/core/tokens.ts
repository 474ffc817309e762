import { createHmac, randomBytes } from 'node:crypto';
import { type FaultHolder, tokenExpireEarlyMs } from './faults';

export type TokenLookup<T> = { ok: true; data: T } | { ok: false; reason: 'unknown' | 'expired' };

/**
 * Bearer tokens of one provider. The real expiry is kept apart from the announced `expires_in` so the
 * `token-expire-early` fault can make a token die while the client still believes it is valid.
 */
export class TokenStore<T> {
  private readonly tokens = new Map<string, { data: T; expiresAt: number }>();

  /** `now`: the simulator's clock (`sim.scheduler.now()`), so an injected test clock decides expiry. */
  constructor(private readonly now: () => number = () => Date.now()) {}

  issue(token: string, data: T, ttlMs: number, faultHolders: (FaultHolder | undefined)[]): void {
    const early = tokenExpireEarlyMs(faultHolders);
    const life = early === undefined ? ttlMs : Math.min(ttlMs, early);
    this.tokens.set(token, { data, expiresAt: this.now() + life });
  }

  lookup(token: string | undefined): TokenLookup<T> {
    if (!token) return { ok: false, reason: 'unknown' };
    const entry = this.tokens.get(token);
    if (!entry) return { ok: false, reason: 'unknown' };
    // `<=` so that a zero lifetime (token-expire-early=0) is already dead on its first use.
    if (entry.expiresAt <= this.now()) return { ok: false, reason: 'expired' };
    return { ok: true, data: entry.data };
  }

  /** Kills a token now (the `token-expire-early` fault sent on an API call). */
  expire(token: string | undefined): void {
    const entry = token ? this.tokens.get(token) : undefined;
    if (entry) entry.expiresAt = 0;
  }

  clear(): void {
    this.tokens.clear();
  }
}

const b64url = (v: string | Buffer) => Buffer.from(v).toString('base64url');

/** A JWT-looking token; only its presence in the store matters, the signature is decoration. */
export function jwtLikeToken(claims: Record<string, unknown>): string {
  const header = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const payload = b64url(JSON.stringify({ ...claims, jti: randomBytes(8).toString('hex') }));
  const sig = createHmac('sha256', randomBytes(16)).update(`${header}.${payload}`).digest('base64url');
  return `${header}.${payload}.${sig}`;
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export function opaqueToken(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (let i = 0; i < length; i++) out += ALNUM[bytes[i]! % ALNUM.length];
  return out;
}
