/** The Daraja gateway's spike arrest and quota rules, on a clock the test holds. */
import { describe, expect, it } from 'vitest';
import { DarajaThrottle } from '../../simulator/daraja/throttle';

const OFF = { quotaPerSecond: undefined, spikeArrestPerSecond: undefined };

describe('DarajaThrottle', () => {
  it('admits everything when neither rule is set', () => {
    const throttle = new DarajaThrottle();
    const verdicts = Array.from({ length: 100 }, () => throttle.check(0, OFF));
    expect(verdicts.every((v) => v.admitted)).toBe(true);
  });

  it('quota: admits N calls in one second, refuses the next with the seconds left, admits again once the first call is a second old', () => {
    // Prepare
    const throttle = new DarajaThrottle();
    const limits = { ...OFF, quotaPerSecond: 2 };

    // Act
    const first = throttle.check(0, limits);
    const second = throttle.check(100, limits);
    const third = throttle.check(200, limits);
    const afterFirstLeaves = throttle.check(1000, limits);

    // Assess
    expect(first.admitted).toBe(true);
    expect(second.admitted).toBe(true);
    expect(third).toStrictEqual({ admitted: false, rule: 'quota', retryAfterSeconds: 1 });
    expect(afterFirstLeaves.admitted).toBe(true);
  });

  it('quota: refused calls are not counted, so a client that waits gets through', () => {
    const throttle = new DarajaThrottle();
    const limits = { ...OFF, quotaPerSecond: 1 };
    throttle.check(0, limits);
    for (let t = 1; t < 1000; t += 100) expect(throttle.check(t, limits).admitted).toBe(false);
    expect(throttle.check(1000, limits).admitted).toBe(true);
  });

  it('spike arrest: N per second means one call per 1000/N ms, not a burst of N', () => {
    // Prepare
    const throttle = new DarajaThrottle();
    const limits = { ...OFF, spikeArrestPerSecond: 4 };

    // Act
    const first = throttle.check(0, limits);
    const tooSoon = throttle.check(249, limits);
    const onTime = throttle.check(250, limits);

    // Assess
    expect(first.admitted).toBe(true);
    expect(tooSoon).toStrictEqual({ admitted: false, rule: 'spike', retryAfterSeconds: 1 });
    expect(onTime.admitted).toBe(true);
  });

  it('spike arrest is judged before the quota', () => {
    const throttle = new DarajaThrottle();
    const limits = { quotaPerSecond: 1, spikeArrestPerSecond: 2 };
    throttle.check(0, limits);
    expect(throttle.check(100, limits)).toMatchObject({ admitted: false, rule: 'spike' });
    expect(throttle.check(600, limits)).toMatchObject({ admitted: false, rule: 'quota' });
  });

  it('Retry-After rounds the wait up to whole seconds', () => {
    const throttle = new DarajaThrottle();
    const limits = { ...OFF, spikeArrestPerSecond: 0.25 };
    throttle.check(0, limits);
    expect(throttle.check(1500, limits)).toStrictEqual({
      admitted: false,
      rule: 'spike',
      retryAfterSeconds: 3,
    });
  });

  it('reset forgets earlier calls', () => {
    const throttle = new DarajaThrottle();
    const limits = { ...OFF, quotaPerSecond: 1 };
    throttle.check(0, limits);
    throttle.reset();
    expect(throttle.check(1, limits).admitted).toBe(true);
  });
});
