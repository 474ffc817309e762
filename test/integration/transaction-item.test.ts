/**
 * The transaction item's compact layout (shared/adapters/dynamodb/transaction-item.ts): a first callback's
 * transaction fits one write unit by DynamoDB's item-size rule, reads back whole, publishes the same events
 * from the stream, and an item written in the old (plain) layout still reads.
 */
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { imagesOf } from '../../shared/adapters/dynamodb/stream';
import { transactionPk, TX_SK } from '../../shared/adapters/dynamodb/table';
import { applyReport } from '../../shared/domain/apply-report';
import { compactOutbox, eventsFromChange } from '../../shared/domain/outbox';
import type { TransactionKey, TransactionRecord } from '../../shared/domain/transaction';
import { itemBytes, WRITE_UNIT_BYTES } from '../../scripts/cost/dynamo-units';
import { createTestTable } from '../helpers/dynamo';
import { KEY, registered, report } from '../helpers/reports';

let table: Awaited<ReturnType<typeof createTestTable>>;
beforeAll(async () => {
  table = await createTestTable();
});
afterAll(async () => {
  await table.drop();
});

const CTX = { now: '2026-11-21T10:00:00.000Z', reconcileWindowSeconds: 3600 };

/** What a first callback writes: a callback for a transaction nobody registered (two events), or a registered one's success. */
function firstCallback(reference: string, orphan: boolean): TransactionRecord {
  const key = { ...KEY, reference };
  const outcome = applyReport(
    orphan ? undefined : registered({ key }),
    report({ key, receiptId: 'f9ae5d2e1718a715fcc6431c352555f9' }),
    CTX,
  );
  if (outcome.kind !== 'write') throw new Error(`expected a write, got ${outcome.kind}`);
  return outcome.next;
}

async function storedItem(key: TransactionKey) {
  const { Item } = await table.client.send(
    new GetItemCommand({
      TableName: table.tableName,
      Key: { pk: { S: transactionPk(key) }, sk: { S: TX_SK } },
    }),
  );
  return Item!;
}

describe('the transaction item in the table', () => {
  it('stores a first callback for a transaction nobody registered in under 1 KB and reads it back whole', async () => {
    // Prepare
    const tx = firstCallback('orphan-compact', true);
    expect(tx.outbox.map((e) => e.metadata.type)).toEqual(['CallbackOrphaned', 'TransactionSucceeded']);

    // Act
    await table.store.createTransaction(tx);

    // Assess: one write unit by AWS's rule (names and values counted), and nothing lost.
    const item = await storedItem(tx.key);
    expect(itemBytes(item)).toBeLessThanOrEqual(WRITE_UNIT_BYTES);
    expect(await table.store.getTransaction(tx.key)).toEqual(tx);
  });

  it('stores a registered transaction after its first callback in under 1 KB', async () => {
    // Prepare
    const tx = firstCallback('registered-compact', false);
    await table.store.createTransaction(registered({ key: tx.key }));

    // Act
    expect(await table.store.replaceTransaction(tx, 1)).toBe(true);

    // Assess
    expect(itemBytes(await storedItem(tx.key))).toBeLessThanOrEqual(WRITE_UNIT_BYTES);
    expect(await table.store.getTransaction(tx.key)).toEqual(tx);
  });

  it('keeps what DynamoDB reads as plain attributes: keys, indexes, the projection, the revision, the TTL and the outbox ids', async () => {
    // Prepare
    const tx = firstCallback('plain-attributes', true);

    // Act
    await table.store.createTransaction(tx);

    // Assess
    const item = await storedItem(tx.key);
    expect(item.status).toEqual({ S: 'SUCCEEDED' });
    expect(item.providerTransactionId).toEqual({ S: '363440463' });
    expect(item.amount).toEqual({ M: { value: { S: '100' }, currency: { S: 'EUR' } } });
    expect(item.revision).toEqual({ N: String(tx.revision) });
    expect(item.updatedAt).toEqual({ S: tx.updatedAt });
    expect(item.expiresAt?.N).toBeDefined();
    for (const name of ['dayShard', 'createdAt']) expect(item[name]).toBeDefined();
    // Its verdict within the slack of its creation: byDay places it, no byAccountDay entry.
    for (const name of ['accountDay', 'dayAt']) expect(item[name]).toBeUndefined();
    // The cloud stream filter matches NewImage.outbox[].metadata.id (infra/relay/outbox.ts).
    expect(item.outbox?.L?.map((e) => e.M?.metadata?.M?.id?.S)).toEqual(tx.outbox.map((e) => e.metadata.id));
  });

  it('publishes from the stream the same events a plain item carried, also from Lambda’s base64 image', async () => {
    // Prepare
    const tx = firstCallback('stream-image', true);
    await table.store.createTransaction(tx);
    const item = await storedItem(tx.key);
    // Lambda delivers binary attributes as base64 text in the stream event's JSON.
    const lambdaImage = JSON.parse(
      JSON.stringify(item, (_, value: unknown) =>
        value && typeof value === 'object' && 'B' in value
          ? { B: Buffer.from((value as { B: Uint8Array }).B).toString('base64') }
          : value,
      ),
    );
    const record = (image: unknown) =>
      ({ dynamodb: { Keys: { sk: { S: TX_SK } }, NewImage: image } }) as unknown as DynamoDBRecord;

    // Act
    const fromSdk = imagesOf(record(item));
    const fromLambda = imagesOf(record(lambdaImage));

    // Assess
    expect(eventsFromChange(undefined, fromSdk.newImage)).toEqual(stamped(tx.outbox, tx.revision));
    expect(eventsFromChange(undefined, fromLambda.newImage)).toEqual(stamped(tx.outbox, tx.revision));
  });

  it('reads a transaction item written in the old plain layout, and rewrites it compact', async () => {
    // Prepare: the item as the adapter wrote it before the compact layout (every field an attribute,
    // the outbox's events whole but for the fields they share with the item).
    const tx = firstCallback('old-layout', true);
    const { key, ...rest } = tx;
    const wide: Record<string, unknown> = {
      dayShard: `${tx.createdAt.slice(0, 10)}#1`,
      accountDay: `momo#demo#${tx.updatedAt.slice(0, 10)}`,
      dayAt: tx.updatedAt,
      pk: transactionPk(key),
      sk: TX_SK,
      itemType: 'transaction',
      ...key,
      ...rest,
    };
    wide.outbox = compactOutbox(tx.outbox, wide);
    await table.doc.send(new PutCommand({ TableName: table.tableName, Item: wide }));

    // Act
    const read = await table.store.getTransaction(key);
    const image = imagesOf({
      dynamodb: {
        Keys: { sk: { S: TX_SK } },
        NewImage: marshall(wide, { removeUndefinedValues: true }),
      },
    } as unknown as DynamoDBRecord);
    const next = { ...read!, revision: read!.revision + 1, outbox: [] };
    const replaced = await table.store.replaceTransaction(next, read!.revision);

    // Assess
    expect(read).toEqual(tx);
    expect(eventsFromChange(undefined, image.newImage)).toEqual(stamped(tx.outbox, tx.revision));
    expect(replaced).toBe(true);
    expect((await storedItem(key)).h?.B).toBeInstanceOf(Uint8Array);
    expect(await table.store.getTransaction(key)).toEqual(next);
  });

  it('gives operators the plain item in a transaction’s collection', async () => {
    // Prepare
    const tx = firstCallback('collection-view', true);
    await table.store.createTransaction(tx);

    // Act
    const items = await table.store.listTransactionItems(tx.key);

    // Assess
    const item = items.find((i) => i.sk === TX_SK)!;
    expect(item).toMatchObject({
      provider: 'momo',
      account: 'demo',
      reference: 'collection-view',
      itemType: 'transaction',
      status: 'SUCCEEDED',
      registered: false,
    });
    expect(item).not.toHaveProperty('h');
  });
});

/** The events as the stream publishes them: stamped with the item's revision (metadata.stateVersion). */
function stamped<E extends { metadata: object }>(events: readonly E[], revision: number): E[] {
  return events.map((e) => ({ ...e, metadata: { ...e.metadata, stateVersion: revision } }));
}
