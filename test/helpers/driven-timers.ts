import { afterEach, vi } from 'vitest';

/**
 * Fake `setTimeout` and `performance.now()` for the tests of this file: the deadlines of the request path
 * (`within()`, the ack budgets, the decision deadline) then run on a clock the test moves with
 * `vi.advanceTimersByTimeAsync`, so "answered by the deadline" is asserted on that clock, never on the
 * machine's speed. `AbortSignal.timeout` stays real (Node's timers are not faked): a test waits for its
 * `abort` event. Call it at the top of a describe block.
 */
export function useDrivenTimers(): void {
  afterEach(() => {
    vi.useRealTimers();
  });
}

/** Starts driving the timers (see `useDrivenTimers`). */
export function driveTimers(): void {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
}

/** A promise whose settling the test can look at without awaiting it. */
export function watched<T>(promise: Promise<T>): { promise: Promise<T>; settled: () => boolean } {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  return { promise, settled: () => settled };
}

/** Resolves when `signal` aborts (at once if it has): an event, not a length of time. */
export function aborted(signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return Promise.reject(new Error('no signal was given'));
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/**
 * `AbortSignal.timeout` on a clock the test drives: every signal it makes waits until the test calls
 * `expire(ms)`, which aborts (with a TimeoutError, as Node does) the ones made with that delay. Restore
 * it in a `finally`.
 */
export function drivenSignalTimeouts(): {
  expire(ms: number): void;
  restore(): void;
} {
  const made: { ms: number; controller: AbortController }[] = [];
  const spy = vi.spyOn(AbortSignal, 'timeout').mockImplementation((ms: number) => {
    const controller = new AbortController();
    made.push({ ms, controller });
    return controller.signal;
  });
  return {
    expire: (ms) => {
      for (const m of made.filter((entry) => entry.ms === ms))
        m.controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
    },
    restore: () => spy.mockRestore(),
  };
}
