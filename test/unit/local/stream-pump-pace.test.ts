import { describe, expect, it } from 'vitest';
import { nextPollDelay } from '../../../local/stream-pump';

const PACE = { busyMs: 100, idleMs: 400 };

describe("the stream pump's pace", () => {
  it('backs off, doubling, while polls read nothing, and stops at the idle wait', () => {
    // Act
    const delays: number[] = [];
    let delay = PACE.busyMs;
    for (let poll = 0; poll < 5; poll++) delays.push((delay = nextPollDelay(delay, 0, PACE)));

    // Assess
    expect(delays).toEqual([200, 400, 400, 400, 400]);
  });

  it('polls again at the busy pace as soon as a poll reads records', () => {
    // Act
    const afterRecords = nextPollDelay(400, 3, PACE);

    // Assess
    expect(afterRecords).toBe(100);
  });

  it('starts its back-off from the busy wait when the timer has not run yet', () => {
    // Act, Assess
    expect(nextPollDelay(0, 0, PACE)).toBe(200);
  });
});
