import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DynamoUnscheduledScan } from '../../shared/adapters/dynamodb-admin/unscheduled-scan';
import { rescheduleUnscheduled } from '../../shared/app/reconciliation/reschedule';
import { parseConfig } from '../../shared/config/load';
import type { TransactionRecord } from '../../shared/domain/transaction';
import { killChildren, runTs } from '../helpers/child-process';
import { createTestTable } from '../helpers/dynamo';
import { storedTransaction } from '../helpers/reports';

const NOW = Date.parse('2026-11-23T12:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

const config = parseConfig({
  management: { bearerToken: 'a-long-enough-token' },
  accounts: { momo: { demo: { pathSecret: 'momo-path-secret-0123' } } },
});

/** A transaction as the relay stored it before reconciliation existed: no `reconcile` state. */
function legacy(reference: string, overrides: Partial<TransactionRecord> = {}): TransactionRecord {
  return storedTransaction({ provider: 'momo', account: 'demo', reference }, iso(NOW - 60_000), {
    reconcileUntil: iso(NOW + 86_400_000),
    ...overrides,
  });
}

describe('npm run reschedule against DynamoDB Local', () => {
  let table: Awaited<ReturnType<typeof createTestTable>>;

  beforeAll(async () => {
    table = await createTestTable();
  });
  afterAll(async () => {
    await table.drop();
  });
  afterEach(() => killChildren());

  it('gives each non-final transaction without a schedule its first check, and puts it in the due index', async () => {
    // Prepare: two legacy PENDING (one young, one past its window), one legacy SUCCEEDED, one scheduled.
    await table.store.createTransaction(legacy('young'));
    await table.store.createTransaction(
      legacy('old', { createdAt: iso(NOW - 5 * 86_400_000), reconcileUntil: iso(NOW - 2 * 86_400_000) }),
    );
    await table.store.createTransaction(legacy('paid', { status: 'SUCCEEDED' }));
    await table.store.createTransaction(
      legacy('scheduled', { reconcile: { dueAt: iso(NOW + 600_000), checks: 1, recent: [] } }),
    );
    const services = {
      config,
      store: table.store,
      scan: new DynamoUnscheduledScan(table.doc, table.tableName),
      clock: { now: () => new Date(NOW) },
    };
    // Act
    const result = await rescheduleUnscheduled(services);
    const again = await rescheduleUnscheduled(services);
    // Assess
    expect(result).toEqual({ found: 2, scheduled: 2, skipped: 0 });
    expect(again).toEqual({ found: 0, scheduled: 0, skipped: 0 });
    const get = (reference: string) =>
      table.store.getTransaction({ provider: 'momo', account: 'demo', reference }, { consistent: true });
    // MoMo's first check: 300 s after creation; the old one at once (the poller expires it on time).
    expect((await get('young'))!.reconcile).toEqual({ dueAt: iso(NOW + 240_000), checks: 0, recent: [] });
    expect((await get('old'))!.reconcile?.dueAt).toBe(iso(NOW));
    expect((await get('paid'))!.reconcile).toBeUndefined();
    expect((await get('scheduled'))!.reconcile?.dueAt).toBe(iso(NOW + 600_000));
    const due = await table.store.listDue(iso(NOW + 300_000), 10);
    expect(due.items.map((i) => i.key.reference).sort()).toEqual(['old', 'young']);
  });

  it('runs as the documented command (npm run reschedule -- --table … --endpoint …)', async () => {
    // Prepare
    await table.store.createTransaction(legacy('by-command', { createdAt: iso(Date.now() - 3600_000) }));
    const args = ['--table', table.tableName, '--endpoint', table.endpoint];
    // Act
    const dry = runTs('scripts/reschedule.ts', [...args, '--dry-run']);
    expect(await dry.exited, dry.output()).toBe(0);
    const run = runTs('scripts/reschedule.ts', args);
    expect(await run.exited, run.output()).toBe(0);
    // Assess
    expect(dry.output()).toContain('1 transactions without a schedule (dry run: nothing written)');
    expect(run.output()).toContain('1 transactions without a schedule: 1 scheduled');
    const tx = await table.store.getTransaction(
      { provider: 'momo', account: 'demo', reference: 'by-command' },
      { consistent: true },
    );
    expect(tx!.reconcile?.checks).toBe(0);
    expect(tx!.revision).toBe(2);
  }, 60_000);
});
