import { describe, expect, it } from 'vitest';
import { type CheckSchedule, nextCheckAt } from '../../../shared/domain/reconcile-schedule';

const SCHEDULE: CheckSchedule = {
  firstCheckSeconds: 30,
  backoffSeconds: [0.05, 60],
  dailyAfterSeconds: 86_400,
  windowSeconds: 3 * 86_400,
};
const CREATED = '2026-12-02T10:00:00.000Z';
const OPEN = '9999-12-31T00:00:00.000Z';

const next = (checksDone: number, now: string, timeScale = 1, reconcileUntil = OPEN) =>
  nextCheckAt({ schedule: SCHEDULE, createdAt: CREATED, reconcileUntil, checksDone, now, timeScale });
const plus = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();

describe('the next status check', () => {
  it('comes first at the creation plus the first delay, scaled, never before now', () => {
    // Act / Assess
    expect(next(0, CREATED)).toBe(plus(CREATED, 30_000));
    expect(next(0, CREATED, 0.01)).toBe(plus(CREATED, 300));
    expect(next(0, plus(CREATED, 60_000))).toBe(plus(CREATED, 60_000));
  });

  it('waits at least a second between checks, a gap the schedule makes shorter included', () => {
    // Prepare
    const now = plus(CREATED, 30_000);
    // Act / Assess: the first gap (0.05 s) counts as 1 s; the second is the schedule's 60 s.
    expect(next(1, now)).toBe(plus(now, 1_000));
    expect(next(2, now)).toBe(plus(now, 60_000));
  });

  it("scales that least gap like every other delay: a second of the relay's time", () => {
    // Prepare
    const now = plus(CREATED, 300);
    // Act / Assess: at 0.05, 1 s is 50 ms of real time; the 60 s gap, 3 s.
    expect(next(1, now, 0.05)).toBe(plus(now, 50));
    expect(next(2, now, 0.05)).toBe(plus(now, 3_000));
  });

  it('checks once a day from dailyAfterSeconds on, and never later than the window end while it is open', () => {
    // Prepare
    const late = plus(CREATED, 86_400_000);
    const until = plus(late, 3_600_000);
    // Act / Assess
    expect(next(5, late)).toBe(plus(late, 86_400_000));
    expect(next(5, late, 1, until)).toBe(until);
  });
});
