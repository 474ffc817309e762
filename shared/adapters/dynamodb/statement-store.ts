import {
  ConditionalCheckFailedException,
  type ConsumedCapacity,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import type { AccountDay, RowKey, StatementStore, StoredClose } from '../../app/statements/statement-store';
import type {
  DailyCloseReport,
  RetiredBreak,
  StatementBreak,
  StoredBalance,
  StoredStatementRow,
} from '../../domain/statement';
import { sameCurrency } from '../../domain/statement';
import { inParallel } from '../../util/in-parallel';
import { batchGetItems } from './batch-get';
import { guard } from './relay-store';
import { STATEMENT_BALANCE_PK_PREFIX, STATEMENT_CLOSED_PK_PREFIX, STATEMENT_DAY_PK_PREFIX } from './table';

/**
 * The provider's own records in the relay's one table (docs/table-design.md#statements):
 *   pk STMT#<provider>#<account>#<day>   sk ROW#<providerId>#<kind>   a statement row, what it matched
 *   pk STMT#<provider>#<account>#<day>   sk BREAK#<id>                 a break
 *   pk STMT#<provider>#<account>#<day>   sk RETIRED#<at>#<id>          a break that no longer held (the audit)
 *   pk STMT#<provider>#<account>#<day>   sk CLOSE                      the closed day; its outbox is DailyClosed
 *   pk STMTBAL#<provider>#<account>      sk <at>[#<currency>]          a balance snapshot (one per currency)
 *   pk STMTCLOSED#<provider>#<account>   sk <day>                      the account's closed days
 * A day's items share a partition: the close reads it with one query. Every put is conditional.
 */
export interface StatementStoreOptions {
  tableName: string;
  /** Kept as long as transactions (retention.transactionDays). */
  retentionDays: number;
  /** Bench hook (npm run bench -- --only statements): capacity consumed by every operation. */
  onConsumedCapacity?: (operation: string, capacity: ConsumedCapacity | undefined) => void;
}

/** A row asked by getRows asks to read at most this many of its day's items in the range query. */
const ROW_RANGE_READS = 4;
/** Items a range query's request reads at most (a page well under DynamoDB's 1 MB). */
const ROW_RANGE_PAGE = 400;
/** Row puts of one batch in flight at once: bounded, so a large batch does not flood the table. */
const ROW_PUTS_IN_FLIGHT = 16;

/** Snapshots read per request when looking back for one currency's previous snapshot. */
const BALANCE_PAGE = 8;

const dayPk = (at: AccountDay) => `${STATEMENT_DAY_PK_PREFIX}${at.provider}#${at.account}#${at.day}`;
const balancePk = (provider: string, account: string) =>
  `${STATEMENT_BALANCE_PK_PREFIX}${provider}#${account}`;
const closedPk = (provider: string, account: string) => `${STATEMENT_CLOSED_PK_PREFIX}${provider}#${account}`;
const ROW = 'ROW#';
const BREAK = 'BREAK#';
const RETIRED = 'RETIRED#';
const CLOSE = 'CLOSE';

const TABLE_ATTRIBUTES = ['pk', 'sk', 'expiresAt', 'itemType', 'revision', 'outbox'] as const;

function strip<T>(item: Record<string, unknown>): T {
  const copy = { ...item };
  for (const name of TABLE_ATTRIBUTES) delete copy[name];
  return copy as T;
}

export class DynamoStatementStore implements StatementStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly options: StatementStoreOptions,
  ) {}

  private get capacity() {
    return this.options.onConsumedCapacity ? { ReturnConsumedCapacity: 'TOTAL' as const } : {};
  }

  private expiresAt(): number {
    return Math.floor(Date.now() / 1000) + this.options.retentionDays * 86_400;
  }

  private async putIfAbsent(operation: string, item: Record<string, unknown>): Promise<boolean> {
    try {
      const result = await guard(operation, () =>
        this.doc.send(
          new PutCommand({
            TableName: this.options.tableName,
            Item: { ...item, expiresAt: this.expiresAt() },
            ConditionExpression: 'attribute_not_exists(pk)',
            ...this.capacity,
          }),
        ),
      );
      this.options.onConsumedCapacity?.(operation, result.ConsumedCapacity);
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  private async get<T>(operation: string, pk: string, sk: string): Promise<T | undefined> {
    const result = await guard(operation, () =>
      this.doc.send(new GetCommand({ TableName: this.options.tableName, Key: { pk, sk }, ...this.capacity })),
    );
    this.options.onConsumedCapacity?.(operation, result.ConsumedCapacity);
    return result.Item ? strip<T>(result.Item) : undefined;
  }

  private async query(
    operation: string,
    pk: string,
    prefix: string,
    page: {
      limit?: number;
      newestFirst?: boolean;
      before?: string;
      from?: string;
      /** Keeps only the items it accepts (`limit` counts those); each request reads `pageSize` items. */
      match?: (item: Record<string, unknown>) => boolean;
      pageSize?: number;
    } = {},
  ): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    let cursor: Record<string, unknown> | undefined;
    do {
      const result = await guard(operation, () =>
        this.doc.send(
          new QueryCommand({
            TableName: this.options.tableName,
            KeyConditionExpression:
              page.before && page.from
                ? 'pk = :pk AND sk BETWEEN :from AND :before'
                : page.before
                  ? 'pk = :pk AND sk < :before'
                  : prefix
                    ? 'pk = :pk AND begins_with(sk, :prefix)'
                    : 'pk = :pk',
            ExpressionAttributeValues: page.before
              ? { ':pk': pk, ':before': page.before, ...(page.from ? { ':from': page.from } : {}) }
              : prefix
                ? { ':pk': pk, ':prefix': prefix }
                : { ':pk': pk },
            ScanIndexForward: !page.newestFirst,
            ...((page.pageSize ?? page.limit) ? { Limit: page.pageSize ?? page.limit } : {}),
            ExclusiveStartKey: cursor,
            ...this.capacity,
          }),
        ),
      );
      this.options.onConsumedCapacity?.(operation, result.ConsumedCapacity);
      items.push(...(result.Items ?? []).filter((item) => page.match?.(item) ?? true));
      cursor = result.LastEvaluatedKey;
      if (page.limit && items.length >= page.limit) {
        items.length = page.limit;
        break;
      }
    } while (cursor);
    return items;
  }

  getRow(at: AccountDay, providerId: string, kind: string): Promise<StoredStatementRow | undefined> {
    return this.get('getStatementRow', dayPk(at), `${ROW}${providerId}#${kind}`);
  }

  putRow(row: StoredStatementRow): Promise<boolean> {
    return this.putIfAbsent('putStatementRow', {
      pk: dayPk(row),
      sk: `${ROW}${row.providerId}#${row.kind}`,
      itemType: 'statement-row',
      ...row,
    });
  }

  /**
   * A batch's rows of one day that are stored: first one query over the key range the batch spans (a file
   * is mostly its day's rows in receipt order, so a range of new rows reads nothing and costs half a unit,
   * and a file imported again reads its rows ~10 to a unit), read until it has read ROW_RANGE_READS times
   * the keys asked (a range crowded with other rows); the keys past where it stopped by BatchGetItem.
   */
  async getRows(at: AccountDay, keys: readonly RowKey[]): Promise<StoredStatementRow[]> {
    const wanted = [...new Set(keys.map((k) => `${ROW}${k.providerId}#${k.kind}`))].sort();
    if (wanted.length === 0) return [];
    const pk = dayPk(at);
    const found: Record<string, unknown>[] = [];
    const first = wanted[0]!;
    const last = wanted.at(-1)!;
    const budget = wanted.length * ROW_RANGE_READS;
    let read = 0;
    let cursor: Record<string, unknown> | undefined;
    let coveredTo = '';
    do {
      const result = await guard('getStatementRows', () =>
        this.doc.send(
          new QueryCommand({
            TableName: this.options.tableName,
            KeyConditionExpression: 'pk = :pk AND sk BETWEEN :first AND :last',
            ExpressionAttributeValues: { ':pk': pk, ':first': first, ':last': last },
            Limit: Math.min(ROW_RANGE_PAGE, budget - read),
            ExclusiveStartKey: cursor,
            ...this.capacity,
          }),
        ),
      );
      this.options.onConsumedCapacity?.('getStatementRows', result.ConsumedCapacity);
      const items = result.Items ?? [];
      read += items.length;
      found.push(...items);
      cursor = result.LastEvaluatedKey;
      coveredTo = cursor ? String(cursor.sk) : last;
    } while (cursor && read < budget);
    // The range read up to `coveredTo` (inclusive): the keys after it are read one by one, 100 a request.
    const rest = wanted.filter((sk) => sk > coveredTo);
    if (rest.length)
      found.push(
        ...(await batchGetItems(
          this.doc,
          rest.map((sk) => ({ pk, sk })),
          {
            tableName: this.options.tableName,
            operation: 'getStatementRows',
            ...(this.options.onConsumedCapacity
              ? { onConsumedCapacity: this.options.onConsumedCapacity }
              : {}),
          },
        )),
      );
    const asked = new Set(wanted);
    return found.filter((item) => asked.has(String(item.sk))).map((item) => strip<StoredStatementRow>(item));
  }

  /**
   * Each row unless one with its key exists (conditional puts: BatchWriteItem takes no condition, and a
   * transaction of puts bills twice the units), at most ROW_PUTS_IN_FLIGHT at a time.
   */
  async putRows(rows: readonly StoredStatementRow[]): Promise<boolean[]> {
    return inParallel(rows, ROW_PUTS_IN_FLIGHT, (row) => this.putRow(row));
  }

  async listRows(at: AccountDay): Promise<StoredStatementRow[]> {
    return (await this.query('listStatementRows', dayPk(at), ROW)).map((i) => strip<StoredStatementRow>(i));
  }

  putBreak(found: StatementBreak): Promise<boolean> {
    return this.putIfAbsent('putStatementBreak', {
      pk: dayPk(found),
      sk: `${BREAK}${found.id}`,
      itemType: 'statement-break',
      ...found,
    });
  }

  async listBreaks(at: AccountDay): Promise<StatementBreak[]> {
    return (await this.query('listStatementBreaks', dayPk(at), BREAK)).map((i) => strip<StatementBreak>(i));
  }

  async retireBreak(retired: RetiredBreak): Promise<boolean> {
    const pk = dayPk(retired);
    // One write: the break leaves the day's breaks exactly when its audit item is written.
    const result = await guard('retireStatementBreak', async () => {
      try {
        return await this.doc.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Delete: {
                  TableName: this.options.tableName,
                  Key: { pk, sk: `${BREAK}${retired.id}` },
                  ConditionExpression: 'attribute_exists(pk)',
                },
              },
              {
                Put: {
                  TableName: this.options.tableName,
                  Item: {
                    pk,
                    sk: `${RETIRED}${retired.retiredAt}#${retired.id}`,
                    itemType: 'statement-break-retired',
                    ...retired,
                    expiresAt: this.expiresAt(),
                  },
                  ConditionExpression: 'attribute_not_exists(pk)',
                },
              },
            ],
            ...this.capacity,
          }),
        );
      } catch (error) {
        // A condition failed: another reading retired it first (nothing written). Any other cancellation
        // (a transaction conflict) is a failure the caller's next run takes up again.
        const reasons =
          error instanceof TransactionCanceledException ? (error.CancellationReasons ?? []) : [];
        if (reasons.some((r) => r.Code === 'ConditionalCheckFailed')) return undefined;
        throw error;
      }
    });
    if (!result) return false;
    for (const capacity of result.ConsumedCapacity ?? [])
      this.options.onConsumedCapacity?.('retireStatementBreak', capacity);
    return true;
  }

  async listRetiredBreaks(at: AccountDay): Promise<RetiredBreak[]> {
    return (await this.query('listRetiredBreaks', dayPk(at), RETIRED)).map((i) => strip<RetiredBreak>(i));
  }

  putBalance(snapshot: StoredBalance): Promise<boolean> {
    return this.putIfAbsent('putBalance', {
      pk: balancePk(snapshot.provider, snapshot.account),
      // A multi-currency account reports one balance per currency at one instant: each is its own item.
      // (After the instant, so a day's snapshots of every currency are still one key range.)
      sk: snapshot.currency ? `${snapshot.at}#${snapshot.currency}` : snapshot.at,
      itemType: 'balance',
      ...snapshot,
    });
  }

  async balanceBefore(
    provider: string,
    account: string,
    at: string,
    currency?: string,
  ): Promise<StoredBalance | undefined> {
    // Newest first, skipping the other currencies' snapshots: an account has a few, so a page of
    // BALANCE_PAGE items almost always holds the one wanted.
    const [item] = await this.query('balanceBefore', balancePk(provider, account), '', {
      before: at,
      newestFirst: true,
      limit: 1,
      pageSize: BALANCE_PAGE,
      match: (i) => sameCurrency(i.currency, currency),
    });
    return item ? strip<StoredBalance>(item) : undefined;
  }

  async listBalances(provider: string, account: string, from: string, to: string): Promise<StoredBalance[]> {
    // BETWEEN is inclusive: `to` itself is left out here ([from, to)).
    const items = await this.query('listBalances', balancePk(provider, account), '', { from, before: to });
    return items.filter((i) => String(i.sk) < to).map((i) => strip<StoredBalance>(i));
  }

  async putClose(at: AccountDay, close: StoredClose): Promise<boolean> {
    const written = await this.putIfAbsent('putDailyClose', {
      pk: dayPk(at),
      sk: CLOSE,
      itemType: 'daily-close',
      report: close.report,
      closedAt: close.report.closedAt,
      // The stream publishes an item's outbox when its revision moves: its first (only) write.
      revision: 1,
      outbox: close.outbox,
    });
    // The account's list of closed days (newest first in listCloses); no outbox: published once above.
    if (written)
      await this.putIfAbsent('putDailyCloseEntry', {
        pk: closedPk(at.provider, at.account),
        sk: at.day,
        itemType: 'daily-close-entry',
        report: close.report,
      });
    return written;
  }

  async getClose(at: AccountDay): Promise<DailyCloseReport | undefined> {
    const item = await this.get<{ report: DailyCloseReport }>('getDailyClose', dayPk(at), CLOSE);
    return item?.report;
  }

  async listCloses(provider: string, account: string, limit: number): Promise<DailyCloseReport[]> {
    const items = await this.query('listDailyCloses', closedPk(provider, account), '', {
      newestFirst: true,
      limit,
    });
    return items.map((i) => (i as { report: DailyCloseReport }).report);
  }
}
