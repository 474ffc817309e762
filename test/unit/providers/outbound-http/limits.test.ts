import { describe, expect, it } from 'vitest';
import { ConcurrencyLimit, TokenBucket } from '../../../../shared/providers/outbound-http';

function bucket(ratePerSecond: number, burst: number, maxWaitMs: number) {
  let now = 0;
  const sleeps: number[] = [];
  const b = new TokenBucket({
    ratePerSecond,
    burst,
    maxWaitMs,
    now: () => now,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
    what: 'test calls',
  });
  return { b, sleeps, advance: (ms: number) => (now += ms) };
}

describe('TokenBucket', () => {
  it('lets a burst through at once, then spaces calls at the rate (10/s → 100 ms)', async () => {
    // Prepare
    const { b, sleeps } = bucket(10, 10, 2000);

    // Act
    for (let i = 0; i < 12; i++) expect(await b.acquire()).toBeUndefined();

    // Assess
    expect(sleeps).toEqual([100, 100]);
  });

  it('answers throttled with the wait instead of sleeping past maxWaitMs (5 per minute)', async () => {
    // Prepare
    const { b, sleeps } = bucket(5 / 60, 5, 2000);
    for (let i = 0; i < 5; i++) await b.acquire();

    // Act
    const sixth = await b.acquire();

    // Assess
    expect(sleeps).toEqual([]);
    expect(sixth).toMatchObject({ type: 'error', error: 'throttled', retryAfterMs: 12_000 });
    expect(sixth?.detail).toContain('5/min');
  });

  it('refills with time', async () => {
    // Prepare
    const { b, advance, sleeps } = bucket(5 / 60, 5, 2000);
    for (let i = 0; i < 5; i++) await b.acquire();

    // Act
    advance(12_000);
    const again = await b.acquire();

    // Assess
    expect(again).toBeUndefined();
    expect(sleeps).toEqual([]);
  });
});

describe('ConcurrencyLimit', () => {
  it('never runs more than max tasks at once and runs every task', async () => {
    // Prepare
    const limit = new ConcurrencyLimit(2);
    let running = 0;
    let peak = 0;
    const task = async (i: number) => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, 5));
      running--;
      return i;
    };

    // Act
    const results = await Promise.all([1, 2, 3, 4, 5].map((i) => limit.run(() => task(i))));

    // Assess
    expect(results).toEqual([1, 2, 3, 4, 5]);
    expect(peak).toBe(2);
    expect(limit.running).toBe(0);
    expect(limit.waiting).toBe(0);
  });

  it('frees the slot when a task throws', async () => {
    // Prepare
    const limit = new ConcurrencyLimit(1);

    // Act
    await expect(limit.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    const next = await limit.run(async () => 'ran');

    // Assess
    expect(next).toBe('ran');
    expect(limit.running).toBe(0);
  });
});
