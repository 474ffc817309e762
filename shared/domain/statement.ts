import type { ActorRef } from './actor';
import { type AuthenticationMethod, isEndToEnd } from './evidence';

/**
 * The provider's own records of money moved (issue 29): a row of a statement file or of a pull API
 * answer, and a balance snapshot. Normalized here so every source (Daraja Pull Transactions, the M-Pesa
 * org-portal exports, a declarative column template, a balance API) feeds one matcher.
 */

/** Where a provider record came from. `pull-api` and `balance-api` are the provider's API answering the
 * relay's own authenticated request; `statement-file` is a file an operator (named) uploaded. */
export const STATEMENT_SOURCES = ['pull-api', 'statement-file', 'balance-api'] as const;
export type StatementSource = (typeof STATEMENT_SOURCES)[number];

/** What a row is, as the provider's record tells it (fee and charge rows are linked, never breaks). */
/** @public the list the type is derived from */
export const STATEMENT_ROW_KINDS = ['payment', 'fee', 'reversal', 'other'] as const;
export type StatementRowKind = (typeof STATEMENT_ROW_KINDS)[number];

/** One movement of money in the provider's own record. Amounts are exact decimal strings ("1500.00"). */
export interface StatementRow {
  provider: string;
  account: string;
  source: StatementSource;
  /** The provider's own id of the movement: Daraja receipt / TransID, MoMo financialTransactionId, Airtel id. */
  providerId: string;
  /** The partner's reference when the row carries it (BillRefNumber, externalId). */
  externalId?: string;
  /** When the money moved, ISO 8601 in UTC (converted from the file's declared time zone). */
  time: string;
  /** Money into the account ("0" when none). */
  amountIn: string;
  /** Money out of the account ("0" when none). */
  amountOut: string;
  /** A fee charged on this movement, when the row states it separately. */
  fee?: string;
  currency?: string;
  kind: StatementRowKind;
  /** The provider's status words for the row ("Completed", "Failed", "Reversed"…), normalized upper-case. */
  status?: string;
  /** The payment a fee or reversal row belongs to (M-Pesa LINKED_TRANSACTION_ID). */
  linkedProviderId?: string;
  /** The counterparty, masked as every MSISDN is (never the full number). */
  counterparty?: string;
  /** The account balance after this row, when the record states it. */
  balance?: string;
  /** Where in the source it came from: file name and row number, or the pull query's window and page. */
  origin: { ref: string; row?: number };
}

/** A balance the provider's own API (or a statement) reported at a moment. */
export interface BalanceSnapshot {
  provider: string;
  account: string;
  source: StatementSource;
  at: string;
  balance: string;
  currency?: string;
  /** Which of the account's wallets: Daraja's "Utility Account", "Working Account"…; MoMo's product. */
  subAccount?: string;
  /**
   * How the balance reached the relay: `provider-api` when the provider answered the relay's own call
   * (MoMo, Airtel); Daraja's answer comes later on an unsigned callback, with that delivery's sender checks
   * (path secret, source IP) or none. Absent on snapshots stored before it was recorded.
   */
  authentication?: AuthenticationMethod[];
}

/**
 * A balance only a callback vouches for (Daraja's result: unsigned, its request's ids all a forger needs):
 * the same rule as a transaction's evidence (isEndToEnd), so a drift it shows, or hides, is said to rest on it.
 */
export function unconfirmedBalance(snapshot: Pick<BalanceSnapshot, 'authentication'>): boolean {
  return snapshot.authentication !== undefined && !isEndToEnd(snapshot.authentication);
}

/**
 * Whether two balances (or a balance and an amount) are of one currency: an account that holds several
 * reports one snapshot per currency at one instant, and each currency's series is compared on its own.
 * A balance without a currency is a series of its own.
 */
export function sameCurrency(a: unknown, b: unknown): boolean {
  return String(a ?? '') === String(b ?? '');
}

/** Who brought the rows: the relay's own scheduled pull (`system`) or a named person (upload). */
export interface StatementActor {
  kind: 'system' | 'person';
  name: string;
  /** The signed-in person (docs/roles-and-audit.md), for a person. */
  ref?: ActorRef;
}

export interface StatementIngestOptions {
  actor: StatementActor;
  /** Report what the rows would change without changing anything. */
  dryRun?: boolean;
}

/** What taking a batch of rows changed (or would change, on a dry run). */
export interface StatementIngestResult {
  rows: number;
  /** Rows already known (same provider, account, providerId and content): nothing changed. */
  alreadyKnown: number;
  matched: number;
  /** Rows that opened a transaction the relay never heard of (the callback that never came). */
  opened: number;
  /** Late resolutions: a PENDING/AMBIGUOUS/EXPIRED transaction settled by the row. */
  settled: number;
  conflicts: number;
  breaks: number;
  feesLinked: number;
  /**
   * Rows of a file above the account's four-eyes limit that would have settled or opened a transaction:
   * held as claims (AMBIGUOUS, UNCONFIRMED) for the status API or a resolution a second person approves.
   */
  heldAboveLimit: number;
}

/**
 * The one entrance for provider records (port): the pull poller, the file importer and the balance
 * snapshots all hand their rows here; matching, evidence and breaks happen behind it.
 */
export interface StatementSink {
  ingestRows(rows: readonly StatementRow[], options: StatementIngestOptions): Promise<StatementIngestResult>;
  recordBalance(snapshot: BalanceSnapshot, options: StatementIngestOptions): Promise<void>;
}

/**
 * What the matcher made of a row (docs/statements.md#matching): the transaction it belongs to and how.
 * `settled`: it settled an open or EXPIRED transaction (a late resolution, flagged); `opened`: no transaction
 * existed and the row opened one (the callback that never came); `conflict`: it contradicts the verdict.
 */
/** @public the list the type is derived from */
export const ROW_EFFECTS = [
  'matched',
  'settled',
  'opened',
  'conflict',
  'fee-linked',
  'reversal-linked',
  'unmatched',
  'not-a-payment',
] as const;
export type RowEffect = (typeof ROW_EFFECTS)[number];

/** A row as the relay keeps it: the provider's record, its business day, what it matched. */
export interface StoredStatementRow extends StatementRow {
  /** The provider's business day it belongs to (`YYYY-MM-DD`, the account's time zone and cut-off). */
  day: string;
  /** SHA-256 of the row's content (origin left out): the same row imported again is known by it. */
  fingerprint: string;
  effect: RowEffect;
  /** The transaction it belongs to (a fee's and a reversal's: their payment's), when known. */
  reference?: string;
  importedAt: string;
  actor: StatementActor;
}

/** Break categories (docs/statements.md#breaks): differences a person acts on, never silent rewrites. */
export const BREAK_CATEGORIES = [
  /** The relay published a success and the provider's records show no row after the account's SLA. */
  'missing-at-provider',
  /** Money moved that the relay never heard of (opened or not). */
  'missing-in-relay',
  'amount-over',
  'amount-under',
  /** One payment credited more than once (two payment rows for one transaction). */
  'duplicate-credit',
  /** The relay says FAILED/EXPIRED but money moved, or SUCCEEDED but the row shows a reversal. */
  'status-mismatch',
  /** Between two balance snapshots the balance moved by another amount than the finals and fees say. */
  'balance-drift',
  /** A row already imported came again with other content: the first stands, the second is shown. */
  'row-changed',
] as const;
export type BreakCategory = (typeof BREAK_CATEGORIES)[number];

export interface StatementBreak {
  /** Deterministic (category and subject): the same difference found again is the same break. */
  id: string;
  provider: string;
  account: string;
  day: string;
  category: BreakCategory;
  detectedAt: string;
  providerId?: string;
  reference?: string;
  /** The money at stake: the difference (over/under, drift) or the amount of the lone side. */
  amount?: string;
  expected?: string;
  actual?: string;
  detail: string;
  /** Where it was seen (file and row, or the pull), when a row showed it. */
  origin?: { ref: string; row?: number };
  /** What the relay did about it already (`opened`: the row opened the missing transaction). */
  resolution?: 'opened';
}

/**
 * A break a later reading of its day no longer found (docs/statements.md#a-break-that-no-longer-holds): moved
 * out of the day's breaks, never deleted, with when, who read the day and why it no longer holds.
 */
export interface RetiredBreak extends StatementBreak {
  retiredAt: string;
  /**
   * The person whose close retired it. (Retirements stored before only a person's close retired breaks may
   * name the scheduled close or `read`.)
   */
  retiredBy: StatementActor;
  because: string;
}

/** One balance snapshot as stored. */
export interface StoredBalance extends BalanceSnapshot {
  recordedAt: string;
  actor: StatementActor;
}

/** The account's business day as the provider's records and the relay's verdicts add it up. */
export interface DailyCloseReport {
  provider: string;
  account: string;
  day: string;
  timeZone: string;
  /** `closed` once DailyClosed was published; `open` while sources or the SLA are awaited. */
  state: 'open' | 'closed';
  closedAt: string | null;
  /** Why it closed (or would): every expected source is in, or the SLA passed. */
  closedBecause: 'sources-in' | 'sla-passed' | null;
  sources: StatementSource[];
  verdicts: Record<string, { count: number; amount: string }>;
  rows: {
    payments: number;
    matched: number;
    unmatched: number;
    fees: { count: number; amount: string };
    reversals: number;
    other: number;
    amountIn: string;
    amountOut: string;
  };
  lateResolutions: number;
  /** Auto-match rate (docs/statements.md#match-rate): matched pairs ÷ (matched pairs + lone sides). */
  matchRate: { matched: number; toMatch: number; rate: number | null };
  /**
   * The day's breaks, oldest first. One a reading no longer finds stays here, marked `noLongerHolds` (why),
   * until a person's close retires it (docs/statements.md#a-break-that-no-longer-holds).
   */
  breaks: (StatementBreak & { ageSeconds: number; noLongerHolds?: string })[];
  /** Breaks an earlier reading found that no longer hold, oldest retirement first (the audit). */
  retired: RetiredBreak[];
}
