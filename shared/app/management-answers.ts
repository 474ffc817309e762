/**
 * What the management API answers, as types (docs/management-api.md): the server builds these shapes and
 * the browser console (console/) reads them. Types (and the few values a query accepts), importing
 * nothing, so the console's browser build type-checks against the very shapes the server returns instead
 * of a copy that drifts.
 */

/**
 * The list's `status` filter values: every transaction status, and REVERSED (a SUCCEEDED payment some of
 * whose money went back, fully or partly). The API refuses any other value and the console offers these:
 * one list for both. list-transactions.ts checks at compile time that it names every status.
 */
export const STATUS_FILTERS = ['PENDING', 'AMBIGUOUS', 'SUCCEEDED', 'FAILED', 'EXPIRED', 'REVERSED'] as const;
export type StatusFilter = (typeof STATUS_FILTERS)[number];
/**
 * How often the local event stream (GET /v1/events/stream) sends a comment line while nothing changes: the
 * console takes a stream silent for EVENT_STREAM_STALE_MS as dead (a proxy or a sleeping laptop can keep a
 * socket open that no longer carries anything) and stops calling itself live.
 */
export const EVENT_STREAM_HEARTBEAT_MS = 15_000;
export const EVENT_STREAM_STALE_MS = 2 * EVENT_STREAM_HEARTBEAT_MS + 5_000;

/**
 * What went back of a SUCCEEDED payment (its status stays SUCCEEDED): `full` when nothing is left.
 * Amounts are decimal strings in the transaction's currency; null when unknown (no amount registered).
 */
interface ReversalSummary {
  state: 'full' | 'partial';
  amountReversed: string | null;
  netAmount: string | null;
  /** Reversal requests that returned money. */
  reversals: number;
}

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
  /** Money that went back after the payment succeeded; null when none did. */
  reversal: ReversalSummary | null;
}

/** The console's counts (GET /v1/transactions/counts). */
export interface CountsAnswer {
  /** By status: a reversed payment is counted under SUCCEEDED (its status)… */
  counts: Record<string, number>;
  /** …and here too, by how much went back. */
  reversed: { full: number; partial: number };
  total: number;
  range: { from: string; to: string };
  /** Whether the range was counted to its start (a request counts at most MAX_COUNTED, newest first). */
  complete: boolean;
  /** When not complete: the creation time of the oldest transaction counted. */
  countedFrom: string | null;
  /** When not complete: pass back as `cursor` to count the older ones. */
  next: string | null;
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
  /**
   * Time from creation to the first final status, by provider, when provider evidence settled it (a
   * callback, the status API, a statement): a person's resolution is in manualResolutionsByProvider.
   */
  timeToFinalByProvider: Record<string, { count: number; p50Ms: number | null; p90Ms: number | null }>;
  /** Time from creation to a final status set by hand (origin manual), by provider: shown apart. */
  manualResolutionsByProvider: Record<string, { count: number; p50Ms: number | null; p90Ms: number | null }>;
  /** Per day (UTC) of the final transition, oldest first: transactions settled that day by origin. */
  finalsByOriginPerDay: { day: string; byOrigin: Record<string, number> }[];
  /** Status calls per transaction → number of transactions, every bin ("0" … "9", "10+") in order. */
  statusCallsPerTransaction: Record<string, number>;
  /**
   * Per day (UTC), oldest first: transitions to EXPIRED and to AMBIGUOUS and conflicts recorded that day
   * (what happened then, not the status now), among the transactions created in the range.
   */
  problemsPerDay: { day: string; expired: number; ambiguous: number; conflicts: number }[];
}

/** The console report (GET /v1/report): the reconciliation report with the series the console charts. */
export type ConsoleReport = ReconciliationReport & { charts: ReportCharts };

/** One refused request as the quarantine view shows it (GET /v1/quarantine). */
export interface QuarantineView {
  id: string;
  receivedAt: string;
  provider: string | null;
  account: string | null;
  route: string | null;
  method: string;
  path: string;
  sourceIp: string;
  httpStatus: number;
  /** The error code it was refused with (e.g. ORIGIN_NOT_VERIFIED). */
  reason: string;
  message: string;
  /** As stored (secrets redacted), its phone numbers masked, cut to 4 KB. */
  body: string;
  bodyEncoding: 'utf8' | 'base64';
  /** The size of the request's body as received. */
  bodyBytes: number;
  /** Cut when stored or here. */
  bodyTruncated: boolean;
  /** The reference the refused body named (null: none), linking the transaction it aimed at. */
  reference: string | null;
  /** An operator's decision on it (docs/roles-and-audit.md#quarantine-decisions); null: not decided. */
  decision: {
    kind: 'accepted' | 'dismissed';
    at: string;
    by: ActorView;
    note: string;
    state: 'applying' | 'done';
    applied?: { reference: string; status: string; events: string[] };
  } | null;
}

/**
 * A page of the quarantine (GET /v1/quarantine). One request reads a bounded number of entries
 * (`examined`); a filter whose matches lie deeper answers fewer entries (none, even) and a `next` to go on
 * from where it stopped, so a caller pages until `next` is null to have searched the whole range.
 */
export interface QuarantinePage {
  entries: QuarantineView[];
  /** Where the next request goes on (the `cursor` to send); null once the range was read to its end. */
  next: string | null;
  /** Entries of the range this request read (matching or not), at most 2000. */
  examined: number;
  /**
   * Counted on the first page only (no `cursor`), null on the pages after it: the range's entries by
   * reason (every filter but `reason` applied) and all its entries (no filter), each at most 10 000.
   */
  byReason: Record<string, number> | null;
  inRange: number | null;
  /** False when the counting stopped at 10 000 entries (or was not done: a page after the first). */
  byReasonComplete: boolean;
  range: { from: string; to: string };
}

/** Who took an action (shared/domain/actor.ts ActorRef), as the API answers it. */
interface ActorView {
  id: string;
  name: string;
  email: string | null;
  role: 'viewer' | 'operator' | 'admin';
  via: 'token' | 'cognito' | 'iam';
}

/** GET /v1/me: who the console is signed in as, and what their role lets them do. */
export interface MeAnswer {
  actor: ActorView;
  can: {
    /** check now, resolve up to the limit, quarantine decisions */
    operate: boolean;
    /** approvals, resolutions above the limit, the audit log */
    administer: boolean;
  };
  /** The zones the console shows times in by default (shared/app/console/time-zones.ts). */
  timeZones: TimeZonesView;
  /** The providers the relay speaks, in registry order (the console's provider filter). */
  providers: Array<{ id: string; name: string }>;
}

/** Each account's business time zone (`provider/account` → IANA zone), and the one most of them share. */
export interface TimeZonesView {
  business: string;
  accounts: Record<string, string>;
}

/** One audit log entry (GET /v1/audit). */
export interface AuditView {
  id: string;
  at: string;
  /** Null: nobody signed in (a refused sign-in). */
  actor: ActorView | null;
  action: string;
  target: string | null;
  outcome: 'ok' | 'pending' | 'refused' | 'failed';
  httpStatus: number;
  detail: string | null;
  method: string;
  path: string;
  sourceIp: string;
}

export interface AuditPage {
  entries: AuditView[];
  next: string | null;
  examined: number;
  range: { from: string; to: string };
}

/** A resolution above its account's limit, waiting for a second person (GET /v1/approvals). */
export interface ApprovalView {
  id: string;
  createdAt: string;
  expiresAt: string;
  /** `expired`: still pending when its time ran out; nobody can approve it any more. */
  state: 'pending' | 'approved' | 'rejected' | 'failed' | 'expired';
  provider: string;
  account: string;
  reference: string;
  status: string;
  note: string;
  amount: string | null;
  currency: string | null;
  limit: string;
  requestedBy: ActorView;
  decidedBy: ActorView | null;
  decidedAt: string | null;
  decisionNote: string | null;
}

export interface ApprovalsAnswer {
  approvals: ApprovalView[];
  /** False when the bounded read may have left older requests out. */
  complete: boolean;
}

/** One business day in GET /v1/statements/{provider}/{account}/days (docs/statements.md#the-close). */
export interface StatementDaySummary {
  day: string;
  state: 'open' | 'closed';
  closedAt: string | null;
  payments: number;
  matched: number;
  fees: number;
  lateResolutions: number;
  breaks: number;
  matchRate: { matched: number; toMatch: number; rate: number | null };
}

/** GET /v1/statements/{provider}/{account}/days: an account's business days, newest first. */
export interface StatementDaysAnswer {
  provider: string;
  account: string;
  timeZone: string;
  days: StatementDaySummary[];
}

/**
 * GET /v1/statements/{provider}/{account}/days/{day}: what the console reads of the day's report (the
 * server's DailyCloseReport; close-day.ts checks at compile time that it fits this shape).
 */
export interface StatementDayAnswer {
  provider: string;
  account: string;
  day: string;
  state: 'open' | 'closed';
  closedAt: string | null;
  closedBecause: string | null;
  sources: string[];
  verdicts: Record<string, { count: number; amount: string }>;
  rows: { payments: number; matched: number; fees: { count: number; amount: string } };
  lateResolutions: number;
  matchRate: { matched: number; toMatch: number; rate: number | null };
  breaks: {
    id: string;
    category: string;
    ageSeconds: number;
    providerId?: string;
    reference?: string;
    amount?: string;
    expected?: string;
    actual?: string;
    detail: string;
    origin?: { ref: string; row?: number };
    resolution?: string;
    /** Why a reading no longer finds it: a person's close retires it (docs/statements.md). */
    noLongerHolds?: string;
  }[];
  /** Breaks a person's close retired (who, when, why), oldest retirement first. */
  retired: {
    id: string;
    category: string;
    detectedAt: string;
    providerId?: string;
    reference?: string;
    amount?: string;
    detail: string;
    retiredAt: string;
    retiredBy: { kind: string; name: string };
    because: string;
  }[];
}

// Webhook destinations (docs/management-api.md#webhook-destinations).

/** What became of one delivery attempt (docs/webhooks.md#delivery-log-and-replay). */
export type AttemptOutcome = 'delivered' | 'retrying' | 'dead-letter' | 'destination-disabled';

/** One attempt of one event to one destination, as the delivery log keeps it. */
export interface DeliveryAttempt {
  eventId: string;
  /** The event's transaction (metadata.correlationId): the delivery log is read per transaction. */
  correlationId: string;
  destination: string;
  attempt: number;
  at: string;
  /** The HTTP status, or null when nothing answered. */
  status: number | null;
  latencyMs: number;
  outcome: AttemptOutcome;
  /** Scrubbed and bounded: the answer's first bytes or why nothing answered. */
  excerpt: string;
  /** When the next attempt is due (outcome `retrying`). */
  nextAttemptAt?: string;
  /** Set on a replay's attempts: who asked for it. */
  replayedBy?: string;
}

export interface DestinationView {
  id: string;
  /** How it delivers (docs/webhooks.md#destination-types): `https` or `sqs`, the registry's type id. */
  type: string;
  /**
   * Where it delivers, by its type: an https URL's scheme, host and path only (a query string or user info
   * may carry a credential, never shown); an sqs destination's queue ARN.
   */
  url: string;
  /**
   * The IAM role the relay assumes to deliver (an sqs destination: the partner's role in their account);
   * null when it assumes none (https). An ARN, never a credential.
   */
  role: string | null;
  filter: { eventTypes: string[]; providers: string[]; accounts: string[] };
  ratePerSecond: number;
  concurrency: number;
  state: 'active' | 'paused' | 'disabled';
  pausedBy: string | null;
  pausedAt: string | null;
  disabledReason: string | null;
  disabledAt: string | null;
  failureStreak: number;
  lastAttempt: { at: string; status: number | null; outcome: string } | null;
  /** A secret rotation: who, when, and until when the replaced secret still signs. Never a secret. */
  rotation: { rotatedAt: string; rotatedBy: string; windowEndsAt: string; bothSigning: boolean } | null;
}

export interface DestinationsAnswer {
  destinations: DestinationView[];
}

export interface DestinationDeliveriesAnswer {
  destination: string;
  from: string;
  to: string;
  attempts: DeliveryAttempt[];
  next?: string;
}

export interface TransactionDeliveriesAnswer {
  correlationId: string;
  deliveries: Array<{
    eventId: string;
    eventType: string;
    occurredAt: string;
    destination: string;
    attempts: DeliveryAttempt[];
  }>;
}

export interface ReplayAnswer {
  destination: string;
  dryRun: boolean;
  count: number;
  selector: { correlationId?: string; eventType?: string; from?: string; to?: string };
}
