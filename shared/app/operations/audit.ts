import type { Actor } from '../../domain/actor';
import { actorRef } from '../../domain/actor';
import { newId } from '../../util/ids';
import { maskMsisdnsIn } from '../../util/mask';
import type { AuditEntry, Clock, OperationsStore, RelayLogger } from '../ports';
import type { AuditPage, AuditView } from '../management-answers';
import type { Scrubber } from '../../util/redact';
import {
  badParameter,
  decodeCursor,
  encodeCursor,
  parseLimit,
  parseRange,
  parseText,
} from '../console/console-query';

/** The audit view's range: the last 7 days by default, at most 92. */
const AUDIT_RANGE = { defaultDays: 7, maxDays: 92 } as const;
/** Entries one request reads at most (filtered pages answer fewer and a `next`), and a CSV export's rows. */
const MAX_EXAMINED = 2000;
export const MAX_CSV_ROWS = 5000;
const MAX_DETAIL = 500;
const OUTCOMES = ['ok', 'pending', 'refused', 'failed'] as const;

export interface AuditInput {
  actor: Actor | null;
  action: string;
  target: string | null;
  outcome: AuditEntry['outcome'];
  httpStatus: number;
  detail: string | null;
  request: { method: string; path: string; sourceIp: string; receivedAt: Date };
}

/**
 * Appends one entry to the audit log. The detail and path are scrubbed (configured secrets) and phone
 * numbers masked before they are stored; nothing is ever written twice or changed afterwards.
 */
async function recordAudit(
  deps: { store: OperationsStore; clock: Clock; scrub: Scrubber },
  input: AuditInput,
): Promise<AuditEntry> {
  const clean = (text: string, max: number) => maskMsisdnsIn(deps.scrub(text)).slice(0, max);
  const entry: AuditEntry = {
    id: newId(),
    at: deps.clock.now().toISOString(),
    actor: input.actor ? actorRef(input.actor) : null,
    action: input.action,
    target: input.target === null ? null : clean(input.target, 300),
    outcome: input.outcome,
    httpStatus: input.httpStatus,
    detail: input.detail === null ? null : clean(input.detail, MAX_DETAIL),
    method: input.request.method.slice(0, 16),
    path: clean(input.request.path, 300),
    sourceIp: input.request.sourceIp.slice(0, 64),
  };
  await deps.store.appendAudit(entry);
  return entry;
}

/** Records, and logs instead of failing, when the action itself is done and only its audit line failed. */
export async function recordAuditAfter(
  deps: { store: OperationsStore; clock: Clock; scrub: Scrubber; log: RelayLogger },
  input: AuditInput,
): Promise<void> {
  try {
    await recordAudit(deps, input);
  } catch (error) {
    deps.log.error('audit entry not written', { action: input.action, error: error as Error });
  }
}

interface Cursor {
  day: string;
  after: string;
}
const isCursor = (v: unknown): v is Cursor =>
  typeof (v as Cursor | null)?.day === 'string' &&
  /^\d{4}-\d{2}-\d{2}$/.test((v as Cursor).day) &&
  typeof (v as Cursor).after === 'string';

function* daysNewestFirst(from: string, to: string): Generator<string> {
  for (let day = Date.parse(to.slice(0, 10)); day >= Date.parse(from.slice(0, 10)); day -= 86_400_000)
    yield new Date(day).toISOString().slice(0, 10);
}

function view(entry: AuditEntry): AuditView {
  return {
    id: entry.id,
    at: entry.at,
    actor: entry.actor ?? null,
    action: entry.action,
    target: entry.target ?? null,
    outcome: entry.outcome,
    httpStatus: entry.httpStatus,
    detail: entry.detail ?? null,
    method: entry.method,
    path: entry.path,
    sourceIp: entry.sourceIp,
  };
}

/**
 * GET /v1/audit: audit entries in the range, newest first, filtered by actor (a part of the name or id),
 * action (exact or a prefix ending in "."), outcome and target (a prefix). One request reads at most
 * MAX_EXAMINED entries (`max` rows for the CSV export): a filter whose matches lie deeper answers what it
 * found and a `next` to go on.
 */
export async function listAudit(
  deps: { store: OperationsStore; clock: Clock },
  query: Record<string, string | undefined>,
  max?: number,
): Promise<AuditPage> {
  const range = parseRange(query, deps.clock.now(), AUDIT_RANGE);
  const limit = max ?? parseLimit(query.limit);
  const actor = parseText(query.actor, 'actor', 200)?.toLowerCase();
  const action = parseText(query.action, 'action', 64);
  if (action !== undefined && !/^[a-z.-]+$/.test(action))
    throw badParameter('action', 'must be an action such as transaction.resolve (or a prefix: approval.)');
  const outcome = parseText(query.outcome, 'outcome', 16);
  if (outcome !== undefined && !(OUTCOMES as readonly string[]).includes(outcome))
    throw badParameter('outcome', `must be one of ${OUTCOMES.join(', ')}`);
  const target = parseText(query.target, 'target', 300);
  const cursor = query.cursor ? decodeCursor(query.cursor, isCursor) : undefined;
  const matches = (e: AuditEntry) =>
    e.at >= range.from &&
    e.at <= range.to &&
    (!actor ||
      (e.actor !== null &&
        (e.actor.name.toLowerCase().includes(actor) || e.actor.id.toLowerCase().includes(actor)))) &&
    (!action || (action.endsWith('.') ? e.action.startsWith(action) : e.action === action)) &&
    (!outcome || e.outcome === outcome) &&
    (!target || (e.target ?? '').startsWith(target));
  const examinedMax = Math.max(MAX_EXAMINED, limit + 1);
  const entries: AuditView[] = [];
  let next: string | null = null;
  let examined = 0;
  let lastShown: Cursor | undefined;
  pages: for (const day of daysNewestFirst(range.from, range.to)) {
    if (cursor && day > cursor.day) continue;
    let after = cursor && day === cursor.day ? cursor.after : undefined;
    do {
      const page = await deps.store.listAuditDay(day, {
        limit: Math.min(500, examinedMax - examined),
        ...(after ? { after } : {}),
      });
      for (const entry of page.entries) {
        examined++;
        const position = { day, after: `${entry.at}#${entry.id}` };
        if (matches(entry)) {
          if (entries.length === limit) {
            next = encodeCursor(lastShown);
            break pages;
          }
          entries.push(view(entry));
          lastShown = position;
        }
        if (examined >= examinedMax) {
          next = encodeCursor(position);
          break pages;
        }
      }
      after = page.next;
    } while (after);
  }
  return { entries, next, examined, range };
}

/** The audit log's CSV columns (GET /v1/audit?format=csv, shared/app/console/export-csv.ts). */
export const AUDIT_CSV_COLUMNS = [
  'at',
  'actor',
  'actorId',
  'role',
  'via',
  'action',
  'target',
  'outcome',
  'httpStatus',
  'detail',
  'method',
  'path',
  'sourceIp',
] as const;

/** The entries as CSV rows, in AUDIT_CSV_COLUMNS' order (toCsv quotes them and defuses formulas). */
export function auditCsvRows(entries: readonly AuditView[]): Array<Array<string | number | null>> {
  return entries.map((e) => [
    e.at,
    e.actor?.name ?? null,
    e.actor?.id ?? null,
    e.actor?.role ?? null,
    e.actor?.via ?? null,
    e.action,
    e.target,
    e.outcome,
    e.httpStatus,
    e.detail,
    e.method,
    e.path,
    e.sourceIp,
  ]);
}
