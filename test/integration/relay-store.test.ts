import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReceiptInput } from '../../shared/app/ports';
import { widenReceiptItem } from '../../shared/adapters/dynamodb/receipt-item';
import { createTestTable, TEST_RETENTION } from '../helpers/dynamo';
import { KEY, registered } from '../helpers/reports';
import { allReceipts } from '../helpers/receipts';

let table: Awaited<ReturnType<typeof createTestTable>>;
beforeAll(async () => {
  table = await createTestTable();
});
afterAll(async () => {
  await table.drop();
});

function receipt(overrides: Partial<ReceiptInput> = {}): ReceiptInput {
  return {
    key: KEY,
    routeName: 'callback',
    method: 'PUT',
    path: '/v1/momo/demo/requesttopay/x',
    headers: { 'content-type': 'application/json' },
    sourceIp: '10.0.0.1',
    body: '{"status":"SUCCESSFUL"}',
    receivedAt: '2026-11-21T10:00:00.000Z',
    verification: { pathSecret: 'not-configured' },
    dedupeKey: 'a'.repeat(64),
    ...overrides,
  };
}

describe('DynamoRelayStore', () => {
  it('stores a receipt once and counts repeated deliveries of the same bytes', async () => {
    const first = await table.store.recordReceipt(receipt({ dedupeKey: 'b'.repeat(64) }));
    const second = await table.store.recordReceipt(
      receipt({ dedupeKey: 'b'.repeat(64), receivedAt: '2026-11-21T10:05:00.000Z', sourceIp: '10.9.9.9' }),
    );
    expect(first).toEqual({ receiptId: 'b'.repeat(32), deliveries: 1 });
    expect(second.deliveries).toBe(2);
    const [summary] = (await allReceipts(table.store, KEY)).filter((r) => r.receiptId === 'b'.repeat(32));
    // The first delivery's facts are kept; only the last-seen time moves.
    expect(summary).toMatchObject({
      deliveries: 2,
      sourceIp: '10.0.0.1',
      firstReceivedAt: '2026-11-21T10:00:00.000Z',
      lastReceivedAt: '2026-11-21T10:05:00.000Z',
    });
  });

  it('counts 20 concurrent identical deliveries exactly', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, () => table.store.recordReceipt(receipt({ dedupeKey: 'c'.repeat(64) }))),
    );
    expect(results.map((r) => r.deliveries).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
  });

  it('sets a TTL on receipts from the configured retention', async () => {
    await table.store.recordReceipt(receipt({ dedupeKey: 'd'.repeat(64) }));
    const item = await table.doc.send(
      new GetCommand({
        TableName: table.tableName,
        Key: { pk: `TX#momo#demo#${KEY.reference}`, sk: `RCPT#${'d'.repeat(32)}` },
      }),
    );
    expect(item.Item?.expiresAt).toBe(Date.parse('2026-11-21T10:00:00.000Z') / 1000 + 30 * 86400);
  });

  it('keeps an open transaction without a TTL and lets a final one expire transactionDays after its last change', async () => {
    // Prepare
    const key = { ...KEY, reference: 'hot-window' };
    const ttlOf = async () =>
      (
        await table.doc.send(
          new GetCommand({
            TableName: table.tableName,
            Key: { pk: `TX#momo#demo#${key.reference}`, sk: 'TX' },
          }),
        )
      ).Item?.expiresAt;
    await table.store.createTransaction(registered({ key }));
    const open = await ttlOf();

    // Act: it succeeds two days later
    const finalAt = '2026-11-23T08:00:00.000Z';
    await table.store.replaceTransaction(
      registered({ key, status: 'SUCCEEDED', updatedAt: finalAt, revision: 2 }),
      1,
    );

    // Assess
    expect(open).toBeUndefined();
    expect(await ttlOf()).toBe(Date.parse(finalAt) / 1000 + TEST_RETENTION.transactionDays * 86400);
  });

  it('creates a transaction only if it does not exist', async () => {
    const key = { ...KEY, reference: 'create-once' };
    expect(await table.store.createTransaction(registered({ key }))).toBe(true);
    expect(await table.store.createTransaction(registered({ key, kind: 'transfer' }))).toBe(false);
    expect((await table.store.getTransaction(key))?.kind).toBe('requesttopay');
  });

  it('replaces a transaction only at the revision it was read at', async () => {
    const key = { ...KEY, reference: 'optimistic' };
    await table.store.createTransaction(registered({ key, revision: 1 }));
    expect(
      await table.store.replaceTransaction(registered({ key, revision: 2, status: 'SUCCEEDED' }), 1),
    ).toBe(true);
    expect(await table.store.replaceTransaction(registered({ key, revision: 2, status: 'FAILED' }), 1)).toBe(
      false,
    );
    expect((await table.store.getTransaction(key))?.status).toBe('SUCCEEDED');
  });

  it('round-trips every transaction field', async () => {
    const key = { ...KEY, reference: 'round-trip' };
    const tx = registered({
      key,
      metadata: { orderId: 7 },
      attributes: { receipt: 'R1' },
      reason: { code: 'UNKNOWN', message: 'm', providerCode: 'X' },
    });
    await table.store.createTransaction(tx);
    expect(await table.store.getTransaction(key)).toEqual(tx);
  });

  it('keeps quarantined requests listable by day, newest first', async () => {
    const base = {
      httpStatus: 400,
      errorCode: 'MALFORMED_JSON',
      message: 'bad',
      provider: 'momo',
      account: 'demo',
      routeName: 'callback',
      method: 'PUT',
      path: '/v1/momo/demo/x/y',
      headers: {},
      sourceIp: '1.2.3.4',
      body: '{bad',
      bodyEncoding: 'utf8' as const,
      bodyBytes: 4,
      bodySha256: 'x',
      bodyTruncated: false,
      outbox: [],
    };
    await table.store.quarantine({ ...base, id: 'q1', receivedAt: '2026-01-02T10:00:00.000Z' });
    await table.store.quarantine({ ...base, id: 'q2', receivedAt: '2026-01-02T11:00:00.000Z' });
    const items = await table.store.listQuarantine('2026-01-02');
    expect(items.map((i) => i.id)).toEqual(['q2', 'q1']);
    expect(items[0]).toMatchObject({ body: '{bad', errorCode: 'MALFORMED_JSON' });
  });

  it('lists receipts a bounded page at a time, without their bodies, and drops a body on demand', async () => {
    // Prepare: five receipts of 50 KB about one transaction of its own.
    const key = { ...KEY, reference: 'paged-receipts' };
    const ids = ['1', '2', '3', '4', '5'].map((c) => c.repeat(64));
    for (const dedupeKey of ids)
      await table.store.recordReceipt(receipt({ key, dedupeKey, body: 'x'.repeat(50_000) }));
    // Act
    const first = await table.store.listReceipts(key, { limit: 2 });
    const second = await table.store.listReceipts(key, { limit: 2, after: first.next! });
    await table.store.dropReceiptBody(key, '3'.repeat(32));
    const all = await allReceipts(table.store, key);
    // Assess
    expect(first.receipts.map((r) => r.receiptId)).toEqual(['1'.repeat(32), '2'.repeat(32)]);
    expect(second.receipts.map((r) => r.receiptId)).toEqual(['3'.repeat(32), '4'.repeat(32)]);
    expect(first.receipts[0]).not.toHaveProperty('body');
    expect(all).toHaveLength(5);
    expect(all.filter((r) => r.bodyDropped).map((r) => r.receiptId)).toEqual(['3'.repeat(32)]);
    const stored = await table.doc.send(
      new GetCommand({
        TableName: table.tableName,
        Key: { pk: 'TX#momo#demo#paged-receipts', sk: `RCPT#${'3'.repeat(32)}` },
      }),
    );
    // The body lives in the compact item's packed attribute (receipt-item.ts): gone from there too.
    expect(widenReceiptItem(stored.Item)).toMatchObject({ body: '', bodyDropped: true, bodyBytes: 50_000 });
  });

  it('counts against a budget atomically and counts the refusals past it', async () => {
    // Prepare
    const ref = { provider: 'momo', account: 'demo', namespace: 'hint-budget', id: '2026-11-21' };
    const budget = { limit: 5, at: '2026-11-21T10:00:00.000Z', lifetimeSeconds: 3600 };
    // Act: eight concurrent counts.
    const results = await Promise.all(Array.from({ length: 8 }, () => table.store.countRecord(ref, budget)));
    // Assess
    expect(results.filter((r) => r.counted)).toHaveLength(5);
    expect(Math.max(...results.map((r) => r.refused))).toBe(3);
  });
});
