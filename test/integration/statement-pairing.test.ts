import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDay } from '../../shared/app/statements/close-day';
import { ingestReport } from '../../shared/app/transactions/ingest-report';
import type { TransactionKey } from '../../shared/domain/transaction';
import { registered, report } from '../helpers/reports';
import {
  importMerchantFile,
  merchantExport,
  merchantRow,
  openStatementWorld,
  OPERATOR,
  type StatementDeps,
  type StatementTable,
} from '../helpers/statement-world';

/**
 * An STK push whose callback was dropped is settled by the STK query, whose answer carries no receipt
 * (docs/statements.md#pairing). Its row on the till names a receipt no key finds: it is paired with the
 * one payment it can be, never opened as a second payment beside it.
 */
let now = '2026-11-21T07:05:00.000Z';
let table: StatementTable;
let deps: StatementDeps;
beforeAll(async () => ({ table, deps } = await openStatementWorld(() => now)));
afterAll(() => table.drop());

/** A till row of the merchant export: the time is Nairobi's (UTC+3). */
const tillRow = (receipt: string, amount: string, nairobiTime: string, payer = '254708374149') =>
  merchantRow({
    store: 'Till 174379',
    receipt,
    type: 'Pay Bill Online',
    time: `2026-11-21 ${nairobiTime}`,
    party: `${payer} - JOHN DOE`,
    credit: amount,
  });
const importTill = (lines: string[], ref = 'Mpesa_174379_20261121.csv') =>
  importMerchantFile(deps, ref, merchantExport(...lines));

/** An STK push registered at `createdAt` whose callback never came; the STK query settled it (no receipt). */
async function stkSettledByQuery(
  reference: string,
  amount: string,
  createdAt: string,
): Promise<TransactionKey> {
  const key = { provider: 'daraja', account: 'ke', reference };
  await table.store.createTransaction(
    registered({
      key,
      kind: 'stk',
      amount: { value: amount, currency: 'KES' },
      msisdn: '254708374149',
      externalId: undefined,
      createdAt,
      updatedAt: createdAt,
      reconcileUntil: new Date(Date.parse(createdAt) + 3_600_000).toISOString(),
    }),
  );
  const answeredAt = new Date(Date.parse(createdAt) + 150_000).toISOString();
  await ingestReport(
    {
      store: table.store,
      clock: { now: () => new Date(answeredAt) },
      reconciliation: deps.config.reconciliation,
    },
    report({
      key,
      kind: 'stk',
      status: 'SUCCEEDED',
      providerTransactionId: undefined,
      externalId: undefined,
      amount: { value: amount, currency: 'KES' },
      party: undefined,
      receivedAt: answeredAt,
      origin: 'poll',
      receiptId: undefined,
      viaOwnQuery: true,
      authenticated: true,
    }),
  );
  return key;
}

const published = async (key: TransactionKey, type: string) =>
  ((await table.store.getTransaction(key))?.events ?? []).filter((e) => e.type === type);

describe('a till row paired with the STK payment it names by amount, time and payer', () => {
  it('a dropped STK callback and its till row: one TransactionSucceeded, the receipt recorded, nothing opened', async () => {
    // Prepare: the push at 09:59:30 Nairobi, the money moved at 10:00:00, the query settled it at 10:02:00.
    const key = await stkSettledByQuery('ws_CO_211120260959301111', '1500', '2026-11-21T06:59:30.000Z');
    expect(await published(key, 'TransactionSucceeded')).toHaveLength(1);
    // Act
    const first = await importTill([tillRow('SKP0000001', '1500.00', '10:00:00')]);
    const again = await importTill(
      [tillRow('SKP0000001', '1500.00', '10:00:00')],
      'Mpesa_174379_20261121-again.csv',
    );
    // Assess
    expect(first.result).toMatchObject({ rows: 1, matched: 1, opened: 0, breaks: 0 });
    expect(again.result).toMatchObject({ rows: 1, alreadyKnown: 1, opened: 0, breaks: 0 });
    const tx = await table.store.getTransaction(key);
    expect(tx?.status).toBe('SUCCEEDED');
    expect(tx?.providerTransactionId).toBe('SKP0000001');
    expect(tx?.evidence?.at(-1)).toMatchObject({ source: 'statement', claim: 'SUCCEEDED' });
    expect(await published(key, 'TransactionSucceeded')).toHaveLength(1);
    expect(
      await table.store.getTransaction({ provider: 'daraja', account: 'ke', reference: 'SKP0000001' }),
    ).toBeUndefined();
    now = '2026-11-23T00:00:00.000Z';
    const day = await closeDay(
      deps,
      { provider: 'daraja', account: 'ke', day: '2026-11-21' },
      { actor: OPERATOR, close: false },
    );
    expect(day.breaks.filter((b) => b.reference === key.reference || b.providerId === 'SKP0000001')).toEqual(
      [],
    );
    now = '2026-11-21T07:05:00.000Z';
  });

  it('a late copy of the paired row, dated past midnight, finds the payment by its receipt', async () => {
    // Prepare
    const key = await stkSettledByQuery('ws_CO_211120261059302222', '1600', '2026-11-21T07:59:30.000Z');
    await importTill([tillRow('SKP0000002', '1600.00', '11:00:00')]);
    // Act: the same receipt on the next business day (a late posting)
    const late = await importTill(
      [tillRow('SKP0000002', '1600.00', '11:00:00').replace('2026-11-21 11:00:00', '2026-11-22 00:01:30')],
      'Mpesa_174379_20261122.csv',
    );
    // Assess
    expect(late.result).toMatchObject({ rows: 1, matched: 1, opened: 0 });
    expect((await table.store.getTransaction(key))?.providerTransactionId).toBe('SKP0000002');
    expect(await published(key, 'TransactionSucceeded')).toHaveLength(1);
    expect(
      await table.store.getTransaction({ provider: 'daraja', account: 'ke', reference: 'SKP0000002' }),
    ).toBeUndefined();
  });

  it('two STK payments the row could each be: a break naming both, no link, nothing opened or published', async () => {
    // Prepare: two pushes of the same amount by the same payer a minute apart, both settled by the query.
    const a = await stkSettledByQuery('ws_CO_211120261159303333', '1700', '2026-11-21T08:59:30.000Z');
    const b = await stkSettledByQuery('ws_CO_211120261200304444', '1700', '2026-11-21T09:00:30.000Z');
    // Act
    const answer = await importTill([tillRow('SKP0000003', '1700.00', '12:01:00')]);
    // Assess
    expect(answer.result).toMatchObject({ rows: 1, matched: 0, opened: 0, breaks: 1 });
    const breaks = await deps.statements.listBreaks({ provider: 'daraja', account: 'ke', day: '2026-11-21' });
    const found = breaks.find((x) => x.providerId === 'SKP0000003');
    expect(found).toMatchObject({ category: 'missing-in-relay', amount: '1700' });
    expect(found?.resolution).toBeUndefined();
    expect(found?.detail).toContain(a.reference);
    expect(found?.detail).toContain(b.reference);
    for (const key of [a, b]) {
      const tx = await table.store.getTransaction(key);
      expect(tx?.providerTransactionId).toBeUndefined();
      expect(await published(key, 'TransactionSucceeded')).toHaveLength(1);
    }
    expect(
      await table.store.getTransaction({ provider: 'daraja', account: 'ke', reference: 'SKP0000003' }),
    ).toBeUndefined();
  });

  it('another payer, another amount or a row dated before the push is no candidate: the row opens its own payment', async () => {
    // Prepare: the push at 13:59:30 Nairobi, settled by the query at 14:02:00.
    const key = await stkSettledByQuery('ws_CO_211120261359305555', '1800', '2026-11-21T10:59:30.000Z');
    // Act
    const answer = await importTill([
      tillRow('SKP0000004', '1800.00', '14:00:00', '254711222333'),
      tillRow('SKP0000005', '1801.00', '14:00:00'),
      tillRow('SKP0000006', '1800.00', '13:50:00'),
    ]);
    // Assess
    expect(answer.result).toMatchObject({ rows: 3, matched: 0, opened: 3, breaks: 3 });
    expect((await table.store.getTransaction(key))?.providerTransactionId).toBeUndefined();
  });

  it('a row dated hours after the payment (a late posting) is not paired and not opened: a break for a person', async () => {
    // Prepare: the push at 15:59:30 Nairobi, settled by the query at 16:02:00.
    const key = await stkSettledByQuery('ws_CO_211120261559306666', '1900', '2026-11-21T12:59:30.000Z');
    // Act: its row dated 23:50, outside the time tolerance
    const answer = await importTill([tillRow('SKP0000007', '1900.00', '23:50:00')]);
    // Assess
    expect(answer.result).toMatchObject({ rows: 1, matched: 0, opened: 0, breaks: 1 });
    const breaks = await deps.statements.listBreaks({ provider: 'daraja', account: 'ke', day: '2026-11-21' });
    expect(breaks.find((x) => x.providerId === 'SKP0000007')?.detail).toContain(key.reference);
    expect((await table.store.getTransaction(key))?.providerTransactionId).toBeUndefined();
    expect(
      await table.store.getTransaction({ provider: 'daraja', account: 'ke', reference: 'SKP0000007' }),
    ).toBeUndefined();
  });
});
