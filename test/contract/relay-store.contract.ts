import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ReceiptInput, RelayStore } from '../../shared/app/ports';
import type { TransactionRecord } from '../../shared/domain/transaction';
import { allReceipts } from '../helpers/receipts';
import { registered } from '../helpers/reports';

/**
 * What every RelayStore promises, whatever keeps it: the in-memory store of the fast use-case tests
 * must behave like the DynamoDB adapter, or those tests prove nothing. Run by
 * memory-store.contract.test.ts and test/integration/dynamodb-store.contract.test.ts (DynamoDB Local: the
 * dynamodb lane, docs/development.md#test-lanes).
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

    it('abandons a provider record write whose signal aborted (the ack budget cut it): nothing is written', async () => {
      // Prepare
      const store = storeOf();
      const ref = { provider: 'momo', account: 'demo', namespace: 'callback-health', id: randomUUID() };
      const cut = new AbortController();
      cut.abort();
      // Act
      const write = store.putRecord(
        { ...ref, data: { n: 1 }, createdAt: new Date().toISOString() },
        { signal: cut.signal },
      );
      // Assess
      await expect(write).rejects.toThrow();
      expect(await store.getRecord(ref, { consistent: true })).toBeUndefined();
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

    // The console's reads (ConsoleStore). A day of its own, so that the shared table's other items stay out.
    const consoleDay = () => {
      const day = new Date(Date.UTC(2040, 0, 1) + Math.floor(Math.random() * 50 * 365) * 86_400_000);
      return day.toISOString().slice(0, 10);
    };

    it('pages the transactions created in a range newest first, ties by key, each once', async () => {
      // Prepare: five on one day (two at the same instant), one the day before, one after the range.
      const store = storeOf();
      const day = consoleDay();
      const previous = new Date(Date.parse(day) - 86_400_000).toISOString().slice(0, 10);
      const times = [
        `${day}T01:00:00.000Z`,
        `${day}T02:00:00.000Z`,
        `${day}T02:00:00.000Z`,
        `${day}T03:00:00.000Z`,
      ];
      const records = [...times, `${previous}T23:00:00.000Z`].map((createdAt) => tx({ createdAt }));
      const outside = tx({ createdAt: `${day}T09:00:00.000Z` });
      for (const record of [...records, outside]) await store.createTransaction(record);
      const range = { from: `${previous}T00:00:00.000Z`, to: `${day}T08:00:00.000Z` };
      // Act
      const seen: string[] = [];
      let before;
      let pages = 0;
      for (;;) {
        const page = await store.listCreatedPage(range, { limit: 2, ...(before ? { before } : {}) });
        pages++;
        seen.push(...page.entries.map((e) => `${e.createdAt} ${e.key.reference}`));
        before = page.entries.at(-1);
        if (!page.more) break;
      }
      // Assess
      const pk = (r: TransactionRecord) => `TX#${r.key.provider}#${r.key.account}#${r.key.reference}`;
      const expected = [...records]
        .sort((a, b) =>
          a.createdAt === b.createdAt ? pk(b).localeCompare(pk(a)) : b.createdAt.localeCompare(a.createdAt),
        )
        .map((r) => `${r.createdAt} ${r.key.reference}`);
      expect(seen).toEqual(expected);
      expect(pages).toBe(3);
    });

    it('finds lookups noted for a transaction, newest first, once per transaction', async () => {
      // Prepare
      const store = storeOf();
      const value = `order-${randomUUID()}`;
      const older = { key: key(), createdAt: '2026-11-20T10:00:00.000Z' };
      const newer = { key: key(), createdAt: '2026-11-21T10:00:00.000Z' };
      // Act
      await store.putLookup('externalId', value, older);
      await store.putLookup('externalId', value, newer);
      await store.putLookup('externalId', value, newer);
      // Assess
      expect(await store.findLookups('externalId', value, 10)).toEqual([newer, older]);
      expect(await store.findLookups('externalId', value, 1)).toEqual([newer]);
      expect(await store.findLookups('msisdn', value, 10)).toEqual([]);
    });

    it('keeps the number hash of an MSISDN lookup on its one item, telling numbers that share a mask apart', async () => {
      // Prepare: two numbers under one mask, and a lookup noted before hashes existed.
      const store = storeOf();
      const mask = `2547*****${randomUUID().slice(0, 3)}`;
      const mine = { key: key(), createdAt: '2026-11-20T10:00:00.000Z', numberHash: 'a'.repeat(64) };
      const theirs = { key: key(), createdAt: '2026-11-21T10:00:00.000Z', numberHash: 'b'.repeat(64) };
      const older = { key: key(), createdAt: '2026-11-19T10:00:00.000Z' };
      // Act
      await store.putLookup('msisdn', mask, mine);
      await store.putLookup('msisdn', mask, theirs);
      await store.putLookup('msisdn', mask, older);
      // Assess
      expect(await store.findLookups('msisdn', mask, 10)).toEqual([theirs, mine, older]);
    });

    it('reads one receipt with its body, or nothing', async () => {
      // Prepare
      const store = storeOf();
      const input = receipt({ body: '{"status":"SUCCESSFUL","financialTransactionId":"363440463"}' });
      const { receiptId } = await store.recordReceipt(input);
      // Act
      const stored = await store.getReceipt(input.key, receiptId);
      const missing = await store.getReceipt(input.key, '0'.repeat(32));
      // Assess
      expect(stored).toMatchObject({
        receiptId,
        routeName: 'requesttopay',
        path: input.path,
        headers: input.headers,
        body: input.body,
        deliveries: 1,
        bodyBytes: Buffer.byteLength(input.body),
      });
      expect(missing).toBeUndefined();
    });

    it("pages a day's quarantine newest first; facets keep the codes", async () => {
      // Prepare
      const store = storeOf();
      const day = consoleDay();
      const entry = (n: number) => ({
        id: randomUUID(),
        receivedAt: `${day}T10:00:0${n}.000Z`,
        httpStatus: 403,
        errorCode: n % 2 ? 'ORIGIN_NOT_VERIFIED' : 'MALFORMED_JSON',
        message: 'refused',
        provider: 'momo',
        account: 'demo',
        routeName: 'requesttopay',
        method: 'PUT',
        path: '/v1/momo/demo/requesttopay/{secret}',
        headers: {},
        sourceIp: '10.0.0.9',
        body: '{"forged":true}',
        bodyEncoding: 'utf8' as const,
        bodyBytes: 15,
        bodySha256: 'ab'.repeat(32),
        bodyTruncated: false,
        outbox: [],
      });
      const entries = [1, 2, 3].map(entry);
      for (const e of entries) await store.quarantine(e);
      // Act
      const first = await store.listQuarantineDay(day, { limit: 2 });
      const second = await store.listQuarantineDay(day, { limit: 2, after: first.next! });
      const facets = await store.listQuarantineDay(day, { limit: 10, facets: true });
      // Assess
      expect([...first.entries, ...second.entries].map((e) => e.id)).toEqual(
        entries.reverse().map((e) => e.id),
      );
      expect(first.entries[0]).toMatchObject({ body: '{"forged":true}', sourceIp: '10.0.0.9' });
      expect(first.entries[0]).not.toHaveProperty('outbox');
      expect(second.next).toBeUndefined();
      expect(facets.entries.map((e) => e.errorCode)).toEqual([
        'ORIGIN_NOT_VERIFIED',
        'MALFORMED_JSON',
        'ORIGIN_NOT_VERIFIED',
      ]);
    });
  });
}
