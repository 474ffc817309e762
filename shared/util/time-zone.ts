/**
 * Wall-clock times in a named IANA time zone (Africa/Nairobi…) and back, with the platform's Intl data
 * only: a statement states local times, the relay stores UTC, and a business day is the provider's.
 *
 * The browser console shows its times with this same code (console/time.ts): this module imports
 * nothing, so it bundles into the browser as it is (.dependency-cruiser.cjs keeps it so).
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** Whether the platform knows the zone (a config check). */
export function isTimeZone(timeZone: string): boolean {
  try {
    formatter(timeZone);
    return true;
  } catch {
    return false;
  }
}

export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** The wall-clock time in `timeZone` at an instant (ms since the epoch). */
export function wallTimeAt(epochMs: number, timeZone: string): WallTime {
  const parts = Object.fromEntries(
    formatter(timeZone)
      .formatToParts(new Date(epochMs))
      .map((p) => [p.type, p.value]),
  );
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
  };
}

const asUtc = (w: WallTime) => Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);

/** The wall-clock time in `timeZone` at an instant and the zone's offset from UTC then, in ms. */
export function zonedAt(epochMs: number, timeZone: string): { wall: WallTime; offsetMs: number } {
  const wall = wallTimeAt(epochMs, timeZone);
  return { wall, offsetMs: asUtc(wall) - Math.floor(epochMs / 1000) * 1000 };
}

/** The zone's offset from UTC at an instant, in ms. */
function offsetAt(epochMs: number, timeZone: string): number {
  return zonedAt(epochMs, timeZone).offsetMs;
}

/**
 * The instant a wall-clock time in `timeZone` names. Twice-read so a time near a daylight-saving change
 * lands on the right side (African providers' zones have none, but templates may name any zone).
 */
export function instantOf(wall: WallTime, timeZone: string): number {
  const guess = asUtc(wall);
  const first = guess - offsetAt(guess, timeZone);
  return guess - offsetAt(first, timeZone);
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** `YYYY-MM-DD` of a wall time. */
export function dayOf(wall: Pick<WallTime, 'year' | 'month' | 'day'>): string {
  return `${pad(wall.year, 4)}-${pad(wall.month)}-${pad(wall.day)}`;
}

/** The calendar day after `day` (`YYYY-MM-DD`). */
export function nextDay(day: string): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  const next = new Date(Date.UTC(y, m - 1, d + 1));
  return next.toISOString().slice(0, 10);
}

export function previousDay(day: string): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d - 1)).toISOString().slice(0, 10);
}

/** Midnight of `day` in `timeZone`, as an instant. */
export function startOfDay(day: string, timeZone: string): number {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  return instantOf({ year, month, day: date, hour: 0, minute: 0, second: 0 }, timeZone);
}
