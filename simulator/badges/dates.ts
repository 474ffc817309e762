/**
 * The two date forms of the badge plugin's API: `valid_from` / `valid_to` as ISO 8601 date-time with an offset
 * (`2026-11-23T10:00:00+03:00`) and `created_at` / `updated_at` as `YYYY-MM-DD HH:mm:ss` (site time).
 * The simulator writes both in the site's UTC offset (`badges.utcOffset`, default `+03:00`).
 */

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

const OFFSET_PATTERN = /^[+-](?:[01]\d|2[0-3]):[0-5]\d$/;

/** `+03:00` → 180. */
export function offsetMinutes(offset: string): number {
  if (!OFFSET_PATTERN.test(offset)) throw new RangeError(`UTC offset must look like +03:00, got "${offset}"`);
  const sign = offset.startsWith('-') ? -1 : 1;
  return sign * (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(4, 6)));
}

function shifted(ms: number, offsetMin: number): Date {
  return new Date(ms + offsetMin * 60_000);
}

function offsetText(offsetMin: number): string {
  const abs = Math.abs(offsetMin);
  return `${offsetMin < 0 ? '-' : '+'}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** `2026-11-23T10:00:00+03:00` */
export function isoWithOffset(ms: number, offsetMin: number): string {
  const t = shifted(ms, offsetMin);
  return `${t.getUTCFullYear()}-${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())}T${pad(t.getUTCHours())}:${pad(t.getUTCMinutes())}:${pad(t.getUTCSeconds())}${offsetText(offsetMin)}`;
}

/** `2026-11-23 10:00:00` (site time) */
export function siteDateTime(ms: number, offsetMin: number): string {
  const t = shifted(ms, offsetMin);
  return `${t.getUTCFullYear()}-${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())} ${pad(t.getUTCHours())}:${pad(t.getUTCMinutes())}:${pad(t.getUTCSeconds())}`;
}

const INPUT =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * Parses a request date: ISO 8601 date-time with `Z` or an offset, a date-time without offset or a bare
 * date (both read in site time), or `YYYY-MM-DD HH:mm:ss`. Returns epoch ms (whole seconds) or undefined.
 */
export function parseDateInput(text: string, siteOffsetMin: number): number | undefined {
  const m = INPUT.exec(text.trim());
  if (!m) return undefined;
  const [, y, mo, d, h = '00', mi = '00', s = '00', zone] = m;
  const parts = [Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(s)] as const;
  const [year, month, day, hour, minute, second] = parts;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const utc = Date.UTC(year, month - 1, day, hour, minute, second);
  const check = new Date(utc);
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) {
    return undefined;
  }
  let offsetMin = siteOffsetMin;
  if (zone && zone.toUpperCase() !== 'Z') {
    const z = zone.replace(':', '');
    const hh = Number(z.slice(1, 3));
    const mm = Number(z.slice(3, 5));
    if (hh > 23 || mm > 59) return undefined;
    offsetMin = (z.startsWith('-') ? -1 : 1) * (hh * 60 + mm);
  } else if (zone) {
    offsetMin = 0;
  }
  return utc - offsetMin * 60_000;
}

/** Whole seconds: the response forms have no fractions, so stored instants have none either. */
export function wholeSeconds(ms: number): number {
  return Math.floor(ms / 1000) * 1000;
}
