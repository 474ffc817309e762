import { ConditionalCheckFailedException, type ConsumedCapacity } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type {
  CallbackStore,
  ProviderRecord,
  ProviderRecordRef,
  QuarantineInput,
  ReadOptions,
  ReceiptInput,
  ReceiptPage,
  ReceiptResult,
  RefusedCallbackRef,
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
  accountDayKeyTime,
  accountDayPartition,
  DAY_INDEX,
  DUE_INDEX,
  inAccountDayIndex,
  QUARANTINE_PK_PREFIX,
  RECEIPT_SK_PREFIX,
  refusedPk,
  TX_SK,
  transactionPk,
} from './table';
import { compactTransactionItem, widenTransactionItem } from './transaction-item';
import { packedReceiptOf, packReceipt, RECEIPT_PACKED_ATTRIBUTE, receiptViewOf } from './receipt-item';

export interface RelayStoreOptions {
  tableName: string;
  retention: { receiptDays: number; quarantineDays: number; transactionDays: number };
  /** Shards of the due and by-day indexes (reconciliation.shards); every poller must use the same. */
  shards?: number;
  /** Bench hook: called with the write/read units every operation consumed. */
  onConsumedCapacity?: (operation: string, capacity: ConsumedCapacity | undefined) => void;
}

export const DAY = 86_400;

/**
 * Provider records beside the transaction collections (docs/table-design.md):
 *   pk REC#<provider>#<account>#<namespace>#<id>   sk REC   a C2B decision, a known C2B account number,
 *                                                           a reference alias… (namespaces are the provider's)
 */
export const RECORD_SK = 'REC';

export function providerRecordPk(ref: ProviderRecordRef): string {
  return `REC#${ref.provider}#${ref.account}#${ref.namespace}#${ref.id}`;
}

/** A record item as the port answers it; undefined once its own lifetime ended. */
export function recordOf(ref: ProviderRecordRef, item: Record<string, unknown>): ProviderRecord | undefined {
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

export function epochSeconds(iso: string, plusDays: number): number {
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

/**
 * The store of the callback path (TransactionStore & ProviderRecordStore: receipts, transactions, quarantine
 * and provider records) on the relay's table (docs/table-design.md). DynamoRelayStore (relay-store.ts)
 * extends it with the reads and writes of the other ports (reconciliation, console, operations); the
 * callback function wires this class alone, so its bundle leaves those out.
 */
export class DynamoTransactionStore implements CallbackStore {
  constructor(
    protected readonly doc: DynamoDBDocumentClient,
    protected readonly options: RelayStoreOptions,
  ) {}

  protected get capacity() {
    return this.options.onConsumedCapacity ? ('TOTAL' as const) : undefined;
  }

  protected report(operation: string, capacity: ConsumedCapacity | undefined) {
    this.options.onConsumedCapacity?.(operation, capacity);
  }

  protected get shards(): number {
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
      // Sparse: the creation's key while open and after a verdict within the slack, which the byDay entry
      // places (no account-day entry to put or rewrite at registration, orphan or first callback); a later
      // verdict or a movement time from the provider's records puts one, once.
      ...(inAccountDayIndex(dayAt, tx.createdAt)
        ? {
            [ACCOUNT_DAY_INDEX.partitionKey]: accountDayPartition(key.provider, key.account, dayAt),
            [ACCOUNT_DAY_INDEX.sortKey]: dayAt,
          }
        : {}),
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

  protected async conditionalPut(
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
    const receipts = (result.Items ?? []).map((item) => receiptViewOf(item, 'summary'));
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

  async putRecord(record: ProviderRecord, options: WriteOptions = {}): Promise<void> {
    await guard('putRecord', () =>
      this.doc.send(new PutCommand({ TableName: this.options.tableName, Item: this.recordItem(record) }), {
        abortSignal: options.signal,
      }),
    );
  }
}
