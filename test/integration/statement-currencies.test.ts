/**
 * Issue 29: an account that holds two currencies (an Airtel Money wallet in the DRC keeps CDF and USD)
 * reports one balance per currency at one instant (docs/statements.md#breaks). Each is a snapshot of its
 * own on DynamoDB Local, and each currency's series is judged on its own: a drift in one is a break of
 * that currency, and the other's unchanged balance is none.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoStatementStore } from '../../shared/adapters/dynamodb/statement-store';
import { closeDay } from '../../shared/app/statements/close-day';
import { recordBalance } from '../../shared/app/statements/statement-sink';
import type { RelayLogger } from '../../shared/app/ports';
import { parseConfig } from '../../shared/config/load';
import { createTestTable } from '../helpers/dynamo';

const silent: RelayLogger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
const config = parseConfig({
  management: { bearerToken: 'a-long-enough-token' },
  accounts: { airtel: { cd: { country: 'CD', currency: 'CDF', hashMode: 'off' } } },
});

let table: Awaited<ReturnType<typeof createTestTable>>;
let deps: Parameters<typeof recordBalance>[0];
const now = '2026-11-12T00:00:00.000Z';
beforeAll(async () => {
  table = await createTestTable();
  deps = {
    config,
    store: table.store,
    statements: new DynamoStatementStore(table.doc, { tableName: table.tableName, retentionDays: 400 }),
    clock: { now: () => new Date(now) },
    log: silent,
  };
});
afterAll(async () => {
  await table.drop();
});

const snapshot = (at: string, balance: string, currency: string) =>
  recordBalance(
    deps,
    { provider: 'airtel', account: 'cd', source: 'balance-api', at, balance, currency },
    { actor: { kind: 'system', name: 'balance-snapshot' } },
  );

describe('a multi-currency account', () => {
  it("stores each currency's balance at one instant, and judges a drift in one currency only against that currency", async () => {
    // Prepare: CDF and USD at 06:00 and 12:00 (UTC, Airtel's default zone); USD fell 5 with nothing to explain it.
    await snapshot('2026-11-10T06:00:00.000Z', '250000', 'CDF');
    await snapshot('2026-11-10T06:00:00.000Z', '100', 'USD');
    await snapshot('2026-11-10T12:00:00.000Z', '250000', 'CDF');
    await snapshot('2026-11-10T12:00:00.000Z', '95', 'USD');

    // Act
    const stored = await deps.statements.listBalances(
      'airtel',
      'cd',
      '2026-11-10T00:00:00.000Z',
      '2026-11-11T00:00:00.000Z',
    );
    const usdBefore = await deps.statements.balanceBefore('airtel', 'cd', '2026-11-10T12:00:00.000Z', 'USD');
    const again = await deps.statements.putBalance({
      provider: 'airtel',
      account: 'cd',
      source: 'balance-api',
      at: '2026-11-10T12:00:00.000Z',
      balance: '94',
      currency: 'USD',
      recordedAt: now,
      actor: { kind: 'system', name: 'balance-snapshot' },
    });
    const day = await closeDay(
      deps,
      { provider: 'airtel', account: 'cd', day: '2026-11-10' },
      { actor: { kind: 'person', name: 'amani.kabila' } },
    );

    // Assess: four snapshots, the same instant and currency still stored once, one drift: USD's.
    expect(stored.map((b) => [b.at, b.currency, b.balance])).toEqual([
      ['2026-11-10T06:00:00.000Z', 'CDF', '250000'],
      ['2026-11-10T06:00:00.000Z', 'USD', '100'],
      ['2026-11-10T12:00:00.000Z', 'CDF', '250000'],
      ['2026-11-10T12:00:00.000Z', 'USD', '95'],
    ]);
    expect(usdBefore).toMatchObject({ at: '2026-11-10T06:00:00.000Z', currency: 'USD', balance: '100' });
    expect(again).toBe(false);
    expect(day.breaks.map((b) => [b.category, b.amount, b.actual, b.expected])).toEqual([
      ['balance-drift', '5', '-5', '0'],
    ]);
    expect(day.breaks[0]!.detail).toContain('the USD balance moved -5');
  });
});
