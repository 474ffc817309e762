import { randomBytes, randomInt } from 'node:crypto';

export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

export function digits(n: number): string {
  let out = String(randomInt(1, 10));
  while (out.length < n) out += String(randomInt(0, 10));
  return out;
}

const UPPER_ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** Receipt-like ids (`NLJ7RT61SV`): uppercase letters and digits, starting with a letter as the platforms do. */
export function receipt(length = 10): string {
  let out = UPPER_ALNUM[randomInt(0, 26)]!;
  while (out.length < length) out += UPPER_ALNUM[randomInt(0, UPPER_ALNUM.length)]!;
  return out;
}

export function hex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** `YYYYMMDDHHmmss` in UTC+3 (Nairobi), the timestamp format of Daraja payloads. */
export function darajaTimestamp(at = new Date()): string {
  const t = new Date(at.getTime() + 3 * 3600_000);
  return `${t.getUTCFullYear()}${pad(t.getUTCMonth() + 1)}${pad(t.getUTCDate())}${pad(t.getUTCHours())}${pad(t.getUTCMinutes())}${pad(t.getUTCSeconds())}`;
}

/** `dd.MM.yyyy HH:mm:ss` (B2C `TransactionCompletedDateTime`). */
export function darajaDottedDate(at = new Date()): string {
  const t = new Date(at.getTime() + 3 * 3600_000);
  return `${pad(t.getUTCDate())}.${pad(t.getUTCMonth() + 1)}.${t.getUTCFullYear()} ${pad(t.getUTCHours())}:${pad(t.getUTCMinutes())}:${pad(t.getUTCSeconds())}`;
}
