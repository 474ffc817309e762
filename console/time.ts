import type { TimeZonesView } from './api';
// The relay's own zone arithmetic (import-free, so it bundles into the browser): one implementation.
import { dayOf, zonedAt } from '../shared/util/time-zone';

/**
 * The time zone every time on screen is shown in (docs/console.md#time-zone): the provider's business
 * time zone by default (each account's, as the relay counts its business days: GET /v1/me `timeZones`),
 * or this browser's, or UTC. The choice is remembered per browser (localStorage: it is a preference, not
 * a secret), and the current view is drawn again when it changes.
 */
export const ZONE_CHOICES = ['business', 'browser', 'utc'] as const;
export type ZoneChoice = (typeof ZONE_CHOICES)[number];

const CHOICE_KEY = 'relay-console.time-zone';
let zones: TimeZonesView = { business: 'UTC', accounts: {} };

export function zoneChoice(): ZoneChoice {
  const saved = localStorage.getItem(CHOICE_KEY);
  return (ZONE_CHOICES as readonly string[]).includes(saved ?? '') ? (saved as ZoneChoice) : 'business';
}

export function chooseZone(choice: ZoneChoice): void {
  localStorage.setItem(CHOICE_KEY, choice);
}

/** The relay's business zones (from GET /v1/me); true when they changed. */
export function knowBusinessZones(next: TimeZonesView): boolean {
  const changed = JSON.stringify(next) !== JSON.stringify(zones);
  zones = next;
  return changed;
}

function browserZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** The IANA zone times are shown in; `account` (`provider/account`) picks that account's business zone. */
export function shownZone(account?: string): string {
  const choice = zoneChoice();
  if (choice === 'utc') return 'UTC';
  if (choice === 'browser') return browserZone();
  return (account && zones.accounts[account]) || zones.business;
}

/** The choices as the selector words them: "Business (Africa/Nairobi)", "This browser (…)", "UTC". */
export function zoneLabel(choice: ZoneChoice): string {
  if (choice === 'utc') return 'UTC';
  if (choice === 'browser') return `This browser (${browserZone()})`;
  return `Business (${zones.business})`;
}

/**
 * "2026-11-29 10:02:03Z" in UTC, "2026-11-29 13:02:03 +03:00" elsewhere: the offset is always written,
 * so a time copied out of the console says which zone it is in.
 */
export function formatInstant(iso: string, account?: string): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  const zone = shownZone(account);
  if (zone === 'UTC')
    return new Date(ms)
      .toISOString()
      .replace('T', ' ')
      .replace(/\.\d+Z$/, 'Z');
  const { wall, offsetMs } = zonedAt(ms, zone);
  const offset = Math.round(offsetMs / 60_000);
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  return `${dayOf(wall)} ${two(wall.hour)}:${two(wall.minute)}:${two(wall.second)} ${sign}${two(Math.floor(abs / 60))}:${two(abs % 60)}`;
}

const two = (n: number) => String(n).padStart(2, '0');
