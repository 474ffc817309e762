import { hasControlCharacters } from '../../util/text';
import type { TransactionRecord } from '../../domain/transaction';
import { findRegistrationRules } from '../../providers/registration-registry';
import { phoneFieldsOf } from '../../providers/registry';
import { isPhoneAttribute, maskMsisdn } from '../../util/mask';
import { looksLikeMsisdn, msisdnSearchHash, normalizeMsisdn } from '../../util/msisdn';
import type { ConsoleStore, LookupBy, LookupEntry, TransactionStore } from '../ports';
import {
  accountCallingCode,
  badParameter,
  MAX_LIMIT,
  parseLimit,
  parseRange,
  readTransactions,
  toSummary,
} from './console-query';
import type { MatchedBy, SearchAnswer } from '../management-answers';
import type { ConsoleDeps } from './list-transactions';

/** A receipt is searched through the transactions created in this range (default 7 days, at most 31). */
const RECEIPT_SEARCH_RANGE = { defaultDays: 7, maxDays: 31 } as const;
/** Transactions a receipt search reads at most (newest first). */
const MAX_RECEIPT_SEARCH = 5000;

/** A masked MSISDN as the relay writes it (4673****459), with or without a leading +. */
const MASKED = /^\+?\d{0,4}\*{4,}\d{0,3}$/;

async function byLookup(
  store: TransactionStore & ConsoleStore,
  by: LookupBy,
  values: readonly string[],
  limit: number,
  check: (tx: TransactionRecord) => boolean,
  // Decided on the entry, before its transaction is read: a mask many numbers share costs no reads.
  wanted: (entry: LookupEntry) => boolean = () => true,
): Promise<TransactionRecord[]> {
  const found = new Map<string, TransactionRecord>();
  for (const value of new Set(values)) {
    const entries = (await store.findLookups(by, value, limit)).filter(wanted);
    const records = await readTransactions(
      store,
      entries.map((e) => e.key),
    );
    for (const tx of records)
      if (tx && check(tx)) found.set(`${tx.key.provider}/${tx.key.account}/${tx.key.reference}`, tx);
  }
  return [...found.values()];
}

/** Every configured account's calling code, once each: a national number may be any of theirs. */
function callingCodes(deps: ConsoleDeps): (string | undefined)[] {
  return [
    undefined,
    ...new Set(
      [...deps.config.accounts.values()].map((a) =>
        accountCallingCode(deps.config, { provider: a.provider, account: a.id }),
      ),
    ),
  ];
}

/**
 * A masked query as the list shows a national number (070****149) also stands for the mask of its
 * international form (2547*****149) that lookups are noted under, for each calling code.
 */
function maskedForms(masked: string, codes: (string | undefined)[]): string[] {
  const [, start = '', stars = '', end = ''] = /^(\d*)(\*+)(\d*)$/.exec(masked) ?? [];
  const forms = [masked];
  if (!start.startsWith('0')) return forms;
  for (const code of codes) {
    if (!code) continue;
    const length = code.length + start.length - 1 + stars.length + end.length;
    const shown = Math.min(4, length - 7);
    const known = code + start.slice(1);
    if (known.length >= shown) forms.push(`${known.slice(0, shown)}${'*'.repeat(length - shown - 3)}${end}`);
  }
  return forms;
}

/**
 * An exact number: its international form for each configured calling code, looked up under that form's
 * mask and kept only where the lookup's keyed hash is the query's — a number that only shares the mask is
 * someone else's. The stored numbers are never compared, nor the provider attributes that hold one.
 */
async function byNumber(deps: ConsoleDeps, q: string): Promise<TransactionRecord[]> {
  const searchKey = deps.config.management.searchKey;
  if (!searchKey) return [];
  const hashes = new Map<string, Set<string>>();
  for (const code of callingCodes(deps)) {
    const international = normalizeMsisdn(q, code);
    if (!international) continue;
    const masked = maskMsisdn(international)!;
    hashes.set(masked, (hashes.get(masked) ?? new Set()).add(msisdnSearchHash(searchKey, international)));
  }
  return byLookup(
    deps.store,
    'msisdn',
    [...hashes.keys()],
    MAX_LIMIT,
    (tx) => tx.msisdn !== undefined,
    (entry) => entry.numberHash !== undefined && [...hashes.values()].some((h) => h.has(entry.numberHash!)),
  );
}

/** A provider attribute equal to `q`, other than one holding a phone number (that would confirm a number). */
function hasAttribute(tx: TransactionRecord, q: string): boolean {
  const fields = phoneFieldsOf(tx.key.provider);
  return Object.entries(tx.attributes ?? {}).some(
    ([name, value]) => value === q && !isPhoneAttribute(name, fields),
  );
}

/**
 * GET /v1/transactions/search?q=: the first of, in order, a reference (one read per configured account of
 * each provider), an MSISDN (a full one in any common spelling through its keyed hash, a masked one through
 * its mask: lookups noted at registration), an externalId, and a provider transaction id / receipt (not
 * indexed, so that the final callback writes nothing more: searched among the transactions created in
 * from..to through the `byDay` index; the attributes that hold a phone number are not compared).
 */
export async function searchTransactions(
  deps: ConsoleDeps,
  query: Record<string, string | undefined>,
): Promise<SearchAnswer> {
  const q = query.q?.trim();
  if (!q || q.length > 200 || hasControlCharacters(q))
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

  if (MASKED.test(q)) {
    const found = await byLookup(
      store,
      'msisdn',
      maskedForms(q.replace(/^\+/, ''), callingCodes(deps)),
      limit,
      (tx) => tx.msisdn !== undefined,
    );
    if (found.length) return answer(found, 'msisdn');
  } else if (looksLikeMsisdn(q)) {
    const found = await byNumber(deps, q);
    if (found.length) return answer(found, 'msisdn');
  }
  const byExternalId = await byLookup(store, 'externalId', [q], limit, (tx) => tx.externalId === q);
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
          hasAttribute(tx, q) ||
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
