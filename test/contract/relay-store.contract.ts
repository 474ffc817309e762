import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ReceiptInput, RelayStore } from '../../shared/app/ports';
import type { TransactionRecord } from '../../shared/domain/transaction';
import { allReceipts } from '../helpers/receipts';
import { registered } from '../helpers/reports';

/**
 * What every RelayStore promises, whatever keeps it: the in-memory store of the fast use-case tests
 * must behave like the DynamoDB adapter, or those tests prove nothing. Run by
 * memory-store.contract.test.ts and dynamodb-store.contract.test.ts.
 */
export function describeRelayStoreContract(name: string, storeOf: () => RelayStore): void {
  const key = () => ({ provider: 'momo', account: 'demo', reference: randomUUID() });
  const tx = (overrides: Partial<TransactionRecord> = {}) => registered({ key: key(), ...overrides });
  const receipt = (overrides: Partial<ReceiptInput>): ReceiptInput => ({
    key: key(),
    routeName: 'requesttopay',
    method: 'PUT',
    path: '/v1/momo/demo/requesttopay/{secret}',
    headers: { 'content-type': 'application/json' },
    sourceIp: '10.0.0.1',
    body: '{"status":"SUCCESSFUL"}',
    receivedAt: '2026-11-21T10:00:00.000Z',
    verification: {},
    dedupeKey: randomUUID().replace(/-/g, '').repeat(2),
    ...overrides,
  });

  describe(`RelayStore contract: ${name}`, () => {
    it('creates a transaction only when it is absent', async () => {
      // Prepare
      const store = storeOf();
      const record = tx();
      // Act
      const first = await store.createTransaction(record);
      const second = await store.createTransaction({ ...record, status: 'FAILED' });
      // Assess
      expect([first, second]).toEqual([true, false]);
      expect((await store.getTransaction(record.key))?.status).toBe('PENDING');
    });

    it('replaces a transaction only at the revision it was read at, and round-trips its fields', async () => {
      // Prepare
      const store = storeOf();
      const record = tx({ receipts: { kept: 1, bytes: 10, dropped: 0, droppedBytes: 0 } });
      await store.createTransaction(record);
      // Act
      const stale = await store.replaceTransaction({ ...record, status: 'FAILED', revision: 3 }, 2);
      const current = await store.replaceTransaction({ ...record, status: 'SUCCEEDED', revision: 2 }, 1);
      // Assess
      expect([stale, current]).toEqual([false, true]);
      expect(await store.getTransaction(record.key, { consistent: true })).toEqual({
        ...record,
        status: 'SUCCEEDED',
        revision: 2,
      });
    });

    it('answers undefined for a transaction nobody stored', async () => {
      expect(await storeOf().getTransaction(key())).toBeUndefined();
    });

    it('stores the same bytes once and counts their deliveries', async () => {
      // Prepare
      const store = storeOf();
      const input = receipt({});
      // Act
      const first = await store.recordReceipt(input);
      const again = await store.recordReceipt({ ...input, receivedAt: '2026-11-21T10:05:00.000Z' });
      // Assess
      expect(first).toEqual({ receiptId: input.dedupeKey.slice(0, 32), deliveries: 1 });
      expect(again.deliveries).toBe(2);
      expect(await allReceipts(store, input.key)).toMatchObject([
        { deliveries: 2, firstReceivedAt: input.receivedAt, lastReceivedAt: '2026-11-21T10:05:00.000Z' },
      ]);
    });

    it('lists receipts in bounded pages in storage order, and drops a body keeping its metadata', async () => {
      // Prepare
      const store = storeOf();
      const where = key();
      const ids = ['a', 'b', 'c'].map((c) => c.repeat(64));
      for (const dedupeKey of ids) await store.recordReceipt(receipt({ key: where, dedupeKey }));
      // Act
      const first = await store.listReceipts(where, { limit: 2 });
      const rest = await store.listReceipts(where, { limit: 2, after: first.next! });
      await store.dropReceiptBody(where, 'b'.repeat(32));
      // Assess
      expect(first.receipts.map((r) => r.receiptId)).toEqual(['a'.repeat(32), 'b'.repeat(32)]);
      expect(rest.receipts.map((r) => r.receiptId)).toEqual(['c'.repeat(32)]);
      expect(rest.next).toBeUndefined();
      const dropped = (await allReceipts(store, where)).filter((r) => r.bodyDropped);
      expect(dropped).toMatchObject([{ receiptId: 'b'.repeat(32), bodyBytes: 23 }]);
    });

    it('keeps the first provider record written and replaces it only through putRecord', async () => {
      // Prepare
      const store = storeOf();
      const ref = { provider: 'daraja', account: 'ke', namespace: 'alias:test', id: randomUUID() };
      const at = new Date().toISOString();
      // Act
      const first = await store.putRecordIfAbsent({ ...ref, data: { n: 1 }, createdAt: at });
      const second = await store.putRecordIfAbsent({ ...ref, data: { n: 2 }, createdAt: at });
      await store.putRecord({ ...ref, data: { n: 3 }, createdAt: at });
      // Assess
      expect([first.written, second.written]).toEqual([true, false]);
      expect(second.record.data).toEqual({ n: 1 });
      expect((await store.getRecord(ref, { consistent: true }))?.data).toEqual({ n: 3 });
    });

    it('reads a provider record past its own lifetime as absent', async () => {
      // Prepare: written an hour ago with a minute to live.
      const store = storeOf();
      const ref = { provider: 'momo', account: 'demo', namespace: 'hint:test', id: randomUUID() };
      const createdAt = new Date(Date.now() - 3_600_000).toISOString();
      // Act
      await store.putRecord({ ...ref, data: { n: 1 }, createdAt, lifetimeSeconds: 60 });
      // Assess
      expect(await store.getRecord(ref, { consistent: true })).toBeUndefined();
    });

    it('counts against a budget up to its limit and counts the refusals past it', async () => {
      // Prepare
      const store = storeOf();
      const ref = { provider: 'momo', account: 'demo', namespace: 'budget:test', id: randomUUID() };
      const budget = { limit: 2, at: new Date().toISOString(), lifetimeSeconds: 3600 };
      // Act
      const results = [];
      for (let i = 0; i < 4; i++) results.push(await store.countRecord(ref, budget));
      // Assess
      expect(results.map((r) => r.counted)).toEqual([true, true, false, false]);
      expect(results.at(-1)).toMatchObject({ count: 2, refused: 2 });
    });

    it('lists what is due and leases an item once', async () => {
      // Prepare: one due, one later.
      const store = storeOf();
      const due = tx({ reconcile: { dueAt: '2026-11-21T10:00:00.000Z', checks: 0, recent: [] } });
      const later = tx({ reconcile: { dueAt: '2099-01-01T00:00:00.000Z', checks: 0, recent: [] } });
      await store.createTransaction(due);
      await store.createTransaction(later);
      // Act
      const listed = await store.listDue('2026-11-21T10:00:01.000Z', 1000);
      const item = listed.items.find((i) => i.key.reference === due.key.reference)!;
      const lease = { until: '2026-11-21T10:01:00.000Z', owner: 'poller-1' };
      const claimed = await store.claimDue(item, lease);
      const again = await store.claimDue(item, { ...lease, owner: 'poller-2' });
      // Assess
      expect(listed.items.some((i) => i.key.reference === later.key.reference)).toBe(false);
      expect(claimed?.reconcile).toMatchObject({ dueAt: lease.until, leaseOwner: 'poller-1' });
      expect(again).toBeUndefined();
    });
  });
}
