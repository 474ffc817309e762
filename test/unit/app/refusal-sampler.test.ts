import { describe, expect, it } from 'vitest';
import { RefusalSampler, sourceKey } from '../../../shared/app/callbacks/refusal-sampler';

function clock(start = Date.parse('2026-11-23T10:00:00.000Z')) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

const scanner = (sourceIp: string) => ({
  sourceIp,
  knownAccount: false,
  errorCode: 'NOT_FOUND',
  path: '/wp-login.php',
});
const forged = (sourceIp: string) => ({
  sourceIp,
  knownAccount: true,
  errorCode: 'UNAUTHORIZED',
  path: '/v1/airtel/ug/callback',
});

describe('RefusalSampler', () => {
  it('keeps a few full records per scanner source per minute and counts the rest', () => {
    // Prepare
    const time = clock();
    const sampler = new RefusalSampler({}, time.now);

    // Act
    const admitted = Array.from({ length: 100 }, () => {
      time.advance(200);
      return sampler.admit(scanner('203.0.113.9'));
    }).filter(Boolean).length;
    time.advance(60_000);
    const summary = sampler.takeSummary();

    // Assess
    expect(admitted).toBe(3);
    expect(summary?.notStored).toBe(97);
    expect(summary?.topSources).toEqual({ '203.0.113.9': 97 });
    expect(summary?.byErrorCode).toEqual({ NOT_FOUND: 97 });
  });

  it('allows more full records for requests aimed at a configured account', () => {
    const time = clock();
    const sampler = new RefusalSampler({}, time.now);

    const admitted = Array.from({ length: 50 }, () => {
      time.advance(500);
      return sampler.admit(forged('198.51.100.7'));
    }).filter(Boolean).length;

    expect(admitted).toBe(30);
  });

  it('caps the whole process under a flood from many sources', () => {
    // Prepare: 1,000 sources in the same second, each under its own allowance.
    const time = clock();
    const sampler = new RefusalSampler({ perSecond: 10 }, time.now);

    // Act
    const admitted = Array.from({ length: 1000 }, (_, i) =>
      sampler.admit(forged(`10.0.${i >> 8}.${i & 255}`)),
    ).filter(Boolean).length;

    // Assess: the burst is twice the rate.
    expect(admitted).toBe(20);
  });

  it('refills the per-second allowance as time passes', () => {
    const time = clock();
    const sampler = new RefusalSampler({ perSecond: 10 }, time.now);
    for (let i = 0; i < 20; i++) sampler.admit(forged(`10.1.0.${i}`));

    time.advance(1000);
    const afterOneSecond = Array.from({ length: 30 }, (_, i) => sampler.admit(forged(`10.2.0.${i}`))).filter(
      Boolean,
    ).length;

    expect(afterOneSecond).toBe(10);
  });

  it('gives no summary while the minute runs, nor for a minute where everything was stored', () => {
    const time = clock();
    const sampler = new RefusalSampler({}, time.now);
    sampler.admit(scanner('203.0.113.1'));

    const during = sampler.takeSummary();
    time.advance(61_000);
    const after = sampler.takeSummary();

    expect(during).toBeUndefined();
    expect(after).toBeUndefined();
  });

  it('starts each minute with fresh allowances', () => {
    const time = clock();
    const sampler = new RefusalSampler({}, time.now);
    for (let i = 0; i < 10; i++) sampler.admit(scanner('203.0.113.9'));

    time.advance(60_000);
    sampler.takeSummary();
    const nextMinute = sampler.admit(scanner('203.0.113.9'));

    expect(nextMinute).toBe(true);
  });
});

describe('RefusalSampler under a mixed flood', () => {
  it('keeps recording refused callbacks to a configured account while scanners use up their own allowance', () => {
    // Prepare: 1,000 scanner requests from 1,000 addresses in the same second.
    const time = clock();
    const sampler = new RefusalSampler({ perSecond: 10 }, time.now);
    for (let i = 0; i < 1000; i++) sampler.admit(scanner(`10.9.${i >> 8}.${i & 255}`));

    // Act
    const providerRefusal = sampler.admit(forged('196.201.214.200'));

    // Assess
    expect(providerRefusal).toBe(true);
  });

  it('counts an IPv6 client rotating through its /64 as one source', () => {
    const time = clock();
    const sampler = new RefusalSampler({}, time.now);

    const admitted = Array.from({ length: 10 }, (_, i) =>
      sampler.admit(scanner(`2001:db8:aa:bb::${i + 1}`)),
    ).filter(Boolean).length;

    expect(admitted).toBe(3);
  });
});

describe('sourceKey', () => {
  it('keys IPv4 by address and IPv6 by its /64, whatever the spelling', () => {
    expect(sourceKey('198.51.100.7')).toBe('198.51.100.7');
    expect(sourceKey('2001:db8:aa:bb::1')).toBe('2001:db8:aa:bb::/64');
    expect(sourceKey('2001:0DB8:00aa:00bb:1:2:3:4')).toBe('2001:db8:aa:bb::/64');
    expect(sourceKey('2001:db8::5')).toBe('2001:db8:0:0::/64');
    expect(sourceKey('::1')).toBe('0:0:0:0::/64');
    expect(sourceKey('::ffff:198.51.100.7')).toBe('198.51.100.7');
    expect(sourceKey('::FFFF:203.0.113.9')).toBe('203.0.113.9');
  });
});
