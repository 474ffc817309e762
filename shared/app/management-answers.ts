/**
 * What the management API answers, as types (docs/management-api.md): the server builds these shapes and
 * the browser console (console/) reads them. Types only, importing nothing, so the console's browser build
 * type-checks against the very shapes the server returns instead of a copy that drifts.
 */

/**
 * What the console's list and search answer for one transaction (docs/management-api.md#console-endpoints):
 * small, every field present (null when unknown), the MSISDN only masked.
 */
export interface TransactionSummary {
  provider: string;
  account: string;
  kind: string;
  reference: string;
  status: string;
  reason: { code: string; message: string | null; providerCode: string | null } | null;
  amount: string | null;
  currency: string | null;
  msisdnMasked: string | null;
  externalId: string | null;
  providerTransactionId: string | null;
  createdAt: string;
  updatedAt: string;
  /** Origin of the last transition (callback, poll, manual…); null while nothing changed the status. */
  origin: string | null;
}

/** What a console search matched on. */
export type MatchedBy = 'reference' | 'externalId' | 'providerTransactionId' | 'msisdn';

/** The console's search (GET /v1/transactions/search). */
export interface SearchAnswer {
  transactions: TransactionSummary[];
  matchedBy: MatchedBy | null;
  /** Set when the search went through the transactions of a range (a provider transaction id or receipt). */
  receiptSearch: { from: string; to: string; searched: number; complete: boolean } | null;
}

/** A page of the console's transaction list (GET /v1/transactions). */
export interface TransactionPage {
  transactions: TransactionSummary[];
  /** The cursor of the next page; null on the last one. */
  next: string | null;
  /** The creation range the list was read from. */
  range: { from: string; to: string };
}

/** One line a person must act on. */
export interface ReportLine {
  provider: string;
  account: string;
  reference: string;
  kind: string;
  status: string;
  amount: string | null;
  createdAt: string;
  detail: string;
}

export interface ReconciliationReport {
  from: string;
  to: string;
  transactions: number;
  byStatus: Record<string, number>;
  /** Who settled the final transactions: callback, poll, manual, registration (adopted orphan), buffer. */
  finalizedBy: Record<string, number>;
  timeToFinalMs: { p50: number | null; p95: number | null; max: number | null };
  statusChecks: { total: number; perTransaction: number };
  act: {
    expired: ReportLine[];
    ambiguous: ReportLine[];
    conflicts: ReportLine[];
    disagreements: ReportLine[];
    lateResolutions: ReportLine[];
  };
  /** Lists cut at MAX_LINES: their full lengths (narrow the range to see every line). */
  truncated?: Record<string, number>;
  /**
   * False when the range holds more than one report reads (MAX_REPORTED): this report covers the newest
   * ones, created from `reportedFrom` on; `next` (as `cursor`, same from and to) reports the older ones.
   */
  complete: boolean;
  reportedFrom: string | null;
  next: string | null;
}

export interface ReportCharts {
  /** Time from creation to the first final status, by provider. */
  timeToFinalByProvider: Record<string, { count: number; p50Ms: number | null; p90Ms: number | null }>;
  /** Per day of creation (UTC), oldest first: final transactions by the origin that settled them. */
  finalsByOriginPerDay: { day: string; byOrigin: Record<string, number> }[];
  /** Status calls per transaction → number of transactions ("0", "1", … "10+"). */
  statusCallsPerTransaction: Record<string, number>;
  /** Per day of creation (UTC), oldest first: transactions EXPIRED and AMBIGUOUS now, and conflicts recorded. */
  problemsPerDay: { day: string; expired: number; ambiguous: number; conflicts: number }[];
}

/** The console report (GET /v1/report): the reconciliation report with the series the console charts. */
export type ConsoleReport = ReconciliationReport & { charts: ReportCharts };
