import { createHash } from 'node:crypto';
import * as z from '../util/zod';
import { hasControlCharacters } from '../util/text';

/**
 * The badge change feed's domain (docs/badges.md): a shop's badge as the relay keeps it (parsed from the
 * badge API tolerantly, normalized so that the same badge always compares equal), the diff of two reads,
 * and the validity transitions (valid_from / valid_to passing) due at a time. No I/O.
 */

/** One product of a badge's `filter`. */
interface BadgeFilterItem {
  id: number;
  name: string;
  sku: string;
  image: string;
}

/** A badge as the relay keeps it and publishes it: the API's field names, `_links` dropped. */
export interface Badge {
  id: string;
  badge_name: string;
  badge_type: string;
  /** "all", a product id, or the products. */
  filter: string | number | BadgeFilterItem[];
  badge_style: string;
  badge_settings: Record<string, unknown>;
  priority: string;
  status: string;
  created_by: string;
  /** UTC ISO 8601 (`toISOString`), or null when absent or empty. */
  valid_from: string | null;
  valid_to: string | null;
  /** As the API writes them ("YYYY-MM-DD HH:mm:ss"), or null. */
  created_at: string | null;
  updated_at: string | null;
}

/** The fields compared between two reads (every field of Badge but the id), in a stable order. */
export const BADGE_FIELDS = [
  'badge_name',
  'badge_type',
  'filter',
  'badge_style',
  'badge_settings',
  'priority',
  'status',
  'created_by',
  'valid_from',
  'valid_to',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof Badge)[];
export type BadgeField = (typeof BADGE_FIELDS)[number];

/** A string field the API may also send as a number (priority, status): always a string here. */
const looseText = z.pipe(
  z.nullish(z.union([z.string(), z.number(), z.boolean()])),
  z.transform((value) => (value === null || value === undefined ? '' : String(value))),
);

/** A validity value that is not a date: read as no bound, and reported (`invalidDates`). */
class InvalidDate {
  constructor(readonly value: string) {}
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const SITE_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;
const ISO_WITH_ZONE =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})$/i;

/**
 * Epoch ms of a validity date, or undefined: ISO 8601 with `Z` or an offset, or (read as UTC) a bare
 * `YYYY-MM-DD HH:mm:ss` or `YYYY-MM-DD`. The whole text must match and the date parts must survive the
 * round trip (no 2026-02-30 rolled over, no 0000-00-00). Independent of the machine's time zone.
 */
function parseValidityDate(text: string): number | undefined {
  const m = ISO_WITH_ZONE.exec(text) ?? SITE_DATE_TIME.exec(text) ?? DATE_ONLY.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h = '00', mi = '00', s = '00', fraction = '', zone = 'Z'] = m;
  const [year, month, day, hour, minute, second] = [y, mo, d, h, mi, s].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, Number(fraction.padEnd(3, '0').slice(0, 3)));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day)
    return undefined;
  let offsetMin = 0;
  if (zone.toUpperCase() !== 'Z') {
    const digits = zone.replace(':', '');
    const [hh, mm] = [Number(digits.slice(1, 3)), Number(digits.slice(3, 5))];
    if (hh > 23 || mm > 59) return undefined;
    offsetMin = (digits.startsWith('-') ? -1 : 1) * (hh * 60 + mm);
  }
  return date.getTime() - offsetMin * 60_000;
}

/** A validity bound: absent or empty → null (open); a date → UTC ISO; anything else → InvalidDate. */
const validityTime = z.pipe(
  z.optional(z.union([z.string(), z.null()])),
  z.transform((value): string | null | InvalidDate => {
    if (value === undefined || value === null || value.trim() === '') return null;
    const ms = parseValidityDate(value.trim());
    return ms === undefined ? new InvalidDate(value) : new Date(ms).toISOString();
  }),
);

const apiTimestamp = z.pipe(
  z.optional(z.union([z.string(), z.null()])),
  z.transform((value) => (value === undefined || value === null || value === '' ? null : value)),
);

const filterItemSchema = z.object({
  id: z.union([z.number().check(z.int()), z.pipe(z.string().check(z.regex(/^\d+$/)), z.transform(Number))]),
  name: looseText,
  sku: looseText,
  image: looseText,
});

/** A badge as the API answers it; unknown members (`_links`, additions) are dropped. */
const apiBadgeSchema = z.object({
  id: z.pipe(z.union([z.string().check(z.minLength(1)), z.number().check(z.int())]), z.transform(String)),
  badge_name: looseText,
  badge_type: looseText,
  filter: z.union([z.string(), z.number().check(z.int()), z.array(filterItemSchema)]),
  badge_style: looseText,
  badge_settings: z.pipe(
    z.optional(z.union([z.record(z.string(), z.unknown()), z.array(z.never()), z.null()])),
    z.transform((value) => (value && !Array.isArray(value) ? value : {})),
  ),
  priority: looseText,
  status: looseText,
  created_by: looseText,
  valid_from: validityTime,
  valid_to: validityTime,
  created_at: apiTimestamp,
  updated_at: apiTimestamp,
});

/** The list answer: an array of badges with distinct ids. */
const badgeListSchema = z.array(apiBadgeSchema).check(
  z.superRefine((badges, ctx) => {
    const seen = new Set<string>();
    for (const [index, badge] of badges.entries()) {
      if (seen.has(badge.id)) ctx.addIssue({ code: 'custom', message: 'duplicate badge id', path: [index] });
      seen.add(badge.id);
    }
  }),
);

/**
 * The longest badge id the feed keeps. Ids name records (`<badgeId>:r<revision>`, a DynamoDB key of at most
 * 2048 bytes) and snapshot entries; the badge plugin's ids are small numbers.
 */
export const MAX_BADGE_ID_CHARS = 128;

/** Why a badge id cannot be kept; undefined when it can. */
export type BadgeIdProblem = 'missing' | 'not-text' | 'empty' | 'too-long' | 'not-printable';

/**
 * Beyond control characters (the one rule, util/text.ts): format, unassigned, private-use and surrogate
 * characters and separators (spaces) are not in an id either.
 */
const NOT_PRINTABLE = /[\p{Cf}\p{Cn}\p{Co}\p{Cs}\p{Z}\s]/u;
const notPrintable = (text: string) => hasControlCharacters(text) || NOT_PRINTABLE.test(text);

/**
 * Whether `id` (as the API sent it: a string or an integer) can be a badge id: 1 to MAX_BADGE_ID_CHARS
 * printable characters, no spaces. Any such text is safe, `__proto__` and `constructor` included: the
 * feed keeps badges in Maps and stores them as a list, never as object members named by the id.
 */
export function badgeIdProblem(id: unknown): BadgeIdProblem | undefined {
  if (typeof id === 'number' && Number.isSafeInteger(id)) return undefined;
  if (id === undefined || id === null) return 'missing';
  if (typeof id !== 'string') return 'not-text';
  if (id === '') return 'empty';
  if ([...id].length > MAX_BADGE_ID_CHARS) return 'too-long';
  if (notPrintable(id)) return 'not-printable';
  return undefined;
}

/** A badge of a list refused for its id: the rest of the list is read. Holds no more than an excerpt of it. */
export interface RefusedBadge {
  /** The first 16 hex digits of the SHA-256 of the id as sent (JSON): the same bad badge, the same key. */
  key: string;
  reason: BadgeIdProblem;
  /** At most 40 characters of the id, non-printable ones escaped (`\u{…}`), and its length when longer. */
  excerpt: string;
}

function refusal(id: unknown, reason: BadgeIdProblem): RefusedBadge {
  const text = typeof id === 'string' ? id : (JSON.stringify(id) ?? 'undefined');
  const chars = [...text];
  const escape = (c: string) => (notPrintable(c) && c !== ' ' ? `\\u{${c.codePointAt(0)!.toString(16)}}` : c);
  const head = chars.slice(0, 40).map(escape).join('');
  return {
    key: createHash('sha256')
      .update(JSON.stringify(id) ?? 'undefined')
      .digest('hex')
      .slice(0, 16),
    reason,
    excerpt: chars.length > 40 ? `${head}… (${chars.length} characters)` : head,
  };
}

/** A validity date the API sent that is not one: the badge is kept with no bound on that side. */
export interface InvalidBadgeDate {
  badgeId: string;
  field: 'valid_from' | 'valid_to';
  value: string;
}

export type ParseResult<T> =
  | { ok: true; value: T; invalidDates: InvalidBadgeDate[]; refused?: RefusedBadge[] }
  | { ok: false; error: string };

function describe(error: z.core.$ZodError): string {
  const [first] = error.issues;
  const where = first?.path.length ? first.path.join('.') : '(root)';
  const more = error.issues.length > 1 ? ` (+${error.issues.length - 1} more)` : '';
  return `${where}: ${first?.message ?? 'invalid'}${more}`;
}

type ParsedBadge = z.output<typeof apiBadgeSchema>;

/** The badge with an unreadable validity date read as no bound; the date reported in `invalid`. */
function settle(parsed: ParsedBadge, invalid: InvalidBadgeDate[]): Badge {
  const bound = (field: 'valid_from' | 'valid_to'): string | null => {
    const value = parsed[field];
    if (!(value instanceof InvalidDate)) return value;
    invalid.push({ badgeId: parsed.id, field, value: value.value });
    return null;
  };
  return { ...parsed, valid_from: bound('valid_from'), valid_to: bound('valid_to') } as Badge;
}

/** Reads one badge (`GET …/badges/{id}`). */
export function parseBadge(input: unknown): ParseResult<Badge> {
  const parsed = apiBadgeSchema.safeParse(input);
  if (!parsed.success) return { ok: false, error: describe(parsed.error) };
  const invalidDates: InvalidBadgeDate[] = [];
  return { ok: true, value: settle(parsed.data, invalidDates), invalidDates };
}

/**
 * Reads the list (`GET …/badges`): the whole list or nothing (one malformed badge makes the read garbage),
 * except for validity dates that are not dates (read as no bound and reported) and badges whose id cannot
 * be kept (`badgeIdProblem`: missing, empty, too long, not printable): those are left out and returned as
 * `refused`, so one bad badge never stops the others.
 */
export function parseBadgeList(input: unknown): ParseResult<Badge[]> {
  const refused: RefusedBadge[] = [];
  const kept = Array.isArray(input)
    ? input.filter((item: unknown) => {
        if (item === null || typeof item !== 'object' || Array.isArray(item)) return true;
        const id = (item as { id?: unknown }).id;
        const problem = badgeIdProblem(id);
        if (problem) refused.push(refusal(id, problem));
        return problem === undefined;
      })
    : input;
  const parsed = badgeListSchema.safeParse(kept);
  if (!parsed.success) return { ok: false, error: describe(parsed.error) };
  const invalidDates: InvalidBadgeDate[] = [];
  return {
    ok: true,
    value: parsed.data.map((badge) => settle(badge, invalidDates)),
    invalidDates,
    refused,
  };
}

/** JSON with object keys sorted: equal values, equal text, whatever order the API wrote them in. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The fields that differ between two versions of a badge (empty: the same badge). */
export function changedFields(before: Badge, after: Badge): BadgeField[] {
  return BADGE_FIELDS.filter((field) => canonical(before[field]) !== canonical(after[field]));
}

export type BadgeChange =
  | { kind: 'created'; badgeId: string; badge: Badge }
  | { kind: 'updated'; badgeId: string; badge: Badge; previous: Badge; changedFields: BadgeField[] }
  | { kind: 'deleted'; badgeId: string; previous: Badge };

/** What turns `before` (null: absent or deleted) into `after` (null: deleted); undefined: nothing. */
export function changeOf(
  badgeId: string,
  before: Badge | null,
  after: Badge | null,
): BadgeChange | undefined {
  if (!before && !after) return undefined;
  if (!before) return { kind: 'created', badgeId, badge: after! };
  if (!after) return { kind: 'deleted', badgeId, previous: before };
  const fields = changedFields(before, after);
  return fields.length
    ? { kind: 'updated', badgeId, badge: after, previous: before, changedFields: fields }
    : undefined;
}

/**
 * Diffs a stored snapshot against a read list. Badges absent from the list are returned as `missing`
 * (not as deletions): a deletion needs confirmation (a 404 for the single badge).
 */
export function diffBadges(
  before: ReadonlyMap<string, Badge>,
  list: readonly Badge[],
): { changes: BadgeChange[]; missing: string[] } {
  const changes: BadgeChange[] = [];
  const listed = new Set<string>();
  for (const badge of list) {
    listed.add(badge.id);
    const change = changeOf(badge.id, before.get(badge.id) ?? null, badge);
    if (change) changes.push(change);
  }
  const missing = [...before.keys()].filter((id) => !listed.has(id)).sort();
  return { changes, missing };
}

/** Whether a badge is within its validity period at `at` (no bound: open on that side). */
export function isActiveAt(badge: Pick<Badge, 'valid_from' | 'valid_to'>, at: string): boolean {
  return (
    (badge.valid_from === null || badge.valid_from <= at) && (badge.valid_to === null || at < badge.valid_to)
  );
}

/** The validity bounds whose passing has been recorded (or had passed when the badge was first seen). */
export interface ValidityMarks {
  /** The valid_from whose activation is recorded, or null. */
  activated: string | null;
  /** The valid_to whose expiry is recorded, or null. */
  expired: string | null;
}

export interface ValidityTransition {
  kind: 'activated' | 'expired';
  /** The bound that passed: valid_from or valid_to (when it happened). */
  at: string;
}

/** False when valid_from is not before valid_to: the badge is never active, so it neither activates nor expires. */
function hasPeriod(badge: Pick<Badge, 'valid_from' | 'valid_to'>): boolean {
  return badge.valid_from === null || badge.valid_to === null || badge.valid_from < badge.valid_to;
}

/** Transitions of `badge` due at `now` (bound passed, not yet recorded), in time order. */
export function dueTransitions(badge: Badge, marks: ValidityMarks, now: string): ValidityTransition[] {
  const due: ValidityTransition[] = [];
  if (!hasPeriod(badge)) return due;
  if (badge.valid_from && badge.valid_from <= now && marks.activated !== badge.valid_from)
    due.push({ kind: 'activated', at: badge.valid_from });
  if (badge.valid_to && badge.valid_to <= now && marks.expired !== badge.valid_to)
    due.push({ kind: 'expired', at: badge.valid_to });
  return due.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
}

/** The next bound of `badge` still to pass after `now`, or null. */
export function nextTransitionAt(badge: Badge, marks: ValidityMarks, now: string): string | null {
  if (!hasPeriod(badge)) return null;
  const pending = [
    badge.valid_from && badge.valid_from > now && marks.activated !== badge.valid_from
      ? badge.valid_from
      : null,
    badge.valid_to && badge.valid_to > now && marks.expired !== badge.valid_to ? badge.valid_to : null,
  ].filter((t): t is string => t !== null);
  return pending.length ? pending.sort()[0]! : null;
}

/**
 * The marks of a badge just read (created or updated) at `now`: a bound that did not change keeps its
 * mark; a new bound already in the past counts as passed without an event (it passed before the relay
 * knew it: BadgeCreated/BadgeUpdated say whether the badge is active); a future one waits for its time.
 */
export function marksAfterRead(
  badge: Badge,
  previous: (ValidityMarks & { badge: Badge | null }) | undefined,
  now: string,
): ValidityMarks {
  const mark = (bound: string | null, before: string | null | undefined, kept: string | null | undefined) => {
    if (bound === null) return null;
    if (before !== undefined && before === bound) return kept ?? null;
    return bound <= now ? bound : null;
  };
  return {
    activated: mark(badge.valid_from, previous?.badge?.valid_from, previous?.activated),
    expired: mark(badge.valid_to, previous?.badge?.valid_to, previous?.expired),
  };
}

/** The provider name of the feed's records and the first part of its events' correlation ids. */
export const BADGE_PROVIDER = 'badges';

/** `badges:<shop>:<badgeId>`: every event of one badge shares it. */
export function badgeCorrelationId(shop: string, badgeId: string): string {
  return `${BADGE_PROVIDER}:${shop}:${badgeId}`;
}

/** Why a shop's badges could not be read this cycle (the snapshot keeps the reason and a scrubbed excerpt). */
export class BadgeReadError extends Error {
  constructor(
    readonly reason: 'http' | 'garbage' | 'timeout' | 'network' | 'auth' | 'too-large' | 'store',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'BadgeReadError';
  }
}
