import { api, NotAvailableError, type TransactionPage, type TransactionSummary } from '../api';
import type { ReconciliationReport, ReportCharts, ReportLine } from '../../shared/app/management-answers';
import { barChart } from '../charts';
import { errorBox, h, isoDay, notAvailable, replace, statusPill, when } from '../dom';
import { storyHash } from './transactions';
import { exportButton } from '../export';

/**
 * The report as `GET /v1/report` answers it (with its chart series) or, from a relay without that route,
 * `GET /v1/reconciliation/report` (without them): the series are then derived from the transaction list.
 */
type Report = ReconciliationReport & { charts?: ReportCharts };

const FINAL = new Set(['SUCCEEDED', 'FAILED', 'REVERSED', 'EXPIRED']);
/** Each problem drawn in the colour of its status badge (a conflict has its own). */
const PROBLEM_STATUS = { expired: 'EXPIRED', ambiguous: 'AMBIGUOUS', conflicts: 'CONFLICT' } as const;
const MAX_LISTED = 2000;

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function days(from: string, to: string): string[] {
  const out: string[] = [];
  for (
    let t = Date.parse(from.slice(0, 10));
    t <= Date.parse(to.slice(0, 10)) && out.length < 93;
    t += 86_400_000
  )
    out.push(isoDay(new Date(t)));
  return out;
}

async function listAll(range: { from: string; to: string }): Promise<TransactionSummary[] | null> {
  const all: TransactionSummary[] = [];
  let cursor: string | undefined;
  try {
    do {
      const page = await api<TransactionPage>('/v1/transactions', {
        query: { ...range, limit: 200, cursor },
      });
      all.push(...page.transactions);
      cursor = page.next ?? undefined;
    } while (cursor && all.length < MAX_LISTED);
  } catch (error) {
    if (error instanceof NotAvailableError) return null;
    throw error;
  }
  return all;
}

function actList(name: string, lines: ReportLine[] | undefined): HTMLElement {
  return h(
    'section',
    { class: 'act', 'data-testid': `act-${name}` },
    h('h3', {}, `${name} (${lines?.length ?? 0})`),
    lines?.length
      ? h(
          'ul',
          {},
          lines.map((l) =>
            h(
              'li',
              {},
              h('a', { href: storyHash(l), class: 'mono' }, l.reference),
              ` ${l.provider}/${l.account} `,
              statusPill(l.status),
              ` ${l.amount ?? ''} ${when(l.createdAt)} — ${l.detail}`,
            ),
          ),
        )
      : h('p', { class: 'muted' }, 'Nothing to act on.'),
  );
}

export function reportView(root: HTMLElement, params: URLSearchParams): () => void {
  const to = params.get('to') ?? isoDay(new Date());
  const from = params.get('from') ?? isoDay(new Date(Date.now() - 6 * 86_400_000));
  const form = h(
    'form',
    { class: 'filters' },
    h('label', {}, 'from ', h('input', { type: 'date', name: 'from', value: from })),
    h('label', {}, 'to ', h('input', { type: 'date', name: 'to', value: to })),
    h('button', { type: 'submit' }, 'Show'),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const data = Object.fromEntries(new FormData(form)) as Record<string, string>;
    location.hash = `#/report?${new URLSearchParams(data).toString()}`;
  });
  const body = h('div', {}, h('p', {}, 'Loading…'));
  replace(root, h('h1', {}, 'Reconciliation'), form, body);
  const range = { from: `${from}T00:00:00.000Z`, to: `${to}T23:59:59.999Z` };
  form.append(
    ' ',
    exportButton('report-csv', '/v1/report', () => range),
  );
  void (async () => {
    try {
      // The console's report carries its chart series; a relay without it has the plain report, and the
      // series are then derived from the transaction list.
      let report: Report;
      let listed: TransactionSummary[] | null = null;
      try {
        report = await api<Report>('/v1/report', { query: range });
      } catch (error) {
        if (!(error instanceof NotAvailableError)) throw error;
        [report, listed] = await Promise.all([
          api<Report>('/v1/reconciliation/report', { query: range }),
          listAll(range),
        ]);
      }
      replace(body, ...render(report, listed, range));
    } catch (error) {
      replace(body, error instanceof NotAvailableError ? notAvailable('The report') : errorBox(error));
    }
  })();
  return () => undefined;
}

function render(
  report: Report,
  listed: TransactionSummary[] | null,
  range: { from: string; to: string },
): Node[] {
  const dayLabels = days(range.from, range.to);
  const short = (d: string) => d.slice(5);
  const txs = listed ?? [];

  // Time to final by provider: the report's own numbers when it has them, else from the listed transactions.
  let providers: string[];
  let p50: number[];
  let p90: number[];
  const charts = report.charts;
  if (charts) {
    providers = Object.keys(charts.timeToFinalByProvider).sort();
    p50 = providers.map((p) => (charts.timeToFinalByProvider[p]!.p50Ms ?? 0) / 1000);
    p90 = providers.map((p) => (charts.timeToFinalByProvider[p]!.p90Ms ?? 0) / 1000);
  } else {
    const byProvider = new Map<string, number[]>();
    for (const t of txs)
      // Provider evidence only: a resolution by hand measures when someone looked.
      if (FINAL.has(t.status) && t.status !== 'EXPIRED' && t.origin !== 'manual') {
        const list = byProvider.get(t.provider) ?? [];
        list.push(Math.max(0, Date.parse(t.updatedAt) - Date.parse(t.createdAt)) / 1000);
        byProvider.set(t.provider, list);
      }
    providers = [...byProvider.keys()].sort();
    const sorted = providers.map((p) => byProvider.get(p)!.sort((a, b) => a - b));
    p50 = sorted.map((s) => percentile(s, 50));
    p90 = sorted.map((s) => percentile(s, 90));
  }

  // Finals by origin per day.
  const perDayOrigin = new Map<string, Map<string, number>>();
  if (charts) {
    for (const { day, byOrigin } of charts.finalsByOriginPerDay)
      perDayOrigin.set(day, new Map(Object.entries(byOrigin)));
  } else
    for (const t of txs)
      if (FINAL.has(t.status)) {
        const day = t.updatedAt.slice(0, 10);
        const origins = perDayOrigin.get(day) ?? new Map<string, number>();
        const origin = t.origin ?? (t.status === 'EXPIRED' ? 'expiry' : 'unknown');
        origins.set(origin, (origins.get(origin) ?? 0) + 1);
        perDayOrigin.set(day, origins);
      }
  const origins = [...new Set([...perDayOrigin.values()].flatMap((m) => [...m.keys()]))].sort();

  // Status calls per transaction: a histogram when served, else the report's totals.
  const histogram = charts?.statusCallsPerTransaction;
  const callsChart = histogram
    ? barChart({
        title: 'Status calls per transaction',
        testId: 'chart-status-calls',
        // Every bin, in order, the empty ones at 0 (the server sends them all).
        labels: Object.keys(histogram),
        series: [{ name: 'transactions', values: Object.values(histogram) }],
        xTitle: 'status calls made for a transaction',
        yTitle: 'transactions',
        integer: true,
      })
    : barChart({
        title: 'Status calls',
        testId: 'chart-status-calls',
        labels: ['total', 'per transaction'],
        series: [{ name: 'calls', values: [report.statusChecks.total, report.statusChecks.perTransaction] }],
        xTitle: 'status calls in the range',
        yTitle: 'calls',
      });
  // Resolutions by hand: apart from the provider's time to final, which they would stretch.
  const manual = Object.entries(charts?.manualResolutionsByProvider ?? {}).sort(([a], [b]) =>
    a.localeCompare(b),
  );
  const manualNote = manual.length
    ? h(
        'span',
        { 'data-testid': 'manual-apart' },
        'Resolved by hand, not in the bars: ',
        manual.map(([p, m]) => `${p} ${m.count} (median ${((m.p50Ms ?? 0) / 1000).toFixed(1)} s)`).join(', '),
      )
    : 'Resolved by hand: none in this range.';

  // Expired, ambiguous and conflicts over time.
  const problems = new Map<string, { expired: number; ambiguous: number; conflicts: number }>();
  const bump = (day: string, key: 'expired' | 'ambiguous' | 'conflicts', n = 1) => {
    const p = problems.get(day) ?? { expired: 0, ambiguous: 0, conflicts: 0 };
    p[key] += n;
    problems.set(day, p);
  };
  if (charts) {
    for (const p of charts.problemsPerDay) {
      bump(p.day, 'expired', p.expired);
      bump(p.day, 'ambiguous', p.ambiguous);
      bump(p.day, 'conflicts', p.conflicts);
    }
  } else {
    for (const l of report.act.expired ?? []) bump(l.createdAt.slice(0, 10), 'expired');
    for (const l of report.act.ambiguous ?? []) bump(l.createdAt.slice(0, 10), 'ambiguous');
    for (const l of report.act.conflicts ?? []) bump(l.createdAt.slice(0, 10), 'conflicts');
  }

  const summary = h(
    'div',
    { class: 'counts', 'data-testid': 'report-summary' },
    h('span', { class: 'count total' }, `${report.transactions} transactions`),
    Object.entries(report.byStatus).map(([s, n]) => h('span', { class: 'count' }, statusPill(s), ` ${n}`)),
    h(
      'span',
      { class: 'count' },
      `time to final p50 ${((report.timeToFinalMs.p50 ?? 0) / 1000).toFixed(1)} s, p95 ${((report.timeToFinalMs.p95 ?? 0) / 1000).toFixed(1)} s`,
    ),
    h('span', { class: 'count' }, `${report.statusChecks.total} status calls`),
    // A range larger than one report reads: these are the newest, say so (narrow the range for the rest).
    report.complete === false && report.reportedFrom
      ? h(
          'span',
          { class: 'count partial', 'data-testid': 'report-partial' },
          `newest only: created from ${when(report.reportedFrom)}; narrow the range for older ones`,
        )
      : null,
  );
  return [
    summary,
    h(
      'div',
      { class: 'charts' },
      barChart({
        title: 'Time to final by provider (provider evidence)',
        testId: 'chart-time-to-final',
        unit: 's',
        zeroIsValue: true,
        labels: providers,
        series: [
          { name: 'p50', values: p50 },
          { name: 'p90', values: p90 },
        ],
        xTitle: 'provider',
        yTitle: 'seconds from creation to final',
        note: manualNote,
      }),
      barChart({
        title: 'Finals by origin per day',
        testId: 'chart-finals-by-origin',
        stacked: true,
        xTitle: 'day (UTC) the status became final',
        yTitle: 'transactions',
        integer: true,
        labels: dayLabels.map(short),
        series: origins.map((o) => ({
          name: o,
          values: dayLabels.map((d) => perDayOrigin.get(d)?.get(o) ?? 0),
        })),
      }),
      callsChart,
      barChart({
        title: 'Expired, ambiguous and conflicts per day',
        testId: 'chart-problems',
        labels: dayLabels.map(short),
        series: (['expired', 'ambiguous', 'conflicts'] as const).map((k) => ({
          name: k,
          status: PROBLEM_STATUS[k],
          values: dayLabels.map((d) => problems.get(d)?.[k] ?? 0),
        })),
        xTitle: 'day (UTC) it happened',
        yTitle: 'transitions and conflicts',
        integer: true,
      }),
    ),
    !charts && listed === null ? notAvailable('Per-provider and per-day numbers (the transaction list)') : '',
    h('h2', {}, 'To act on'),
    h(
      'div',
      { class: 'acts' },
      Object.entries(report.act).map(([name, lines]) => actList(name, lines)),
    ),
  ].filter((n): n is HTMLElement => typeof n !== 'string');
}
