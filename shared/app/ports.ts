import type { EventEnvelope } from '../domain/event-envelope';
import type { ActorRef } from '../domain/actor';
import type { Money, TransactionKey, TransactionRecord } from '../domain/transaction';
import type { TransactionStatus } from '../domain/status';
import type { DecisionFacts } from '../providers/types';
import type { Badge, InvalidBadgeDate, RefusedBadge } from '../domain/badges';
import type { BadgeShopConfig } from '../config/schema';
import type { ProviderRecord, ProviderRecordRef } from '../domain/provider-record';

/** Structured logger (Powertools Logger satisfies it). Never pass secrets or full MSISDNs. */
export interface RelayLogger {
  debug(message: string, ...extra: Record<string, unknown>[]): void;
  info(message: string, ...extra: Record<string, unknown>[]): void;
  warn(message: string, ...extra: Record<string, unknown>[]): void;
  error(message: string, ...extra: Record<string, unknown>[]): void;
}

export interface ReceiptInput {
  /** The transaction the callback is about (callbacks that are not about one use a synthetic key). */
  key: TransactionKey;
  routeName: string;
  method: string;
  /** Path with any path secret replaced by {secret}. */
  path: string;
  headers: Record<string, string>;
  sourceIp: string;
  /** Body as stored: UTF-8 text with provider secrets already redacted. */
  body: string;
  receivedAt: string;
  /** How the callback was authenticated (path secret, hash recipe, IP check…). */
  verification: Record<string, unknown>;
  /** Same provider, account, route, reference and bytes ⇒ same key. */
  dedupeKey: string;
}

export interface ReceiptResult {
  receiptId: string;
  /** How many times these exact bytes arrived, this one included. */
  deliveries: number;
}

export interface ReceiptSummary {
  receiptId: string;
  routeName: string;
  method: string;
  sourceIp: string;
  firstReceivedAt: string;
  lastReceivedAt: string;
  deliveries: number;
  verification: Record<string, unknown>;
  bodyBytes: number;
  /** The body is not kept: the transaction's receipt budget was spent (its metadata stays). */
  bodyDropped?: boolean;
}

/** One page of a transaction's receipts, oldest first. */
export interface ReceiptPage {
  receipts: ReceiptSummary[];
  /** Pass back to read the next page; absent on the last. */
  next?: string;
}

/**
 * A request as the use cases see it, with no transport named: what a refused one leaves to record, what a
 * stored callback is routed again from (an inbound HTTP request satisfies it).
 */
export interface ReceivedRequest {
  requestId: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  rawBody: Buffer;
  sourceIp: string;
  receivedAt: Date;
}

export interface QuarantineInput {
  id: string;
  receivedAt: string;
  httpStatus: number;
  errorCode: string;
  message: string;
  provider: string | undefined;
  account: string | undefined;
  routeName: string | undefined;
  method: string;
  path: string;
  headers: Record<string, string>;
  sourceIp: string;
  /** UTF-8 text (or base64 when not valid UTF-8), possibly truncated; bodyBytes/bodySha256 describe the original. */
  body: string;
  bodyEncoding: 'utf8' | 'base64';
  bodyBytes: number;
  bodySha256: string;
  bodyTruncated: boolean;
  /**
   * The reference the refused callback aimed at, when its body named one (read with the provider's own
   * parser, never trusted for anything else): the transaction's story links its refused callbacks by it.
   */
  reference?: string;
  /** CallbackRejected, published through the stream like every other event. */
  outbox: EventEnvelope[];
}

/**
 * An operator's decision on a refused provider callback (docs/roles-and-audit.md#quarantine-decisions):
 * taken once; `state` is `applying` while an acceptance goes through the decision, then `done`.
 */
export interface QuarantineDecision {
  kind: 'accepted' | 'dismissed';
  at: string;
  by: ActorRef;
  note: string;
  /** Who holds it while it applies: a claim that failed to apply is released, never left half done. */
  claim: string;
  state: 'applying' | 'done';
  /** What an acceptance did: the transaction it applied to, its status after, the events. */
  applied?: { reference: string; status: string; events: string[] };
}

/** A refused callback noted under the reference it aimed at (QuarantineInput.reference). */
export interface RefusedCallbackRef {
  quarantineId: string;
  receivedAt: string;
  errorCode: string;
  httpStatus: number;
}

export interface ReadOptions {
  /** A strongly consistent read (twice the cost); the default is eventually consistent. */
  consistent?: boolean;
  /** Aborts a slow call (deadline-bound callers such as the C2B validation). */
  signal?: AbortSignal;
}

export interface WriteOptions {
  signal?: AbortSignal;
}

/** The core port: transactions, their receipts and quarantine. It names no provider. */
export interface TransactionStore {
  recordReceipt(input: ReceiptInput, options?: WriteOptions): Promise<ReceiptResult>;
  getTransaction(key: TransactionKey, options?: ReadOptions): Promise<TransactionRecord | undefined>;
  /** Conditional on the item not existing; false when someone else created it first. */
  createTransaction(tx: TransactionRecord, options?: WriteOptions): Promise<boolean>;
  /** Conditional on the stored revision still being `expectedRevision`; false when it moved on. */
  replaceTransaction(
    tx: TransactionRecord,
    expectedRevision: number,
    options?: WriteOptions,
  ): Promise<boolean>;
  quarantine(input: QuarantineInput): Promise<void>;
  /** A page of the transaction's receipts (summaries, never bodies), at most `limit`. */
  listReceipts(key: TransactionKey, page: { limit: number; after?: string }): Promise<ReceiptPage>;
  /** Keeps a receipt's metadata and drops its body (over the transaction's receipt budget). */
  dropReceiptBody(key: TransactionKey, receiptId: string, options?: WriteOptions): Promise<void>;
}

export type { ProviderRecord, ProviderRecordRef } from '../domain/provider-record';

/**
 * The generic, namespaced port for provider-specific storage, so the core port stays provider-neutral.
 * Records expire with the transactions (retention.transactionDays).
 */
export interface ProviderRecordStore {
  getRecord(ref: ProviderRecordRef, options?: ReadOptions): Promise<ProviderRecord | undefined>;
  /** First writer wins: returns the record that stands (the stored one when `written` is false). */
  putRecordIfAbsent(
    record: ProviderRecord,
    options?: WriteOptions,
  ): Promise<{ written: boolean; record: ProviderRecord }>;
  /**
   * Loads or replaces a record (operators' loaders, e.g. known C2B account numbers). A write on a callback's
   * ack path passes the ack budget's signal: cut there, it is abandoned, not left running after the ack.
   */
  putRecord(record: ProviderRecord, options?: WriteOptions): Promise<void>;
  /**
   * One atomic count against a budget (a record of its own): counted while under `limit`, else the
   * refusal is counted beside it. Lives `lifetimeSeconds` from its first count.
   */
  countRecord(
    ref: ProviderRecordRef,
    budget: { limit: number; at: string; lifetimeSeconds: number },
    options?: WriteOptions,
  ): Promise<{ counted: boolean; count: number; refused: number }>;
}

/** One entry of the due index: a non-final transaction and when its next status check is due. */
export interface DueItem {
  key: TransactionKey;
  dueAt: string;
}

/** The reconciliation work queue: a sparse index of due transactions, claimed with expiring leases. */
interface DueWorkStore {
  /** Items due at `now` (dueAt ≤ now), oldest first, at most `limit`; `readItems` = index entries read. */
  listDue(now: string, limit: number): Promise<{ items: DueItem[]; readItems: number }>;
  /**
   * Leases one item: if its dueAt is still `item.dueAt`, moves dueAt to the lease's end (so no other
   * poller lists it, and it comes back if this one crashes), records the owner, bumps the revision,
   * and returns the whole transaction as written. Undefined when another poller or a write moved it.
   */
  claimDue(item: DueItem, lease: { until: string; owner: string }): Promise<TransactionRecord | undefined>;
}

/** Transactions by creation time, for the reconciliation report. */
interface TimelineStore {
  listCreated(from: string, to: string): Promise<TransactionKey[]>;
}

/** A transaction as a daily close adds it up (the DynamoDB store reads it from its item). */
export interface AccountDayEntry {
  key: TransactionKey;
  /** Its day time (domain/statement-match.ts dayTimeOf), inside the range asked for. */
  at: string;
  status: TransactionStatus;
  amount: Money | undefined;
  providerTransactionId: string | undefined;
}

/** Transactions of one account by their day time (docs/table-design.md#statements): what a close reads. */
export interface AccountDayReader {
  /** The account's transactions whose day time is in [from, to), in time order. */
  listAccountDay(provider: string, account: string, from: string, to: string): Promise<AccountDayEntry[]>;
}

interface AccountDayStore extends AccountDayReader {
  /**
   * A reader of the same answers for one run over many accounts (the scheduled close): every account's
   * creations of a day are read once and kept for the run, so its reads grow with the days it spans, not
   * with accounts × days. Only for ended days, within one run: a transaction created after the first
   * read of its day is not seen. A store without the by-day index's account filter need not have it.
   */
  accountDayReaderForRun?(): AccountDayReader;
}

/**
 * Transactions stored before reconciliation existed (no `reconcile` state, so never in the due index): the
 * one-time `npm run reschedule` finds them (a scan of the table; docs/reconciliation.md#callback-health).
 */
export interface UnscheduledScan {
  /** One page of non-final transactions without a reconcile state; pass `cursor` back for the next. */
  scanUnscheduled(cursor?: string): Promise<{ keys: TransactionKey[]; cursor?: string }>;
}

/** A transaction's place in the by-day index, newest first by (createdAt, key): where a console page stops. */
export interface CreatedEntry {
  key: TransactionKey;
  createdAt: string;
}

/**
 * What a console lookup finds a transaction by (values known at registration): the externalId, or the
 * MSISDN's mask (of its international form) — never the number itself.
 */
export type LookupBy = 'externalId' | 'msisdn';

/**
 * A lookup entry: `numberHash`, on an msisdn entry, is the keyed hash of the full number
 * (util/msisdn.ts msisdnSearchHash), which tells the numbers that share one mask apart.
 */
export interface LookupEntry extends CreatedEntry {
  numberHash?: string;
}

/** One receipt as stored, its (redacted) body included. */
export interface StoredReceiptView extends ReceiptSummary {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** One stored quarantine entry (its outbox left out). */
export type QuarantineEntry = Omit<QuarantineInput, 'outbox'> & { decision?: QuarantineDecision };

/** The operator console's reads (docs/management-api.md#console-endpoints): indexes and keys, never a scan. */
export interface ConsoleStore {
  /**
   * Transactions created in [from, to], newest first by (createdAt, key), strictly after `before` in that
   * order; at most `limit`, `more` when the range holds more.
   */
  listCreatedPage(
    range: { from: string; to: string },
    page: { limit: number; before?: CreatedEntry },
  ): Promise<{ entries: CreatedEntry[]; more: boolean }>;
  /** Notes a registration's lookup value (idempotent; expires with the transaction), with its number hash. */
  putLookup(by: LookupBy, value: string, entry: LookupEntry): Promise<void>;
  /** Transactions noted under a lookup value, newest first, at most `limit`. */
  findLookups(by: LookupBy, value: string, limit: number): Promise<LookupEntry[]>;
  getReceipt(key: TransactionKey, receiptId: string): Promise<StoredReceiptView | undefined>;
  /**
   * One day's quarantine entries, newest first, strictly after `after` (an entry's `receivedAt#id`);
   * `facets`: only id, receivedAt, errorCode, provider, account, routeName and sourceIp (counting).
   */
  listQuarantineDay(
    day: string,
    page: { limit: number; after?: string; facets?: boolean },
  ): Promise<{ entries: QuarantineEntry[]; next?: string }>;
  /** One quarantine entry by its time and id (its key), with any decision taken on it. */
  getQuarantineEntry(receivedAt: string, id: string): Promise<QuarantineEntry | undefined>;
  /**
   * Takes the decision if none was taken (conditional): `taken`, `missing` (no such entry) or the decision
   * already there.
   */
  claimQuarantineDecision(
    receivedAt: string,
    id: string,
    decision: QuarantineDecision,
  ): Promise<{ result: 'taken' | 'missing' } | { result: 'decided'; decision: QuarantineDecision }>;
  /** Replaces the decision held by `decision.claim` (applied), or removes it (`undefined`: released). */
  settleQuarantineDecision(
    receivedAt: string,
    id: string,
    claim: string,
    decision: QuarantineDecision | undefined,
  ): Promise<void>;
  /** The refused callbacks that named this reference, newest first, at most `limit`. */
  listRefusedFor(key: TransactionKey, limit: number): Promise<RefusedCallbackRef[]>;
}

/**
 * One line of the audit log (docs/roles-and-audit.md#audit-log): who did what to what, when, and how it
 * ended. Written once, never changed.
 */
export interface AuditEntry {
  id: string;
  at: string;
  /** Null: nobody signed in (a refused sign-in). */
  actor: ActorRef | null;
  /** e.g. transaction.resolve, approval.approve, quarantine.accept, audit.export, sign-in. */
  action: string;
  /** What it acted on: `provider/account/reference`, `approval/<id>`, `quarantine/<id>`; null: nothing. */
  target: string | null;
  outcome: 'ok' | 'pending' | 'refused' | 'failed';
  httpStatus: number;
  /** A short account of it (the resolution asked for, why it was refused), scrubbed and bounded. */
  detail: string | null;
  method: string;
  path: string;
  sourceIp: string;
}

/** A resolution above its account's limit, waiting for a second person (docs/roles-and-audit.md#four-eyes). */
export interface ApprovalRequest {
  id: string;
  createdAt: string;
  /**
   * After this it can no longer be approved (it shows as expired). Not `expiresAt`: that name is the
   * table's TTL attribute (when the item itself goes).
   */
  openUntil: string;
  key: TransactionKey;
  /** The resolution as asked for (the resolve body, validated). */
  resolution: Record<string, unknown>;
  /** The amount the limit was compared with (null: unknown) and the limit. */
  amount: string | null;
  currency: string | null;
  limit: string;
  requestedBy: ActorRef;
  state: 'pending' | 'approved' | 'rejected' | 'failed';
  decidedBy: ActorRef | null;
  decidedAt: string | null;
  /** Why it was rejected, or why applying it failed. */
  decisionNote: string | null;
}

/** The audit log (append only: no update, no delete) and the approval requests. */
export interface OperationsStore {
  /** Conditional on the entry not existing: an entry is written once and never replaced. */
  appendAudit(entry: AuditEntry): Promise<void>;
  /** One day's audit entries, newest first, strictly after `after` (an entry's `at#id`). */
  listAuditDay(
    day: string,
    page: { limit: number; after?: string },
  ): Promise<{ entries: AuditEntry[]; next?: string }>;
  /** Conditional on the id being new. */
  createApproval(request: ApprovalRequest): Promise<void>;
  getApproval(id: string, options?: ReadOptions): Promise<ApprovalRequest | undefined>;
  /** Conditional on the stored state still being `expectedState`; false when it moved on. */
  decideApproval(request: ApprovalRequest, expectedState: ApprovalRequest['state']): Promise<boolean>;
  /** The newest approval requests first, at most `limit`. */
  listApprovals(limit: number): Promise<ApprovalRequest[]>;
}

/**
 * What the callback path stores and reads (receive-callback.ts and the ingest pipeline): the callback
 * function is wired with this much (shared/adapters/dynamodb/transaction-store.ts), so its bundle leaves
 * the other ports' code out.
 */
export type CallbackStore = TransactionStore & ProviderRecordStore;

/**
 * Reads of many items at once, for the statement import, the account-day reader and the poller: not on
 * the callback path (its bundle carries no batch command).
 */
interface BatchReadStore {
  /**
   * The transactions of these keys that exist, eventually consistent (every write after it is conditional
   * on what was read), in bounded requests (DynamoDB: BatchGetItem, 100 keys each): a statement import
   * reads a batch of rows' transactions at once instead of one request a row.
   */
  getTransactions(keys: readonly TransactionKey[]): Promise<TransactionRecord[]>;
  /**
   * The records of these refs that exist (live), eventually consistent unless `consistent`, in bounded
   * requests (getTransactions): the poller reads each account's records of a cycle at once.
   */
  getRecords(
    refs: readonly ProviderRecordRef[],
    options?: { consistent?: boolean },
  ): Promise<ProviderRecord[]>;
}

export type RelayStore = CallbackStore &
  BatchReadStore &
  DueWorkStore &
  TimelineStore &
  AccountDayStore &
  ConsoleStore &
  OperationsStore;

/** Where normalized events go: EventBridge in the cloud, a JSON-lines file locally. */
/** Reads a secret's value by id (Secrets Manager in the cloud): an adapter wired by the runtime. */
export type SecretReader = (secretId: string) => Promise<string>;

/** `fetch` as the relay's outbound calls use it (partner endpoints, badge APIs); injectable for tests. */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export interface EventSink {
  publish(events: readonly EventEnvelope[]): Promise<void>;
}

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/**
 * Operational metrics (Powertools Metrics / CloudWatch EMF in AWS, printed locally). Names are
 * PascalCase; dimensions are low-cardinality (provider, account, kind, origin), never a reference.
 */
export interface RelayMetrics {
  count(name: string, value?: number, dimensions?: Record<string, string>): void;
  /** A duration in milliseconds. */
  timing(name: string, ms: number, dimensions?: Record<string, string>): void;
  /** Writes what was collected (one EMF blob per invocation in AWS). */
  flush(): void;
}

export const noMetrics: RelayMetrics = { count: () => {}, timing: () => {}, flush: () => {} };

/**
 * A callback accepted while the store could not be written, kept with everything needed to apply it
 * later exactly as the direct path would have (docs/ingress-buffer.md). Version 1; a consumer refuses
 * versions it does not know (they go to the dead-letter queue, never applied by guesswork).
 */
export interface BufferedCallback {
  version: 1;
  kind: 'callback';
  /** The request id of the delivery (logs join on it). */
  requestId: string;
  provider: string;
  account: string;
  route: string;
  params: Record<string, string>;
  method: string;
  /** Path with any path secret replaced by {secret}. */
  path: string;
  /** Headers as a receipt keeps them (storableHeaders: no credentials). */
  headers: Record<string, string>;
  sourceIp: string;
  receivedAt: string;
  /** The body as the receipt stores it: UTF-8 text, provider secrets redacted. */
  body: string;
  /** The signed part the provider's verification trusted (redacted), when it is not the whole body. */
  trustedBody?: Record<string, unknown>;
  verification: Record<string, unknown>;
  authenticated: boolean;
  confirmUnsignedSuccess: boolean;
  /** SHA-256 (hex) of the bytes as received: the receipt's dedupe key, so a copy dedupes with its original. */
  rawBodySha256: string;
  bufferedAt: string;
  /** Why the direct write did not happen (an error message, scrubbed; "budget" when it ran out of time). */
  why: string;
}

/**
 * A provider question answered (within its deadline) before its receipt and decision record could be
 * stored: both are written when the buffer is applied, the decision first-writer-wins as always. The
 * facts are the provider's (its decision handler checks them when the buffer is read back).
 */
export interface BufferedDecision extends Omit<
  BufferedCallback,
  'kind' | 'params' | 'trustedBody' | 'authenticated' | 'confirmUnsignedSuccess'
> {
  kind: 'decision';
  /** The provider's decision handler that made it (e.g. Daraja's "c2b-validation"). */
  useCase: string;
  /** The question's transaction reference (Daraja: the C2B TransID). */
  reference: string;
  outcome: DecisionFacts;
}

/** What the buffer carries, by `kind`. */
export type BufferedMessage = BufferedCallback | BufferedDecision;

/** Where callbacks go when the store cannot take them: SQS in the cloud, a spool directory locally. */
export interface IngressBuffer {
  /** Durably accepted when it resolves; throws (a StorageUnavailableError) otherwise. */
  accept(message: BufferedMessage, options?: { signal?: AbortSignal }): Promise<{ id: string }>;
}

/** One shop's badge API, as the badge feed reads it (docs/badges.md). Failures are BadgeReadError. */
export interface BadgeApi {
  list(): Promise<{ badges: Badge[]; invalidDates: InvalidBadgeDate[]; refused: RefusedBadge[] }>;
  /** The single badge, or null when the shop confirms it is gone. */
  get(id: string): Promise<Badge | null>;
}

/**
 * Opens a shop's badge API for one read: its credentials resolved (each value pushed to `secrets` as soon
 * as it is known, so any failure can be scrubbed of it), `count` called per HTTP call, every call bounded by
 * the shop's timeout and the cycle's `budget`.
 */
export type BadgeApiSource = (
  shop: BadgeShopConfig,
  call: { secrets: string[]; count: () => void; budget: AbortSignal | undefined },
) => Promise<BadgeApi>;
