import type { TransactionRecord } from '../../domain/transaction';
import { findRegistrationRules } from '../../providers/registration-registry';
import type { ConsoleStore, LookupBy, TransactionStore } from '../ports';
import {
  badParameter,
  lookupMsisdn,
  parseLimit,
  parseRange,
  readTransactions,
  toSummary,
} from './console-query';
import type { MatchedBy, SearchAnswer } from '../management-answers';
import type { ConsoleDeps } from './list-transactions';

/** A receipt is searched through the transactions created in this range (default 7 days, at most 31). */
export const RECEIPT_SEARCH_RANGE = { defaultDays: 7, maxDays: 31 } as const;
/** Transactions a receipt search reads at most (newest first). */
export const MAX_RECEIPT_SEARCH = 5000;

/** A masked MSISDN as the relay writes it (4673****459), with or without a leading +. */
const MASKED = /^\+?\d{1,4}\*{4,}\d{0,3}$/;
const FULL = /^\+?\d{6,15}$/;

async function byLookup(
  store: TransactionStore & ConsoleStore,
  by: LookupBy,
  value: string,
  limit: number,
  check: (tx: TransactionRecord) => boolean,
): Promise<TransactionRecord[]> {
  const entries = await store.findLookups(by, value, limit);
  const records = await readTransactions(
    store,
    entries.map((e) => e.key),
  );
  return records.filter((tx): tx is TransactionRecord => tx !== undefined && check(tx));
}

/**
 * GET /v1/transactions/search?q=: the first of, in order, a reference (one read per configured account of
 * each provider), an externalId or a masked MSISDN (lookups noted at registration; a full MSISDN is masked
 * first and never kept), and a provider transaction id / receipt (not indexed, so that the final callback
 * writes nothing more: searched among the transactions created in from..to through the `byDay` index).
 */
export async function searchTransactions(
  deps: ConsoleDeps,
  query: Record<string, string | undefined>,
): Promise<SearchAnswer> {
  const q = query.q?.trim();
  // eslint-disable-next-line no-control-regex
  if (!q || q.length > 200 || /[\u0000-\u001f\u007f-\u009f]/.test(q))
    throw badParameter('q', 'must be 1 to 200 characters without control characters');
  const limit = parseLimit(query.limit);
  const range = parseRange(query, deps.clock.now(), RECEIPT_SEARCH_RANGE);
  const { store } = deps;
  const answer = (transactions: TransactionRecord[], matchedBy: MatchedBy | null, receiptSearch = null) => ({
    transactions: transactions
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
      .slice(0, limit)
      .map(toSummary),
    matchedBy,
    receiptSearch,
  });

  const keys = [...deps.config.accounts.values()].map((a) => ({
    provider: a.provider,
    account: a.id,
    reference: findRegistrationRules(a.provider)?.normalizeReference?.(q) ?? q,
  }));
  const byReference = (await readTransactions(store, keys)).filter((tx) => tx !== undefined);
  if (byReference.length) return answer(byReference, 'reference');

  if (MASKED.test(q) || FULL.test(q)) {
    const masked = FULL.test(q) ? lookupMsisdn(q)! : q.replace(/^\+/, '');
    const found = await byLookup(
      store,
      'msisdn',
      masked,
      limit,
      (tx) => !!tx.msisdn && lookupMsisdn(tx.msisdn) === masked,
    );
    if (found.length) return answer(found, 'msisdn');
  }
  const byExternalId = await byLookup(store, 'externalId', q, limit, (tx) => tx.externalId === q);
  if (byExternalId.length) return answer(byExternalId, 'externalId');

  // The receipt: not indexed (an index entry would cost the success callback a write).
  const matches: TransactionRecord[] = [];
  let searched = 0;
  let before;
  for (;;) {
    const page = await store.listCreatedPage(range, { limit: 200, ...(before ? { before } : {}) });
    const records = await readTransactions(
      store,
      page.entries.map((e) => e.key),
      16,
    );
    searched += records.length;
    for (const tx of records)
      if (
        tx &&
        (tx.providerTransactionId === q ||
          Object.values(tx.attributes ?? {}).includes(q) ||
          // A reversal's own receipt finds the payment it reversed.
          (tx.reversals ?? []).some((r) => r.reversalReceipt === q))
      )
        matches.push(tx);
    before = page.entries.at(-1);
    const complete = !page.more;
    if (complete || searched >= MAX_RECEIPT_SEARCH || matches.length >= limit) {
      const receiptSearch = { ...range, searched, complete };
      return {
        ...answer(matches, matches.length ? 'providerTransactionId' : null),
        receiptSearch,
      };
    }
  }
}
