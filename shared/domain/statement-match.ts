import { decimalSum, toDecimalString } from '../util/money';
import { dayOf, wallTimeAt, nextDay, startOfDay } from '../util/time-zone';
import { deterministicUuid } from '../util/ids';
import { isFinal, type TransactionStatus } from './status';
import type { BreakCategory, StatementBreak, StatementRow } from './statement';

/**
 * The matcher's pure rules (docs/statements.md#matching): each provider's keys, the business day a row
 * belongs to, the tolerances, what a row claims, and the ids of breaks.
 */

/** Per account (config `statements.accounts."<provider>/<account>"`), with every default filled in. */
export interface StatementSettings {
  /** The provider's business time zone: the day a row belongs to is this zone's. */
  timeZone: string;
  /**
   * After-hours cut-off, local `HH:MM`: a row at or after it belongs to the next business day ("00:00": the
   * calendar day).
   */
  cutoff: string;
  /** An amount within this (absolute, decimal string) of the transaction's matches it; "0": exact. */
  amountTolerance: string;
  /** A row this close to the day's cut-off may belong to the other side's day (no break for it). */
  timeToleranceSeconds: number;
  /** A relay success with no row this long after its business day ends is missing at the provider (T+1). */
  slaSeconds: number;
  /** The sources a day waits for before it closes early (else it closes when the SLA passes). */
  expectedSources: StatementRow['source'][];
  /** A row with no transaction opens one (the callback that never came): the kind it opens, if any. */
  opensKind: string | undefined;
  /**
   * Kinds whose success can be known without the receipt (docs/statements.md#pairing): a row no key finds
   * is paired with the one such transaction of its amount and time, never opened beside it.
   */
  pairsKinds: readonly string[];
}

/**
 * What a provider declares about its records (its folder's `statements.ts`, on its definition): the matcher
 * is given these and names no provider. Each member absent takes the default noted on it.
 */
export interface ProviderStatementFacts {
  /** The provider's business time zone (default UTC: MoMo and Airtel run by country, set per account). */
  timeZone?: string;
  /**
   * The kind the relay opens for a row with no transaction behind it (an incoming payment its records can
   * show with none, keyed by its id as its callback would be). Absent: a lone row is a break for a person.
   */
  opensKind?: string;
  /**
   * Kinds whose success can be known without the receipt (docs/statements.md#pairing): a row no key finds
   * is paired with the one such transaction of its amount and time (pairingCandidate), not opened.
   */
  pairsKinds?: readonly string[];
  /** How its rows name a transaction, in the order tried (default: the row's id as the reference, then externalId). */
  matchKeys?: readonly MatchKeySource[];
  /** Kinds that bring money in (others pay out), for a balance's drift. Absent: none. */
  moneyInKinds?: readonly string[];
}

/**
 * How long after the money moved the relay may have reached its verdict on a payment it pairs: the STK
 * query's schedule (first check 2 min, then 1, 2, 5 and 15 min backoff) has settled a dropped callback
 * well inside an hour. A verdict later than this is not looked for (the row then opens as before).
 */
export const PAIRING_LOOKAHEAD_SECONDS = 3600;

/**
 * How much later than its payment a row may be dated and still make the relay hold back from opening it:
 * a late posting (an M-Pesa row dated past midnight, the next business day). Such a row is outside the
 * time tolerance, so it is never paired; with a candidate this close it is a break for a person, not a
 * second payment.
 */
export const PAIRING_LOOKBACK_SECONDS = 86_400;

export function defaultStatementSettings(facts: ProviderStatementFacts): StatementSettings {
  return {
    timeZone: facts.timeZone ?? 'UTC',
    cutoff: '00:00',
    amountTolerance: '0',
    timeToleranceSeconds: 300,
    slaSeconds: 86_400,
    expectedSources: [],
    opensKind: facts.opensKind,
    pairsKinds: facts.pairsKinds ?? [],
  };
}

/**
 * Whether a transaction with no receipt could be the payment a row shows (docs/statements.md#pairing): a
 * pairing kind, the same amount (within the tolerance), money moved between its creation and its verdict
 * (or its window's end, still open) give or take the time tolerance, and the same payer when both sides
 * show one. What this says is only "could be": one candidate is linked, several are a break for a person.
 */
export function pairingCandidate(
  row: Pick<StatementRow, 'time' | 'amountIn' | 'amountOut' | 'counterparty'>,
  tx: {
    kind: string;
    status: TransactionStatus;
    createdAt: string;
    reconcileUntil: string;
    amount: { value: string } | undefined;
    msisdn: string | undefined;
    providerTransactionId: string | undefined;
    transitions: readonly { to: string; at: string }[];
  },
  settings: Pick<StatementSettings, 'pairsKinds' | 'amountTolerance' | 'timeToleranceSeconds'>,
  /** Seconds the row may be dated after the transaction's verdict beyond the tolerance (a late posting). */
  lateBy = 0,
): boolean {
  if (!settings.pairsKinds.includes(tx.kind) || tx.providerTransactionId || !tx.amount) return false;
  if (!compareAmounts(rowAmount(row), tx.amount.value, settings.amountTolerance).within) return false;
  const time = Date.parse(row.time);
  const tolerance = settings.timeToleranceSeconds * 1000;
  const until = finalAt(tx) ?? tx.reconcileUntil;
  if (time < Date.parse(tx.createdAt) - tolerance || time > Date.parse(until) + tolerance + lateBy * 1000)
    return false;
  return samePayer(row.counterparty, tx.msisdn) !== false;
}

/**
 * Whether a statement's masked counterparty ("2547*****149 - JANE DOE") and a transaction's payer number
 * are the same person, by the digits the mask shows at the end (and at the start, when both numbers are
 * written the same way). Undefined when either side has no number: that says nothing.
 */
function samePayer(counterparty: string | undefined, msisdn: string | undefined): boolean | undefined {
  const shown = counterparty?.match(/(\d*)\*+(\d+)/) ?? counterparty?.match(/(\d{9,15})/);
  const digits = msisdn?.replace(/\D/g, '');
  if (!shown || !digits) return undefined;
  if (shown.length === 2) return shown[1]!.slice(-9) === digits.slice(-9);
  const [, head, tail] = shown as unknown as [string, string, string];
  if (!digits.endsWith(tail)) return false;
  // A national (07…) and an international (2547…) spelling share no start: only the end is compared then.
  return head === '' || head[0] !== digits[0] || digits.startsWith(head);
}

/** The business day (`YYYY-MM-DD`) of an instant, in the account's time zone, after-hours rows moved on. */
export function businessDayOf(
  time: string,
  settings: Pick<StatementSettings, 'timeZone' | 'cutoff'>,
): string {
  const wall = wallTimeAt(Date.parse(time), settings.timeZone);
  const day = dayOf(wall);
  if (settings.cutoff === '00:00') return day;
  const [h, m] = settings.cutoff.split(':').map(Number) as [number, number];
  return wall.hour * 60 + wall.minute >= h * 60 + m ? nextDay(day) : day;
}

/** The instants a business day spans: [start, end). */
export function businessDaySpan(
  day: string,
  settings: Pick<StatementSettings, 'timeZone' | 'cutoff'>,
): { start: number; end: number } {
  const [h, m] = settings.cutoff.split(':').map(Number) as [number, number];
  const shift = settings.cutoff === '00:00' ? 0 : (h * 60 + m) * 60_000;
  // With a cut-off, day D runs from D-1 at the cut-off to D at the cut-off.
  const start = startOfDay(day, settings.timeZone) - (shift ? 86_400_000 - shift : 0);
  const end = startOfDay(nextDay(day), settings.timeZone) - (shift ? 86_400_000 - shift : 0);
  return { start, end };
}

/** How a transaction could be named by a row, in the order tried (the first that finds one wins). */
export type MatchKey =
  | { via: 'reference'; value: string }
  /** An alias the relay recorded (Daraja: the M-Pesa receipt of an STK or B2C payment). */
  | { via: 'alias'; namespace: string; value: string }
  /** The partner's externalId, through the registration's lookup entry. */
  | { via: 'externalId'; value: string };

/** The alias namespace of Daraja's receipt (the providers' correlation writes it under the same name). */
export const RECEIPT_ALIAS = 'receipt';

/**
 * Where a key comes from: the row's id as an alias under RECEIPT_ALIAS, the row's id as the reference, the
 * row's externalId through the registration's lookup entry, or the row's externalId as the reference.
 */
export type MatchKeySource = 'receiptAlias' | 'idAsReference' | 'externalId' | 'externalIdAsReference';

/** A row's id is the reference the partner chose, else its externalId names the transaction. */
const DEFAULT_MATCH_KEYS: readonly MatchKeySource[] = ['idAsReference', 'externalId'];

/** A row's keys, in the order its provider declares (a key whose value the row lacks is left out). */
export function matchKeys(
  row: Pick<StatementRow, 'providerId' | 'externalId'>,
  sources: readonly MatchKeySource[] = DEFAULT_MATCH_KEYS,
  id = row.providerId,
): MatchKey[] {
  const external = row.externalId;
  return sources.flatMap((source): MatchKey[] => {
    switch (source) {
      case 'receiptAlias':
        return [{ via: 'alias', namespace: RECEIPT_ALIAS, value: id }];
      case 'idAsReference':
        return [{ via: 'reference', value: id }];
      case 'externalId':
        return external ? [{ via: 'externalId', value: external }] : [];
      case 'externalIdAsReference':
        return external ? [{ via: 'reference', value: external }] : [];
    }
  });
}

/** Whether a transaction of this kind brings money in (else it pays out), by its provider's declaration. */
export function bringsMoneyIn(facts: ProviderStatementFacts, kind: string): boolean {
  return facts.moneyInKinds?.includes(kind) ?? false;
}

const SUCCESS_WORDS = new Set(['COMPLETED', 'SUCCESS', 'SUCCESSFUL', 'SUCCEEDED', 'TS', 'OK']);
const FAILURE_WORDS = new Set([
  'FAILED',
  'FAILURE',
  'DECLINED',
  'CANCELLED',
  'CANCELED',
  'REJECTED',
  'TF',
  'EXPIRED',
]);

/**
 * What a payment row says about its transaction: money moved (SUCCEEDED), it did not (FAILED), or nothing
 * final ("Attempted", a word the relay does not know: no claim). A row with no status column is money
 * moved: the merchant export lists completed movements only.
 */
export function rowClaim(
  row: Pick<StatementRow, 'status'>,
): Extract<TransactionStatus, 'SUCCEEDED' | 'FAILED'> | undefined {
  if (row.status === undefined) return 'SUCCEEDED';
  if (SUCCESS_WORDS.has(row.status)) return 'SUCCEEDED';
  if (FAILURE_WORDS.has(row.status)) return 'FAILED';
  return undefined;
}

/** The amount a payment row moved, in its direction. */
export function rowAmount(row: Pick<StatementRow, 'amountIn' | 'amountOut'>): string {
  return row.amountIn !== '0' ? row.amountIn : row.amountOut;
}

/** `row - expected`, and whether it is within the tolerance (absolute). */
export function compareAmounts(
  row: string,
  expected: string,
  tolerance: string,
): { difference: string; within: boolean } {
  const difference = decimalSum({ value: row, sign: 1 }, { value: expected, sign: -1 });
  const size = difference.startsWith('-') ? difference.slice(1) : difference;
  const over = decimalSum({ value: size, sign: 1 }, { value: toDecimalString(tolerance) ?? '0', sign: -1 });
  return { difference, within: over === '0' || over.startsWith('-') };
}

/** The same difference found again is the same break (its id names category and subject). */
function breakId(category: BreakCategory, provider: string, account: string, subject: string): string {
  return deterministicUuid('statement-break', category, provider, account, subject);
}

export function newBreak(fields: Omit<StatementBreak, 'id'> & { subject: string }): StatementBreak {
  const { subject, ...rest } = fields;
  return { id: breakId(fields.category, fields.provider, fields.account, subject), ...rest };
}

/**
 * The auto-match rate (docs/statements.md#match-rate): pairs the matcher made without a person ÷ (those
 * pairs + the payment rows and the relay's successes left alone). Fees and reversals linked to their
 * payment are neither; a day with nothing to match has no rate (null), not 100 %.
 */
export function matchRate(
  matched: number,
  loneRows: number,
  loneSuccesses: number,
): {
  matched: number;
  toMatch: number;
  rate: number | null;
} {
  const toMatch = matched + loneRows + loneSuccesses;
  return { matched, toMatch, rate: toMatch === 0 ? null : Math.round((matched / toMatch) * 10_000) / 10_000 };
}

/**
 * The attribute a transaction opened by a provider's record carries: when the money moved by that record
 * (UTC ISO). Its business day is that moment's, not the day the row was imported.
 */
export const MOVED_AT_ATTRIBUTE = 'movedAt';

/** When a transaction reached its current final status (undefined while open). */
function finalAt(tx: {
  status: TransactionStatus;
  transitions: readonly { to: string; at: string }[];
}): string | undefined {
  if (!isFinal(tx.status)) return undefined;
  return [...tx.transitions].reverse().find((t) => t.to === tx.status)?.at;
}

/**
 * The moment that puts a transaction in a business day (docs/statements.md#the-close): when the money moved
 * by the provider's record that opened it; else when it reached its final verdict; else (open) its creation.
 * The store indexes transactions by this moment per account, so a day's close reads its own day only.
 */
export function dayTimeOf(tx: {
  status: TransactionStatus;
  createdAt: string;
  attributes?: Record<string, string> | undefined;
  transitions: readonly { to: string; at: string }[];
}): string {
  const moved = tx.attributes?.[MOVED_AT_ATTRIBUTE];
  if (moved && !Number.isNaN(Date.parse(moved))) return new Date(moved).toISOString();
  return finalAt(tx) ?? tx.createdAt;
}
