import { describe, expect, it } from 'vitest';
import { backoffDelay, callJson } from '../../../../shared/providers/outbound-http';
import { json, scriptedFetch, testDeps } from './support';

const REQUEST = { method: 'GET' as const, url: 'https://provider.test/status/1', headers: {} };
const anyRequest = () => true;

describe('callJson', () => {
  it('retries a 5xx and returns the success that follows', async () => {
    // Prepare
    const fake = scriptedFetch([{ match: anyRequest, replies: [json(503, {}), json(200, { ok: 1 })] }]);
    const t = testDeps(fake.fetch);

    // Act
    const result = await callJson(t.deps, REQUEST, { timeoutMs: 1000, what: 'test call', random: () => 0.5 });

    // Assess
    expect(result.ok).toBe(true);
    expect(result.ok && result.response.json).toEqual({ ok: 1 });
    expect(result.attempts).toBe(2);
    expect(fake.requests).toHaveLength(2);
    // Full jitter: half of base 200 ms × 2^0.
    expect(t.sleeps).toEqual([100]);
  });

  it('gives up on a persistent 5xx after three attempts with an unavailable answer', async () => {
    // Prepare
    const fake = scriptedFetch([{ match: anyRequest, replies: [json(500, { code: 'X' })] }]);
    const t = testDeps(fake.fetch);

    // Act
    const result = await callJson(t.deps, REQUEST, { timeoutMs: 1000, what: 'test call' });

    // Assess
    expect(fake.requests).toHaveLength(3);
    expect(result).toMatchObject({
      ok: false,
      attempts: 3,
      error: { error: 'unavailable', httpStatus: 500 },
    });
    expect(!result.ok && result.error.detail).toContain('after 3 attempts');
  });

  it('waits the Retry-After of a 429 before trying again', async () => {
    // Prepare
    const fake = scriptedFetch([
      { match: anyRequest, replies: [json(429, {}, { 'retry-after': '2' }), json(200, { done: true })] },
    ]);
    const t = testDeps(fake.fetch);

    // Act
    const result = await callJson(t.deps, REQUEST, { timeoutMs: 1000, what: 'test call' });

    // Assess
    expect(result.ok).toBe(true);
    expect(t.sleeps).toEqual([2000]);
  });

  it('answers throttled with the Retry-After, without waiting, when the provider asks for a long pause', async () => {
    // Prepare
    const fake = scriptedFetch([{ match: anyRequest, replies: [json(429, {}, { 'retry-after': '120' })] }]);
    const t = testDeps(fake.fetch);

    // Act
    const result = await callJson(t.deps, REQUEST, { timeoutMs: 1000, what: 'test call' });

    // Assess
    expect(fake.requests).toHaveLength(1);
    expect(t.sleeps).toEqual([]);
    expect(result).toMatchObject({ ok: false, error: { error: 'throttled', retryAfterMs: 120_000 } });
  });

  it('ends with throttled when every attempt is throttled', async () => {
    // Prepare
    const fake = scriptedFetch([{ match: anyRequest, replies: [json(429, {})] }]);
    const t = testDeps(fake.fetch);

    // Act
    const result = await callJson(t.deps, REQUEST, { timeoutMs: 1000, what: 'test call' });

    // Assess
    expect(fake.requests).toHaveLength(3);
    expect(result).toMatchObject({ ok: false, error: { error: 'throttled', httpStatus: 429 } });
  });

  it('retries network errors and names the cause when they persist', async () => {
    // Prepare
    const fake = scriptedFetch([{ match: anyRequest, replies: [{ network: 'ECONNREFUSED' }] }]);
    const t = testDeps(fake.fetch);

    // Act
    const result = await callJson(t.deps, REQUEST, { timeoutMs: 1000, what: 'test call' });

    // Assess
    expect(fake.requests).toHaveLength(3);
    expect(result).toMatchObject({ ok: false, error: { error: 'unavailable' } });
    expect(!result.ok && result.error.detail).toContain('ECONNREFUSED');
  });

  it('answers timeout when the provider does not answer within the per-call timeout, without retrying', async () => {
    // Prepare
    const fake = scriptedFetch([{ match: anyRequest, replies: [{ hang: true }] }]);
    const t = testDeps(fake.fetch);

    // Act
    const result = await callJson(t.deps, REQUEST, { timeoutMs: 30, what: 'test call' });

    // Assess
    expect(fake.requests).toHaveLength(1);
    expect(result).toMatchObject({ ok: false, error: { error: 'timeout' } });
    expect(!result.ok && result.error.detail).toContain('30 ms');
  });

  it('stops when the caller aborts', async () => {
    // Prepare
    const fake = scriptedFetch([{ match: anyRequest, replies: [{ hang: true }] }]);
    const t = testDeps(fake.fetch);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 10);

    // Act
    const result = await callJson(t.deps, REQUEST, {
      timeoutMs: 5000,
      what: 'test call',
      signal: controller.signal,
    });

    // Assess
    expect(result).toMatchObject({ ok: false, error: { error: 'timeout' } });
    expect(!result.ok && result.error.detail).toContain('aborted');
  });

  it('flags a body that is not JSON as garbage and an empty body as no JSON', async () => {
    // Prepare
    const fake = scriptedFetch([
      { match: (r) => r.url.endsWith('/a'), replies: [{ status: 200, raw: '<html>oops</html>' }] },
      { match: (r) => r.url.endsWith('/b'), replies: [{ status: 202, raw: '' }] },
    ]);
    const t = testDeps(fake.fetch);

    // Act
    const a = await callJson(t.deps, { ...REQUEST, url: 'https://p.test/a' }, { timeoutMs: 1000, what: 'a' });
    const b = await callJson(t.deps, { ...REQUEST, url: 'https://p.test/b' }, { timeoutMs: 1000, what: 'b' });

    // Assess
    expect(a.ok && a.response.garbage).toBe(true);
    expect(b.ok && b.response.garbage).toBe(false);
    expect(b.ok && b.response.json).toBeUndefined();
  });

  it('lets the caller keep a 5xx that is an answer instead of an outage', async () => {
    // Prepare
    const fake = scriptedFetch([{ match: anyRequest, replies: [json(500, { errorCode: '500.001.1001' })] }]);
    const t = testDeps(fake.fetch);

    // Act
    const result = await callJson(t.deps, REQUEST, {
      timeoutMs: 1000,
      what: 'test call',
      classify: (r) => ((r.json as { errorCode?: string }).errorCode === '500.001.1001' ? 'ok' : 'retry'),
    });

    // Assess
    expect(fake.requests).toHaveLength(1);
    expect(result.ok && result.response.status).toBe(500);
  });

  it('takes the rate limiter before every attempt and stops when it says throttled', async () => {
    // Prepare
    const fake = scriptedFetch([{ match: anyRequest, replies: [json(502, {})] }]);
    const t = testDeps(fake.fetch);
    let taken = 0;
    const limiter = {
      acquire: async () =>
        ++taken > 2
          ? { type: 'error' as const, error: 'throttled' as const, detail: 'limit', retryAfterMs: 5 }
          : undefined,
    };

    // Act
    const result = await callJson(t.deps, REQUEST, { timeoutMs: 1000, what: 'test call', limiter });

    // Assess
    expect(fake.requests).toHaveLength(2);
    expect(result).toMatchObject({ ok: false, error: { error: 'throttled', detail: 'limit' } });
  });
});

describe('backoffDelay', () => {
  it('draws from zero to the doubled base, capped', () => {
    expect(backoffDelay(0, 200, 3000, () => 0.999)).toBe(199);
    expect(backoffDelay(3, 200, 3000, () => 0.999)).toBe(1598);
    expect(backoffDelay(6, 200, 3000, () => 0.999)).toBe(2997);
    expect(backoffDelay(2, 200, 3000, () => 0)).toBe(0);
  });
});
