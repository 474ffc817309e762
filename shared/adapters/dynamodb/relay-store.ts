import { type AttributeValue, ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type {
  AccountDayEntry,
  AccountDayReader,
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
  ReadOptions,
  RefusedCallbackRef,
  RelayStore,
  StoredReceiptView,
} from '../../app/ports';
import { StorageUnavailableError } from '../../domain/errors';
import { dayTimeOf } from '../../domain/statement-match';
import type { TransactionKey, TransactionRecord } from '../../domain/transaction';
import { inParallel } from '../../util/in-parallel';
import { DayEntries } from './day-entries';
import {
  ACCOUNT_DAY_INDEX,
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
import { keyOfPk, widenTransactionItem } from './transaction-item';
import { receiptViewOf, widenReceiptItem } from './receipt-item';
import { BATCH_GET_KEYS, batchGetItems } from './batch-get';
import {
  DAY,
  DynamoTransactionStore,
  epochSeconds,
  guard,
  providerRecordPk,
  RECORD_SK,
  recordOf,
  toRecord,
} from './transaction-store';

export { guard, toRecord, type RelayStoreOptions } from './transaction-store';

function* daysBetween(from: string, to: string): Generator<string> {
  const end = Date.parse(to.slice(0, 10));
  for (let day = Date.parse(from.slice(0, 10)); day <= end; day += DAY * 1000)
    yield new Date(day).toISOString().slice(0, 10);
}

/** Queries of one listCreated in flight at once. */
const CREATED_READS_IN_FLIGHT = 8;
/** Queries of one listAccountDay in flight at once. */
const ACCOUNT_DAY_READS_IN_FLIGHT = 16;
/** BatchGetItem requests of one listAccountDay in flight at once. */
const BATCH_GETS_IN_FLIGHT = 4;

/** Every port of the relay's store (RelayStore): the callback path's (DynamoTransactionStore) and the rest. */
export class DynamoRelayStore extends DynamoTransactionStore implements RelayStore {
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
    await inParallel(queries, CREATED_READS_IN_FLIGHT, async ({ day, shard }) => {
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
    });
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

  listAccountDay(provider: string, account: string, from: string, to: string): Promise<AccountDayEntry[]> {
    return this.readAccountDay(provider, account, from, to);
  }

  accountDayReaderForRun(): AccountDayReader {
    const created = new DayEntries((day, shard, from, to) => this.dayShardKeys(day, shard, from, to));
    return {
      listAccountDay: (provider, account, from, to) =>
        this.readAccountDay(provider, account, from, to, created),
    };
  }

  /** Every transaction key of one by-day shard created in [from, to] (inclusive), each account's. */
  private async dayShardKeys(day: string, shard: number, from: string, to: string) {
    const found: { pk: string; createdAt: string }[] = [];
    let cursor: Record<string, unknown> | undefined;
    do {
      const page = await guard('listAccountDay', () =>
        this.doc.send(
          new QueryCommand({
            ...this.dayShardQuery(day, shard, from, to),
            ExclusiveStartKey: cursor,
            ReturnConsumedCapacity: this.capacity,
          }),
        ),
      );
      this.report('listAccountDay', page.ConsumedCapacity);
      for (const item of page.Items ?? [])
        found.push({ pk: String(item.pk), createdAt: String(item[DAY_INDEX.sortKey]) });
      cursor = page.LastEvaluatedKey;
    } while (cursor);
    return found;
  }

  /** The account-day index's entries of one partition keyed in [from, to] (inclusive). */
  private accountDayQuery(partition: string, from: string, to: string, cursor?: Record<string, unknown>) {
    return new QueryCommand({
      TableName: this.options.tableName,
      IndexName: ACCOUNT_DAY_INDEX.name,
      // One condition per sort key: BETWEEN is inclusive, the item decides the end.
      KeyConditionExpression: '#part = :part AND #at BETWEEN :from AND :to',
      ExpressionAttributeNames: { '#part': ACCOUNT_DAY_INDEX.partitionKey, '#at': ACCOUNT_DAY_INDEX.sortKey },
      ExpressionAttributeValues: { ':part': partition, ':from': from, ':to': to },
      ExclusiveStartKey: cursor,
      ReturnConsumedCapacity: this.capacity,
    });
  }

  /**
   * The account's transactions whose day time is in [from, to): its creations in the by-day index (every
   * account's entries of the day, read for this account alone, or from `created`, read once for all) and
   * its account-day entries, each transaction then settled by its item.
   */
  private async readAccountDay(
    provider: string,
    account: string,
    from: string,
    to: string,
    created?: DayEntries,
  ): Promise<AccountDayEntry[]> {
    // The slack's reading half (table.ts): a transaction's day time is at most the slack after its key,
    // which is its creation (byDay) or its account-day entry (byAccountDay, sparse): both key ranges start
    // the slack early, and each transaction found is settled by its item (its status, amount and day time
    // are not in the entries: a first callback rewrites none).
    const lower = accountDayRangeStart(from);
    const found = new Map<string, TransactionKey>();
    const note = (items: Record<string, unknown>[] | undefined) => {
      for (const item of items ?? []) {
        const key = keyOfPk(String(item.pk));
        if (key && key.provider === provider && key.account === account) found.set(String(item.pk), key);
      }
    };
    const prefix = transactionPk({ provider, account, reference: '' });
    const queries: Array<() => Promise<void>> = [];
    const paged = (query: (cursor: Record<string, unknown> | undefined) => QueryCommand) => async () => {
      let cursor: Record<string, unknown> | undefined;
      do {
        const page = await guard('listAccountDay', () => this.doc.send(query(cursor)));
        this.report('listAccountDay', page.ConsumedCapacity);
        note(page.Items);
        cursor = page.LastEvaluatedKey;
      } while (cursor);
    };
    for (const day of daysBetween(lower, to)) {
      // Every account's creations of the day are in its by-day shards: keys only, the account's kept by
      // a filter on the table key (read units count the entries read, ~100 B each), or read once for all
      // accounts of a run (DayEntries).
      for (let shard = 0; shard < this.shards; shard++) {
        if (created) {
          queries.push(async () =>
            note((await created.of(day, shard, lower, to, prefix)).map((pk) => ({ pk }))),
          );
          continue;
        }
        const query = this.dayShardQuery(day, shard, lower, to);
        queries.push(
          paged(
            (cursor) =>
              new QueryCommand({
                ...query,
                FilterExpression: 'begins_with(pk, :prefix)',
                ExpressionAttributeValues: { ...query.ExpressionAttributeValues, ':prefix': prefix },
                ExclusiveStartKey: cursor,
                ReturnConsumedCapacity: this.capacity,
              }),
          ),
        );
      }
      queries.push(
        paged((cursor) =>
          this.accountDayQuery(accountDayPartition(provider, account, day), lower, to, cursor),
        ),
      );
    }
    await inParallel(queries, ACCOUNT_DAY_READS_IN_FLIGHT, (read) => read());
    // Each transaction's item, read by BatchGetItem (100 keys a request, eventually consistent: half a unit
    // each under 4 KB), a few requests in flight: a busy day's close reads its transactions once, in
    // hundreds of round trips rather than tens of thousands.
    const entries: AccountDayEntry[] = [];
    const keys = [...found.values()];
    const batches = Array.from({ length: Math.ceil(keys.length / BATCH_GET_KEYS) }, (_, i) =>
      keys.slice(i * BATCH_GET_KEYS, (i + 1) * BATCH_GET_KEYS),
    );
    await inParallel(batches, BATCH_GETS_IN_FLIGHT, async (batch) => {
      for (const tx of await this.getTransactions(batch)) {
        const at = dayTimeOf(tx);
        if (!at || at < from || at >= to) continue;
        entries.push({
          key: tx.key,
          at,
          status: tx.status,
          amount: tx.amount,
          providerTransactionId: tx.providerTransactionId,
        });
      }
    });
    return entries.sort((a, b) => a.at.localeCompare(b.at) || a.key.reference.localeCompare(b.key.reference));
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

  async getRecords(
    refs: readonly ProviderRecordRef[],
    options: { consistent?: boolean } = {},
  ): Promise<ProviderRecord[]> {
    const byPk = new Map(refs.map((ref) => [providerRecordPk(ref), ref]));
    const items = await batchGetItems(
      this.doc,
      [...byPk.keys()].map((pk) => ({ pk, sk: RECORD_SK })),
      {
        tableName: this.options.tableName,
        operation: 'getRecords',
        consistent: options.consistent === true,
        onConsumedCapacity: this.options.onConsumedCapacity,
      },
    );
    return items.flatMap((item) => {
      const ref = byPk.get(String(item.pk));
      const record = ref && recordOf(ref, item);
      return record ? [record] : [];
    });
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
    return item && receiptViewOf(item, 'whole');
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
