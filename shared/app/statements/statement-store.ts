import type { RetiredBreak, StatementBreak, StoredBalance, StoredStatementRow } from '../../domain/statement';
import type { EventEnvelope } from '../../domain/event-envelope';
import type { DailyCloseReport } from '../../domain/statement';

/** Names one account's business day. */
export interface AccountDay {
  provider: string;
  account: string;
  day: string;
}

/** A row's key within its day. */
export interface RowKey {
  providerId: string;
  kind: string;
}

/** A closed day as stored: the report it closed with, and its DailyClosed event (published once). */
export interface StoredClose {
  report: DailyCloseReport;
  outbox: EventEnvelope[];
}

/**
 * The port for the provider's own records (docs/table-design.md#statements): rows, breaks, balance
 * snapshots and closed days, per account and business day. Every write is conditional (first writer wins),
 * so re-importing a file or re-running a close changes nothing.
 */
export interface StatementStore {
  /** A row by its key (provider, account, day, providerId, kind). */
  getRow(at: AccountDay, providerId: string, kind: string): Promise<StoredStatementRow | undefined>;
  /**
   * The rows of one day with these keys that are stored, read in bounded requests (not one a row): a
   * statement import asks for a batch's rows at once.
   */
  getRows(at: AccountDay, keys: readonly RowKey[]): Promise<StoredStatementRow[]>;
  /** Stores a row unless one with its key exists; false when it did. */
  putRow(row: StoredStatementRow): Promise<boolean>;
  /** Each row unless one with its key exists (first writer wins each), a bounded number at a time. */
  putRows(rows: readonly StoredStatementRow[]): Promise<boolean[]>;
  /** The day's rows, in key order. */
  listRows(at: AccountDay): Promise<StoredStatementRow[]>;
  /** Stores a break unless the same one (its id) exists; false when it did. */
  putBreak(found: StatementBreak): Promise<boolean>;
  listBreaks(at: AccountDay): Promise<StatementBreak[]>;
  /**
   * Moves a break that no longer holds out of the day's breaks into its retired breaks (kept as the audit,
   * never deleted), in one write; false when it is no longer among the breaks (another reading retired it).
   */
  retireBreak(retired: RetiredBreak): Promise<boolean>;
  /** The day's retired breaks, in the order they were retired. */
  listRetiredBreaks(at: AccountDay): Promise<RetiredBreak[]>;
  /**
   * Stores a snapshot unless one for the same instant and currency exists; false when it did (a
   * multi-currency account's balances at one instant are one snapshot each).
   */
  putBalance(snapshot: StoredBalance): Promise<boolean>;
  /** The snapshots taken in [from, to), every currency, oldest first. */
  listBalances(provider: string, account: string, from: string, to: string): Promise<StoredBalance[]>;
  /** The latest snapshot of `currency` (none: of no currency) strictly before `at`. */
  balanceBefore(
    provider: string,
    account: string,
    at: string,
    currency?: string,
  ): Promise<StoredBalance | undefined>;
  /** Stores the close once (its outbox published by the table's stream); false when the day was closed. */
  putClose(at: AccountDay, close: StoredClose): Promise<boolean>;
  getClose(at: AccountDay): Promise<DailyCloseReport | undefined>;
  /** The account's closed days, newest first, at most `limit`. */
  listCloses(provider: string, account: string, limit: number): Promise<DailyCloseReport[]>;
}
