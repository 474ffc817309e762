import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PollPacer } from '../../../local/stream-pump';

const PACE = { busyMs: 100, idleMs: 2_000 };

/** A poll the test answers: each call waits until the test settles it with the records it read. */
function scriptedPoll() {
  const calls: Array<(read: number) => void> = [];
  return {
    poll: () => new Promise<number>((resolve) => calls.push(resolve)),
    get count() {
      return calls.length;
    },
    /** Answers the latest poll with `read` records and lets its follow-up run. */
    async answer(read: number) {
      calls.at(-1)!(read);
      await vi.advanceTimersByTimeAsync(0);
    },
  };
}

/**
 * A started pacer whose polls read nothing, moved through `waits` (its back-off): each poll answered but
 * the last, which is left in flight when `lastInFlight`.
 */
async function idlePacer(waits: number[], lastInFlight = false) {
  const polls = scriptedPoll();
  const pacer = new PollPacer(polls.poll, PACE);
  pacer.start();
  for (const [i, wait] of waits.entries()) {
    await vi.advanceTimersByTimeAsync(wait);
    if (!lastInFlight || i < waits.length - 1) await polls.answer(0);
  }
  return { polls, pacer };
}

describe('the stream pump pacer', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('backs off while polls read nothing and polls again at the busy pace once they read records', async () => {
    // Prepare
    const polls = scriptedPoll();
    const pacer = new PollPacer(polls.poll, PACE);
    pacer.start();

    // Act: five empty polls (waits 100, 200, 400, 800, 1600), then the idle wait of 2 s
    const waits: number[] = [];
    for (let i = 0; i < 7; i++) {
      const before = polls.count;
      let waited = 0;
      while (polls.count === before) {
        await vi.advanceTimersByTimeAsync(50);
        waited += 50;
      }
      waits.push(waited);
      await polls.answer(i === 5 ? 3 : 0);
    }

    // Assess
    expect(waits).toEqual([100, 200, 400, 800, 1600, 2000, 100]);
    await pacer.stop();
  });

  it('polls within the busy interval after a wake, however long it was idle', async () => {
    // Prepare: idle long enough to wait 2 s between polls
    const { polls, pacer } = await idlePacer([100, 200, 400, 800, 1600, 2000]);
    const before = polls.count;
    await vi.advanceTimersByTimeAsync(300);

    // Act: a write is made 300 ms into a 2 s wait
    pacer.wake();
    await vi.advanceTimersByTimeAsync(99);
    const beforeBusyWait = polls.count;
    await vi.advanceTimersByTimeAsync(1);

    // Assess
    expect(beforeBusyWait).toBe(before);
    expect(polls.count).toBe(before + 1);
    await polls.answer(0);
    await pacer.stop();
  });

  it('keeps the busy pace after a poll that read nothing when a write came while it ran', async () => {
    // Prepare: a poll in flight after a long idle spell
    const { polls, pacer } = await idlePacer([100, 200, 400, 800, 1600], true);
    const during = polls.count;

    // Act: the write lands while that poll runs, which then reads nothing
    pacer.wake();
    await polls.answer(0);
    await vi.advanceTimersByTimeAsync(100);

    // Assess: polled again 100 ms later, not after the 2 s back-off
    expect(polls.count).toBe(during + 1);
    await polls.answer(0);
    await pacer.stop();
  });

  it('stops after the poll in flight and polls no more, woken or not', async () => {
    // Prepare
    const polls = scriptedPoll();
    const pacer = new PollPacer(polls.poll, PACE);
    pacer.start();
    await vi.advanceTimersByTimeAsync(100);

    // Act
    const stopped = pacer.stop();
    await polls.answer(2);
    await stopped;
    pacer.wake();
    await vi.advanceTimersByTimeAsync(10_000);

    // Assess
    expect(polls.count).toBe(1);
  });

  it('paces a failed poll like an empty one, after telling who asked', async () => {
    // Prepare
    const failures: unknown[] = [];
    let calls = 0;
    const pacer = new PollPacer(
      async () => {
        calls++;
        throw new Error('DynamoDB Local unreachable');
      },
      PACE,
      (error) => failures.push(error),
    );

    // Act
    pacer.start();
    await vi.advanceTimersByTimeAsync(100 + 200 + 400);

    // Assess
    expect(calls).toBe(3);
    expect(failures).toHaveLength(3);
    await pacer.stop();
  });
});
