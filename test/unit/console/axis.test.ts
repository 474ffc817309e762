/** The report charts' value axis (console/axis.ts): round tops, whole-number ticks for counts. */
import { describe, expect, it } from 'vitest';
import { axisTicks } from '../../../console/axis';

describe('the chart value axis', () => {
  it('ticks counts on whole numbers only, up to a round top at or above the largest bar', () => {
    expect(axisTicks(1, true)).toEqual([0, 1]);
    expect(axisTicks(3, true)).toEqual([0, 1, 2, 3]);
    expect(axisTicks(7, true)).toEqual([0, 2, 4, 6, 8]);
    expect(axisTicks(130, true)).toEqual([0, 50, 100, 150]);
    expect(axisTicks(0, true)).toEqual([0, 1]);
  });

  it('ticks measures (seconds) on 1, 2 or 5 times a power of ten, fractions allowed', () => {
    expect(axisTicks(0.9, false)).toEqual([0, 0.5, 1]);
    expect(axisTicks(42, false)).toEqual([0, 20, 40, 60]);
  });
});
