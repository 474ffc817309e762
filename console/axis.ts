/** The charts' value axis (no DOM here: unit-tested in Node). */

/** 1, 2 or 5 times a power of ten, at least `rough`. */
function niceStep(rough: number): number {
  const power = 10 ** Math.floor(Math.log10(rough));
  const m = rough / power;
  return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * power;
}

/**
 * The value axis: from 0 to a round top at or above `max`, in at most about 5 steps; whole steps for
 * counts (a count of 3 gets 0, 1, 2, 3, never 1.5).
 */
export function axisTicks(max: number, integer: boolean): number[] {
  if (!(max > 0)) return [0, 1];
  let step = niceStep(max / 4);
  if (integer) step = Math.max(1, Math.ceil(step));
  const top = Math.ceil(max / step - 1e-9) * step;
  const ticks: number[] = [];
  for (let i = 0; i * step <= top + 1e-9; i++) ticks.push(Number((i * step).toPrecision(12)));
  return ticks;
}
