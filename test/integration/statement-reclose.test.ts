/**
 * Issue 29: a day closed again (docs/statements.md#a-break-that-no-longer-holds), on DynamoDB Local. A
 * break an earlier close found that the records no longer show (a missing row a later statement supplied,
 * a drift the charges imported since explain) is retired by a person's close: it leaves the day's breaks,
 * and its audit item keeps it with who closed the day and why. A read of the day and the scheduled close
 * retire nothing: they mark the break as no longer holding. A break that still holds is kept once, its age
 * from when it was first found; DailyClosed stays published once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDay, listDays } from '../../shared/app/statements/close-day';
import { recordBalance } from '../../shared/app/statements/statement-sink';
import { closeDueDays } from '../../shared/app/statements/scheduled-close';
import { eventsFromChange } from '../../shared/domain/outbox';
import {
  finalC2b,
  importMerchantFile,
  merchantExport,
  merchantRow,
  openStatementWorld,
  type StatementDeps,
  type StatementTable,
} from '../helpers/statement-world';

let now = '2026-11-21T12:00:00.000Z';
let table: StatementTable;
let deps: StatementDeps;
beforeAll(async () => ({ table, deps } = await openStatementWorld(() => now)));
afterAll(() => table.drop());

/** A payment in at `time` (Nairobi), as the merchant export lists it. */
const payment = (receipt: string, time: string) => merchantRow({ receipt, time });
/** A charge naming no payment (counted against the balance as it is). */
const charge = (receipt: string, time: string, amount: string) =>
  merchantRow({ receipt, time, type: 'Pay merchant Charge', party: '', credit: '0.00', debit: amount });
const CLOSER = { kind: 'person' as const, name: 'amos.kiprop' };
const importRows = (...lines: string[]) =>
  importMerchantFile(deps, 'Mpesa_600638_reclose.csv', merchantExport(...lines));

/** A C2B payment the relay published SUCCEEDED at `at` (its receipt is its reference). */
async function success(receipt: string, at: string) {
  await table.store.createTransaction(
    finalC2b({ reference: receipt, receipt, amount: '1500', createdAt: at, at }),
  );
}

async function itemsOfDay(day: string) {
  const items = await table.listAll();
  return items.filter((i) => String(i.pk) === `STMT#daraja#ke#${day}`).map((i) => String(i.sk));
}

async function dailyClosedPublished(): Promise<number> {
  const items = await table.listAll();
  return items
    .flatMap((item) => eventsFromChange(undefined, item))
    .filter((e) => e.metadata.type === 'DailyClosed').length;
}

describe('a day closed again', () => {
  it('retires a missing-at-provider break whose row a later statement supplied, keeping its audit, and keeps the one that still holds once', async () => {
    // Prepare: two successes of the 21st (Nairobi), no row for either; the day closed past its SLA.
    await success('SKR0000001', '2026-11-21T07:00:00.000Z');
    await success('SKR0000002', '2026-11-21T08:00:00.000Z');
    const at = { provider: 'daraja', account: 'ke', day: '2026-11-21' };
    now = '2026-11-23T00:00:00.000Z';
    const first = await closeDay(deps, at, { actor: CLOSER });
    const kept = first.breaks.find((b) => b.reference === 'SKR0000002')!;
    now = '2026-11-23T06:00:00.000Z';
    await importRows(payment('SKR0000001', '2026-11-21 10:00:00'));

    // Act
    now = '2026-11-23T07:00:00.000Z';
    const again = await closeDay(deps, at, { actor: CLOSER });
    now = '2026-11-23T08:00:00.000Z';
    const third = await closeDay(deps, at, { actor: CLOSER });

    // Assess
    expect(first.breaks.map((b) => [b.category, b.reference])).toEqual([
      ['missing-at-provider', 'SKR0000001'],
      ['missing-at-provider', 'SKR0000002'],
    ]);
    expect(again.breaks.map((b) => [b.id, b.detectedAt])).toEqual([[kept.id, kept.detectedAt]]);
    expect(again.retired).toEqual([
      expect.objectContaining({
        category: 'missing-at-provider',
        reference: 'SKR0000001',
        detectedAt: '2026-11-23T00:00:00.000Z',
        retiredAt: '2026-11-23T07:00:00.000Z',
        retiredBy: CLOSER,
        because: expect.stringContaining("the provider's records show a row for SKR0000001"),
      }),
    ]);
    // Closed once: the re-closes answer the first close; the third changes nothing.
    expect(again).toMatchObject({ state: 'closed', closedAt: first.closedAt });
    expect(third.breaks).toEqual(again.breaks.map((b) => ({ ...b, ageSeconds: b.ageSeconds + 3600 })));
    expect(third.retired).toEqual(again.retired);
    expect(again.matchRate).toMatchObject({ matched: 1, toMatch: 2 });
    const items = await itemsOfDay('2026-11-21');
    expect(items.filter((sk) => sk.startsWith('BREAK#'))).toEqual([`BREAK#${kept.id}`]);
    expect(items.filter((sk) => sk.startsWith('RETIRED#'))).toHaveLength(1);
    expect(await dailyClosedPublished()).toBe(1);
  });

  it('replaces a balance drift found again with other money, and retires it once the charges explain it all', async () => {
    // Prepare: the balance fell 15 between two snapshots of the 10th with nothing the relay knows.
    const at = { provider: 'daraja', account: 'ke', day: '2026-11-10' };
    const snapshot = (time: string, balance: string) =>
      recordBalance(
        deps,
        { provider: 'daraja', account: 'ke', source: 'balance-api', at: time, balance, currency: 'KES' },
        { actor: { kind: 'system', name: 'balance-snapshot' } },
      );
    now = '2026-11-10T12:00:00.000Z';
    await snapshot('2026-11-10T06:00:00.000Z', '1000');
    await snapshot('2026-11-10T12:00:00.000Z', '985');
    now = '2026-11-12T00:00:00.000Z';
    const first = await closeDay(deps, at, { actor: CLOSER });

    // Act: a charge of 10 comes in (the drift is 5 now), then one of 5 (it adds up).
    await importRows(charge('SKC0000001', '2026-11-10 11:00:00', '10.00'));
    now = '2026-11-12T01:00:00.000Z';
    const partly = await closeDay(deps, at, { actor: CLOSER });
    await importRows(charge('SKC0000002', '2026-11-10 12:00:00', '5.00'));
    now = '2026-11-12T02:00:00.000Z';
    const explained = await closeDay(deps, at, { actor: CLOSER });

    // Assess
    expect(first.breaks.map((b) => [b.category, b.amount])).toEqual([['balance-drift', '15']]);
    expect(partly.breaks.map((b) => [b.category, b.amount, b.detectedAt])).toEqual([
      ['balance-drift', '5', '2026-11-12T01:00:00.000Z'],
    ]);
    expect(partly.retired).toEqual([
      expect.objectContaining({
        amount: '15',
        retiredBy: CLOSER,
        because: expect.stringContaining('found again with other money'),
      }),
    ]);
    expect(explained.breaks).toEqual([]);
    expect(explained.retired.map((b) => [b.amount, b.retiredAt])).toEqual([
      ['15', '2026-11-12T01:00:00.000Z'],
      ['5', '2026-11-12T02:00:00.000Z'],
    ]);
    expect(explained.retired[1]!.because).toContain('the interval adds up now');
    const items = await itemsOfDay('2026-11-10');
    expect(items.filter((sk) => sk.startsWith('BREAK#'))).toEqual([]);
    expect(items.filter((sk) => sk.startsWith('RETIRED#'))).toHaveLength(2);
  });

  it('a read of the day retires nothing it did not judge: before the SLA a stored missing-at-provider break stays', async () => {
    // Prepare: the 21st's remaining break; a read on a clock before the SLA passed does not judge it.
    const at = { provider: 'daraja', account: 'ke', day: '2026-11-21' };
    now = '2026-11-21T22:00:00.000Z';

    // Act
    const read = await closeDay(deps, at, { actor: { kind: 'system', name: 'read' }, close: false });

    // Assess
    expect(read.breaks.map((b) => [b.category, b.reference])).toEqual([
      ['missing-at-provider', 'SKR0000002'],
    ]);
    expect(read.retired).toHaveLength(1);
  });

  it('a read of the day, the days list and the scheduled close retire nothing: the break that no longer holds waits, marked, for a person to close the day', async () => {
    // Prepare: a success of the 15th with no row, read past the SLA (the reading stores the break), then
    // the statement that shows its row.
    await success('SKR0000015', '2026-11-15T07:00:00.000Z');
    const at = { provider: 'daraja', account: 'ke', day: '2026-11-15' };
    const READ = { kind: 'system' as const, name: 'read' };
    now = '2026-11-17T00:00:00.000Z';
    const before = await closeDay(deps, at, { actor: READ, close: false });
    await importRows(payment('SKR0000015', '2026-11-15 10:00:00'));

    // Act: a read, the days list, the scheduled close (which closes the day), then a person's close.
    now = '2026-11-17T01:00:00.000Z';
    const read = await closeDay(deps, at, { actor: READ, close: false });
    const listed = await listDays(deps, { provider: 'daraja', account: 'ke', from: at.day, to: at.day });
    const scheduled = await closeDueDays(deps);
    const afterScheduled = await closeDay(deps, at, { actor: READ, close: false });
    const itemsBeforeThePerson = await itemsOfDay(at.day);
    now = '2026-11-17T02:00:00.000Z';
    const closed = await closeDay(deps, at, { actor: CLOSER });

    // Assess: until the person's close the break stays among the day's breaks, saying why it no longer holds.
    expect(before.breaks.map((b) => [b.category, b.reference, b.noLongerHolds])).toEqual([
      ['missing-at-provider', 'SKR0000015', undefined],
    ]);
    for (const report of [read, afterScheduled]) {
      expect(report.breaks.map((b) => [b.reference, b.noLongerHolds])).toEqual([
        ['SKR0000015', expect.stringContaining("the provider's records show a row for SKR0000015")],
      ]);
      expect(report.retired).toEqual([]);
    }
    expect(listed.days).toEqual([expect.objectContaining({ day: at.day, breaks: 1 })]);
    expect(scheduled.days).toContainEqual(expect.objectContaining({ day: at.day, outcome: 'closed' }));
    expect(itemsBeforeThePerson.filter((sk) => sk.startsWith('BREAK#'))).toHaveLength(1);
    expect(itemsBeforeThePerson.filter((sk) => sk.startsWith('RETIRED#'))).toEqual([]);
    expect(closed.breaks).toEqual([]);
    expect(closed.retired).toEqual([
      expect.objectContaining({
        reference: 'SKR0000015',
        retiredAt: '2026-11-17T02:00:00.000Z',
        retiredBy: CLOSER,
        because: expect.stringContaining("the provider's records show a row for SKR0000015"),
      }),
    ]);
  });
});
