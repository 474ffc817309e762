import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoStatementStore } from '../../shared/adapters/dynamodb/statement-store';
import { closeDay } from '../../shared/app/statements/close-day';
import { importStatement } from '../../shared/app/statements/import-statement';
import { closableDays, closeDueDays } from '../../shared/app/statements/scheduled-close';
import type { StatementStore } from '../../shared/app/statements/statement-store';
import type { RelayLogger } from '../../shared/app/ports';
import { parseConfig } from '../../shared/config/load';
import { eventsFromChange } from '../../shared/domain/outbox';
import { LocalDayCloser } from '../../local/day-closer';
import { createTestTable } from '../helpers/dynamo';

/**
 * The scheduled close on DynamoDB Local, driven by a fake clock (no timers, no sleeps). Daraja's business
 * day is Nairobi's (UTC+3): 2026-11-21 ends at 2026-11-21T21:00Z, and its SLA (T+1) passes 24 h later.
 */
const silent: RelayLogger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
const account = (shortCode: string) => ({ pathSecret: `daraja-path-secret-${shortCode}`, shortCode });
const config = parseConfig({
  management: { bearerToken: 'a-long-enough-token' },
  reconciliation: { windowSeconds: 3600 },
  accounts: { daraja: { ke: account('600638'), tz: account('600639'), files: account('600640') } },
  statements: { accounts: { 'daraja/files': { expectedSources: ['statement-file'] } } },
});

let table: Awaited<ReturnType<typeof createTestTable>>;
let statements: StatementStore;
let now = '2026-11-21T12:00:00.000Z';
const depsWith = (store: StatementStore = statements) => ({
  config,
  store: table.store,
  statements: store,
  clock: { now: () => new Date(now) },
  log: silent,
});
beforeAll(async () => {
  table = await createTestTable();
  statements = new DynamoStatementStore(table.doc, { tableName: table.tableName, retentionDays: 400 });
});
afterAll(async () => {
  await table.drop();
});

/** DailyClosed events the table's stream would publish (each item's outbox, first write), by subject. */
async function dailyClosed(): Promise<string[]> {
  const items = await table.listAll();
  return items
    .flatMap((item) => eventsFromChange(undefined, item))
    .filter((e) => e.metadata.type === 'DailyClosed')
    .map((e) => {
      const data = e.data as { account: string; day: string };
      return `${data.account}/${data.day}`;
    })
    .sort();
}
/** The account's days the run looked at from `from` on, with what it did. */
const outcomes = (result: Awaited<ReturnType<typeof closeDueDays>>, accountId: string, from = '2026-11-21') =>
  result.days.filter((d) => d.account === accountId && d.day >= from).map((d) => `${d.day}:${d.outcome}`);

describe('the scheduled close', () => {
  it('closes a day once its SLA passed, publishing DailyClosed exactly once over re-runs', async () => {
    // Prepare: the relay first looks at the accounts on 2026-11-21 (before it ends); then the day ended,
    // its SLA not passed.
    const start = await closeDueDays(depsWith());
    now = '2026-11-22T08:00:00.000Z';
    const early = await closeDueDays(depsWith());
    // Act: past the SLA, then again, then again an hour later.
    now = '2026-11-22T21:00:00.000Z';
    const first = await closeDueDays(depsWith());
    const second = await closeDueDays(depsWith());
    now = '2026-11-22T22:00:00.000Z';
    const third = await closeDueDays(depsWith());
    // Assess
    expect(outcomes(early, 'ke')).toEqual(['2026-11-21:waiting']);
    expect(early.overdue).toBe(0);
    // 2026-11-22 ends as 2026-11-21's SLA passes: it waits for its own.
    expect(outcomes(first, 'ke')).toEqual(['2026-11-21:closed', '2026-11-22:waiting']);
    expect(outcomes(second, 'ke')).toEqual(['2026-11-21:already-closed', '2026-11-22:waiting']);
    expect(outcomes(third, 'ke')).toEqual(['2026-11-21:already-closed', '2026-11-22:waiting']);
    expect(first.overdue + second.overdue + third.overdue).toBe(0);
    expect((await dailyClosed()).filter((s) => s.endsWith('2026-11-21'))).toEqual([
      'files/2026-11-21',
      'ke/2026-11-21',
      'tz/2026-11-21',
    ]);
    // The days that ended before the relay first looked at the accounts are not its to close: a fresh
    // start publishes no DailyClosed for the catch-up days before it existed.
    expect(start.days).toEqual([]);
    expect(outcomes(early, 'ke', '2026-11-01')).toEqual(['2026-11-21:waiting']);
    expect((await dailyClosed()).filter((s) => /\/2026-11-(18|19|20)$/.test(s))).toEqual([]);
    expect(
      (await statements.getClose({ provider: 'daraja', account: 'ke', day: '2026-11-21' }))?.closedBecause,
    ).toBe('sla-passed');
  });

  it('closes a day before its SLA once every expected source is in', async () => {
    // Prepare: the day of 2026-11-22 has ended, its SLA not passed; the account expects a statement file.
    now = '2026-11-23T06:00:00.000Z';
    const before = await closeDueDays(depsWith());
    await importStatement(depsWith(), {
      provider: 'daraja',
      account: 'files',
      ref: 'Mpesa_600640_20261122.csv',
      actor: { kind: 'person', name: 'jane.doe' },
      open: () => [
        'STORE_NAME,RECEIPT_NUMBER,ACCOUNT_TYPE_NAME,TRANSACTION_TYPE,START_TIMESTAMP,TRANSACTION_PARTY_DETAILS,CREDIT_AMOUNT,DEBIT_AMOUNT,BALANCE,LINKED_TRANSACTION_ID\n' +
          'Main Store,SKV0000001,Merchant Account,Pay Merchant,2026-11-22 10:00:00,254708374149 - JANE DOE,100.00,0.00,0,',
      ],
    });
    // Act
    const after = await closeDueDays(depsWith());
    // Assess
    expect(outcomes(before, 'files', '2026-11-22')).toEqual(['2026-11-22:waiting']);
    expect(outcomes(after, 'files', '2026-11-22')).toEqual(['2026-11-22:closed']);
    expect(outcomes(after, 'ke', '2026-11-22')).toEqual(['2026-11-22:waiting']);
    expect(
      (await statements.getClose({ provider: 'daraja', account: 'files', day: '2026-11-22' }))?.closedBecause,
    ).toBe('sources-in');
  });

  it('takes a day a person closed by hand as closed: still one DailyClosed', async () => {
    // Prepare: past the SLA of 2026-11-22, a person closes ke's day first.
    now = '2026-11-23T21:30:00.000Z';
    await closeDay(
      depsWith(),
      { provider: 'daraja', account: 'ke', day: '2026-11-22' },
      {
        actor: { kind: 'person', name: 'jane.doe' },
      },
    );
    // Act: two runs at once.
    const [a, b] = await Promise.all([closeDueDays(depsWith()), closeDueDays(depsWith())]);
    // Assess
    expect(outcomes(a, 'ke')).toContain('2026-11-22:already-closed');
    expect(outcomes(b, 'ke')).toContain('2026-11-22:already-closed');
    const closes = (await dailyClosed()).filter((s) => s.endsWith('2026-11-22'));
    expect(closes).toEqual(['files/2026-11-22', 'ke/2026-11-22', 'tz/2026-11-22']);
  });

  it('counts a day whose close fails as overdue, and still closes the other accounts', async () => {
    // Prepare: the store fails for account tz only.
    now = '2026-11-24T21:30:00.000Z';
    const failing: StatementStore = new Proxy(statements, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver) as unknown;
        if (name !== 'putClose' || typeof value !== 'function')
          return typeof value === 'function' ? value.bind(target) : value;
        return (at: { account: string }, ...rest: unknown[]) =>
          at.account === 'tz'
            ? Promise.reject(new Error('ProvisionedThroughputExceededException'))
            : (value as (...args: unknown[]) => unknown).call(target, at, ...rest);
      },
    });
    // Act
    const result = await closeDueDays(depsWith(failing));
    const retried = await closeDueDays(depsWith());
    // Assess
    expect(outcomes(result, 'tz')).toContain('2026-11-23:failed');
    expect(result.days.find((d) => d.account === 'tz' && d.day === '2026-11-23')).toMatchObject({
      overdue: true,
      error: 'ProvisionedThroughputExceededException',
    });
    expect(result.overdue).toBe(1);
    expect(outcomes(result, 'ke')).toContain('2026-11-23:closed');
    // The next run closes it: nothing overdue any more, still one DailyClosed each.
    expect(outcomes(retried, 'tz')).toContain('2026-11-23:closed');
    expect(retried.overdue).toBe(0);
    expect((await dailyClosed()).filter((s) => s.endsWith('2026-11-23'))).toEqual([
      'files/2026-11-23',
      'ke/2026-11-23',
      'tz/2026-11-23',
    ]);
  });

  it('catches up on the days of the runs it missed, and stops when its budget runs out', async () => {
    // Prepare: no run for three days (2026-11-23 closed by the last test).
    now = '2026-11-28T00:00:00.000Z';
    let elapsed = 0;
    // Act: a budget that allows one day's close, then the next run with time enough.
    const short = await closeDueDays(depsWith(), { budgetMs: 1, elapsedMs: () => elapsed++ });
    const full = await closeDueDays(depsWith());
    // Assess
    expect(short.days.filter((d) => d.outcome === 'not-reached').length).toBeGreaterThan(0);
    expect(short.overdue).toBeGreaterThan(0);
    // The short run closed ke's first day before its budget ran out.
    expect(outcomes(full, 'ke')).toEqual([
      '2026-11-24:already-closed',
      '2026-11-25:closed',
      '2026-11-26:closed',
      '2026-11-27:waiting',
    ]);
    expect(full.overdue).toBe(0);
  });

  it('looks at ended days only, back to CLOSE_CATCH_UP_DAYS after their SLA', () => {
    expect(
      closableDays({ config }, 'daraja', 'ke', new Date('2026-11-28T00:00:00.000Z')).map((d) => d.day),
    ).toEqual(['2026-11-24', '2026-11-25', '2026-11-26', '2026-11-27']);
  });

  it('runs the same close under npm start, counting the overdue days for its metrics', async () => {
    // Prepare: a day past its SLA (2026-11-27), the clock the relay's.
    now = '2026-11-29T00:00:00.000Z';
    const counted: Record<string, number[]> = {};
    const closer = new LocalDayCloser({
      ...depsWith(),
      metrics: {
        count: (name, value = 1) => void (counted[name] ??= []).push(value),
        timing: () => {},
        flush: () => {},
      },
    });
    // Act
    const result = await closer.runOnce();
    const again = await closer.runOnce();
    // Assess
    expect(outcomes(result!, 'ke', '2026-11-27')).toEqual(['2026-11-27:closed', '2026-11-28:waiting']);
    expect(outcomes(again!, 'ke', '2026-11-27')).toEqual(['2026-11-27:already-closed', '2026-11-28:waiting']);
    expect(counted).toEqual({ StatementDaysOverdue: [0, 0], StatementDaysClosed: [3, 0] });
    expect((await dailyClosed()).filter((s) => s.endsWith('2026-11-27'))).toHaveLength(3);
  });
});
