import {
  type AttributeValue,
  ConditionalCheckFailedException,
  type ConsumedCapacity,
} from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type {
  AccountDayEntry,
  ApprovalRequest,
  AuditEntry,
  CreatedEntry,
  DueItem,
  LookupBy,
  LookupEntry,
  ProviderRecord,
  ProviderRecordRef,
  QuarantineDecision,
  QuarantineEntry,
  QuarantineInput,
  ReadOptions,
  ReceiptInput,
  ReceiptResult,
  ReceiptPage,
  RefusedCallbackRef,
  RelayStore,
  StoredReceiptView,
  WriteOptions,
} from '../../app/ports';
import { StorageUnavailableError, UnstorableInputError } from '../../domain/errors';
import { dueAtOf } from '../../domain/reconcile-schedule';
import { isFinal } from '../../domain/status';
import { dayTimeOf, MOVED_AT_ATTRIBUTE } from '../../domain/statement-match';
import { compactOutbox, expandOutbox, type StoredOutboxEntry } from '../../domain/outbox';
import type { TransactionKey, TransactionRecord } from '../../domain/transaction';
import { sha256Hex } from '../../util/ids';
import {
  ACCOUNT_DAY_INDEX,
  accountDayEntryIn,
  accountDayKeyTime,
  accountDayPartition,
  accountDayRangeStart,
  APPROVAL_PK,
  AUDIT_PK_PREFIX,
  DAY_INDEX,
  DUE_INDEX,
  LOOKUP_PK_PREFIX,
  QUARANTINE_PK_PREFIX,
  RECEIPT_SK_PREFIX,
  refusedPk,
  TX_SK,
  transactionPk,
} from './table';
import { compactTransactionItem, keyOfPk, widenTransactionItem } from './transaction-item';
import { batchGetItems } from './batch-get';
import { packedReceiptOf, packReceipt, RECEIPT_PACKED_ATTRIBUTE, widenReceiptItem } from './receipt-item';

export interface RelayStoreOptions {
  tableName: string;
  retention: { receiptDays: number; quarantineDays: number; transactionDays: number };
  /** Shards of the due and by-day indexes (reconciliation.shards); every poller must use the same. */
  shards?: number;
  /** Bench hook: called with the write/read units every operation consumed. */
  onConsumedCapacity?: (operation: string, capacity: ConsumedCapacity | undefined) => void;
}

const DAY = 86_400;

/**
 * Provider records beside the transaction collections (docs/table-design.md):
 *   pk REC#<provider>#<account>#<namespace>#<id>   sk REC   a C2B decision, a known C2B account number,
 *                                                           a reference alias… (namespaces are the provider's)
 */
const RECORD_SK = 'REC';

function providerRecordPk(ref: ProviderRecordRef): string {
  return `REC#${ref.provider}#${ref.account}#${ref.namespace}#${ref.id}`;
}

/** A record item as the port answers it; undefined once its own lifetime ended. */
function recordOf(ref: ProviderRecordRef, item: Record<string, unknown>): ProviderRecord | undefined {
  // DynamoDB's TTL deletes lazily (up to days later): a record with its own lifetime ends on time.
  if (item.lifetimeSeconds && Number(item.expiresAt) * 1000 <= Date.now()) return undefined;
  return {
    provider: ref.provider,
    account: ref.account,
    namespace: ref.namespace,
    id: ref.id,
    data: (item.data as Record<string, unknown>) ?? {},
    createdAt: String(item.createdAt ?? ''),
  };
}

function epochSeconds(iso: string, plusDays: number): number {
  return Math.floor(Date.parse(iso) / 1000) + plusDays * DAY;
}

/**
 * Errors that say the input cannot be stored (DynamoDB's ValidationException: item or key too large,
 * nesting too deep; the marshaller refusing a value) are bad input, not an outage.
 */
function isInputRefusal(error: unknown): boolean {
  const name = (error as { name?: string }).name;
  const message = (error as Error).message ?? '';
  return (
    name === 'ValidationException' ||
    /^(Unsupported type passed|Pass options\.removeUndefinedValues|Number .* is (greater|lesser) than|Special numeric value)/.test(
      message,
    )
  );
}

export async function guard<T>(operation: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) throw error;
    if (isInputRefusal(error)) {
      throw new UnstorableInputError(`The store refused this input (${operation})`, { cause: error });
    }
    throw new StorageUnavailableError(`DynamoDB ${operation} failed: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/** A transaction item (as read, or as a stream image; either layout) without its table attributes. */
export function toRecord(stored: Record<string, unknown>): TransactionRecord {
  const item = widenTransactionItem(stored);
  const {
    pk: _pk,
    sk: _sk,
    itemType: _t,
    expiresAt: _e,
    [DUE_INDEX.partitionKey]: _shard,
    [DUE_INDEX.sortKey]: _due,
    [DAY_INDEX.partitionKey]: _day,
    [ACCOUNT_DAY_INDEX.partitionKey]: _accountDay,
    [ACCOUNT_DAY_INDEX.sortKey]: _dayAt,
    provider,
    account,
    reference,
    ...rest
  } = item;
  const outbox = Array.isArray(rest.outbox)
    ? expandOutbox(rest.outbox as StoredOutboxEntry[], item)
    : rest.outbox;
  return { key: { provider, account, reference }, ...rest, outbox } as unknown as TransactionRecord;
}

/** The account-day index's sort key (`dayAt`) of a transaction, by the slack's rule (table.ts). */
function accountDayKeyOf(tx: Parameters<typeof dayTimeOf>[0]): string {
  return accountDayKeyTime(dayTimeOf(tx), tx.createdAt, Boolean(tx.attributes?.[MOVED_AT_ATTRIBUTE]));
}

/** The shard of a transaction in the indexes: stable, spread by a hash of its key. */
function shardOf(pk: string, shards: number): number {
  return parseInt(sha256Hex(pk).slice(0, 8), 16) % shards;
}

function* daysBetween(from: string, to: string): Generator<string> {
  const end = Date.parse(to.slice(0, 10));
  for (let day = Date.parse(from.slice(0, 10)); day <= end; day += DAY * 1000)
    yield new Date(day).toISOString().slice(0, 10);
}

export class DynamoRelayStore implements RelayStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly options: RelayStoreOptions,
  ) {}

  private get capacity() {
    return this.options.onConsumedCapacity ? ('TOTAL' as const) : undefined;
  }

  private report(operation: string, capacity: ConsumedCapacity | undefined) {
    this.options.onConsumedCapacity?.(operation, capacity);
  }

  private get shards(): number {
    return this.options.shards ?? 4;
  }

  private transactionItem(tx: TransactionRecord): Record<string, unknown> {
    const { key, ...rest } = tx;
    const pk = transactionPk(key);
    const shard = shardOf(pk, this.shards);
    // Sparse: only a transaction with a next check is in the due index (dueAtOf says which).
    const dueAt = dueAtOf(tx);
    const dayAt = accountDayKeyOf(tx);
    const item: Record<string, unknown> = {
      ...(dueAt ? { [DUE_INDEX.partitionKey]: `DUE#${shard}`, [DUE_INDEX.sortKey]: dueAt } : {}),
      [DAY_INDEX.partitionKey]: `${tx.createdAt.slice(0, 10)}#${shard}`,
      // The creation's while open; kept by a verdict within the slack (a first callback rewrites the entry
      // in place), else moved once to the verdict's: a close reads its day and the slack before it only.
      [ACCOUNT_DAY_INDEX.partitionKey]: accountDayPartition(key.provider, key.account, dayAt),
      [ACCOUNT_DAY_INDEX.sortKey]: dayAt,
      pk,
      sk: TX_SK,
      itemType: 'transaction',
      provider: key.provider,
      account: key.account,
      reference: key.reference,
      ...rest,
      // The hot window: a final transaction leaves the table transactionDays after its last change
      // (TTL); one still open stays however long it takes (docs/deploy.md#retention-the-hot-window).
      ...(isFinal(tx.status)
        ? { expiresAt: epochSeconds(tx.updatedAt, this.options.retention.transactionDays) }
        : {}),
    };
    // Its events' data name what the item holds rather than repeat it (domain/outbox.ts).
    item.outbox = compactOutbox(rest.outbox ?? [], item);
    // Stored compact (transaction-item.ts): under 1 KB, one write unit, for a first callback.
    return compactTransactionItem(item);
  }

  async recordReceipt(input: ReceiptInput, options: WriteOptions = {}): Promise<ReceiptResult> {
    const receiptId = input.dedupeKey.slice(0, 32);
    // Stored compact (receipt-item.ts): the receipt id is the sk's, provider, account and reference the pk's.
    const always: Record<string, unknown> = {
      itemType: 'receipt',
      routeName: input.routeName,
      bodyBytes: Buffer.byteLength(input.body),
      lastReceivedAt: input.receivedAt,
      expiresAt: epochSeconds(input.receivedAt, this.options.retention.receiptDays),
    };
    // What the first delivery saw is kept; repeats only move lastReceivedAt and the counter.
    const firstOnly: Record<string, unknown> = {
      method: input.method,
      sourceIp: input.sourceIp,
      verification: input.verification,
      firstReceivedAt: input.receivedAt,
      [RECEIPT_PACKED_ATTRIBUTE]: packReceipt({
        dedupeKey: input.dedupeKey,
        path: input.path,
        headers: input.headers,
        body: input.body,
      }),
    };
    const names: Record<string, string> = { '#deliveries': 'deliveries' };
    const values: Record<string, unknown> = { ':one': 1 };
    const sets: string[] = [];
    for (const [name, value] of Object.entries(always)) {
      names[`#${name}`] = name;
      values[`:${name}`] = value;
      sets.push(`#${name} = :${name}`);
    }
    for (const [name, value] of Object.entries(firstOnly)) {
      names[`#${name}`] = name;
      values[`:${name}`] = value;
      sets.push(`#${name} = if_not_exists(#${name}, :${name})`);
    }
    // One unconditional atomic update: the first delivery creates the item, repeats bump the counter,
    // so dedupe costs no extra read and concurrent identical deliveries each learn their ordinal.
    const result = await guard('recordReceipt', () =>
      this.doc.send(
        new UpdateCommand({
          TableName: this.options.tableName,
          Key: { pk: transactionPk(input.key), sk: `${RECEIPT_SK_PREFIX}${receiptId}` },
          UpdateExpression: `SET ${sets.join(', ')} ADD #deliveries :one`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'UPDATED_NEW',
          ReturnConsumedCapacity: this.capacity,
        }),
        { abortSignal: options.signal },
      ),
    );
    this.report('recordReceipt', result.ConsumedCapacity);
    return { receiptId, deliveries: Number(result.Attributes?.deliveries ?? 1) };
  }

  async getTransaction(
    key: TransactionKey,
    options: ReadOptions = {},
  ): Promise<TransactionRecord | undefined> {
    const result = await guard('getTransaction', () =>
      this.doc.send(
        new GetCommand({
          TableName: this.options.tableName,
          Key: { pk: transactionPk(key), sk: TX_SK },
          // Eventually consistent by default: every write after it is conditional on what was read.
          ConsistentRead: options.consistent === true,
          ReturnConsumedCapacity: this.capacity,
        }),
        { abortSignal: options.signal },
      ),
    );
    this.report('getTransaction', result.ConsumedCapacity);
    return result.Item ? toRecord(result.Item) : undefined;
  }

  async getTransactions(keys: readonly TransactionKey[]): Promise<TransactionRecord[]> {
    const items = await batchGetItems(
      this.doc,
      keys.map((key) => ({ pk: transactionPk(key), sk: TX_SK })),
      {
        tableName: this.options.tableName,
        operation: 'getTransactions',
        onConsumedCapacity: this.options.onConsumedCapacity,
      },
    );
    return items.map((item) => toRecord(item));
  }

  async createTransaction(tx: TransactionRecord, options: WriteOptions = {}): Promise<boolean> {
    return this.conditionalPut(
      'createTransaction',
      this.transactionItem(tx),
      'attribute_not_exists(pk)',
      {},
      options.signal,
    );
  }

  async replaceTransaction(
    tx: TransactionRecord,
    expectedRevision: number,
    options: WriteOptions = {},
  ): Promise<boolean> {
    return this.conditionalPut(
      'replaceTransaction',
      this.transactionItem(tx),
      'revision = :expected',
      { ':expected': expectedRevision },
      options.signal,
    );
  }

  private async conditionalPut(
    operation: string,
    item: Record<string, unknown>,
    condition: string,
    values: Record<string, unknown>,
    signal?: AbortSignal,
    names?: Record<string, string>,
  ): Promise<boolean> {
    try {
      const result = await guard(operation, () =>
        this.doc.send(
          new PutCommand({
            TableName: this.options.tableName,
            Item: item,
            ConditionExpression: condition,
            ExpressionAttributeValues: Object.keys(values).length ? values : undefined,
            ...(names ? { ExpressionAttributeNames: names } : {}),
            ReturnConsumedCapacity: this.capacity,
          }),
          { abortSignal: signal },
        ),
      );
      this.report(operation, result.ConsumedCapacity);
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  async quarantine(input: QuarantineInput): Promise<void> {
    const day = input.receivedAt.slice(0, 10);
    const written = await this.conditionalPut(
      'quarantine',
      {
        pk: `${QUARANTINE_PK_PREFIX}${day}`,
        sk: `${input.receivedAt}#${input.id}`,
        itemType: 'quarantine',
        ...input,
        revision: 1,
        expiresAt: epochSeconds(input.receivedAt, this.options.retention.quarantineDays),
      },
      'attribute_not_exists(pk)',
      {},
    );
    if (!written) throw new StorageUnavailableError(`quarantine id ${input.id} collided`);
    if (input.reference && input.provider && input.account) {
      // Noted under the reference it aimed at, so the transaction's story finds it with one bounded query
      // (docs/table-design.md#refused-callbacks); it expires with the entry.
      const ref: RefusedCallbackRef = {
        quarantineId: input.id,
        receivedAt: input.receivedAt,
        errorCode: input.errorCode,
        httpStatus: input.httpStatus,
      };
      await this.conditionalPut(
        'quarantine',
        {
          pk: refusedPk({ provider: input.provider, account: input.account, reference: input.reference }),
          sk: `${input.receivedAt}#${input.id}`,
          itemType: 'refused-callback',
          ...ref,
          expiresAt: epochSeconds(input.receivedAt, this.options.retention.quarantineDays),
        },
        'attribute_not_exists(pk)',
        {},
      );
    }
  }

  async getQuarantineEntry(receivedAt: string, id: string): Promise<QuarantineEntry | undefined> {
    const result = await guard('getQuarantineEntry', () =>
      this.doc.send(
        new GetCommand({
          TableName: this.options.tableName,
          Key: { pk: `${QUARANTINE_PK_PREFIX}${receivedAt.slice(0, 10)}`, sk: `${receivedAt}#${id}` },
          ConsistentRead: true,
          ReturnConsumedCapacity: this.capacity,
        }),
      ),
    );
    this.report('getQuarantineEntry', result.ConsumedCapacity);
    if (!result.Item) return undefined;
    const { pk: _pk, sk: _sk, itemType: _t, outbox: _o, revision: _r, expiresAt: _e, ...entry } = result.Item;
    return entry as QuarantineEntry;
  }

  async claimQuarantineDecision(
    receivedAt: string,
    id: string,
    decision: QuarantineDecision,
  ): Promise<{ result: 'taken' | 'missing' } | { result: 'decided'; decision: QuarantineDecision }> {
    try {
      const result = await guard('claimQuarantineDecision', () =>
        this.doc.send(
          new UpdateCommand({
            TableName: this.options.tableName,
            Key: { pk: `${QUARANTINE_PK_PREFIX}${receivedAt.slice(0, 10)}`, sk: `${receivedAt}#${id}` },
            // The revision does not move: the stream does not publish the entry's CallbackRejected again.
            UpdateExpression: 'SET #decision = :decision',
            ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(#decision)',
            ExpressionAttributeNames: { '#decision': 'decision' },
            ExpressionAttributeValues: { ':decision': decision },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            ReturnConsumedCapacity: this.capacity,
          }),
        ),
      );
      this.report('claimQuarantineDecision', result.ConsumedCapacity);
      return { result: 'taken' };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const old = error.Item ? unmarshall(error.Item as Record<string, AttributeValue>) : undefined;
      if (!old) return { result: 'missing' };
      return { result: 'decided', decision: old.decision as QuarantineDecision };
    }
  }

  async settleQuarantineDecision(
    receivedAt: string,
    id: string,
    claim: string,
    decision: QuarantineDecision | undefined,
  ): Promise<void> {
    const result = await guard('settleQuarantineDecision', () =>
      this.doc.send(
        new UpdateCommand({
          TableName: this.options.tableName,
          Key: { pk: `${QUARANTINE_PK_PREFIX}${receivedAt.slice(0, 10)}`, sk: `${receivedAt}#${id}` },
          UpdateExpression: decision ? 'SET #decision = :decision' : 'REMOVE #decision',
          ConditionExpression: '#decision.#claim = :claim',
          ExpressionAttributeNames: { '#decision': 'decision', '#claim': 'claim' },
          ExpressionAttributeValues: { ':claim': claim, ...(decision ? { ':decision': decision } : {}) },
          ReturnConsumedCapacity: this.capacity,
        }),
      ),
    );
    this.report('settleQuarantineDecision', result.ConsumedCapacity);
  }

  async listRefusedFor(key: TransactionKey, limit: number): Promise<RefusedCallbackRef[]> {
    const result = await guard('listRefusedFor', () =>
      this.doc.send(
        new QueryCommand({
          TableName: this.options.tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': refusedPk(key) },
          ScanIndexForward: false,
          Limit: limit,
          ReturnConsumedCapacity: this.capacity,
        }),
      ),
    );
    this.report('listRefusedFor', result.ConsumedCapacity);
    return (result.Items ?? []).map((item) => ({
      quarantineId: String(item.quarantineId),
      receivedAt: String(item.receivedAt),
      errorCode: String(item.errorCode),
      httpStatus: Number(item.httpStatus),
    }));
  }

  /**
   * The audit log: a put conditional on the item not existing, so an entry is written once and nothing
   * (in this code) updates or deletes one; it expires with the transactions (retention.transactionDays).
   */
  async appendAudit(entry: AuditEntry): Promise<void> {
    const written = await this.conditionalPut(
      'appendAudit',
      {
        pk: `${AUDIT_PK_PREFIX}${entry.at.slice(0, 10)}`,
        sk: `${entry.at}#${entry.id}`,
        itemType: 'audit',
        ...entry,
        expiresAt: epochSeconds(entry.at, this.options.retention.transactionDays),
      },
      'attribute_not_exists(pk)',
      {},
    );
    if (!written) throw new StorageUnavailableError(`audit entry id ${entry.id} collided`);
  }

  async listAuditDay(
    day: string,
    page: { limit: number; after?: string },
  ): Promise<{ entries: AuditEntry[]; next?: string }> {
    const pk = `${AUDIT_PK_PREFIX}${day}`;
    const result = await guard('listAuditDay', () =>
      this.doc.send(
        new QueryCommand({
          TableName: this.options.tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': pk },
          ScanIndexForward: false,
          Limit: page.limit,
          ExclusiveStartKey: page.after ? { pk, sk: page.after } : undefined,
        }),
      ),
    );
    const entries = (result.Items ?? []).map((item) => {
      const { pk: _pk, sk: _sk, itemType: _t, expiresAt: _e, ...entry } = item;
      return entry as AuditEntry;
    });
    const last = entries.at(-1);
    return { entries, ...(result.LastEvaluatedKey && last ? { next: `${last.at}#${last.id}` } : {}) };
  }

  private approvalItem(request: ApprovalRequest): Record<string, unknown> {
    // Kept a month past its expiry for the approvals list; the audit log keeps the decision longer.
    return {
      pk: APPROVAL_PK,
      sk: request.id,
      itemType: 'approval',
      ...request,
      expiresAt: epochSeconds(request.openUntil, 30),
    };
  }

  async createApproval(request: ApprovalRequest): Promise<void> {
    const written = await this.conditionalPut(
      'createApproval',
      this.approvalItem(request),
      'attribute_not_exists(pk)',
      {},
    );
    if (!written) throw new StorageUnavailableError(`approval id ${request.id} collided`);
  }

  async getApproval(id: string, options: ReadOptions = {}): Promise<ApprovalRequest | undefined> {
    const result = await guard('getApproval', () =>
      this.doc.send(
        new GetCommand({
          TableName: this.options.tableName,
          Key: { pk: APPROVAL_PK, sk: id },
          ConsistentRead: options.consistent ?? false,
        }),
        { abortSignal: options.signal },
      ),
    );
    if (!result.Item) return undefined;
    const { pk: _pk, sk: _sk, itemType: _t, expiresAt: _e, ...request } = result.Item;
    return request as ApprovalRequest;
  }

  async decideApproval(request: ApprovalRequest, expectedState: ApprovalRequest['state']): Promise<boolean> {
    return this.conditionalPut(
      'decideApproval',
      this.approvalItem(request),
      '#state = :expected',
      {
        ':expected': expectedState,
      },
      undefined,
      { '#state': 'state' },
    );
  }

  async listApprovals(limit: number): Promise<ApprovalRequest[]> {
    const result = await guard('listApprovals', () =>
      this.doc.send(
        new QueryCommand({
          TableName: this.options.tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': APPROVAL_PK },
          ScanIndexForward: false,
          Limit: limit,
        }),
      ),
    );
    return (result.Items ?? []).map((item) => {
      const { pk: _pk, sk: _sk, itemType: _t, expiresAt: _e, ...request } = item;
      return request as ApprovalRequest;
    });
  }

  async listReceipts(key: TransactionKey, page: { limit: number; after?: string }): Promise<ReceiptPage> {
    const summary = [
      'sk',
      'routeName',
      'method',
      'sourceIp',
      'firstReceivedAt',
      'lastReceivedAt',
      'deliveries',
      'verification',
      'bodyBytes',
      'bodyDropped',
    ];
    // Summaries only: a receipt's body may be 240 KB, and a history of hundreds must not read them all.
    const result = await guard('listReceipts', () =>
      this.doc.send(
        new QueryCommand({
          TableName: this.options.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': transactionPk(key), ':prefix': RECEIPT_SK_PREFIX },
          ProjectionExpression: summary.map((_, i) => `#p${i}`).join(', '),
          ExpressionAttributeNames: Object.fromEntries(summary.map((name, i) => [`#p${i}`, name])),
          Limit: page.limit,
          ExclusiveStartKey: page.after
            ? { pk: transactionPk(key), sk: `${RECEIPT_SK_PREFIX}${page.after}` }
            : undefined,
          ReturnConsumedCapacity: this.capacity,
        }),
      ),
    );
    this.report('listReceipts', result.ConsumedCapacity);
    const receipts = (result.Items ?? []).map((item) => ({
      // A compact receipt's id is its sk's (receipt-item.ts); one in the plain layout also has it plain.
      receiptId: String(item.sk).slice(RECEIPT_SK_PREFIX.length),
      routeName: String(item.routeName),
      method: String(item.method),
      sourceIp: String(item.sourceIp),
      firstReceivedAt: String(item.firstReceivedAt),
      lastReceivedAt: String(item.lastReceivedAt),
      deliveries: Number(item.deliveries ?? 1),
      verification: (item.verification as Record<string, unknown>) ?? {},
      bodyBytes: Number(item.bodyBytes ?? 0),
      ...(item.bodyDropped === true ? { bodyDropped: true } : {}),
    }));
    const last = receipts.at(-1);
    return { receipts, ...(result.LastEvaluatedKey && last ? { next: last.receiptId } : {}) };
  }

  async dropReceiptBody(key: TransactionKey, receiptId: string, options: WriteOptions = {}): Promise<void> {
    const itemKey = { pk: transactionPk(key), sk: `${RECEIPT_SK_PREFIX}${receiptId}` };
    // A compact receipt's body is inside `r` (receipt-item.ts): rewritten without it. Rare (a transaction
    // over its receipt budget), so the read first costs little; a repeat delivery never rewrites `r`.
    const { Item } = await guard('dropReceiptBody', () =>
      this.doc.send(
        new GetCommand({ TableName: this.options.tableName, Key: itemKey, ConsistentRead: true }),
        {
          abortSignal: options.signal,
        },
      ),
    );
    const packed = packedReceiptOf(Item);
    const result = await guard('dropReceiptBody', () =>
      this.doc.send(
        new UpdateCommand({
          TableName: this.options.tableName,
          Key: itemKey,
          UpdateExpression: 'SET #body = :none, #dropped = :yes',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: {
            '#body': packed ? RECEIPT_PACKED_ATTRIBUTE : 'body',
            '#dropped': 'bodyDropped',
          },
          ExpressionAttributeValues: {
            ':none': packed ? packReceipt({ ...packed, body: '' }) : '',
            ':yes': true,
          },
          ReturnConsumedCapacity: this.capacity,
        }),
        { abortSignal: options.signal },
      ),
    ).catch((error: unknown) => {
      if (error instanceof ConditionalCheckFailedException) return undefined;
      throw error;
    });
    if (result) this.report('dropReceiptBody', result.ConsumedCapacity);
  }

  /** Quarantine entries of one UTC day, newest first (operators' view; see docs/table-design.md). */
  async listQuarantine(day: string, limit = 50): Promise<Record<string, unknown>[]> {
    const page = await guard('listQuarantine', () =>
      this.doc.send(
        new QueryCommand({
          TableName: this.options.tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': `${QUARANTINE_PK_PREFIX}${day}` },
          ScanIndexForward: false,
          Limit: limit,
        }),
      ),
    );
    return page.Items ?? [];
  }
  private recordItem(record: ProviderRecord): Record<string, unknown> {
    return {
      pk: providerRecordPk(record),
      sk: RECORD_SK,
      itemType: 'provider-record',
      ...record,
      // The stream publishes a record's outbox when its revision moves (its first write).
      revision: 1,
      expiresAt: record.lifetimeSeconds
        ? Math.floor(Date.parse(record.createdAt) / 1000) + record.lifetimeSeconds
        : epochSeconds(record.createdAt, this.options.retention.transactionDays),
    };
  }

  async getRecord(ref: ProviderRecordRef, options: ReadOptions = {}): Promise<ProviderRecord | undefined> {
    const result = await guard('getRecord', () =>
      this.doc.send(
        new GetCommand({
          TableName: this.options.tableName,
          Key: { pk: providerRecordPk(ref), sk: RECORD_SK },
          ConsistentRead: options.consistent === true,
          ReturnConsumedCapacity: this.capacity,
        }),
        { abortSignal: options.signal },
      ),
    );
    this.report('getRecord', result.ConsumedCapacity);
    return result.Item ? recordOf(ref, result.Item) : undefined;
  }

  async getRecords(refs: readonly ProviderRecordRef[]): Promise<ProviderRecord[]> {
    const byPk = new Map(refs.map((ref) => [providerRecordPk(ref), ref]));
    const items = await batchGetItems(
      this.doc,
      [...byPk.keys()].map((pk) => ({ pk, sk: RECORD_SK })),
      {
        tableName: this.options.tableName,
        operation: 'getRecords',
        onConsumedCapacity: this.options.onConsumedCapacity,
      },
    );
    return items.flatMap((item) => {
      const ref = byPk.get(String(item.pk));
      const record = ref && recordOf(ref, item);
      return record ? [record] : [];
    });
  }

  async putRecordIfAbsent(
    record: ProviderRecord,
    options: WriteOptions = {},
  ): Promise<{ written: boolean; record: ProviderRecord }> {
    const written = await this.conditionalPut(
      'putRecordIfAbsent',
      this.recordItem(record),
      'attribute_not_exists(pk)',
      {},
      options.signal,
    );
    if (written) return { written, record };
    const existing = await this.getRecord(record, { consistent: true, signal: options.signal });
    if (!existing) throw new StorageUnavailableError(`record ${record.namespace} exists but cannot be read`);
    return { written, record: existing };
  }

  async countRecord(
    ref: ProviderRecordRef,
    budget: { limit: number; at: string; lifetimeSeconds: number },
    options: WriteOptions = {},
  ): Promise<{ counted: boolean; count: number; refused: number }> {
    const key = { pk: providerRecordPk(ref), sk: RECORD_SK };
    const names = {
      '#type': 'itemType',
      '#provider': 'provider',
      '#account': 'account',
      '#namespace': 'namespace',
      '#id': 'id',
      '#created': 'createdAt',
      '#expires': 'expiresAt',
    };
    const values = {
      ':type': 'provider-record',
      ':provider': ref.provider,
      ':account': ref.account,
      ':namespace': ref.namespace,
      ':id': ref.id,
      ':created': budget.at,
      ':expires': Math.floor(Date.parse(budget.at) / 1000) + budget.lifetimeSeconds,
      ':one': 1,
    };
    const sets = Object.keys(names)
      .map((name) => `${name} = if_not_exists(${name}, :${name.slice(1)})`)
      .join(', ');
    const send = (counter: string, condition?: string) =>
      guard('countRecord', () =>
        this.doc.send(
          new UpdateCommand({
            TableName: this.options.tableName,
            Key: key,
            UpdateExpression: `SET ${sets} ADD #${counter} :one`,
            ConditionExpression: condition,
            ExpressionAttributeNames: {
              ...names,
              [`#${counter}`]: counter,
              ...(condition ? { '#counted': 'counted' } : {}),
            },
            ExpressionAttributeValues: condition ? { ...values, ':limit': budget.limit } : values,
            ReturnValues: 'ALL_NEW',
            ReturnConsumedCapacity: this.capacity,
          }),
          { abortSignal: options.signal },
        ),
      );
    try {
      const result = await send('counted', 'attribute_not_exists(#counted) OR #counted < :limit');
      this.report('countRecord', result.ConsumedCapacity);
      return {
        counted: true,
        count: Number(result.Attributes?.counted ?? 1),
        refused: Number(result.Attributes?.refused ?? 0),
      };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
    // Over the budget: the refusal is counted too (a second write, paid only by what is refused).
    const result = await send('refused');
    this.report('countRecord', result.ConsumedCapacity);
    return {
      counted: false,
      count: Number(result.Attributes?.counted ?? budget.limit),
      refused: Number(result.Attributes?.refused ?? 1),
    };
  }

  async putRecord(record: ProviderRecord): Promise<void> {
    await guard('putRecord', () =>
      this.doc.send(new PutCommand({ TableName: this.options.tableName, Item: this.recordItem(record) })),
    );
  }

  async listDue(now: string, limit: number): Promise<{ items: DueItem[]; readItems: number }> {
    const pages = await Promise.all(
      Array.from({ length: this.shards }, (_, shard) =>
        guard('listDue', () =>
          this.doc.send(
            new QueryCommand({
              TableName: this.options.tableName,
              IndexName: DUE_INDEX.name,
              KeyConditionExpression: '#shard = :shard AND #due <= :now',
              ExpressionAttributeNames: { '#shard': DUE_INDEX.partitionKey, '#due': DUE_INDEX.sortKey },
              ExpressionAttributeValues: { ':shard': `DUE#${shard}`, ':now': now },
              // Each shard's share: reads stay ≈ the items taken even when more are due than one
              // cycle takes (the rest wait for the next cycle).
              Limit: Math.ceil(limit / this.shards),
              ReturnConsumedCapacity: this.capacity,
            }),
          ),
        ),
      ),
    );
    let readItems = 0;
    const items: DueItem[] = [];
    for (const page of pages) {
      this.report('listDue', page.ConsumedCapacity);
      readItems += page.Count ?? 0;
      for (const item of page.Items ?? []) {
        const key = keyOfPk(String(item.pk));
        if (key) items.push({ key, dueAt: String(item[DUE_INDEX.sortKey]) });
      }
    }
    items.sort((a, b) => a.dueAt.localeCompare(b.dueAt));
    return { items: items.slice(0, limit), readItems };
  }

  async claimDue(
    item: DueItem,
    lease: { until: string; owner: string },
  ): Promise<TransactionRecord | undefined> {
    try {
      const result = await guard('claimDue', () =>
        this.doc.send(
          new UpdateCommand({
            TableName: this.options.tableName,
            Key: { pk: transactionPk(item.key), sk: TX_SK },
            // The index entry may be stale (the index is eventually consistent): the condition reads
            // the item itself, so only one poller wins and a final transaction is never claimed.
            UpdateExpression:
              'SET #due = :until, #rec.#recDue = :until, #rec.#owner = :owner, #rev = #rev + :one, #outbox = :none',
            ConditionExpression: '#due = :seen',
            ExpressionAttributeNames: {
              '#due': DUE_INDEX.sortKey,
              '#rec': 'reconcile',
              '#recDue': 'dueAt',
              '#owner': 'leaseOwner',
              '#rev': 'revision',
              '#outbox': 'outbox',
            },
            ExpressionAttributeValues: {
              ':until': lease.until,
              ':owner': lease.owner,
              ':seen': item.dueAt,
              ':one': 1,
              ':none': [],
            },
            ReturnValues: 'ALL_NEW',
            ReturnConsumedCapacity: this.capacity,
          }),
        ),
      );
      this.report('claimDue', result.ConsumedCapacity);
      return result.Attributes ? toRecord(result.Attributes) : undefined;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return undefined;
      throw error;
    }
  }

  async listCreated(from: string, to: string): Promise<TransactionKey[]> {
    const keys: TransactionKey[] = [];
    const queries: { day: string; shard: number }[] = [];
    for (const day of daysBetween(from, to))
      for (let shard = 0; shard < this.shards; shard++) queries.push({ day, shard });
    // Partitions in parallel (a few at a time): a month is 31 × shards queries.
    const width = 8;
    const queue = [...queries];
    await Promise.all(
      Array.from({ length: width }, async () => {
        for (let q = queue.shift(); q; q = queue.shift()) {
          const { day, shard } = q;
          let cursor: Record<string, unknown> | undefined;
          do {
            const page = await guard('listCreated', () =>
              this.doc.send(
                new QueryCommand({ ...this.dayShardQuery(day, shard, from, to), ExclusiveStartKey: cursor }),
              ),
            );
            for (const item of page.Items ?? []) {
              const key = keyOfPk(String(item.pk));
              if (key) keys.push(key);
            }
            cursor = page.LastEvaluatedKey;
          } while (cursor);
        }
      }),
    );
    return keys;
  }

  /** One shard of one day of the `byDay` index, created between `from` and `to` (inclusive). */
  private dayShardQuery(day: string, shard: number, from: string, to: string) {
    return {
      TableName: this.options.tableName,
      IndexName: DAY_INDEX.name,
      KeyConditionExpression: '#day = :day AND #created BETWEEN :from AND :to',
      ExpressionAttributeNames: { '#day': DAY_INDEX.partitionKey, '#created': DAY_INDEX.sortKey },
      ExpressionAttributeValues: { ':day': `${day}#${shard}`, ':from': from, ':to': to },
    };
  }

  async listAccountDay(
    provider: string,
    account: string,
    from: string,
    to: string,
  ): Promise<AccountDayEntry[]> {
    // The slack's reading half (table.ts): the range starts the slack early, and a final entry keyed within
    // the slack of either edge may have its day time on the other side, so its item says.
    const lower = accountDayRangeStart(from);
    const entries: AccountDayEntry[] = [];
    const unsure: TransactionKey[] = [];
    // A business day spans at most two UTC days (two or three partitions with the slack), each by key range.
    for (const day of daysBetween(lower, to)) {
      let cursor: Record<string, unknown> | undefined;
      do {
        const page = await guard('listAccountDay', () =>
          this.doc.send(
            new QueryCommand({
              TableName: this.options.tableName,
              IndexName: ACCOUNT_DAY_INDEX.name,
              // One condition per sort key: BETWEEN is inclusive, the end is left out below.
              KeyConditionExpression: '#part = :part AND #at BETWEEN :from AND :to',
              ExpressionAttributeNames: {
                '#part': ACCOUNT_DAY_INDEX.partitionKey,
                '#at': ACCOUNT_DAY_INDEX.sortKey,
              },
              ExpressionAttributeValues: {
                ':part': accountDayPartition(provider, account, day),
                ':from': lower,
                ':to': to,
              },
              ExclusiveStartKey: cursor,
              ReturnConsumedCapacity: this.capacity,
            }),
          ),
        );
        this.report('listAccountDay', page.ConsumedCapacity);
        for (const item of page.Items ?? []) {
          const key = keyOfPk(String(item.pk));
          const at = String(item[ACCOUNT_DAY_INDEX.sortKey]);
          if (!key) continue;
          const status = item.status as AccountDayEntry['status'];
          const found = accountDayEntryIn(at, isFinal(status), from, to);
          if (found === 'ask') unsure.push(key);
          else if (found === 'in')
            entries.push({
              key,
              at,
              status,
              amount: item.amount as AccountDayEntry['amount'],
              providerTransactionId: item.providerTransactionId as string | undefined,
            });
        }
        cursor = page.LastEvaluatedKey;
      } while (cursor);
    }
    // A few at a time, as listCreated's partitions.
    for (let i = 0; i < unsure.length; i += 8) {
      const read = await Promise.all(unsure.slice(i, i + 8).map((key) => this.getTransaction(key)));
      for (const tx of read) {
        const at = tx && dayTimeOf(tx);
        if (!tx || !at || at < from || at >= to) continue;
        entries.push({
          key: tx.key,
          at,
          status: tx.status,
          amount: tx.amount,
          providerTransactionId: tx.providerTransactionId,
        });
      }
    }
    return entries.sort((a, b) => a.at.localeCompare(b.at));
  }

  async listCreatedPage(
    range: { from: string; to: string },
    page: { limit: number; before?: CreatedEntry },
  ): Promise<{ entries: CreatedEntry[]; more: boolean }> {
    const before = page.before && { at: page.before.createdAt, pk: transactionPk(page.before.key) };
    const upper = before && before.at < range.to ? before.at : range.to;
    const want = page.limit + 1;
    const found: { at: string; pk: string }[] = [];
    // Days newest first, every shard of a day at once: each shard gives its newest `want`, so a day that
    // yields fewer than `want` in all was read whole, and a day that yields more ends the page.
    for (const day of [...daysBetween(range.from, upper)].reverse()) {
      await Promise.all(
        Array.from({ length: this.shards }, async (_, shard) => {
          let kept = 0;
          let cursor: Record<string, unknown> | undefined;
          do {
            const result = await guard('listCreatedPage', () =>
              this.doc.send(
                new QueryCommand({
                  ...this.dayShardQuery(day, shard, range.from, upper),
                  ScanIndexForward: false,
                  Limit: want,
                  ExclusiveStartKey: cursor,
                }),
              ),
            );
            for (const item of result.Items ?? []) {
              const at = String(item[DAY_INDEX.sortKey]);
              const pk = String(item.pk);
              if (before && at === before.at && pk >= before.pk) continue;
              found.push({ at, pk });
              kept++;
            }
            cursor = result.LastEvaluatedKey;
          } while (cursor && kept < want);
        }),
      );
      if (found.length >= want) break;
    }
    found.sort((a, b) => (a.at === b.at ? b.pk.localeCompare(a.pk) : b.at.localeCompare(a.at)));
    const entries: CreatedEntry[] = [];
    for (const { at, pk } of found.slice(0, page.limit)) {
      const key = keyOfPk(pk);
      if (key) entries.push({ key, createdAt: at });
    }
    return { entries, more: found.length > page.limit };
  }

  async putLookup(by: LookupBy, value: string, entry: LookupEntry): Promise<void> {
    const result = await guard('putLookup', () =>
      this.doc.send(
        new PutCommand({
          TableName: this.options.tableName,
          Item: {
            pk: `${LOOKUP_PK_PREFIX}${by}#${value}`,
            sk: `${entry.createdAt}#${transactionPk(entry.key)}`,
            itemType: 'lookup',
            // On the one lookup item (no item of its own): the search tells numbers sharing a mask apart.
            ...(entry.numberHash ? { numberHash: entry.numberHash } : {}),
            expiresAt: epochSeconds(entry.createdAt, this.options.retention.transactionDays),
          },
          ReturnConsumedCapacity: this.capacity,
        }),
      ),
    );
    this.report('putLookup', result.ConsumedCapacity);
  }

  async findLookups(by: LookupBy, value: string, limit: number): Promise<LookupEntry[]> {
    const result = await guard('findLookups', () =>
      this.doc.send(
        new QueryCommand({
          TableName: this.options.tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': `${LOOKUP_PK_PREFIX}${by}#${value}` },
          ScanIndexForward: false,
          Limit: limit,
          ReturnConsumedCapacity: this.capacity,
        }),
      ),
    );
    this.report('findLookups', result.ConsumedCapacity);
    const entries: LookupEntry[] = [];
    for (const item of result.Items ?? []) {
      const sk = String(item.sk);
      const split = sk.indexOf('#');
      const key = keyOfPk(sk.slice(split + 1));
      if (key)
        entries.push({
          key,
          createdAt: sk.slice(0, split),
          ...(typeof item.numberHash === 'string' ? { numberHash: item.numberHash } : {}),
        });
    }
    return entries;
  }

  async getReceipt(key: TransactionKey, receiptId: string): Promise<StoredReceiptView | undefined> {
    const result = await guard('getReceipt', () =>
      this.doc.send(
        new GetCommand({
          TableName: this.options.tableName,
          Key: { pk: transactionPk(key), sk: `${RECEIPT_SK_PREFIX}${receiptId}` },
        }),
      ),
    );
    const item = widenReceiptItem(result.Item);
    if (!item) return undefined;
    return {
      receiptId: String(item.receiptId),
      routeName: String(item.routeName),
      method: String(item.method),
      path: String(item.path ?? ''),
      headers: (item.headers as Record<string, string>) ?? {},
      sourceIp: String(item.sourceIp),
      firstReceivedAt: String(item.firstReceivedAt),
      lastReceivedAt: String(item.lastReceivedAt),
      deliveries: Number(item.deliveries ?? 1),
      verification: (item.verification as Record<string, unknown>) ?? {},
      bodyBytes: Number(item.bodyBytes ?? 0),
      ...(item.bodyDropped === true ? { bodyDropped: true } : {}),
      body: String(item.body ?? ''),
    };
  }

  async listQuarantineDay(
    day: string,
    page: { limit: number; after?: string; facets?: boolean },
  ): Promise<{ entries: QuarantineEntry[]; next?: string }> {
    const pk = `${QUARANTINE_PK_PREFIX}${day}`;
    const facets = ['id', 'receivedAt', 'errorCode', 'provider', 'account', 'routeName', 'sourceIp'];
    const result = await guard('listQuarantineDay', () =>
      this.doc.send(
        new QueryCommand({
          TableName: this.options.tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': pk },
          ScanIndexForward: false,
          Limit: page.limit,
          ExclusiveStartKey: page.after ? { pk, sk: page.after } : undefined,
          ...(page.facets
            ? {
                ProjectionExpression: facets.map((_, i) => `#f${i}`).join(', '),
                ExpressionAttributeNames: Object.fromEntries(facets.map((name, i) => [`#f${i}`, name])),
              }
            : {}),
        }),
      ),
    );
    const entries = (result.Items ?? []).map((item) => {
      const { pk: _pk, sk: _sk, itemType: _t, outbox: _o, revision: _r, expiresAt: _e, ...entry } = item;
      return entry as QuarantineEntry;
    });
    const last = entries.at(-1);
    return {
      entries,
      ...(result.LastEvaluatedKey && last ? { next: `${last.receivedAt}#${last.id}` } : {}),
    };
  }

  /** Every item of one transaction's collection (transaction, receipts, C2B decision): operators' and tests' view. */
  async listTransactionItems(key: TransactionKey): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    let cursor: Record<string, unknown> | undefined;
    do {
      const page = await guard('listTransactionItems', () =>
        this.doc.send(
          new QueryCommand({
            TableName: this.options.tableName,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': transactionPk(key) },
            ExclusiveStartKey: cursor,
          }),
        ),
      );
      items.push(...(page.Items ?? []).map((item) => widenReceiptItem(widenTransactionItem(item))));
      cursor = page.LastEvaluatedKey;
    } while (cursor);
    return items;
  }
}
