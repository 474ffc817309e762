import type { EventEnvelope } from './events';
import type { Money, TransactionKey, TransactionRecord } from './transaction';

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
  /** CallbackRejected, published through the stream like every other event. */
  outbox: EventEnvelope[];
}

export interface TransactionStore {
  recordReceipt(input: ReceiptInput): Promise<ReceiptResult>;
  getTransaction(key: TransactionKey): Promise<TransactionRecord | undefined>;
  /** Conditional on the item not existing; false when someone else created it first. */
  createTransaction(tx: TransactionRecord): Promise<boolean>;
  /** Conditional on the stored revision still being `expectedRevision`; false when it moved on. */
  replaceTransaction(tx: TransactionRecord, expectedRevision: number): Promise<boolean>;
  quarantine(input: QuarantineInput): Promise<void>;
  listReceipts(key: TransactionKey): Promise<ReceiptSummary[]>;
  /** Conditional on the alias not existing yet (first writer wins); false when it already existed. */
  putReferenceAlias(alias: ReferenceAlias): Promise<boolean>;
  /** The reference an alias points to, or undefined. */
  getReferenceAlias(key: ReferenceAliasKey): Promise<string | undefined>;
  /** A known C2B account number (BillRefNumber) of a provider account; `signal` aborts a slow lookup. */
  getC2BKnownAccount(
    key: C2BKnownAccountKey,
    options?: { signal?: AbortSignal },
  ): Promise<C2BKnownAccount | undefined>;
  /**
   * Conditional on no decision existing for the same transaction: the first decision is kept and its
   * outbox published once. Returns the decision that stands (the stored one when `written` is false).
   */
  recordC2BValidation(
    record: C2BValidationRecord,
  ): Promise<{ written: boolean; record: C2BValidationRecord }>;
  getC2BValidation(key: TransactionKey): Promise<C2BValidationRecord | undefined>;
}

export interface ReferenceAliasKey {
  provider: string;
  account: string;
  /** What the alias value is, e.g. "ConversationID". */
  namespace: string;
  value: string;
}

export interface ReferenceAlias extends ReferenceAliasKey {
  /** The transaction reference the alias stands for. */
  reference: string;
  createdAt: string;
}

/** Stored as pk `C2BACCT#<account>#<billRef>`, sk `C2BACCT` (C2B is a Daraja feature; account ids are Daraja's). */
export interface C2BKnownAccountKey {
  account: string;
  /** Canonical form (trimmed, upper case). */
  billRef: string;
}

export interface C2BKnownAccount extends C2BKnownAccountKey {
  /** False disables the account number without deleting it. */
  active: boolean;
  label: string | undefined;
}

/** The answer given to one C2B validation request; `outbox` carries C2BValidationDecided. */
export interface C2BValidationRecord {
  /** The C2B transaction: reference = TransID. */
  key: TransactionKey;
  decision: 'accept' | 'reject';
  resultCode: string;
  rule: string;
  detail: string;
  deadlineApplied: boolean;
  defaultApplied: boolean;
  sourceError: string | undefined;
  elapsedMs: number;
  billRefNumber: string | undefined;
  amount: Money | undefined;
  /** Masked as it arrived (or masked by the relay). */
  msisdn: string | undefined;
  receiptId: string;
  decidedAt: string;
  revision: number;
  outbox: EventEnvelope[];
}

/** Where normalized events go: EventBridge in the cloud, a JSON-lines file locally. */
export interface EventSink {
  publish(events: readonly EventEnvelope[]): Promise<void>;
}

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
