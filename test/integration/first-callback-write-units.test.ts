/**
 * What a first callback costs in DynamoDB write units by AWS's item-size rule (1 unit per started KB of the
 * larger of each item's before and after images, plus every index entry the write puts, changes or
 * deletes), measured on the items it leaves in DynamoDB Local, against what `npm run cost` prices
 * (scripts/cost.ts callbackWriteUnits, from the attributes the write changed, FIRST_CALLBACKS, and the
 * synthesized indexes): the cost may not price less than the table takes. The callback is MoMo's
 * requesttopay success with the headers API Gateway passes on, for a transaction registered as the
 * registration writes it (its first check due) and for one nobody registered, and for a registered one
 * whose first callback comes after the account-day slack (it enters the byAccountDay index).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type AttributeValue, QueryCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/bundling';
import { createTableInput, transactionPk, TX_SK } from '../../shared/adapters/dynamodb/table';
import { storableHeaders } from '../../shared/app/callbacks/receipts';
import { applyReport } from '../../shared/domain/apply-report';
import type { TransactionRecord } from '../../shared/domain/transaction';
import { callbackWriteUnits, FIRST_CALLBACKS, INDEX_ENTRY_BYTES } from '../../scripts/cost';
import {
  indexEntry,
  indexShapes,
  indexWriteUnitsOfChange,
  itemBytes,
  itemChange,
  writeUnits,
} from '../../scripts/cost/dynamo-units';
import { createTestTable } from '../helpers/dynamo';
import { KEY, registered, report } from '../helpers/reports';

let table: Awaited<ReturnType<typeof createTestTable>>;
beforeAll(async () => {
  table = await createTestTable();
});
afterAll(async () => {
  await table.drop();
});

const BODY = readFileSync(join(PROJECT_ROOT, 'test/fixtures/momo/requesttopay-successful.json'), 'utf8');
const AT = '2026-11-21T10:00:00.000Z';
/** When the relay applies the report: after the receipt is stored, a few milliseconds after its arrival. */
const APPLIED_AT = '2026-11-21T10:00:00.042Z';
/** What API Gateway's HTTP API hands the function besides the body (payload format 2.0). */
const GATEWAY_HEADERS = {
  accept: '*/*',
  'accept-encoding': 'gzip, deflate',
  'content-length': String(Buffer.byteLength(BODY)),
  'content-type': 'application/json',
  host: 'abcdef1234.execute-api.us-east-1.amazonaws.com',
  'user-agent': 'Apache-HttpClient/4.5.13 (Java/1.8.0_292)',
  'x-amzn-trace-id': 'Root=1-6745a1b2-0123456789abcdef01234567',
  'x-forwarded-for': '196.201.214.200',
  'x-forwarded-port': '443',
  'x-forwarded-proto': 'https',
};

async function collection(reference: string): Promise<Record<string, AttributeValue>[]> {
  const { Items = [] } = await table.client.send(
    new QueryCommand({
      TableName: table.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': { S: transactionPk({ ...KEY, reference }) } },
    }),
  );
  return Items;
}

/** The first callback as the relay makes it: its receipt stored, then the report applied to what was read. */
async function firstCallback(reference: string, before: TransactionRecord | undefined) {
  const key = { ...KEY, reference };
  const dedupeKey = `${'e'.repeat(32)}${'f'.repeat(32)}`;
  const { receiptId } = await table.store.recordReceipt({
    key,
    routeName: 'requesttopay',
    method: 'PUT',
    path: `/v1/momo/demo/requesttopay/${reference}`,
    headers: storableHeaders(GATEWAY_HEADERS),
    sourceIp: '196.201.214.200',
    body: BODY,
    receivedAt: AT,
    verification: { pathSecret: 'not-configured' },
    dedupeKey,
  });
  const outcome = applyReport(before, report({ key, receiptId, receivedAt: AT }), {
    now: APPLIED_AT,
    reconcileWindowSeconds: 3600,
  });
  if (outcome.kind !== 'write') throw new Error(`expected a write, got ${outcome.kind}`);
  if (before) expect(await table.store.replaceTransaction(outcome.next, before.revision)).toBe(true);
  else expect(await table.store.createTransaction(outcome.next)).toBe(true);
}

/** Write units of the callback by the rule: the receipt put, the transaction's write and its index entries. */
function unitsOf(
  beforeItems: Record<string, AttributeValue>[],
  afterItems: Record<string, AttributeValue>[],
) {
  const indexes = indexShapes(createTableInput(table.tableName));
  const tx = (items: typeof afterItems) => items.find((item) => item.sk?.S === TX_SK);
  const receipts = afterItems.filter((item) => item.sk?.S !== TX_SK);
  const receipt = receipts.reduce((n, item) => n + writeUnits(undefined, item, indexes).total, 0);
  const transaction = writeUnits(tx(beforeItems), tx(afterItems), indexes);
  return {
    receipt,
    transaction: transaction.table,
    indexes: transaction.indexes,
    total: receipt + transaction.total,
  };
}

describe('write units of a first callback by AWS’s item-size rule', () => {
  it('a registered transaction’s: the receipt, the transaction and its due entry out, 3 units: what the cost prices, from the attributes the write changed', async () => {
    // Prepare: registered a minute before its callback, its first check due (domain/registration.ts).
    const reference = 'units-registered';
    const tx = registered({
      key: { ...KEY, reference },
      createdAt: '2026-11-21T09:59:00.000Z',
      reconcile: { dueAt: '2026-11-21T10:04:00.000Z', checks: 0, recent: [] },
    });
    await table.store.createTransaction(tx);
    const before = await collection(reference);

    // Act
    await firstCallback(reference, tx);

    // Assess: one unit for the receipt with the gateway's headers (compact), one for the transaction,
    // one for its due entry deleted. Its verdict within the slack leaves it out of byAccountDay (its byDay
    // entry places it), so nothing there to rewrite. The cost's measured change gives the same units.
    const after = await collection(reference);
    const units = unitsOf(before, after);
    expect(units).toMatchObject({ receipt: 1, transaction: 1, indexes: 1 });
    expect(units.total).toBe(3);
    const tx0 = before.find((item) => item.sk?.S === TX_SK)!;
    const tx1 = after.find((item) => item.sk?.S === TX_SK)!;
    expect([tx0.accountDay, tx1.accountDay]).toEqual([undefined, undefined]);
    expect(itemChange(tx0, tx1)).toEqual(FIRST_CALLBACKS.registered);
    expectPricedAsMeasured(tx0, tx1);
    expect(callbackWriteUnits(indexShapes(createTableInput(table.tableName))).byKind.registered).toBe(
      units.total,
    );
  });

  it('a registered transaction’s first callback after the slack moves its day entry: one unit more than the cost prices', async () => {
    // Prepare: registered an hour before its callback (a prompt long expired; the poller kept it open).
    const reference = 'units-late';
    const tx = registered({
      key: { ...KEY, reference },
      createdAt: '2026-11-21T09:00:00.000Z',
      reconcile: { dueAt: '2026-11-21T10:05:00.000Z', checks: 3, recent: [] },
    });
    await table.store.createTransaction(tx);
    const before = await collection(reference);

    // Act
    await firstCallback(reference, tx);

    // Assess: the key becomes the verdict's time, which the byDay entry cannot place: an entry put.
    const after = await collection(reference);
    expect(unitsOf(before, after)).toMatchObject({ receipt: 1, transaction: 1, indexes: 2, total: 4 });
    expect(after.find((item) => item.sk?.S === TX_SK)?.dayAt).toEqual({ S: AT });
  });

  it('an unregistered transaction’s: the receipt, the transaction and its byDay entry, 3 units: what the cost prices', async () => {
    // Prepare
    const reference = 'units-orphan';

    // Act
    await firstCallback(reference, undefined);

    // Assess: created at its arrival, final at it, it has no byAccountDay entry (applied 42 ms after the
    // arrival, a creation at the apply would have put its verdict before its creation: an entry, 4 units).
    const after = await collection(reference);
    const units = unitsOf([], after);
    expect(units).toEqual({ receipt: 1, transaction: 1, indexes: 1, total: 3 });
    const tx1 = after.find((item) => item.sk?.S === TX_SK)!;
    expect([tx1.createdAt, tx1.accountDay]).toEqual([{ S: AT }, undefined]);
    expect(itemChange(undefined, tx1)).toEqual(FIRST_CALLBACKS.unregistered);
    expectPricedAsMeasured(undefined, tx1);
    const priced = callbackWriteUnits(indexShapes(createTableInput(table.tableName)));
    expect(priced.byKind.unregistered).toBe(units.total);
    expect(priced.total).toBe(Math.max(priced.byKind.registered, units.total));
  });
});

/**
 * The cost's reading of a write (its attribute names and the measured entry sizes) gives each index the
 * units the rule gives the items themselves, and the entries are no larger than the sizes it prices.
 */
function expectPricedAsMeasured(
  before: Record<string, AttributeValue> | undefined,
  after: Record<string, AttributeValue>,
) {
  for (const index of indexShapes(createTableInput(table.tableName))) {
    const measured = INDEX_ENTRY_BYTES[index.name as keyof typeof INDEX_ENTRY_BYTES];
    const entries = [indexEntry(before, index), indexEntry(after, index)].filter(Boolean);
    for (const entry of entries) expect(itemBytes(entry), index.name).toBeLessThanOrEqual(measured);
    expect(indexWriteUnitsOfChange(itemChange(before, after), index, measured), index.name).toBe(
      writeUnits(before, after, [index]).indexes,
    );
  }
}
