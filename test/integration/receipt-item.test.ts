/**
 * The receipt item's compact layout (shared/adapters/dynamodb/receipt-item.ts): every provider callback
 * body the relay receives (the fixtures: MoMo, Airtel, Daraja STK, C2B and results), with the headers API
 * Gateway passes on, is stored in one write unit by DynamoDB's item-size rule, reads back whole, and a
 * receipt written in the old (plain) layout still reads.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/bundling';
import type { ReceiptInput } from '../../shared/app/ports';
import { RECEIPT_SK_PREFIX, transactionPk } from '../../shared/adapters/dynamodb/table';
import { storableHeaders } from '../../shared/app/callbacks/receipts';
import { itemBytes, WRITE_UNIT_BYTES } from '../../scripts/cost/dynamo-units';
import { createTestTable } from '../helpers/dynamo';

let table: Awaited<ReturnType<typeof createTestTable>>;
beforeAll(async () => {
  table = await createTestTable();
});
afterAll(async () => {
  await table.drop();
});

/** What API Gateway's HTTP API hands the callback function besides the body (payload format 2.0). */
const GATEWAY_HEADERS = {
  accept: '*/*',
  'accept-encoding': 'gzip, deflate',
  'content-length': '857',
  'content-type': 'application/json',
  host: 'abcdef1234.execute-api.eu-west-1.amazonaws.com',
  'user-agent': 'Apache-HttpClient/4.5.13 (Java/1.8.0_292)',
  'x-amzn-trace-id': 'Root=1-6745a1b2-0123456789abcdef01234567',
  'x-forwarded-for': '196.201.214.200',
  'x-forwarded-port': '443',
  'x-forwarded-proto': 'https',
};

/** Every callback body fixture, by provider. */
const FIXTURES = ['momo', 'airtel', 'daraja'].flatMap((provider) => {
  const dir = join(PROJECT_ROOT, 'test/fixtures', provider);
  return readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .map((name) => ({ provider, name, body: readFileSync(join(dir, name), 'utf8') }));
});

function receipt(provider: string, reference: string, body: string): ReceiptInput {
  return {
    key: { provider, account: 'ke-600638', reference },
    routeName: 'result',
    method: 'POST',
    path: `/v1/${provider}/ke-600638/b2c/result`,
    headers: storableHeaders(GATEWAY_HEADERS),
    sourceIp: '196.201.214.200',
    body,
    receivedAt: '2026-11-21T10:00:00.000Z',
    verification: { pathSecret: 'ok', sourceIp: 'allowed', signature: 'absent' },
    dedupeKey: `${reference.replace(/[^0-9a-f]/g, '').padEnd(32, 'a')}${'b'.repeat(32)}`,
  };
}

async function storedItem(input: ReceiptInput) {
  const { Item } = await table.client.send(
    new GetItemCommand({
      TableName: table.tableName,
      Key: {
        pk: { S: transactionPk(input.key) },
        sk: { S: `${RECEIPT_SK_PREFIX}${input.dedupeKey.slice(0, 32)}` },
      },
    }),
  );
  return Item!;
}

describe('the receipt item in the table', () => {
  it.each(FIXTURES)(
    'stores $provider $name with the gateway headers in one write unit and reads it back whole',
    async ({ provider, name, body }) => {
      // Prepare
      const input = receipt(provider, `fixture-${provider}-${name}`, body);

      // Act
      const recorded = await table.store.recordReceipt(input);

      // Assess: one write unit by AWS's rule (names and values counted), and nothing lost.
      expect(itemBytes(await storedItem(input))).toBeLessThanOrEqual(WRITE_UNIT_BYTES);
      expect(await table.store.getReceipt(input.key, recorded.receiptId)).toMatchObject({
        receiptId: input.dedupeKey.slice(0, 32),
        routeName: input.routeName,
        method: input.method,
        path: input.path,
        headers: input.headers,
        sourceIp: input.sourceIp,
        firstReceivedAt: input.receivedAt,
        deliveries: 1,
        verification: input.verification,
        bodyBytes: Buffer.byteLength(body),
        body,
      });
    },
  );

  it('keeps what the first delivery saw when the same body comes again, and counts it', async () => {
    // Prepare
    const input = receipt('daraja', 'repeat-compact', FIXTURES.find((f) => f.provider === 'daraja')!.body);
    await table.store.recordReceipt(input);

    // Act
    const again = await table.store.recordReceipt({
      ...input,
      receivedAt: '2026-11-21T10:05:00.000Z',
      sourceIp: '196.201.214.206',
      headers: { ...input.headers, 'x-forwarded-for': '196.201.214.206' },
    });

    // Assess
    expect(again.deliveries).toBe(2);
    expect(await table.store.getReceipt(input.key, again.receiptId)).toMatchObject({
      sourceIp: input.sourceIp,
      headers: input.headers,
      firstReceivedAt: input.receivedAt,
      lastReceivedAt: '2026-11-21T10:05:00.000Z',
      deliveries: 2,
    });
  });

  it('reads a receipt written in the old plain layout, also after a repeat reached it, and keeps its dropped body dropped', async () => {
    // Prepare: the item as the adapter wrote it before the compact layout, its body since dropped.
    const input = receipt('momo', 'old-layout-receipt', '{"status":"SUCCESSFUL"}');
    const receiptId = input.dedupeKey.slice(0, 32);
    await table.doc.send(
      new PutCommand({
        TableName: table.tableName,
        Item: {
          pk: transactionPk(input.key),
          sk: `${RECEIPT_SK_PREFIX}${receiptId}`,
          itemType: 'receipt',
          receiptId,
          dedupeKey: input.dedupeKey,
          ...input.key,
          routeName: input.routeName,
          bodyBytes: 23,
          lastReceivedAt: input.receivedAt,
          method: input.method,
          path: input.path,
          headers: input.headers,
          sourceIp: input.sourceIp,
          body: '',
          bodyDropped: true,
          verification: input.verification,
          firstReceivedAt: input.receivedAt,
          deliveries: 1,
        },
      }),
    );

    // Act
    const again = await table.store.recordReceipt({ ...input, receivedAt: '2026-11-21T10:05:00.000Z' });
    const read = await table.store.getReceipt(input.key, receiptId);

    // Assess
    expect(again).toEqual({ receiptId, deliveries: 2 });
    expect(read).toMatchObject({
      receiptId,
      path: input.path,
      headers: input.headers,
      body: '',
      bodyDropped: true,
    });
    expect(read!.deliveries).toBe(2);
  });

  it('drops a compact receipt’s body and keeps the rest', async () => {
    // Prepare
    const input = receipt('airtel', 'drop-compact', FIXTURES.find((f) => f.provider === 'airtel')!.body);
    const { receiptId } = await table.store.recordReceipt(input);

    // Act
    await table.store.dropReceiptBody(input.key, receiptId);

    // Assess
    expect(await table.store.getReceipt(input.key, receiptId)).toMatchObject({
      path: input.path,
      headers: input.headers,
      body: '',
      bodyDropped: true,
      bodyBytes: Buffer.byteLength(input.body),
    });
  });

  it('gives operators the plain receipt in a transaction’s collection', async () => {
    // Prepare
    const input = receipt('momo', 'collection-receipt', FIXTURES.find((f) => f.provider === 'momo')!.body);
    await table.store.recordReceipt(input);

    // Act
    const items = await table.store.listTransactionItems(input.key);

    // Assess
    expect(items.find((i) => String(i.sk).startsWith(RECEIPT_SK_PREFIX))).toMatchObject({
      provider: 'momo',
      account: 'ke-600638',
      reference: 'collection-receipt',
      receiptId: input.dedupeKey.slice(0, 32),
      dedupeKey: input.dedupeKey,
      body: input.body,
      headers: input.headers,
    });
  });
});
