import type { TransactionRecord } from '../../domain/transaction';
import type { Clock, RelayStore } from '../ports';
import type { ConsoleReport, ReportCharts } from '../management-answers';
import { createdIn, summarizeReport } from '../reconciliation/reconciliation-report';
import { parseRange } from './console-query';

/** The console report's range: the last 7 days by default, at most 31 (as the reconciliation report). */
const REPORT_RANGE = { defaultDays: 7, maxDays: 31 } as const;
const FINAL = new Set(['SUCCEEDED', 'FAILED']);
/** The status-calls histogram's bins, in order: 0 to 9 calls, then 10 or more. */
export const STATUS_CALL_BINS = [...Array.from({ length: 10 }, (_, n) => String(n)), '10+'] as const;

function percentile(sorted: number[], p: number): number | null {
  if (!sorted.length) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function daysOf(range: { from: string; to: string }): string[] {
  const days: string[] = [];
  for (let d = Date.parse(range.from.slice(0, 10)); d <= Date.parse(range.to.slice(0, 10)); d += 86_400_000)
    days.push(new Date(d).toISOString().slice(0, 10));
  return days;
}

export function chartsOf(
  records: readonly TransactionRecord[],
  range: { from: string; to: string },
): ReportCharts {
  const durations = new Map<string, number[]>();
  const manual = new Map<string, number[]>();
  const finals = new Map(daysOf(range).map((day) => [day, {} as Record<string, number>]));
  const problems = new Map(daysOf(range).map((day) => [day, { expired: 0, ambiguous: 0, conflicts: 0 }]));
  // Every bin, empty ones too: a missing bar would read as "never happened" only if it is drawn at 0.
  const statusCalls: Record<string, number> = Object.fromEntries(STATUS_CALL_BINS.map((bin) => [bin, 0]));
  /** An event counts on the day it happened (UTC), if that day is in the range. */
  const on = (at: string) => problems.get(at.slice(0, 10));
  for (const tx of records) {
    const settled = tx.transitions.find((t) => FINAL.has(t.to));
    if (settled) {
      // A person's resolution says how long it took someone to look, not how long the provider took (a
      // statement file a person uploaded is manual too, but the provider's word).
      const byHand = settled.origin === 'manual' && settled.evidence?.source !== 'statement';
      const into = byHand ? manual : durations;
      const list = into.get(tx.key.provider) ?? [];
      // A payment final when the relay first heard of it (a callback before its registration) took 0 s;
      // never less, whatever clock wrote the two times.
      list.push(Math.max(0, Date.parse(settled.at) - Date.parse(tx.createdAt)));
      into.set(tx.key.provider, list);
      const byOrigin = finals.get(settled.at.slice(0, 10));
      if (byOrigin) byOrigin[settled.origin] = (byOrigin[settled.origin] ?? 0) + 1;
    }
    const checks = tx.reconcile?.checks ?? 0;
    statusCalls[checks >= 10 ? '10+' : String(checks)]!++;
    // What happened that day, not what the transaction is now: one resolved later still expired then.
    for (const t of tx.transitions) {
      const p = on(t.at);
      if (p && t.to === 'EXPIRED') p.expired++;
      if (p && t.to === 'AMBIGUOUS') p.ambiguous++;
    }
    for (const c of tx.conflicts) {
      const p = on(c.at);
      if (p) p.conflicts++;
    }
  }
  const summary = (list: number[]) => {
    list.sort((a, b) => a - b);
    return { count: list.length, p50Ms: percentile(list, 50), p90Ms: percentile(list, 90) };
  };
  return {
    timeToFinalByProvider: Object.fromEntries(
      [...durations].map(([provider, list]) => [provider, summary(list)]),
    ),
    manualResolutionsByProvider: Object.fromEntries(
      [...manual].map(([provider, list]) => [provider, summary(list)]),
    ),
    finalsByOriginPerDay: [...finals].map(([day, byOrigin]) => ({ day, byOrigin })),
    statusCallsPerTransaction: statusCalls,
    problemsPerDay: [...problems].map(([day, counts]) => ({ day, ...counts })),
  };
}

/**
 * GET /v1/report: the reconciliation report (docs/reconciliation.md#operators) of the transactions created
 * in the range, with the series the console charts; one read of the range (the `byDay` index, then each
 * item, at most MAX_REPORTED: a larger range is reported a part at a time, `next`) serves both.
 */
export async function consoleReport(
  deps: { store: RelayStore; clock: Clock },
  query: Record<string, string | undefined>,
): Promise<ConsoleReport> {
  const range = parseRange(query, deps.clock.now(), REPORT_RANGE);
  const { records, part } = await createdIn(deps.store, range, query.cursor);
  return { ...summarizeReport(records, range), ...part, charts: chartsOf(records, range) };
}
