import { hasControlCharacters } from '../../util/text';
import { accountKey, type RelayConfig } from '../../config/schema';
import { SchemaValidationError } from '../../domain/errors';
import { reversalStateOf } from '../../domain/reversal';
import type { TransactionKey, TransactionRecord } from '../../domain/transaction';
import { findProvider } from '../../providers/registry';
import { maskMsisdn, maskMsisdnsIn, maskPartnerId } from '../../util/mask';
import { callingCodeOf, msisdnSearchHash, normalizeMsisdn } from '../../util/msisdn';
import type { TransactionSummary } from '../management-answers';
import type { ConsoleStore, CreatedEntry, TransactionStore } from '../ports';

/**
 * The calling code that makes an account's national numbers (0708…) international: the country its
 * provider declares for it (Airtel's `country`, MoMo's target environment, Daraja's Kenya), else the one
 * country of its currency or of the registration's (KES, UGX…).
 */
export function accountCallingCode(
  config: Pick<RelayConfig, 'accounts'>,
  key: Pick<TransactionKey, 'provider' | 'account'>,
  currency?: string,
): string | undefined {
  const account = config.accounts.get(accountKey(key.provider, key.account));
  const settings = (account?.settings ?? {}) as { currency?: unknown };
  const country = account ? findProvider(key.provider)?.countryOf?.(account.settings as never) : undefined;
  return (
    callingCodeOf({ country }) ??
    callingCodeOf({ currency: typeof settings.currency === 'string' ? settings.currency : undefined }) ??
    callingCodeOf({ currency })
  );
}

/** What a number is searched by: the mask of its international form and, with the search key, its hash. */
function numberLookup(
  msisdn: string,
  callingCode: string | undefined,
  searchKey: string | undefined,
): { masked: string; numberHash: string | undefined } | undefined {
  const international = normalizeMsisdn(msisdn, callingCode);
  const digits = international ?? msisdn.replace(/\D/g, '');
  if (!/^\d{6,15}$/.test(digits)) return undefined;
  return {
    masked: maskMsisdn(digits)!,
    numberHash: searchKey && international ? msisdnSearchHash(searchKey, international) : undefined,
  };
}

/**
 * Notes a registration's lookups beside the transaction, once it is written: its externalId, and its
 * MSISDN as one item under the mask of the number's international form carrying the keyed hash of the
 * number (never the number). Later callbacks never touch them, so they cost nothing after registration.
 */
export async function noteLookups(
  store: Pick<ConsoleStore, 'putLookup'>,
  key: TransactionKey,
  createdAt: string,
  values: { externalId?: string | undefined; msisdn?: string | undefined },
  number: { callingCode: string | undefined; searchKey: string | undefined },
): Promise<void> {
  const lookup = values.msisdn
    ? numberLookup(values.msisdn, number.callingCode, number.searchKey)
    : undefined;
  await Promise.all([
    ...(values.externalId ? [store.putLookup('externalId', values.externalId, { key, createdAt })] : []),
    ...(lookup
      ? [
          store.putLookup('msisdn', lookup.masked, {
            key,
            createdAt,
            ...(lookup.numberHash ? { numberHash: lookup.numberHash } : {}),
          }),
        ]
      : []),
  ]);
}

/**
 * A transaction as the list, the search, the live stream and the CSV show it. The provider's free text (a
 * failure's message, "insufficient balance for 0752123904") and its code have their numbers masked, as in
 * the single read (toView), and so has the partner's externalId when it is free text (maskPartnerId); the
 * other members are the relay's own values and the provider's transaction id (an id: a 9-digit MoMo
 * financialTransactionId is no phone number).
 */
export function toSummary(tx: TransactionRecord): TransactionSummary {
  return {
    provider: tx.key.provider,
    account: tx.key.account,
    kind: tx.kind,
    reference: tx.key.reference,
    status: tx.status,
    reason: tx.reason
      ? {
          code: tx.reason.code,
          message: tx.reason.message ? maskMsisdnsIn(tx.reason.message) : null,
          providerCode: tx.reason.providerCode ? maskMsisdnsIn(tx.reason.providerCode) : null,
        }
      : null,
    amount: tx.amount?.value ?? null,
    currency: tx.amount?.currency ?? null,
    msisdnMasked: tx.msisdn ? maskMsisdn(tx.msisdn)! : null,
    externalId: tx.externalId ? maskPartnerId(tx.externalId) : null,
    providerTransactionId: tx.providerTransactionId ?? null,
    createdAt: tx.createdAt,
    updatedAt: tx.updatedAt,
    origin: tx.transitions.at(-1)?.origin ?? null,
    reversal: reversalStateOf(tx) ?? null,
  };
}

const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;
const DAY_MS = 86_400_000;
const EARLIEST = Date.UTC(2000, 0, 1);
const LATEST = Date.UTC(9999, 11, 30);

/** A bad query parameter: a 400 that names it (`details.parameter`). */
export function badParameter(name: string, message: string): SchemaValidationError {
  return new SchemaValidationError(`${name}: ${message}`, { details: { parameter: name } });
}

/** `limit`: 1–max, default 50. */
export function parseLimit(value: string | undefined, max = MAX_LIMIT): number {
  if (value === undefined || value === '') return DEFAULT_LIMIT > max ? max : DEFAULT_LIMIT;
  const limit = Number(value);
  if (!Number.isInteger(limit) || limit < 1 || limit > max)
    throw badParameter('limit', `must be an integer from 1 to ${max}`);
  return limit;
}

/** An ISO 8601 instant; a date alone is the start of that day (or its end, for `to`). */
export function parseInstant(value: string, name: string, endOfDay = false): string {
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(value);
  const ms = Date.parse(dateOnly ? `${value}T00:00:00.000Z` : value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(ms) || ms < EARLIEST || ms > LATEST)
    throw badParameter(
      name,
      'is not an ISO 8601 date or date-time (e.g. 2026-11-23 or 2026-11-23T08:00:00Z)',
    );
  return new Date(dateOnly && endOfDay ? ms + DAY_MS - 1 : ms).toISOString();
}

/** `from`/`to`: default the `defaultDays` up to now, at most `maxDays`, from not after to. */
export function parseRange(
  query: { from?: string; to?: string },
  now: Date,
  options: { defaultDays: number; maxDays: number },
): { from: string; to: string } {
  const to = query.to ? parseInstant(query.to, 'to', true) : now.toISOString();
  const from = query.from
    ? parseInstant(query.from, 'from')
    : new Date(Date.parse(to) - options.defaultDays * DAY_MS).toISOString();
  if (from > to) throw badParameter('from', 'must not be after to');
  if (Date.parse(to) - Date.parse(from) > options.maxDays * DAY_MS)
    throw badParameter('from', `the range from..to is limited to ${options.maxDays} days`);
  return { from, to };
}

/** An opaque cursor: base64url JSON of where the previous page stopped. */
export function encodeCursor(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

export function decodeCursor<T>(value: string, check: (decoded: unknown) => decoded is T): T {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
  } catch {
    decoded = undefined;
  }
  if (value.length > 2000 || !check(decoded)) throw badParameter('cursor', "is not a previous answer's next");
  return decoded;
}

export function isCreatedEntry(value: unknown): value is CreatedEntry {
  const v = value as CreatedEntry | null;
  return (
    typeof v?.createdAt === 'string' &&
    typeof v.key?.provider === 'string' &&
    typeof v.key.account === 'string' &&
    typeof v.key.reference === 'string'
  );
}

/** Reads the transactions of `keys` (eventually consistent, a few at a time), in the keys' order. */
export async function readTransactions(
  store: Pick<TransactionStore, 'getTransaction'>,
  keys: readonly TransactionKey[],
  width = 8,
): Promise<(TransactionRecord | undefined)[]> {
  const out: (TransactionRecord | undefined)[] = new Array(keys.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, keys.length) }, async () => {
      for (let i = next++; i < keys.length; i = next++) out[i] = await store.getTransaction(keys[i]!);
    }),
  );
  return out;
}

/** One text parameter: present, at most `max` characters, no control characters. */
export function parseText(value: string | undefined, name: string, max = 200): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (value.length > max || hasControlCharacters(value))
    throw badParameter(name, `must be at most ${max} characters, without control characters`);
  return value;
}
