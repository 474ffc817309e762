/**
 * One Retry-After reader (shared/util/retry-after.ts) for the provider API calls and the webhook
 * deliveries: delta-seconds and the three HTTP-date forms; negatives, words and other date formats are
 * ignored (JavaScript's Date.parse would read many of them as some date).
 */
import { describe, expect, it } from 'vitest';
import { retryAfterSeconds } from '../../../shared/app/delivery/engine';
import { retryAfterMs } from '../../../shared/util/retry-after';

const NOW = Date.parse('2026-11-23T10:00:00Z');

describe('retryAfterMs', () => {
  it.each([
    // delta-seconds
    ['3', 3000],
    [' 3 ', 3000],
    ['0', 0],
    ['1.5', 1500],
    ['86400', 86_400_000],
    // HTTP-date: IMF-fixdate, RFC 850, asctime (GMT, never local time); in the past: retry now
    ['Mon, 23 Nov 2026 10:00:10 GMT', 10_000],
    ['Monday, 23-Nov-26 10:00:10 GMT', 10_000],
    ['Mon Nov 23 10:00:10 2026', 10_000],
    ['Mon Nov  2 10:00:00 2026', 0],
    ['Sun, 22 Nov 2026 10:00:00 GMT', 0],
    // absent, negative, signed, garbage, other date formats, a delta no number holds
    [undefined, undefined],
    [null, undefined],
    ['', undefined],
    ['-5', undefined],
    ['+5', undefined],
    ['-1.5', undefined],
    ['soon', undefined],
    ['5 seconds', undefined],
    ['0x10', undefined],
    ['1e3', undefined],
    ['2026-11-23T10:00:10Z', undefined],
    ['23 Nov 2026 10:00:10', undefined],
    ['Mon, 23 Nov 2026 10:00:10', undefined],
    ['Retry 12', undefined],
    ['Mon, 23 Nov 2026 10:00:10 PST', undefined],
    ['Mon, 32 Nov 2026 10:00:10 GMT', undefined],
    ['9'.repeat(400), undefined],
  ] as const)('reads %j as %j ms', (value, expected) => {
    expect(retryAfterMs(value, NOW)).toBe(expected);
  });
});

describe("the webhook deliveries' Retry-After (whole seconds, a day at most)", () => {
  it.each([
    ['3', 3],
    ['1.5', 2],
    ['Mon, 23 Nov 2026 10:00:00 GMT', 0],
    ['Mon, 23 Nov 2026 10:00:01 GMT', 1],
    ['999999', 86_400],
    ['Mon, 30 Nov 2026 10:00:00 GMT', 86_400],
    ['-5', undefined],
    ['soon', undefined],
    [undefined, undefined],
  ] as const)('reads %j as %j s', (value, expected) => {
    expect(retryAfterSeconds(value, new Date(NOW))).toBe(expected);
  });
});
