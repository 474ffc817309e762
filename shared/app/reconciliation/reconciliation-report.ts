import { SchemaValidationError } from '../../domain/errors';
import { TRANSACTION_STATUSES } from '../../domain/status';
import type { TransactionRecord } from '../../domain/transaction';
import { maskMsisdnsIn } from '../../util/mask';
import {
  decodeCursor,
  encodeCursor,
  isCreatedEntry,
  MAX_LIMIT,
  readTransactions,
} from '../console/console-query';
import type { ReconciliationReport, ReportLine } from '../management-answers';
import type { RelayStore } from '../ports';

const MAX_RANGE_DAYS = 31;
const EARLIEST = Date.UTC(2000, 0, 1);
const LATEST = Date.UTC(9999, 11, 30);
/** Lines per list: the report must fit one answer (API Gateway 29 s, Lambda 6 MB); counts stay exact. */
const MAX_LINES = 500;
const FINAL = new Set(['SUCCEEDED', 'FAILED']);

function percentile(sorted: number[], p: number): number | null {
  if (!sorted.length) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** A line of the report; its detail quotes the provider's words (a reason, a conflict), numbers masked. */
function line(tx: TransactionRecord, detail: string): ReportLine {
  return {
    provider: tx.key.provider,
    account: tx.key.account,
    reference: tx.key.reference,
    kind: tx.kind,
    status: tx.status,
    amount: tx.amount ? `${tx.amount.value}${tx.amount.currency ? ` ${tx.amount.currency}` : ''}` : null,
    createdAt: tx.createdAt,
    detail: maskMsisdnsIn(detail),
  };
}

/** `from`/`to` as ISO instants; defaults: the last 24 hours. At most 31 days, from before to. */
export function reportRange(input: { from?: string; to?: string }, now: Date): { from: string; to: string } {
  const parse = (value: string | undefined, name: string, fallback: Date) => {
    if (value === undefined || value === '') return fallback.toISOString();
    const ms = Date.parse(value);
    if (Number.isNaN(ms) || ms < EARLIEST || ms > LATEST)
      throw new SchemaValidationError(
        `${name} is not a date/time between 2000 and 9999 (use ISO 8601, e.g. 2026-11-23T00:00:00Z)`,
      );
    return new Date(ms).toISOString();
  };
  const to = parse(input.to, 'to', now);
  const from = parse(input.from, 'from', new Date(Date.parse(to) - 86_400_000));
  if (from > to) throw new SchemaValidationError('from must be before to');
  if (Date.parse(to) - Date.parse(from) > MAX_RANGE_DAYS * 86_400_000)
    throw new SchemaValidationError(`the range is limited to ${MAX_RANGE_DAYS} days`);
  return { from, to };
}

/**
 * Transactions one report reads, at most: a range holding more is reported a part at a time, newest first
 * (`complete: false`, `reportedFrom`, and `next` for the older part), so one request's reads stay bounded.
 */
export const MAX_REPORTED = 2000;

/** Where a report stopped when its range holds more than MAX_REPORTED (docs/reconciliation.md#operators). */
export interface ReportPart {
  complete: boolean;
  /** The creation time of the oldest transaction reported when not complete. */
  reportedFrom: string | null;
  /** Pass as `cursor` (same from and to) for the report of the older ones. */
  next: string | null;
}

/**
 * The reconciliation report of the transactions created in [from, to]: counts by status and by the
 * origin that settled them, time to final, status calls, and the lists a person must act on; at most
 * MAX_REPORTED of them, from `cursor` on.
 */
export async function reconciliationReport(
  store: RelayStore,
  range: { from: string; to: string },
  cursor?: string,
): Promise<ReconciliationReport> {
  const { records, part } = await createdIn(store, range, cursor);
  return { ...summarizeReport(records, range), ...part };
}

/**
 * The transactions created in [from, to] (the `byDay` index, then each item), newest first from `cursor`
 * on, at most MAX_REPORTED, returned oldest first with where the read stopped.
 */
export async function createdIn(
  store: Pick<RelayStore, 'listCreatedPage' | 'getTransaction'>,
  range: { from: string; to: string },
  cursor?: string,
): Promise<{ records: TransactionRecord[]; part: ReportPart }> {
  let before = cursor ? decodeCursor(cursor, isCreatedEntry) : undefined;
  const records: TransactionRecord[] = [];
  let examined = 0;
  let part: ReportPart = { complete: true, reportedFrom: null, next: null };
  for (;;) {
    const page = await store.listCreatedPage(range, {
      limit: Math.min(MAX_LIMIT, MAX_REPORTED - examined),
      ...(before ? { before } : {}),
    });
    for (const tx of await readTransactions(
      store,
      page.entries.map((e) => e.key),
    ))
      if (tx) records.push(tx);
    examined += page.entries.length;
    before = page.entries.at(-1) ?? before;
    if (!page.more || !before) break;
    if (examined >= MAX_REPORTED) {
      part = { complete: false, reportedFrom: before.createdAt, next: encodeCursor(before) };
      break;
    }
  }
  return { records: records.sort((a, b) => a.createdAt.localeCompare(b.createdAt)), part };
}

/** The report of `records` (created in `range`, oldest first). */
export function summarizeReport(
  records: readonly TransactionRecord[],
  range: { from: string; to: string },
): Omit<ReconciliationReport, keyof ReportPart> {
  const byStatus = Object.fromEntries(TRANSACTION_STATUSES.map((s) => [s, 0])) as Record<string, number>;
  const finalizedBy: Record<string, number> = {};
  const durations: number[] = [];
  let checks = 0;
  const act: ReconciliationReport['act'] = {
    expired: [],
    ambiguous: [],
    conflicts: [],
    disagreements: [],
    lateResolutions: [],
  };
  for (const tx of records) {
    byStatus[tx.status] = (byStatus[tx.status] ?? 0) + 1;
    checks += tx.reconcile?.checks ?? 0;
    const settled = tx.transitions.find((t) => FINAL.has(t.to));
    if (settled) {
      finalizedBy[settled.origin] = (finalizedBy[settled.origin] ?? 0) + 1;
      durations.push(Math.max(0, Date.parse(settled.at) - Date.parse(tx.createdAt))); // never less than 0 s (chartsOf)
    }
    const last = tx.reconcile?.recent.at(-1);
    if (tx.status === 'EXPIRED')
      act.expired.push(
        line(
          tx,
          `no final answer; last provider answer: ${last ? `${last.answer} (${last.detail})` : 'none'}`,
        ),
      );
    if (tx.status === 'AMBIGUOUS')
      act.ambiguous.push(
        line(
          tx,
          `${tx.reason?.code ?? 'AMBIGUOUS'}: ${tx.reason?.message ?? ''}${tx.reconcile?.escalatedAt ? ' (escalated)' : ''}`,
        ),
      );
    for (const conflict of tx.conflicts) {
      const target = conflict.kind === 'UNVERIFIED_SUCCESS' ? act.disagreements : act.conflicts;
      target.push(line(tx, `${conflict.kind} (${conflict.origin}): ${conflict.detail}`));
    }
    const late = tx.transitions.find((t) => t.from === 'EXPIRED');
    if (late) act.lateResolutions.push(line(tx, `${late.to} by ${late.origin} at ${late.at}, after EXPIRED`));
  }
  durations.sort((a, b) => a - b);
  const truncated: Record<string, number> = {};
  for (const [name, lines] of Object.entries(act)) {
    if (lines.length > MAX_LINES) {
      truncated[name] = lines.length;
      lines.length = MAX_LINES;
    }
  }
  return {
    ...range,
    transactions: records.length,
    byStatus,
    finalizedBy,
    timeToFinalMs: {
      p50: percentile(durations, 50),
      p95: percentile(durations, 95),
      max: durations.at(-1) ?? null,
    },
    statusChecks: {
      total: checks,
      perTransaction: records.length ? Math.round((checks / records.length) * 100) / 100 : 0,
    },
    act,
    ...(Object.keys(truncated).length ? { truncated } : {}),
  };
}
