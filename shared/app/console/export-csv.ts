import { toCsv } from '../../util/csv';
import { MAX_CSV_ROWS } from '../operations/audit';
import type { QuarantineView, TransactionSummary } from '../management-answers';
import type { Clock, ConsoleStore, RelayStore } from '../ports';
import { consoleReport } from './console-report';
import { type ConsoleDeps, listTransactions } from './list-transactions';
import { listQuarantine } from './list-quarantine';

/**
 * CSV exports of the console's lists (issue 30 item 8): `?format=csv` on GET /v1/transactions,
 * /v1/quarantine and /v1/report, with the same filters as the view. The list is read a page at a time, as
 * the view reads it, up to MAX_CSV_ROWS rows and MAX_EXPORT_PAGES requests' worth of reads; past that the
 * answer says it is partial (`complete: false`, the `x-export-complete` header) and the filters narrow
 * it. Phone numbers are masked as in every answer; every cell is guarded against spreadsheet formulas.
 */
const MAX_EXPORT_PAGES = 20;

export interface CsvExport {
  filename: string;
  csv: string;
  rows: number;
  complete: boolean;
}

const TRANSACTION_COLUMNS = [
  'createdAt',
  'updatedAt',
  'provider',
  'account',
  'kind',
  'reference',
  'status',
  'reversal',
  'amount',
  'currency',
  'msisdnMasked',
  'externalId',
  'providerTransactionId',
  'origin',
  'reasonCode',
] as const;

async function pages<T>(
  read: (cursor: string | undefined) => Promise<{ items: T[]; next: string | null }>,
): Promise<{ items: T[]; complete: boolean }> {
  const items: T[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_EXPORT_PAGES; page++) {
    const answer = await read(cursor);
    items.push(...answer.items);
    if (items.length >= MAX_CSV_ROWS) return { items: items.slice(0, MAX_CSV_ROWS), complete: false };
    if (!answer.next) return { items, complete: true };
    cursor = answer.next;
  }
  return { items, complete: false };
}

export async function exportTransactions(
  deps: ConsoleDeps,
  query: Record<string, string | undefined>,
): Promise<CsvExport> {
  const { cursor: _cursor, format: _format, ...filters } = query;
  const { items, complete } = await pages<TransactionSummary>(async (cursor) => {
    const page = await listTransactions(deps, { ...filters, limit: '200', ...(cursor ? { cursor } : {}) });
    return { items: page.transactions, next: page.next };
  });
  return {
    filename: 'relay-transactions.csv',
    rows: items.length,
    complete,
    csv: toCsv(
      TRANSACTION_COLUMNS,
      items.map((t) => [
        t.createdAt,
        t.updatedAt,
        t.provider,
        t.account,
        t.kind,
        t.reference,
        t.status,
        t.reversal?.state ?? null,
        t.amount,
        t.currency,
        t.msisdnMasked,
        t.externalId,
        t.providerTransactionId,
        t.origin,
        t.reason?.code ?? null,
      ]),
    ),
  };
}

export async function exportQuarantine(
  deps: { store: ConsoleStore; clock: Clock },
  query: Record<string, string | undefined>,
): Promise<CsvExport> {
  const { cursor: _cursor, format: _format, ...filters } = query;
  const { items, complete } = await pages<QuarantineView>(async (cursor) => {
    const page = await listQuarantine(deps, { ...filters, limit: '200', ...(cursor ? { cursor } : {}) });
    return { items: page.entries, next: page.next };
  });
  return {
    filename: 'relay-quarantine.csv',
    rows: items.length,
    complete,
    // The bodies stay out: a spreadsheet is no place for a refused request's payload (the view shows it).
    csv: toCsv(
      [
        'receivedAt',
        'provider',
        'account',
        'route',
        'method',
        'path',
        'sourceIp',
        'httpStatus',
        'reason',
        'message',
      ],
      items.map((e) => [
        e.receivedAt,
        e.provider,
        e.account,
        e.route,
        e.method,
        e.path,
        e.sourceIp,
        e.httpStatus,
        e.reason,
        e.message,
      ]),
    ),
  };
}

/**
 * The report's range as CSV: one row per line to act on (expired, ambiguous, conflicts…), what a person
 * takes to the provider's support, with the day's totals by status first (section `total`).
 */
export async function exportReport(
  deps: { store: RelayStore; clock: Clock },
  query: Record<string, string | undefined>,
): Promise<CsvExport> {
  const { format: _format, ...rest } = query;
  const report = await consoleReport(deps, rest);
  const rows: Array<Array<string | number | null>> = [
    [
      'total',
      null,
      null,
      null,
      null,
      'ALL',
      String(report.transactions),
      null,
      `${report.from}..${report.to}`,
    ],
    ...Object.entries(report.byStatus).map(([status, n]) => [
      'total',
      null,
      null,
      null,
      null,
      status,
      String(n),
      null,
      null,
    ]),
  ];
  for (const [section, lines] of Object.entries(report.act))
    for (const l of lines ?? [])
      rows.push([
        section,
        l.provider,
        l.account,
        l.reference,
        l.kind,
        l.status,
        l.amount,
        l.createdAt,
        l.detail,
      ]);
  return {
    filename: `relay-report-${report.from.slice(0, 10)}.csv`,
    rows: rows.length,
    complete: report.complete !== false,
    csv: toCsv(
      ['section', 'provider', 'account', 'reference', 'kind', 'status', 'amount', 'createdAt', 'detail'],
      rows,
    ),
  };
}
