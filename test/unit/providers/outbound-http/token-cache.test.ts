import { describe, expect, it } from 'vitest';
import { parseExpiresIn, TokenCache, type TokenOutcome } from '../../../../shared/providers/outbound-http';

function cacheWith(outcomes: (() => TokenOutcome)[], clock: { now: number }) {
  let calls = 0;
  const cache = new TokenCache({
    now: () => clock.now,
    fetchToken: async () => {
      const outcome = outcomes[Math.min(calls, outcomes.length - 1)]!();
      calls++;
      return outcome;
    },
  });
  return { cache, calls: () => calls };
}

const token = (value: string, expiresInSeconds: number): TokenOutcome => ({
  ok: true,
  token: value,
  expiresInSeconds,
});

describe('parseExpiresIn', () => {
  it('reads numbers and numeric strings ("3599", "180")', () => {
    expect(parseExpiresIn(3600, 60)).toBe(3600);
    expect(parseExpiresIn('3599', 60)).toBe(3599);
    expect(parseExpiresIn(' 180 ', 60)).toBe(180);
  });

  it('falls back when expires_in is missing, not a number or not positive', () => {
    expect(parseExpiresIn(undefined, 60)).toBe(60);
    expect(parseExpiresIn('soon', 60)).toBe(60);
    expect(parseExpiresIn(0, 60)).toBe(60);
    expect(parseExpiresIn(-5, 60)).toBe(60);
  });
});

describe('TokenCache', () => {
  it('reuses a token until shortly before it expires, then asks for a new one', async () => {
    // Prepare
    const clock = { now: 0 };
    const { cache, calls } = cacheWith([() => token('t1', 3599), () => token('t2', 3599)], clock);

    // Act
    const first = await cache.get();
    clock.now = (3599 - 61) * 1000;
    const beforeMargin = await cache.get();
    clock.now = (3599 - 59) * 1000;
    const afterMargin = await cache.get();

    // Assess
    expect(first).toMatchObject({ ok: true, token: 't1' });
    expect(beforeMargin).toMatchObject({ ok: true, token: 't1' });
    expect(afterMargin).toMatchObject({ ok: true, token: 't2' });
    expect(calls()).toBe(2);
  });

  it('keeps a short-lived token for half its lifetime at most before refreshing', async () => {
    // Prepare: 60 s tokens; the 60 s margin is capped at half the lifetime (30 s).
    const clock = { now: 0 };
    const { cache, calls } = cacheWith([() => token('a', 60), () => token('b', 60)], clock);

    // Act
    await cache.get();
    clock.now = 29_000;
    const still = await cache.get();
    clock.now = 30_000;
    const fresh = await cache.get();

    // Assess
    expect(still).toMatchObject({ token: 'a' });
    expect(fresh).toMatchObject({ token: 'b' });
    expect(calls()).toBe(2);
  });

  it('makes one token request for concurrent checks (single flight)', async () => {
    // Prepare
    const clock = { now: 0 };
    let resolve!: (o: TokenOutcome) => void;
    let calls = 0;
    const cache = new TokenCache({
      now: () => clock.now,
      fetchToken: () => {
        calls++;
        return new Promise<TokenOutcome>((r) => {
          resolve = r;
        });
      },
    });

    // Act
    const waiting = [cache.get(), cache.get(), cache.get()];
    resolve(token('shared', 3600));
    const results = await Promise.all(waiting);

    // Assess
    expect(calls).toBe(1);
    expect(results.map((r) => r.ok && r.token)).toEqual(['shared', 'shared', 'shared']);
  });

  it('does not cache a failed token request', async () => {
    // Prepare
    const clock = { now: 0 };
    const { cache, calls } = cacheWith(
      [
        () => ({ ok: false, error: { type: 'error', error: 'unavailable', detail: 'down' } }),
        () => token('ok', 3600),
      ],
      clock,
    );

    // Act
    const failed = await cache.get();
    const next = await cache.get();

    // Assess
    expect(failed.ok).toBe(false);
    expect(next).toMatchObject({ ok: true, token: 'ok' });
    expect(calls()).toBe(2);
  });

  it('drops a refused token, but not the replacement another check already got', async () => {
    // Prepare
    const clock = { now: 0 };
    const { cache, calls } = cacheWith([() => token('old', 3600), () => token('new', 3600)], clock);
    await cache.get();

    // Act
    cache.invalidate('old');
    const replaced = await cache.get();
    cache.invalidate('old');
    const kept = await cache.get();

    // Assess
    expect(replaced).toMatchObject({ token: 'new' });
    expect(kept).toMatchObject({ token: 'new' });
    expect(calls()).toBe(2);
  });
});
