/**
 * What the scheduled close reads across accounts, on DynamoDB Local (docs/statements.md#what-a-close-reads).
 * The by-day index holds every account's creations of a day; one account's close reads them all and keeps
 * its own (a filter on the key still bills what it reads). Closing every account one by one so read the
 * day's entries once per account: accounts × day. The scheduled close reads each day's shards once for the
 * whole run (AccountDayStore.accountDayReaderForRun). The same days closed the same way on two tables, one
 * run per-account (the reader hidden) and one with it, counted at the DynamoDB client.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoStatementStore } from '../../shared/adapters/dynamodb/statement-store';
import { DAY_INDEX } from '../../shared/adapters/dynamodb/table';
import { closeDueDays, type ScheduledCloseResult } from '../../shared/app/statements/scheduled-close';
import type { RelayStore } from '../../shared/app/ports';
import { parseConfig } from '../../shared/config/load';
import { createTestTable } from '../helpers/dynamo';
import { finalC2b, silentLog } from '../helpers/statement-world';

const ACCOUNTS = ['a1', 'a2', 'a3', 'a4'];
const PAYMENTS_EACH = 10;
/** The 14th, Nairobi: 2026-11-13T21:00Z to 2026-11-14T21:00Z. */
const DAY = '2026-11-14';
const DAY_START = Date.parse('2026-11-13T21:00:00.000Z');
/** Two days on: the 14th's SLA (T+1) passed, so the run reads and closes it. */
const NOW = new Date(DAY_START + 2 * 86_400_000 + 1000);

const config = parseConfig({
  management: { bearerToken: 'a-long-enough-token' },
  accounts: {
    daraja: Object.fromEntries(
      ACCOUNTS.map((id, i) => [id, { pathSecret: `daraja-path-secret-${id}-0123`, shortCode: `60070${i}` }]),
    ),
  },
});

type Table = Awaited<ReturnType<typeof createTestTable>>;
const tables: Table[] = [];

/** A table holding every account's payments of the day, one every two hours from the day's start. */
async function dayOfPayments(): Promise<Table> {
  const table = await createTestTable();
  tables.push(table);
  for (const account of ACCOUNTS)
    for (let n = 0; n < PAYMENTS_EACH; n++) {
      const at = DAY_START + n * 2 * 3600_000 + 1800_000;
      await table.store.createTransaction(
        finalC2b({
          account,
          reference: `${account}-${n}`,
          amount: '100',
          createdAt: new Date(at).toISOString(),
          at: new Date(at + 5000).toISOString(),
        }),
      );
    }
  return table;
}

/** The scheduled close on the table, with its by-day index queries counted (requests, entries read). */
async function scheduledClose(table: Table, shareDays: boolean) {
  const statements = new DynamoStatementStore(table.doc, { tableName: table.tableName, retentionDays: 400 });
  // The relay ran as the day began (its first close run notes since when the accounts are its own).
  await closeDueDays({
    config,
    store: table.store,
    statements,
    clock: { now: () => new Date(DAY_START) },
    log: silentLog,
  });
  const byDay = { requests: 0, entries: 0, units: 0 };
  table.doc.middlewareStack.add(
    (next) => async (args) => {
      const out = await next(args);
      if ((args.input as { IndexName?: string }).IndexName === DAY_INDEX.name) {
        const output = out.output as { ScannedCount?: number; ConsumedCapacity?: { CapacityUnits?: number } };
        byDay.requests += 1;
        byDay.entries += output.ScannedCount ?? 0;
        byDay.units += output.ConsumedCapacity?.CapacityUnits ?? 0;
      }
      return out;
    },
    { step: 'initialize', name: 'countByDay' },
  );
  // Without the run's reader: every account's close reads its days on its own.
  const store = shareDays
    ? table.store
    : new Proxy(table.store, {
        get: (target, name, receiver) =>
          name === 'accountDayReaderForRun' ? undefined : Reflect.get(target, name, receiver),
      });
  const result: ScheduledCloseResult = await closeDueDays({
    config,
    store: store as RelayStore,
    statements,
    clock: { now: () => NOW },
    log: silentLog,
  });
  table.doc.middlewareStack.remove('countByDay');
  return { result, byDay };
}

let perAccount: Awaited<ReturnType<typeof scheduledClose>>;
let shared: Awaited<ReturnType<typeof scheduledClose>>;

beforeAll(async () => {
  const [first, second] = [await dayOfPayments(), await dayOfPayments()];
  perAccount = await scheduledClose(first, false);
  shared = await scheduledClose(second, true);
});
afterAll(async () => {
  for (const table of tables) await table.drop();
});

describe('what the scheduled close reads across accounts', () => {
  it('closes the same days with the same verdicts either way', () => {
    // Assert
    const closed = (run: ScheduledCloseResult) =>
      run.days.map((d) => `${d.account}/${d.day}:${d.outcome}`).sort();
    expect(closed(shared.result)).toEqual(closed(perAccount.result));
    expect(shared.result.days.filter((d) => d.day === DAY && d.outcome === 'closed')).toHaveLength(
      ACCOUNTS.length,
    );
  });

  it("reads each day's by-day entries once for all accounts, not once per account", () => {
    // Assert: every payment is one by-day entry; per account, each close read all accounts' entries.
    const entries = ACCOUNTS.length * PAYMENTS_EACH;
    expect(perAccount.byDay.entries).toBe(ACCOUNTS.length * entries);
    expect(shared.byDay.entries).toBe(entries);
    expect(shared.byDay.requests).toBeLessThanOrEqual(perAccount.byDay.requests / ACCOUNTS.length);
  });
});
