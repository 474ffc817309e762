import { SchemaValidationError } from '../../domain/errors';
import type { TransactionKey } from '../../domain/transaction';
import { toCsv } from '../../util/csv';
import { maskMsisdnsIn } from '../../util/mask';
import { auditCsvRows, AUDIT_CSV_COLUMNS, listAudit, MAX_CSV_ROWS } from '../operations/audit';
import { listApprovals } from '../operations/approvals';
import { destinationDeliveries, type DeliveryAdmin, listDestinations } from '../delivery/destinations-admin';
import type { ApprovalView, QuarantineView, TransactionSummary } from '../management-answers';
import type { Clock, ConsoleStore, OperationsStore, ProviderRecordStore, RelayStore } from '../ports';
import type { RelayConfig } from '../../config/schema';
import { callbackHealthView } from './account-health';
import { badgeShops } from './badge-shops';
import { consoleReport } from './console-report';
import { type ConsoleDeps, listTransactions } from './list-transactions';
import { listQuarantine } from './list-quarantine';
import { searchTransactions } from './search-transactions';
import { storyTimeZone } from './time-zones';
import { getTransaction, MAX_RECEIPTS_PER_PAGE } from '../transactions/get-transaction';

/**
 * CSV exports of the console's lists (issue 30 item 8): `?format=csv` on every list the console shows
 * (docs/management-api.md#csv-exports), with the same filters as the view. A list is read a page at a
 * time, as the view reads it, up to MAX_CSV_ROWS rows and MAX_EXPORT_PAGES requests' worth of reads (an
 * export costs a bounded number of reads per request, like any read: it cannot starve the ack path); past
 * that the answer says it is partial (`complete: false`, the `x-export-complete` header) and the filters
 * narrow it. Phone numbers are masked as in every answer (and again in free text: a note or a provider's
 * message); every cell is guarded against spreadsheet formulas (shared/util/csv.ts toCsv).
 */
const MAX_EXPORT_PAGES = 20;

export interface CsvExport {
  filename: string;
  csv: string;
  rows: number;
  complete: boolean;
}

/** Free text someone typed or a provider sent: a phone number in it is masked, as in every answer. */
const text = (value: string | null | undefined) => (value ? maskMsisdnsIn(value) : value);

const who = (a: ApprovalView['decidedBy']) => (a ? a.name : null);

/** The query as the list reads it: the export's own parameters left out. */
function filtersOf(query: Record<string, string | undefined>): Record<string, string | undefined> {
  const { cursor: _cursor, format: _format, ...filters } = query;
  return filters;
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

const transactionRow = (t: TransactionSummary) => [
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
];

export async function exportTransactions(
  deps: ConsoleDeps,
  query: Record<string, string | undefined>,
): Promise<CsvExport> {
  const filters = filtersOf(query);
  const { items, complete } = await pages<TransactionSummary>(async (cursor) => {
    const page = await listTransactions(deps, { ...filters, limit: '200', ...(cursor ? { cursor } : {}) });
    return { items: page.transactions, next: page.next };
  });
  return {
    filename: 'relay-transactions.csv',
    rows: items.length,
    complete,
    csv: toCsv(TRANSACTION_COLUMNS, items.map(transactionRow)),
  };
}

/** The search's matches (GET /v1/transactions/search?q=…&format=csv): one bounded search, as the view's. */
export async function exportSearch(
  deps: ConsoleDeps,
  query: Record<string, string | undefined>,
): Promise<CsvExport> {
  const answer = await searchTransactions(deps, filtersOf(query));
  return {
    filename: 'relay-search.csv',
    rows: answer.transactions.length,
    // A receipt search over a range says whether it went through all of it.
    complete: answer.receiptSearch?.complete !== false,
    csv: toCsv(TRANSACTION_COLUMNS, answer.transactions.map(transactionRow)),
  };
}

export async function exportQuarantine(
  deps: { store: ConsoleStore; clock: Clock },
  query: Record<string, string | undefined>,
): Promise<CsvExport> {
  const filters = filtersOf(query);
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
        text(e.message),
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

/** The audit log (GET /v1/audit?format=csv): the same filters, at most MAX_CSV_ROWS entries. */
export async function exportAudit(
  deps: { store: OperationsStore; clock: Clock },
  query: Record<string, string | undefined>,
): Promise<CsvExport> {
  const page = await listAudit(deps, filtersOf(query), MAX_CSV_ROWS);
  return {
    filename: 'relay-audit.csv',
    rows: page.entries.length,
    complete: !page.next,
    csv: toCsv(AUDIT_CSV_COLUMNS, auditCsvRows(page.entries)),
  };
}

/** The four-eyes requests (GET /v1/approvals?format=csv&state=…): both people named on each. */
export async function exportApprovals(
  deps: { store: RelayStore; clock: Clock },
  query: Record<string, string | undefined>,
): Promise<CsvExport> {
  const answer = await listApprovals(deps, filtersOf(query));
  return {
    filename: 'relay-approvals.csv',
    rows: answer.approvals.length,
    complete: answer.complete,
    csv: toCsv(
      [
        'createdAt',
        'expiresAt',
        'state',
        'provider',
        'account',
        'reference',
        'status',
        'amount',
        'currency',
        'limit',
        'note',
        'requestedBy',
        'requestedByRole',
        'decidedBy',
        'decidedByRole',
        'decidedAt',
        'decisionNote',
        'id',
      ],
      answer.approvals.map((a) => [
        a.createdAt,
        a.expiresAt,
        a.state,
        a.provider,
        a.account,
        a.reference,
        a.status,
        a.amount,
        a.currency,
        a.limit,
        text(a.note),
        who(a.requestedBy),
        a.requestedBy.role,
        who(a.decidedBy),
        a.decidedBy?.role ?? null,
        a.decidedAt,
        text(a.decisionNote),
        a.id,
      ]),
    ),
  };
}

/**
 * Callback health per account (GET /v1/callback-health?format=csv&provider=&account=): the last callback,
 * the silence watch, and the 24 hours' transactions, one column per hour (UTC, oldest first).
 */
export async function exportCallbackHealth(
  deps: { config: RelayConfig; store: ProviderRecordStore & ConsoleStore; clock: Clock },
  query: Record<string, string | undefined>,
): Promise<CsvExport> {
  const health = await callbackHealthView(deps, filtersOf(query));
  const hours = health.accounts[0]?.transactionsPerHour.map((h) => h.hour) ?? [];
  return {
    filename: 'relay-callback-health.csv',
    rows: health.accounts.length,
    complete: health.countedComplete,
    csv: toCsv(
      [
        'provider',
        'account',
        'lastCallbackAt',
        'silenceSeconds',
        'silent',
        'silentSince',
        'transactions24h',
        ...hours,
      ],
      health.accounts.map((a) => [
        a.provider,
        a.account,
        a.lastCallbackAt,
        a.silenceSeconds,
        String(a.silent),
        a.silentSince,
        a.transactionsPerHour.reduce((sum, h) => sum + h.count, 0),
        ...a.transactionsPerHour.map((h) => h.count),
      ]),
    ),
  };
}

/** The badge feed (GET /v1/badges?format=csv): one row per badge of each shop's last good read. */
export async function exportBadges(
  deps: { config: Pick<RelayConfig, 'badges'>; store: ProviderRecordStore },
  query: Record<string, string | undefined>,
): Promise<CsvExport> {
  const shop = filtersOf(query).shop || undefined;
  const shops = (await badgeShops(deps)).shops.filter((s) => !shop || s.shop === shop);
  const rows = shops.flatMap((s) =>
    s.badges.map((b) => [
      s.shop,
      b.id,
      b.rev,
      String(b.deleted),
      b.activated,
      b.expired,
      b.badge ? text(JSON.stringify(b.badge)) : null,
    ]),
  );
  return {
    filename: 'relay-badges.csv',
    rows: rows.length,
    complete: true,
    csv: toCsv(['shop', 'id', 'rev', 'deleted', 'activated', 'expired', 'badge'], rows),
  };
}

/** The webhook destinations (GET /v1/destinations?format=csv): state, failures, rotation; never a secret. */
export async function exportDestinations(admin: DeliveryAdmin, clock: Clock): Promise<CsvExport> {
  const { destinations } = await listDestinations(admin, clock);
  return {
    filename: 'relay-destinations.csv',
    rows: destinations.length,
    complete: true,
    csv: toCsv(
      [
        'id',
        'type',
        'url',
        'eventTypes',
        'providers',
        'accounts',
        'state',
        'pausedBy',
        'pausedAt',
        'disabledReason',
        'disabledAt',
        'failureStreak',
        'lastAttemptAt',
        'lastAttemptStatus',
        'lastAttemptOutcome',
        'rotatedBy',
        'rotatedAt',
        'bothSigningUntil',
      ],
      destinations.map((d) => [
        d.id,
        d.type,
        d.url,
        d.filter.eventTypes.join(' '),
        d.filter.providers.join(' '),
        d.filter.accounts.join(' '),
        d.state,
        d.pausedBy,
        d.pausedAt,
        d.disabledReason,
        d.disabledAt,
        d.failureStreak,
        d.lastAttempt?.at ?? null,
        d.lastAttempt?.status ?? null,
        d.lastAttempt?.outcome ?? null,
        d.rotation?.rotatedBy ?? null,
        d.rotation?.rotatedAt ?? null,
        d.rotation?.bothSigning ? d.rotation.windowEndsAt : null,
      ]),
    ),
  };
}

/** A destination's delivery log (GET /v1/destinations/{id}/deliveries?format=csv&from=&to=&outcome=). */
export async function exportDeliveries(
  admin: DeliveryAdmin,
  clock: Clock,
  id: string,
  query: Record<string, string | undefined>,
): Promise<CsvExport> {
  const { limit: _limit, ...filters } = filtersOf(query);
  const { items, complete } = await pages(async (cursor) => {
    const page = await destinationDeliveries(admin, clock, id, {
      ...filters,
      limit: '200',
      ...(cursor ? { cursor } : {}),
    });
    return { items: page.attempts, next: page.next ?? null };
  });
  return {
    filename: `relay-deliveries-${id}.csv`,
    rows: items.length,
    complete,
    csv: toCsv(
      [
        'at',
        'webhookId',
        'transaction',
        'attempt',
        'status',
        'latencyMs',
        'outcome',
        'nextAttemptAt',
        'replayedBy',
        'answer',
      ],
      items.map((a) => [
        a.at,
        a.eventId,
        a.correlationId,
        a.attempt + 1,
        a.status,
        a.latencyMs,
        a.outcome,
        a.nextAttemptAt ?? null,
        a.replayedBy ?? null,
        text(a.excerpt),
      ]),
    ),
  };
}

/** The lists of a transaction's story (GET /v1/transactions/{p}/{a}/{ref}?format=csv&list=…). */
const STORY_LISTS = ['timeline', 'evidence', 'deliveries', 'refused'] as const;
type StoryList = (typeof STORY_LISTS)[number];

/**
 * One list of a transaction's story as CSV, read as the story view reads it (getTransaction): `timeline`
 * the history as a person reads it (a run of identical checks one row, each entry in words, what a callback
 * said), `evidence` every report the status rests on, `deliveries` each webhook attempt, `refused` the
 * refused callbacks aimed at it. The callbacks are read a bounded page (the largest the story serves): with
 * more stored, the file says it is partial. `list` is required: a wrong one is a 400 naming the choices.
 */
export async function exportStory(
  deps: Parameters<typeof getTransaction>[0],
  key: TransactionKey,
  query: Record<string, string | undefined>,
): Promise<CsvExport> {
  const list = query.list as StoryList;
  if (!STORY_LISTS.includes(list))
    throw new SchemaValidationError(`list must be one of ${STORY_LISTS.join(', ')}`, {
      details: { parameter: 'list' },
    });
  const story = await getTransaction(deps, key, { limit: MAX_RECEIPTS_PER_PAGE }, storyTimeZone(query));
  const rows = storyRows(story, list);
  const file = `${key.provider}-${key.account}-${key.reference}`.replace(/[^A-Za-z0-9._-]/g, '_');
  return {
    filename: `relay-story-${file}-${list}.csv`,
    rows: Math.min(rows.length, MAX_CSV_ROWS),
    complete: rows.length <= MAX_CSV_ROWS && (list !== 'timeline' || !story.receipts.next),
    csv: toCsv(STORY_COLUMNS[list], rows.slice(0, MAX_CSV_ROWS)),
  };
}

const STORY_COLUMNS: Record<StoryList, readonly string[]> = {
  timeline: ['at', 'until', 'type', 'count', 'what', 'said', 'receiptId', 'eventId'],
  evidence: [
    'at',
    'source',
    'claim',
    'authenticated',
    'authentication',
    'conclusive',
    'providerCode',
    'description',
    'amount',
    'currency',
    'receiptId',
    'actor',
    'approvedBy',
    'requestedBy',
  ],
  deliveries: ['at', 'eventType', 'destination', 'attempt', 'status', 'latencyMs', 'outcome'],
  refused: ['receivedAt', 'errorCode', 'httpStatus', 'quarantineId'],
};

type Story = Awaited<ReturnType<typeof getTransaction>>;
type Cell = string | number | null | undefined;
const nameOf = (a: { name: string } | undefined) => (a ? a.name : null);

function storyRows(story: Story, list: StoryList): Cell[][] {
  switch (list) {
    case 'timeline': {
      const rows: Cell[][] = story.story.timeline.map((s) =>
        s.kind === 'checks'
          ? [s.from, s.to, 'status-checks', s.count, text(s.summary), null, null, null]
          : [
              s.entry.at,
              null,
              s.entry.type,
              null,
              text(s.title),
              text(s.said),
              'receiptId' in s.entry ? s.entry.receiptId : null,
              s.entry.type === 'event' ? s.entry.eventId : null,
            ],
      );
      // The escalation (a reconciliation fact) at its time, as the story view places it.
      const escalatedAt = story.reconciliation.escalatedAt;
      if (escalatedAt) {
        const i = rows.findIndex((r) => String(r[0]) > escalatedAt);
        rows.splice(i < 0 ? rows.length : i, 0, [
          escalatedAt,
          null,
          'escalation',
          null,
          'Escalated',
          null,
          null,
          null,
        ]);
      }
      return rows;
    }
    case 'evidence':
      return story.evidence.map((e) => [
        e.at,
        e.source,
        e.claim,
        String(e.authenticated),
        e.authentication.join(' '),
        String(e.conclusive),
        e.providerCode,
        text(e.description),
        e.amount?.value ?? null,
        e.amount?.currency ?? null,
        e.receiptId,
        nameOf(e.actor),
        nameOf(e.approvedBy),
        nameOf(e.requestedBy),
      ]);
    case 'deliveries':
      return story.deliveries.flatMap((d) =>
        d.attempts.map((a) => [
          a.at,
          d.eventType,
          d.destination,
          a.attempt + 1,
          a.status,
          a.latencyMs,
          a.outcome,
        ]),
      );
    case 'refused':
      return story.refused.map((r) => [r.receivedAt, r.errorCode, r.httpStatus, r.quarantineId]);
  }
}
