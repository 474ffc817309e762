import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReconcileServices } from '../../shared/app/reconciliation/reconcile';
import { runPollCycle } from '../../shared/app/reconciliation/poll-cycle';
import { parseConfig } from '../../shared/config/load';
import type { TransactionRecord } from '../../shared/domain/transaction';
import type { StatusApi } from '../../shared/providers/types';
import { createScrubber } from '../../shared/util/redact';
import { createTestTable } from '../helpers/dynamo';
import { silentLogger } from '../helpers/relay';
import { storedTransaction } from '../helpers/reports';

const NOW = Date.parse('2026-11-23T12:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

const config = parseConfig({
  management: { bearerToken: 'a-long-enough-token' },
  accounts: { momo: { demo: { pathSecret: 'momo-path-secret-0123' } } },
});

function pending(
  reference: string,
  dueAt: string | undefined,
  status: TransactionRecord['status'] = 'PENDING',
): TransactionRecord {
  return storedTransaction({ provider: 'momo', account: 'demo', reference }, iso(NOW - 3600_000), {
    status,
    reconcileUntil: iso(NOW + 86_400_000),
    reconcile: { ...(dueAt ? { dueAt } : {}), checks: 0, recent: [] },
  });
}

const uuid = (i: number) => `${i.toString(16).padStart(8, '0')}-4b7d-4e2a-9c3b-1a2b3c4d5e6f`;

async function inParallel<T>(items: T[], width: number, run: (item: T) => Promise<unknown>) {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await run(item);
    }),
  );
}

describe('the due index in DynamoDB Local', () => {
  const operations: string[] = [];
  let table: Awaited<ReturnType<typeof createTestTable>>;
  // 450 not-due against 50 due: a query that read the table, not the due items, would read 10× the due
  // items, far above the bound of 1.1 below (npm run bench measures the same with 10,000 registered).
  const TOTAL = 500;
  const DUE = 50;

  beforeAll(async () => {
    table = await createTestTable({ onConsumedCapacity: (operation) => void operations.push(operation) });
    // 500 registered transactions: 50 due now, the rest due in five minutes.
    const indices = Array.from({ length: TOTAL }, (_, i) => i);
    // A write the store's 1.5 s request timeout cut on a busy machine is sent again (a landed one answers
    // false the second time): the setup waits for DynamoDB Local, it does not race it.
    const create = async (i: number, attempt = 1): Promise<unknown> =>
      table.store
        .createTransaction(pending(uuid(i), i < DUE ? iso(NOW - 1000 - i) : iso(NOW + 300_000)))
        .catch((error: unknown) => {
          if (attempt >= 5) throw error;
          return create(i, attempt + 1);
        });
    await inParallel(indices, 16, (i) => create(i));
  }, 180_000);
  afterAll(async () => {
    await table.drop();
  });

  it('reads about one item per due transaction in a poll cycle, whatever the table holds', async () => {
    // Prepare
    const calls: string[] = [];
    const api: StatusApi = {
      async check(query) {
        calls.push(query.reference);
        return { type: 'pending', detail: 'PENDING' };
      },
    };
    const services: ReconcileServices = {
      config,
      store: table.store,
      clock: { now: () => new Date(NOW) },
      log: silentLogger,
      scrub: createScrubber([]),
      statusApi: () => api,
      metrics: { count: () => {}, timing: () => {}, flush: () => {} },
    };
    operations.length = 0;
    // Act
    const result = await runPollCycle(services, { owner: 'poller-1' });
    // Assess
    expect(result.due).toBe(DUE);
    expect(result.claimed).toBe(DUE);
    expect(calls).toHaveLength(DUE);
    expect(result.readItems / DUE).toBeLessThanOrEqual(1.1);
    // No item is read besides the index entries: claims return the item with the write.
    expect(operations.filter((o) => o === 'getTransaction')).toHaveLength(0);
    // The checked items moved to their next check: the next cycle at the same instant finds nothing.
    const again = await runPollCycle(services, { owner: 'poller-1' });
    expect(again.due).toBe(0);
  });

  it('lets exactly one of two claims on the same entry win', async () => {
    // Prepare
    await table.store.createTransaction(pending('race-1', iso(NOW - 5000)));
    const item = { key: { provider: 'momo', account: 'demo', reference: 'race-1' }, dueAt: iso(NOW - 5000) };
    // Act
    const [a, b] = await Promise.all([
      table.store.claimDue(item, { until: iso(NOW + 60_000), owner: 'a' }),
      table.store.claimDue(item, { until: iso(NOW + 60_000), owner: 'b' }),
    ]);
    // Assess
    expect([a, b].filter(Boolean)).toHaveLength(1);
    const winner = (a ?? b)!;
    expect(winner.reconcile?.dueAt).toBe(iso(NOW + 60_000));
    expect(winner.revision).toBe(2);
  });

  it('refuses a claim made from a stale index entry', async () => {
    // Prepare
    await table.store.createTransaction(pending('stale-1', iso(NOW - 5000)));
    const stale = {
      key: { provider: 'momo', account: 'demo', reference: 'stale-1' },
      dueAt: iso(NOW - 9999),
    };
    // Act
    const claimed = await table.store.claimDue(stale, { until: iso(NOW + 60_000), owner: 'a' });
    // Assess
    expect(claimed).toBeUndefined();
  });

  it('keeps final transactions out of the index and lists transactions by creation time', async () => {
    // Prepare
    await table.store.createTransaction(pending('final-1', iso(NOW - 5000), 'SUCCEEDED'));
    // Act
    const due = await table.store.listDue(iso(NOW + 10 ** 9), 20_000);
    const created = await table.store.listCreated(iso(NOW - 3600_000), iso(NOW - 3600_000));
    // Assess
    expect(due.items.map((i) => i.key.reference)).not.toContain('final-1');
    expect(created.length).toBeGreaterThanOrEqual(TOTAL);
    expect(created.map((k) => k.reference)).toContain('final-1');
  });

  it('keeps a final payment due for its held reversal when a write dropped its schedule, and claimable', async () => {
    // Prepare: SUCCEEDED, no dueAt left (a receipt adopted ended its recheck), a reversal held and due.
    const heldDue = iso(NOW - 5000);
    await table.store.createTransaction({
      ...pending('held-1', undefined, 'SUCCEEDED'),
      heldReversals: [
        {
          id: 'rev-1',
          namespace: 'reversal-unconfirmed',
          receipt: 'SBX0REV001',
          amount: null,
          heldAt: heldDue,
          asks: 0,
          dueAt: heldDue,
          state: 'asking',
        },
      ],
    });
    // Act
    const due = await table.store.listDue(iso(NOW), 20_000);
    const item = due.items.find((i) => i.key.reference === 'held-1');
    const claimed = item && (await table.store.claimDue(item, { until: iso(NOW + 60_000), owner: 'a' }));
    // Assess
    expect(item?.dueAt).toBe(heldDue);
    expect(claimed?.reconcile).toMatchObject({ dueAt: iso(NOW + 60_000), leaseOwner: 'a' });
  });
});

describe('a cycle with more due items than it takes', () => {
  it('reads about as many index entries as it takes', async () => {
    // Prepare
    const table = await createTestTable();
    try {
      await inParallel(
        Array.from({ length: 120 }, (_, i) => i),
        16,
        (i) => table.store.createTransaction(pending(uuid(100_000 + i), iso(NOW - 1000 - i))),
      );
      // Act
      const listed = await table.store.listDue(iso(NOW), 40);
      // Assess
      expect(listed.items).toHaveLength(40);
      expect(listed.readItems).toBeLessThanOrEqual(44);
    } finally {
      await table.drop();
    }
  });
});
