/**
 * The byAccountDay index holds only the transactions the byDay index cannot place: a verdict within the
 * slack of the creation keeps the creation's key (shared/adapters/dynamodb/table.ts accountDayKeyTime), and
 * such a transaction has no account-day entry (a first callback writes none), and the store still answers "the account's transactions whose day time is in [from, to)"
 * exactly: a daily close counts a verdict on the day it was reached, an open transaction on the day it was
 * created, and entries written before the slack existed (keyed by the verdict's time) the same way.
 */
import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ACCOUNT_DAY_SLACK_SECONDS,
  accountDayPartition,
  transactionPk,
  TX_SK,
} from '../../shared/adapters/dynamodb/table';
import { MemoryStore } from '../../shared/adapters/memory/memory-store';
import { closeDay } from '../../shared/app/statements/close-day';
import { dayTimeOf } from '../../shared/domain/statement-match';
import type { TransactionRecord } from '../../shared/domain/transaction';
import { registered } from '../helpers/reports';
import {
  openStatementWorld,
  OPERATOR,
  type StatementDeps,
  type StatementTable,
} from '../helpers/statement-world';

let table: StatementTable;
let deps: StatementDeps;
beforeAll(async () => ({ table, deps } = await openStatementWorld(() => '2026-11-26T09:00:00.000Z')));
afterAll(() => table.drop());

/** The report of `ke`'s business day `day`, read without closing it. */
const dayOf = (day: string) =>
  closeDay(deps, { provider: 'daraja', account: 'ke', day }, { actor: OPERATOR, close: false });
const SLACK_MS = ACCOUNT_DAY_SLACK_SECONDS * 1000;
const plus = (at: string, ms: number) => new Date(Date.parse(at) + ms).toISOString();

/** A Daraja payment created at `createdAt`, SUCCEEDED `verdictAfterMs` later (open when undefined). */
function payment(
  reference: string,
  createdAt: string,
  verdictAfterMs: number | undefined,
  account = 'ke',
): TransactionRecord {
  const final = verdictAfterMs !== undefined;
  return registered({
    key: { provider: 'daraja', account, reference },
    kind: 'stk',
    status: final ? 'SUCCEEDED' : 'PENDING',
    amount: { value: '100', currency: 'KES' },
    createdAt,
    updatedAt: final ? plus(createdAt, verdictAfterMs) : createdAt,
    transitions: final
      ? [
          {
            from: 'PENDING',
            to: 'SUCCEEDED',
            at: plus(createdAt, verdictAfterMs),
            origin: 'callback',
            receiptId: undefined,
          },
        ]
      : [],
  });
}

/** Rewrites a stored transaction's account-day key the way the store wrote it before the slack: its day time. */
async function keyAsBeforeTheSlack(tx: TransactionRecord) {
  const at = dayTimeOf(tx);
  await table.client.send(
    new UpdateItemCommand({
      TableName: table.tableName,
      Key: { pk: { S: transactionPk(tx.key) }, sk: { S: TX_SK } },
      UpdateExpression: 'SET accountDay = :part, dayAt = :at',
      ExpressionAttributeValues: {
        ':part': { S: accountDayPartition(tx.key.provider, tx.key.account, at) },
        ':at': { S: at },
      },
    }),
  );
}

async function storedKey(tx: TransactionRecord) {
  const item = (await table.listAll()).find((i) => i.pk === transactionPk(tx.key) && i.sk === TX_SK);
  return item?.dayAt;
}

describe('the account-day index with its slack, in DynamoDB Local', () => {
  it('a verdict reached just after midnight counts on its own day, though it has no account-day entry', async () => {
    // Prepare: created 23:55 Nairobi on the 24th (20:55 UTC), succeeded 10 minutes later, on the 25th.
    const tx = payment('SLACK-MIDNIGHT', '2026-11-24T20:55:00.000Z', 10 * 60_000);
    await table.store.createTransaction(tx);

    // Act
    const day24 = await dayOf('2026-11-24');
    const day25 = await dayOf('2026-11-25');

    // Assess
    expect(await storedKey(tx)).toBeUndefined();
    expect(day24.verdicts).toEqual({});
    expect(day25.verdicts).toEqual({ SUCCEEDED: { count: 1, amount: '100' } });
  });

  it('the same transaction keyed as the store wrote it before the slack (by its verdict) counts the same', async () => {
    // Prepare: an item written before the upgrade, beside one of the day written after it.
    const old = payment('SLACK-OLD', '2026-11-26T20:55:00.000Z', 10 * 60_000);
    const inside = payment('SLACK-OLD-INSIDE', '2026-11-26T10:00:00.000Z', 60_000);
    await table.store.createTransaction(old);
    await table.store.createTransaction(inside);
    await keyAsBeforeTheSlack(old);
    await keyAsBeforeTheSlack(inside);

    // Act
    const day26 = await dayOf('2026-11-26');
    const day27 = await dayOf('2026-11-27');

    // Assess
    expect(await storedKey(old)).toBe('2026-11-26T21:05:00.000Z');
    expect(day26.verdicts).toEqual({ SUCCEEDED: { count: 1, amount: '100' } });
    expect(day27.verdicts).toEqual({ SUCCEEDED: { count: 1, amount: '100' } });
  });

  it('an open transaction created just before midnight counts on its creation day, pending', async () => {
    // Prepare
    const tx = payment('SLACK-OPEN', '2026-11-28T20:59:00.000Z', undefined);
    await table.store.createTransaction(tx);

    // Act
    const day28 = await dayOf('2026-11-28');
    const day29 = await dayOf('2026-11-29');

    // Assess
    expect(day28.verdicts).toEqual({ PENDING: { count: 1, amount: '100' } });
    expect(day29.verdicts).toEqual({});
  });

  it('answers every range as the in-memory store does, for keys written either way around both edges', async () => {
    // Prepare: verdicts at 0, just inside, at and past the slack, open ones, around a midnight and a range
    // edge; a third of them keyed as before the slack.
    const memory = new MemoryStore();
    const edge = '2026-12-01T00:00:00.000Z';
    const lags = [undefined, 0, 1_000, SLACK_MS - 1_000, SLACK_MS, SLACK_MS + 1_000, 2 * SLACK_MS];
    const starts = [-2 * SLACK_MS, -SLACK_MS - 1_000, -SLACK_MS + 1_000, -60_000, -1, 0, 60_000];
    const all: TransactionRecord[] = [];
    for (const [i, start] of starts.entries())
      for (const [j, lag] of lags.entries())
        all.push(payment(`PARITY-${i}-${j}`, plus(edge, start), lag, 'parity'));
    for (const [n, tx] of all.entries()) {
      await table.store.createTransaction(tx);
      await memory.createTransaction(tx);
      if (n % 3 === 0) await keyAsBeforeTheSlack(tx);
    }
    const ranges = [
      [plus(edge, -86_400_000), edge],
      [edge, plus(edge, 86_400_000)],
      [plus(edge, -SLACK_MS), plus(edge, SLACK_MS)],
      [plus(edge, -1_000), plus(edge, 1_000)],
    ] as const;
    const answer = (entries: { key: { reference: string }; status: string }[]) =>
      entries.map((e) => `${e.key.reference} ${e.status}`).sort();

    for (const [from, to] of ranges) {
      // Act
      const stored = await table.store.listAccountDay('daraja', 'parity', from, to);
      const expected = await memory.listAccountDay('daraja', 'parity', from, to);

      // Assess: the same transactions, each `at` inside the range and at most the slack before its day time.
      expect(answer(stored), `${from} .. ${to}`).toEqual(answer(expected));
      const dayTime = new Map(expected.map((e) => [e.key.reference, e.at]));
      for (const entry of stored) {
        expect(entry.at >= from && entry.at < to).toBe(true);
        const lead = Date.parse(dayTime.get(entry.key.reference)!) - Date.parse(entry.at);
        expect(lead).toBeGreaterThanOrEqual(0);
        expect(lead).toBeLessThanOrEqual(SLACK_MS);
      }
    }
    expect(answer(await memory.listAccountDay('daraja', 'parity', ranges[0][0], ranges[1][1]))).toHaveLength(
      all.length,
    );
  });
});
