import { phoneFieldsOf } from '../../providers/registry';
import { maskMsisdnsIn, maskPhoneFieldsInText } from '../../util/mask';
import type { QuarantinePage, QuarantineView } from '../management-answers';
import type { Clock, ConsoleStore, QuarantineEntry } from '../ports';
import type { RelayLimits } from '../services';
import { MANAGEMENT_ROUTE_NAME } from '../operations/quarantine-decisions';
import { badParameter, decodeCursor, encodeCursor, parseLimit, parseRange, parseText } from './console-query';

/** The quarantine view's range: the last 7 days by default, at most 31 (entries live `quarantineDays`). */
const QUARANTINE_RANGE = { defaultDays: 7, maxDays: 31 } as const;
/** Bytes of a body an entry shows (the stored body itself is bounded by the relay's limits). */
const SHOWN_BODY_BYTES = 4096;
/** Entries one page request looks at, and entries one request counts by reason, at most. */
const MAX_EXAMINED = 2000;
const MAX_COUNTED = 10_000;
/** Entries a filtered page reads per store call. */
const FILTERED_BATCH = 500;

interface Cursor {
  day: string;
  after: string;
}
const isCursor = (v: unknown): v is Cursor =>
  typeof (v as Cursor | null)?.day === 'string' &&
  /^\d{4}-\d{2}-\d{2}$/.test((v as Cursor).day) &&
  typeof (v as Cursor).after === 'string';

function cut(body: string): { body: string; cut: boolean } {
  if (Buffer.byteLength(body) <= SHOWN_BODY_BYTES) return { body, cut: false };
  let shown = body.slice(0, SHOWN_BODY_BYTES);
  while (Buffer.byteLength(shown) > SHOWN_BODY_BYTES) shown = shown.slice(0, -1);
  return { body: shown, cut: true };
}

function view(entry: QuarantineEntry): QuarantineView {
  // Numbers masked before the cut, so that no cut keeps part of one unmasked; with every provider's number
  // fields, since a refused body need not be the shape of the route it was sent to. A base64 body (not
  // UTF-8) is shown as stored.
  const text = entry.body ?? '';
  const body = cut(
    entry.bodyEncoding === 'utf8' ? maskPhoneFieldsInText(text, phoneFieldsOf(undefined)) : text,
  );
  return {
    id: entry.id,
    receivedAt: entry.receivedAt,
    provider: entry.provider ?? null,
    account: entry.account ?? null,
    route: entry.routeName ?? null,
    method: entry.method,
    // As sent, so a number the sender put in the path or that the refusal's message repeats is masked here.
    path: maskMsisdnsIn(entry.path),
    sourceIp: entry.sourceIp,
    httpStatus: entry.httpStatus,
    reason: entry.errorCode,
    message: maskMsisdnsIn(entry.message),
    body: body.body,
    bodyEncoding: entry.bodyEncoding,
    bodyBytes: entry.bodyBytes,
    bodyTruncated: entry.bodyTruncated || body.cut,
    reference: entry.reference ?? null,
    decision: entry.decision ? (({ claim: _claim, ...d }) => d)(entry.decision) : null,
  };
}

function* daysNewestFirst(from: string, to: string): Generator<string> {
  for (let day = Date.parse(to.slice(0, 10)); day >= Date.parse(from.slice(0, 10)); day -= 86_400_000)
    yield new Date(day).toISOString().slice(0, 10);
}

/**
 * GET /v1/quarantine: refused provider callbacks received in the range, newest
 * first, read a day's partition at a time (`QUARANTINE#<day>`), filtered by reason, provider, account and
 * source IP. One request reads at most MAX_EXAMINED entries: a filter whose matches lie deeper (a flood
 * newer than the attempt) answers what it found and a `next` to go on from the last entry it read, so
 * paging until `next` is null searches the whole range at a bounded cost per request. The first page (no
 * cursor) also counts the range by reason (those filters but reason applied) and in all, from keys and
 * codes only; the pages after it do not count again.
 */
export async function listQuarantine(
  deps: { store: ConsoleStore; clock: Clock; limits?: RelayLimits },
  query: Record<string, string | undefined>,
): Promise<QuarantinePage> {
  const maxExamined = deps.limits?.quarantineExamined ?? MAX_EXAMINED;
  const range = parseRange(query, deps.clock.now(), QUARANTINE_RANGE);
  const limit = parseLimit(query.limit);
  const reason = parseText(query.reason, 'reason', 64);
  if (reason !== undefined && !/^[A-Z0-9_]+$/.test(reason))
    throw badParameter('reason', 'must be an error code such as ORIGIN_NOT_VERIFIED');
  const provider = parseText(query.provider, 'provider', 40);
  const account = parseText(query.account, 'account', 64);
  const source = parseText(query.source, 'source', 64);
  const cursor = query.cursor ? decodeCursor(query.cursor, isCursor) : undefined;
  const filtered = Boolean(reason || provider || account || source);
  // Provider callbacks only: refused management calls go to the audit log (entries from before it stay
  // stored until they expire, and are not shown).
  const inRange = (e: QuarantineEntry) =>
    e.receivedAt >= range.from && e.receivedAt <= range.to && e.routeName !== MANAGEMENT_ROUTE_NAME;
  const others = (e: QuarantineEntry) =>
    inRange(e) &&
    (!provider || e.provider === provider) &&
    (!account || e.account === account) &&
    (!source || e.sourceIp === source);

  const entries: QuarantineView[] = [];
  let next: string | null = null;
  let examined = 0;
  let lastShown: Cursor | undefined;
  // One entry past the page is looked for, so that `next` is null exactly when nothing follows. A filter
  // reads in larger batches: most of what it reads is not shown.
  pages: for (const day of daysNewestFirst(range.from, range.to)) {
    if (cursor && day > cursor.day) continue;
    let after = cursor && day === cursor.day ? cursor.after : undefined;
    do {
      const batch = filtered ? Math.min(FILTERED_BATCH, maxExamined - examined) : limit + 1;
      const page = await deps.store.listQuarantineDay(day, { limit: batch, ...(after ? { after } : {}) });
      for (const entry of page.entries) {
        examined++;
        const position = { day, after: `${entry.receivedAt}#${entry.id}` };
        if (others(entry) && (!reason || entry.errorCode === reason)) {
          if (entries.length === limit) {
            examined--; // looked at only to know that something follows
            next = encodeCursor(lastShown);
            break pages;
          }
          entries.push(view(entry));
          lastShown = position;
        }
        if (examined >= maxExamined) {
          next = encodeCursor(position);
          break pages;
        }
      }
      after = page.next;
    } while (after);
  }

  if (cursor)
    return { entries, next, examined, byReason: null, inRange: null, byReasonComplete: false, range };
  const byReason: Record<string, number> = {};
  let counted = 0;
  let all = 0;
  let byReasonComplete = true;
  count: for (const day of daysNewestFirst(range.from, range.to)) {
    let after: string | undefined;
    do {
      const page = await deps.store.listQuarantineDay(day, {
        limit: 1000,
        facets: true,
        ...(after ? { after } : {}),
      });
      for (const entry of page.entries) {
        if (inRange(entry)) all++;
        if (others(entry)) byReason[entry.errorCode] = (byReason[entry.errorCode] ?? 0) + 1;
        if (++counted >= MAX_COUNTED) {
          byReasonComplete = false;
          break count;
        }
      }
      after = page.next;
    } while (after);
  }
  return { entries, next, examined, byReason, inRange: all, byReasonComplete, range };
}
