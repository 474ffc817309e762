import { ConditionalCheckFailedException, type ConsumedCapacity } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { StorageUnavailableError } from '../../domain/errors';
import type {
  C2BKnownAccount,
  C2BKnownAccountKey,
  C2BValidationRecord,
  QuarantineInput,
  ReceiptInput,
  ReceiptResult,
  ReceiptSummary,
  ReferenceAlias,
  ReferenceAliasKey,
  TransactionStore,
} from '../../domain/ports';
import type { TransactionKey, TransactionRecord } from '../../domain/transaction';
import { QUARANTINE_PK_PREFIX, RECEIPT_SK_PREFIX, TX_SK, transactionPk } from './table';

export interface RelayStoreOptions {
  tableName: string;
  retention: { receiptDays: number; quarantineDays: number; transactionDays: number };
  /** Bench hook: called with the write/read units every operation consumed. */
  onConsumedCapacity?: (operation: string, capacity: ConsumedCapacity | undefined) => void;
}

const DAY = 86_400;

/**
 * Items beside the transaction collections (see README "Table design"):
 *   pk REF#<provider>#<account>#<namespace>#<value>   sk REF      another id of a transaction (e.g. ConversationID)
 *   pk C2BACCT#<account>#<BILLREF>                    sk C2BACCT  a known C2B account number, loaded by the partner
 *   pk TX#<provider>#<account>#<TransID>              sk C2BVAL   the answer to a C2B validation (outbox: C2BValidationDecided)
 */
const ALIAS_SK = 'REF';
const C2B_ACCOUNT_SK = 'C2BACCT';
export const C2B_VALIDATION_SK = 'C2BVAL';

export function referenceAliasPk(key: ReferenceAliasKey): string {
  return `REF#${key.provider}#${key.account}#${key.namespace}#${key.value}`;
}

export function c2bKnownAccountPk(key: C2BKnownAccountKey): string {
  return `C2BACCT#${key.account}#${key.billRef}`;
}

function epochSeconds(iso: string, plusDays: number): number {
  return Math.floor(Date.parse(iso) / 1000) + plusDays * DAY;
}

async function guard<T>(operation: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) throw error;
    throw new StorageUnavailableError(`DynamoDB ${operation} failed: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

function toRecord(item: Record<string, unknown>): TransactionRecord {
  const { pk: _pk, sk: _sk, itemType: _t, expiresAt: _e, provider, account, reference, ...rest } = item;
  return { key: { provider, account, reference }, ...rest } as unknown as TransactionRecord;
}

export class DynamoRelayStore implements TransactionStore {
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

  private transactionItem(tx: TransactionRecord): Record<string, unknown> {
    const { key, ...rest } = tx;
    return {
      pk: transactionPk(key),
      sk: TX_SK,
      itemType: 'transaction',
      provider: key.provider,
      account: key.account,
      reference: key.reference,
      ...rest,
      expiresAt: epochSeconds(tx.createdAt, this.options.retention.transactionDays),
    };
  }

  async recordReceipt(input: ReceiptInput): Promise<ReceiptResult> {
    const receiptId = input.dedupeKey.slice(0, 32);
    const always: Record<string, unknown> = {
      itemType: 'receipt',
      receiptId,
      dedupeKey: input.dedupeKey,
      provider: input.key.provider,
      account: input.key.account,
      reference: input.key.reference,
      routeName: input.routeName,
      bodyBytes: Buffer.byteLength(input.body),
      lastReceivedAt: input.receivedAt,
      expiresAt: epochSeconds(input.receivedAt, this.options.retention.receiptDays),
    };
    // What the first delivery saw is kept; repeats only move lastReceivedAt and the counter.
    const firstOnly: Record<string, unknown> = {
      method: input.method,
      path: input.path,
      headers: input.headers,
      sourceIp: input.sourceIp,
      body: input.body,
      verification: input.verification,
      firstReceivedAt: input.receivedAt,
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
      ),
    );
    this.report('recordReceipt', result.ConsumedCapacity);
    return { receiptId, deliveries: Number(result.Attributes?.deliveries ?? 1) };
  }

  async getTransaction(key: TransactionKey): Promise<TransactionRecord | undefined> {
    const result = await guard('getTransaction', () =>
      this.doc.send(
        new GetCommand({
          TableName: this.options.tableName,
          Key: { pk: transactionPk(key), sk: TX_SK },
          ConsistentRead: true,
          ReturnConsumedCapacity: this.capacity,
        }),
      ),
    );
    this.report('getTransaction', result.ConsumedCapacity);
    return result.Item ? toRecord(result.Item) : undefined;
  }

  async createTransaction(tx: TransactionRecord): Promise<boolean> {
    return this.conditionalPut('createTransaction', this.transactionItem(tx), 'attribute_not_exists(pk)', {});
  }

  async replaceTransaction(tx: TransactionRecord, expectedRevision: number): Promise<boolean> {
    return this.conditionalPut('replaceTransaction', this.transactionItem(tx), 'revision = :expected', {
      ':expected': expectedRevision,
    });
  }

  private async conditionalPut(
    operation: string,
    item: Record<string, unknown>,
    condition: string,
    values: Record<string, unknown>,
  ): Promise<boolean> {
    try {
      const result = await guard(operation, () =>
        this.doc.send(
          new PutCommand({
            TableName: this.options.tableName,
            Item: item,
            ConditionExpression: condition,
            ExpressionAttributeValues: Object.keys(values).length ? values : undefined,
            ReturnConsumedCapacity: this.capacity,
          }),
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
  }

  async listReceipts(key: TransactionKey): Promise<ReceiptSummary[]> {
    const items: Record<string, unknown>[] = [];
    let cursor: Record<string, unknown> | undefined;
    do {
      const page = await guard('listReceipts', () =>
        this.doc.send(
          new QueryCommand({
            TableName: this.options.tableName,
            KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
            ExpressionAttributeValues: { ':pk': transactionPk(key), ':prefix': RECEIPT_SK_PREFIX },
            ExclusiveStartKey: cursor,
          }),
        ),
      );
      items.push(...(page.Items ?? []));
      cursor = page.LastEvaluatedKey;
    } while (cursor);
    return items.map((item) => ({
      receiptId: String(item.receiptId),
      routeName: String(item.routeName),
      method: String(item.method),
      sourceIp: String(item.sourceIp),
      firstReceivedAt: String(item.firstReceivedAt),
      lastReceivedAt: String(item.lastReceivedAt),
      deliveries: Number(item.deliveries ?? 1),
      verification: (item.verification as Record<string, unknown>) ?? {},
      bodyBytes: Number(item.bodyBytes ?? 0),
    }));
  }

  /** Quarantine entries of one UTC day, newest first (operators' view; see README access patterns). */
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
  async putReferenceAlias(alias: ReferenceAlias): Promise<boolean> {
    return this.conditionalPut(
      'putReferenceAlias',
      {
        pk: referenceAliasPk(alias),
        sk: ALIAS_SK,
        itemType: 'reference-alias',
        ...alias,
        expiresAt: epochSeconds(alias.createdAt, this.options.retention.transactionDays),
      },
      'attribute_not_exists(pk)',
      {},
    );
  }

  async getReferenceAlias(key: ReferenceAliasKey): Promise<string | undefined> {
    const result = await guard('getReferenceAlias', () =>
      this.doc.send(
        new GetCommand({
          TableName: this.options.tableName,
          Key: { pk: referenceAliasPk(key), sk: ALIAS_SK },
          ReturnConsumedCapacity: this.capacity,
        }),
      ),
    );
    this.report('getReferenceAlias', result.ConsumedCapacity);
    const reference = result.Item?.reference;
    return typeof reference === 'string' ? reference : undefined;
  }

  async getC2BKnownAccount(
    key: C2BKnownAccountKey,
    options: { signal?: AbortSignal } = {},
  ): Promise<C2BKnownAccount | undefined> {
    const result = await guard('getC2BKnownAccount', () =>
      this.doc.send(
        new GetCommand({
          TableName: this.options.tableName,
          Key: { pk: c2bKnownAccountPk(key), sk: C2B_ACCOUNT_SK },
          ReturnConsumedCapacity: this.capacity,
        }),
        { abortSignal: options.signal },
      ),
    );
    this.report('getC2BKnownAccount', result.ConsumedCapacity);
    if (!result.Item) return undefined;
    return {
      account: key.account,
      billRef: key.billRef,
      active: result.Item.active !== false,
      label: typeof result.Item.label === 'string' ? result.Item.label : undefined,
    };
  }

  /** Loads (or replaces) a known C2B account number; an admin/loader operation, not part of the port. */
  async putC2BKnownAccount(item: C2BKnownAccount): Promise<void> {
    await guard('putC2BKnownAccount', () =>
      this.doc.send(
        new PutCommand({
          TableName: this.options.tableName,
          Item: { pk: c2bKnownAccountPk(item), sk: C2B_ACCOUNT_SK, itemType: 'c2b-known-account', ...item },
        }),
      ),
    );
  }

  async recordC2BValidation(
    record: C2BValidationRecord,
  ): Promise<{ written: boolean; record: C2BValidationRecord }> {
    const { key, ...rest } = record;
    const written = await this.conditionalPut(
      'recordC2BValidation',
      {
        pk: transactionPk(key),
        sk: C2B_VALIDATION_SK,
        itemType: 'c2b-validation',
        provider: key.provider,
        account: key.account,
        reference: key.reference,
        ...rest,
        expiresAt: epochSeconds(record.decidedAt, this.options.retention.transactionDays),
      },
      'attribute_not_exists(pk)',
      {},
    );
    if (written) return { written, record };
    const existing = await this.getC2BValidation(key);
    if (!existing)
      throw new StorageUnavailableError(`C2B validation ${key.reference} exists but cannot be read`);
    return { written, record: existing };
  }

  async getC2BValidation(key: TransactionKey): Promise<C2BValidationRecord | undefined> {
    const result = await guard('getC2BValidation', () =>
      this.doc.send(
        new GetCommand({
          TableName: this.options.tableName,
          Key: { pk: transactionPk(key), sk: C2B_VALIDATION_SK },
          ConsistentRead: true,
          ReturnConsumedCapacity: this.capacity,
        }),
      ),
    );
    this.report('getC2BValidation', result.ConsumedCapacity);
    if (!result.Item) return undefined;
    const {
      pk: _pk,
      sk: _sk,
      itemType: _t,
      expiresAt: _e,
      provider,
      account,
      reference,
      ...rest
    } = result.Item;
    return { key: { provider, account, reference }, ...rest } as unknown as C2BValidationRecord;
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
      items.push(...(page.Items ?? []));
      cursor = page.LastEvaluatedKey;
    } while (cursor);
    return items;
  }
}
