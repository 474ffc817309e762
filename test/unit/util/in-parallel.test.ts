/**
 * The one bounded worker pool (shared/util/in-parallel.ts) behind the store's fanned-out reads and writes:
 * every call is held by a promise the test settles, so what is in flight is counted, not timed.
 */
import { describe, expect, it } from 'vitest';
import { inParallel } from '../../../shared/util/in-parallel';

type Call = { item: string; index: number; resolve: (value: string) => void; reject: (error: Error) => void };

/** A pool run whose calls wait for the test to settle them, with the calls started and the most in flight. */
function held(items: readonly string[], width: number) {
  const calls: Call[] = [];
  let inFlight = 0;
  let most = 0;
  const run = inParallel(items, width, (item, index) => {
    inFlight += 1;
    most = Math.max(most, inFlight);
    return new Promise<string>((resolve, reject) => calls.push({ item, index, resolve, reject })).finally(
      () => (inFlight -= 1),
    );
  });
  // Keeps a rejection the test reads later from counting as unhandled meanwhile.
  run.catch(() => undefined);
  return { run, calls, inFlight: () => inFlight, most: () => most };
}

/** Every promise callback queued so far has run (one macrotask turn: no clock involved). */
const settled = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('inParallel', () => {
  it('keeps at most `width` calls in flight, starting the next as each ends, out of order', async () => {
    // Prepare
    const items = Array.from({ length: 10 }, (_, i) => `item-${i}`);
    const pool = held(items, 3);

    // Act
    await settled();
    const first = pool.calls.map((c) => c.item);
    for (const at of [1, 0, 2, 5, 3, 4, 8, 6, 9, 7]) {
      expect(pool.calls.length).toBeGreaterThan(at);
      pool.calls[at]!.resolve(`done-${at}`);
      await settled();
      expect(pool.inFlight()).toBeLessThanOrEqual(3);
    }

    // Assert
    expect(first).toEqual(['item-0', 'item-1', 'item-2']);
    expect(pool.most()).toBe(3);
    expect(pool.calls.map((c) => [c.item, c.index])).toEqual(items.map((item, i) => [item, i]));
    await expect(pool.run).resolves.toEqual(items.map((_, i) => `done-${i}`));
  });

  it('returns the results in the elements order, whatever order the calls end in', async () => {
    // Prepare
    const pool = held(['a', 'b', 'c'], 3);
    await settled();

    // Act
    for (const call of [...pool.calls].reverse()) call.resolve(call.item.toUpperCase());

    // Assert
    await expect(pool.run).resolves.toEqual(['A', 'B', 'C']);
  });

  it('starts no more calls than elements, and none for none', async () => {
    // Prepare
    const few = held(['a', 'b'], 5);
    const none = held([], 5);

    // Act
    await settled();

    // Assert
    expect(few.calls.map((c) => c.item)).toEqual(['a', 'b']);
    await expect(none.run).resolves.toEqual([]);
    expect(none.most()).toBe(0);
  });

  it('rejects with the first failure at once and starts no element after it', async () => {
    // Prepare
    const pool = held(['a', 'b', 'c', 'd', 'e', 'f'], 3);
    await settled();
    const first = new Error('first outage');

    // Act: the first call fails; of the two still in flight one ends well and one fails too.
    pool.calls[0]!.reject(first);
    await expect(pool.run).rejects.toBe(first);
    pool.calls[1]!.resolve('B');
    pool.calls[2]!.reject(new Error('second outage'));
    await settled();

    // Assert
    expect(pool.calls.map((c) => c.item)).toEqual(['a', 'b', 'c']);
    expect(pool.inFlight()).toBe(0);
  });
});
