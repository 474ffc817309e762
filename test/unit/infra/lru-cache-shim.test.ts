import fc from 'fast-check';
import MnemonistLRU from 'mnemonist/lru-cache';
import { describe, expect, it } from 'vitest';
import ShimLRU from '../../../infra/lambda-shims/lru-cache';

/*
 * The Lambda bundles replace mnemonist's LRU cache with a Map (infra/bundling.ts alias): it must answer
 * every call the SDK's endpoint cache makes (get, peek, has, set, clear) exactly as mnemonist does.
 */

type Op = { op: 'get' | 'peek' | 'has' | 'set' | 'clear'; key: number; value: number };

const ops = fc.array(
  fc.record({
    op: fc.constantFrom<Op['op']>('get', 'peek', 'has', 'set', 'set', 'clear'),
    key: fc.integer({ min: 0, max: 6 }),
    value: fc.integer(),
  }),
  { maxLength: 80 },
);

describe('the LRU cache shim of the Lambda bundles', () => {
  it('answers any sequence of calls as mnemonist does', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), ops, (capacity, sequence) => {
        // Prepare
        const real = new MnemonistLRU<number, number>(capacity);
        const shim = new ShimLRU<number, number>(capacity);
        for (const { op, key, value } of sequence) {
          // Act
          const expected =
            op === 'set' ? (real.set(key, value), real.size) : op === 'clear' ? real.clear() : real[op](key);
          const actual =
            op === 'set' ? (shim.set(key, value), shim.size) : op === 'clear' ? shim.clear() : shim[op](key);
          // Assess
          expect(actual).toEqual(expected);
        }
      }),
    );
  });

  it('evicts the least recently used entry, where a get counts as a use and a peek does not', () => {
    // Prepare
    const cache = new ShimLRU<string, number>(2);
    cache.set('a', 1).set('b', 2);
    // Act
    cache.get('a');
    cache.peek('b');
    cache.set('c', 3);
    // Assess
    expect([cache.has('a'), cache.has('b'), cache.has('c')]).toEqual([true, false, true]);
  });
});
