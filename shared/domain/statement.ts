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
}

/** Who brought the rows: the relay's own scheduled pull (`system`) or a named person (upload). */
export interface StatementActor {
  kind: 'system' | 'person';
  name: string;
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
}

/**
 * The one entrance for provider records (port): the pull poller, the file importer and the balance
 * snapshots all hand their rows here; matching, evidence and breaks happen behind it.
 */
export interface StatementSink {
  ingestRows(rows: readonly StatementRow[], options: StatementIngestOptions): Promise<StatementIngestResult>;
  recordBalance(snapshot: BalanceSnapshot, options: StatementIngestOptions): Promise<void>;
}
