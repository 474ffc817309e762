import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDay } from '../../shared/app/statements/close-day';
import { eventsFromChange } from '../../shared/domain/outbox';
import {
  finalC2b,
  importMerchantFile,
  MERCHANT_HEADER as HEADER,
  merchantRow,
  openStatementWorld,
  OPERATOR,
  type StatementDeps,
  type StatementTable,
} from '../helpers/statement-world';

let now = '2026-11-21T12:00:00.000Z';
let table: StatementTable;
let deps: StatementDeps;
beforeAll(async () => ({ table, deps } = await openStatementWorld(() => now)));
afterAll(() => table.drop());

const line = (receipt: string, amount = '1500.00', type = 'Pay Merchant', linked = '') =>
  merchantRow({ receipt, credit: amount, type, linked });
const importText = (text: string, dryRun = false) =>
  importMerchantFile(deps, 'Mpesa_600638_20261121.csv', text, dryRun);

/** Every event the table's stream would publish for what is stored now (each item's outbox, first write). */
async function published(): Promise<string[]> {
  const items = await table.listAll();
  return items.flatMap((item) => eventsFromChange(undefined, item).map((e) => e.metadata.type)).sort();
}

describe('statements in DynamoDB Local', () => {
  it('imports a file once: the same and an overlapping file again change no item', async () => {
    // Prepare
    const file = [HEADER, line('SKI0000001'), line('SKI0000002')].join('\n');
    await importText(file);
    const before = await table.listAll();
    // Act
    const again = await importText(file);
    const overlapping = await importText([HEADER, line('SKI0000002')].join('\n'));
    // Assess
    expect(again.result).toMatchObject({ rows: 2, alreadyKnown: 2, opened: 0, breaks: 0 });
    expect(overlapping.result).toMatchObject({ rows: 1, alreadyKnown: 1 });
    expect(await table.listAll()).toEqual(before);
    expect(await published()).toEqual(['TransactionSucceeded', 'TransactionSucceeded']);
  });

  it('a row contradicting a final verdict is a conflict; the verdict stays FAILED', async () => {
    // Prepare
    await table.store.createTransaction(
      finalC2b({
        reference: 'SKI0000010',
        amount: '1500',
        status: 'FAILED',
        at: '2026-11-21T07:00:00.000Z',
        origin: 'poll',
      }),
    );
    // Act
    const answer = await importText([HEADER, line('SKI0000010')].join('\n'));
    // Assess
    expect(answer.result).toMatchObject({ conflicts: 1, settled: 0 });
    const tx = await table.store.getTransaction({
      provider: 'daraja',
      account: 'ke',
      reference: 'SKI0000010',
    });
    expect(tx?.status).toBe('FAILED');
    expect(tx?.outbox.map((e) => [e.metadata.type, e.metadata.origin])).toEqual([
      // A statement file: origin manual (the contract's list); the evidence names the statement.
      ['TransactionConflict', 'manual'],
    ]);
  });

  it('a dry run reports what an import would change and writes nothing', async () => {
    // Prepare
    const before = await table.listAll();
    // Act
    const answer = await importText(
      [HEADER, line('SKI0000020'), line('SKI0000021', '0.00', 'Pay merchant Charge', 'SKI0000020')].join(
        '\n',
      ),
      true,
    );
    // Assess
    expect(answer).toMatchObject({ dryRun: true, result: { rows: 2, opened: 1, feesLinked: 1 } });
    expect(await table.listAll()).toEqual(before);
  });

  it("closes a day once: DailyClosed is in the close item's outbox a single time", async () => {
    // Prepare
    now = '2026-11-23T00:00:00.000Z';
    const at = { provider: 'daraja', account: 'ke', day: '2026-11-21' };
    // Act
    const first = await closeDay(deps, at, { actor: OPERATOR });
    const second = await closeDay(deps, at, { actor: OPERATOR });
    // Assess
    expect(first).toMatchObject({ state: 'closed', closedBecause: 'sla-passed' });
    expect(second).toMatchObject({ state: 'closed', closedAt: first.closedAt });
    expect((await published()).filter((t) => t === 'DailyClosed')).toHaveLength(1);
    expect(await deps.statements.listCloses('daraja', 'ke', 5)).toHaveLength(1);
  });

  it("the close reads its account's business day from the account-day index, the opened row on the day it moved", async () => {
    // Prepare: a payment of the 25th (Nairobi) imported on the 27th; another account's transaction that day.
    now = '2026-11-27T09:00:00.000Z';
    await importText(
      [HEADER, line('SKI0000030').replace('2026-11-21 10:00:00', '2026-11-25 23:30:00')].join('\n'),
    );
    await table.store.createTransaction(
      finalC2b({
        account: 'other',
        reference: 'SKI0000031',
        amount: '99',
        createdAt: '2026-11-25T10:00:00.000Z',
        at: '2026-11-25T10:00:01.000Z',
        origin: 'poll',
      }),
    );
    // Act
    const entries = await table.store.listAccountDay(
      'daraja',
      'ke',
      '2026-11-24T21:00:00.000Z',
      '2026-11-25T21:00:00.000Z',
    );
    const day = await closeDay(
      deps,
      { provider: 'daraja', account: 'ke', day: '2026-11-25' },
      {
        actor: OPERATOR,
        close: false,
      },
    );
    // Assess
    expect(entries).toEqual([
      {
        key: { provider: 'daraja', account: 'ke', reference: 'SKI0000030' },
        at: '2026-11-25T20:30:00.000Z',
        status: 'SUCCEEDED',
        amount: { value: '1500', currency: 'KES' },
        providerTransactionId: 'SKI0000030',
      },
    ]);
    expect(day.verdicts).toEqual({ SUCCEEDED: { count: 1, amount: '1500' } });
  });
});
