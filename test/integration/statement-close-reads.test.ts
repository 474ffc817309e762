/**
 * Issue 29: what a day's close reads, on DynamoDB Local (docs/statements.md#what-a-close-reads). A day
 * with a balance snapshot every hour is judged interval by interval, but its reads are made once for the
 * whole day and bounded by the account: the day's snapshots, the rows of each day once, the account-day
 * index, each transaction once. Counted here at both ports (store calls) and at the DynamoDB client
 * (requests sent), so a read repeated per interval, or one over other accounts, shows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDay } from '../../shared/app/statements/close-day';
import { importStatement } from '../../shared/app/statements/import-statement';
import { recordBalance } from '../../shared/app/statements/statement-sink';
import type { StatementStore } from '../../shared/app/statements/statement-store';
import type { RelayStore } from '../../shared/app/ports';
import { parseConfig } from '../../shared/config/load';
import {
  finalC2b,
  merchantExport,
  merchantRow,
  openStatementWorld,
  OPERATOR,
  silentLog as silent,
  type StatementDeps,
  type StatementTable,
} from '../helpers/statement-world';

const config = parseConfig({
  management: { bearerToken: 'a-long-enough-token' },
  accounts: { daraja: { rd: { pathSecret: 'daraja-path-secret-0123', shortCode: '600638' } } },
});
/** The day's hourly snapshots (an interval each) and its payments, each with its row. */
const SNAPSHOTS = 25;
const PAYMENTS = 20;
/** The 14th, Nairobi: 2026-11-13T21:00Z to 2026-11-14T21:00Z. */
const DAY = '2026-11-14';
const DAY_START = Date.parse('2026-11-13T21:00:00.000Z');

let table: StatementTable;
let deps: StatementDeps;
let now = '2026-11-14T22:00:00.000Z';

/** Every call of a port's methods, by name and arguments. */
function counting<T extends object>(target: T, calls: { name: string; args: unknown[] }[]): T {
  return new Proxy(target, {
    get(t, name, receiver) {
      const value = Reflect.get(t, name, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push({ name: String(name), args });
        return (value as (...a: unknown[]) => unknown).apply(t, args);
      };
    },
  });
}

const nairobi = (ms: number) => new Date(ms + 3 * 3600_000).toISOString().slice(0, 19).replace('T', ' ');

beforeAll(async () => {
  ({ table, deps } = await openStatementWorld(() => now, config));
  // Prepare the day: a payment of 100 at every hour's half, its row in the merchant export, and the
  // balance every hour from an hour before the day (the first interval ends in it).
  const lines: string[] = [];
  for (let n = 0; n < PAYMENTS; n++) {
    const at = DAY_START + n * 3600_000 + 1800_000;
    const receipt = `SRD${String(n).padStart(7, '0')}`;
    await table.store.createTransaction(
      finalC2b({
        account: 'rd',
        reference: receipt,
        receipt,
        amount: '100',
        createdAt: new Date(at).toISOString(),
        at: new Date(at + 5000).toISOString(),
      }),
    );
    lines.push(merchantRow({ receipt, time: nairobi(at), party: '', credit: '100.00' }));
  }
  await importStatement(deps, {
    provider: 'daraja',
    account: 'rd',
    ref: 'Mpesa_600638_reads.csv',
    actor: OPERATOR,
    open: () => [merchantExport(...lines)],
  });
  for (let s = 0; s < SNAPSHOTS; s++) {
    const at = DAY_START + (s - 1) * 3600_000;
    // Payments 0 to s - 2 moved before the snapshot of hour s - 1.
    const paid = Math.max(0, Math.min(PAYMENTS, s - 1));
    await recordBalance(
      deps,
      {
        provider: 'daraja',
        account: 'rd',
        source: 'balance-api',
        at: new Date(at).toISOString(),
        balance: String(1000 + 100 * paid),
      },
      { actor: { kind: 'system', name: 'balance-snapshot' } },
    );
  }
});
afterAll(async () => {
  await table.drop();
});

describe('what a close reads', () => {
  it('reads a day of hourly balance intervals once, bounded by the account: no read repeats per interval', async () => {
    // Prepare: count every port call and every DynamoDB request of the close alone.
    const storeCalls: { name: string; args: unknown[] }[] = [];
    const statementCalls: { name: string; args: unknown[] }[] = [];
    const requests: string[] = [];
    table.doc.middlewareStack.add(
      (next, context) => async (args) => {
        requests.push(String(context.commandName));
        return next(args);
      },
      { step: 'initialize', name: 'countCloseRequests' },
    );
    now = new Date(DAY_START + 2 * 86_400_000 + 1000).toISOString();

    // Act
    const report = await closeDay(
      {
        config,
        store: counting<RelayStore>(table.store, storeCalls),
        statements: counting<StatementStore>(deps.statements, statementCalls),
        clock: deps.clock,
        log: silent,
      },
      { provider: 'daraja', account: 'rd', day: DAY },
      { actor: { kind: 'system', name: 'reads-test' }, close: false },
    );
    table.doc.middlewareStack.remove('countCloseRequests');

    // Assess: the day adds up (every interval judged), and what it took.
    expect(report.breaks).toEqual([]);
    expect(report.matchRate).toMatchObject({ matched: PAYMENTS, toMatch: PAYMENTS });
    const count = (calls: { name: string }[], name: string) => calls.filter((c) => c.name === name).length;
    const rowDays = statementCalls
      .filter((c) => c.name === 'listRows')
      .map((c) => (c.args[0] as { day: string }).day);
    const gets = storeCalls.filter((c) => c.name === 'getTransaction').map((c) => JSON.stringify(c.args[0]));
    const reads = requests.filter((r) =>
      /^(Get|GetItem|Query|Scan|BatchGet|BatchGetItem)Command$/.test(r),
    ).length;
    expect({
      listCreated: count(storeCalls, 'listCreated'),
      listAccountDay: count(storeCalls, 'listAccountDay'),
      getTransaction: gets.length,
      balanceQueries: count(statementCalls, 'balanceBefore') + count(statementCalls, 'listBalances'),
      rowDaysReadTwice: rowDays.length - new Set(rowDays).size,
    }).toEqual({
      listCreated: 0,
      // The day's transactions, and the balance's span with its reversal look-back.
      listAccountDay: 2,
      getTransaction: PAYMENTS,
      balanceQueries: 2,
      rowDaysReadTwice: 0,
    });
    expect(new Set(gets).size).toBe(gets.length);
    // The day before the first snapshot's, the days of the span and the one after: four days of rows.
    expect(rowDays.length).toBeLessThanOrEqual(4);
    // DynamoDB requests, whatever the number of intervals: the balance's own reads of its successes, a
    // few bounded queries, and the account-day reader's items (it settles each by its item: a first
    // callback rewrites no index entry) by BatchGetItem, 100 a request, not a request each.
    expect(reads).toBeLessThanOrEqual(PAYMENTS + 50);
  });
});
