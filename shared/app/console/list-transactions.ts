import type { RelayConfig } from '../../config/schema';
import { TRANSACTION_STATUSES } from '../../domain/status';
import type { TransactionRecord } from '../../domain/transaction';
import type { Clock, ConsoleStore, CreatedEntry, TransactionStore } from '../ports';
import {
  badParameter,
  decodeCursor,
  encodeCursor,
  isCreatedEntry,
  MAX_LIMIT,
  parseInstant,
  parseLimit,
  parseRange,
  parseText,
  readTransactions,
  toSummary,
} from './console-query';
import { reversalStateOf } from '../../domain/reversal';
import type { TransactionStatus } from '../../domain/status';
import {
  STATUS_FILTERS,
  type CountsAnswer,
  type StatusFilter,
  type TransactionPage,
  type TransactionSummary,
} from '../management-answers';

/** Compile-time: the filter values the console offers name every status (a new status cannot be missed). */
type MissingStatus = Exclude<TransactionStatus, StatusFilter>;
const everyStatusFiltered: [MissingStatus] extends [never] ? true : MissingStatus = true;
void everyStatusFiltered;

export interface ConsoleDeps {
  config: RelayConfig;
  store: TransactionStore & ConsoleStore;
  clock: Clock;
}

/** The list's range: the last 7 days by default, at most 92. */
const LIST_RANGE = { defaultDays: 7, maxDays: 92 } as const;
/** With `since` (polling) and no `from`: transactions created up to a day before it are looked at. */
const SINCE_LOOKBACK_DAYS = 1;
/**
 * Index entries one request looks at, at most: with filters that match little, a page may come back short
 * (its `next` continues where it stopped), so one request's reads stay bounded.
 */
const MAX_EXAMINED = 1000;

interface ListFilters {
  provider?: string;
  account?: string;
  kind?: string;
  status?: string;
  since?: string;
}

function filters(query: Record<string, string | undefined>): ListFilters {
  const status = parseText(query.status, 'status', 20);
  if (status !== undefined && !(STATUS_FILTERS as readonly string[]).includes(status))
    throw badParameter('status', `must be one of ${STATUS_FILTERS.join(', ')}`);
  const since = query.since ? parseInstant(query.since, 'since') : undefined;
  const out: ListFilters = {
    provider: parseText(query.provider, 'provider', 40),
    account: parseText(query.account, 'account', 64),
    kind: parseText(query.kind, 'kind', 40),
    status,
    since,
  };
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined));
}

const keyMatches = (f: ListFilters, entry: CreatedEntry) =>
  (!f.provider || entry.key.provider === f.provider) && (!f.account || entry.key.account === f.account);

/** REVERSED: money of the payment went back, fully or partly (its status stays SUCCEEDED). */
const statusMatches = (status: string, tx: TransactionRecord) =>
  status === 'REVERSED' ? reversalStateOf(tx) !== undefined : tx.status === status;

const recordMatches = (f: ListFilters, tx: TransactionRecord) =>
  (!f.kind || tx.kind === f.kind) &&
  (!f.status || statusMatches(f.status, tx)) &&
  (!f.since || tx.updatedAt >= f.since);

function listRange(query: Record<string, string | undefined>, since: string | undefined, now: Date) {
  if (since && !query.from) {
    const from = new Date(Date.parse(since) - SINCE_LOOKBACK_DAYS * 86_400_000).toISOString();
    return parseRange({ ...query, from }, now, LIST_RANGE);
  }
  return parseRange(query, now, LIST_RANGE);
}

/**
 * GET /v1/transactions: transactions created in the range, newest first, read through the `byDay` index
 * a page at a time (each day's shards merged), filtered by provider/account on the index keys and by
 * kind/status/since on the items read. `since` (polling): only those updated at or after it.
 */
export async function listTransactions(
  deps: ConsoleDeps,
  query: Record<string, string | undefined>,
): Promise<TransactionPage> {
  const f = filters(query);
  const range = listRange(query, f.since, deps.clock.now());
  const limit = parseLimit(query.limit);
  let before = query.cursor ? decodeCursor(query.cursor, isCreatedEntry) : undefined;
  const transactions: TransactionSummary[] = [];
  let examined = 0;
  for (;;) {
    const page = await deps.store.listCreatedPage(range, { limit, ...(before ? { before } : {}) });
    const wanted = page.entries.filter((e) => keyMatches(f, e));
    const records = await readTransactions(
      deps.store,
      wanted.map((e) => e.key),
    );
    const byEntry = new Map(wanted.map((e, i) => [e, records[i]]));
    for (const [i, entry] of page.entries.entries()) {
      examined++;
      before = entry;
      const tx = byEntry.get(entry);
      if (tx && recordMatches(f, tx)) transactions.push(toSummary(tx));
      const rest = i < page.entries.length - 1 || page.more;
      if (transactions.length === limit || (examined >= MAX_EXAMINED && rest))
        return { transactions, next: rest ? encodeCursor(entry) : null, range };
    }
    if (!page.more) return { transactions, next: null, range };
  }
}

/**
 * Transactions one counts request reads, at most: a range holding more is counted a part at a time, newest
 * first, each answer's `next` continuing where it stopped (the caller adds the parts up).
 */
export const MAX_COUNTED = 1000;

/**
 * GET /v1/transactions/counts: the transactions created in the range (the `byDay` index, then each item)
 * counted by status (and the reversed ones, under SUCCEEDED, their status, by how much went back), newest first, at most MAX_COUNTED per request: `complete` says whether the range was
 * counted to its start; if not, `countedFrom` is the creation time of the oldest one counted and `next`
 * counts the older ones (same query, `cursor=next`). provider/account narrow on the index keys before
 * anything is read.
 */
export async function countTransactions(
  deps: ConsoleDeps,
  query: Record<string, string | undefined>,
): Promise<CountsAnswer> {
  const provider = parseText(query.provider, 'provider', 40);
  const account = parseText(query.account, 'account', 64);
  const range = parseRange(query, deps.clock.now(), LIST_RANGE);
  let before = query.cursor ? decodeCursor(query.cursor, isCreatedEntry) : undefined;
  const counts = Object.fromEntries(TRANSACTION_STATUSES.map((s) => [s, 0])) as Record<string, number>;
  const reversed = { full: 0, partial: 0 };
  let total = 0;
  let examined = 0;
  for (;;) {
    const page = await deps.store.listCreatedPage(range, {
      limit: Math.min(MAX_LIMIT, MAX_COUNTED - examined),
      ...(before ? { before } : {}),
    });
    const keys = page.entries
      .map((e) => e.key)
      .filter((k) => (!provider || k.provider === provider) && (!account || k.account === account));
    for (const tx of await readTransactions(deps.store, keys, 16)) {
      if (!tx) continue;
      counts[tx.status] = (counts[tx.status] ?? 0) + 1;
      const reversal = reversalStateOf(tx);
      if (reversal) reversed[reversal.state]++;
      total++;
    }
    examined += page.entries.length;
    before = page.entries.at(-1) ?? before;
    if (!page.more || !before)
      return { counts, reversed, total, range, complete: true, countedFrom: null, next: null };
    if (examined >= MAX_COUNTED)
      return {
        counts,
        reversed,
        total,
        range,
        complete: false,
        countedFrom: before.createdAt,
        next: encodeCursor(before),
      };
  }
}
