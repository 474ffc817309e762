/**
 * A gate for a test file's independent scenarios that run at once (`it.concurrent`, `describe.concurrent`):
 * vitest's own limit (maxConcurrency) applies at each level of nesting, so concurrent blocks of concurrent
 * tests multiply it, and on two shared cores every scenario then stretches toward its own deadline. The
 * gate holds the work itself to `limit` at a time, in the order asked; a test's time includes its wait.
 */
export function atMost(limit: number): <T>(work: () => Promise<T>) => Promise<T> {
  let running = 0;
  const queued: (() => void)[] = [];
  return async (work) => {
    if (running >= limit) await new Promise<void>((start) => queued.push(start));
    else running++;
    try {
      return await work();
    } finally {
      // The slot passes to the next queued work (the count stays), or is freed.
      const next = queued.shift();
      if (next) next();
      else running--;
    }
  };
}
