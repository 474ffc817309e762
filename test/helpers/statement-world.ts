import { DynamoStatementStore } from '../../shared/adapters/dynamodb/statement-store';
import type { RelayLogger } from '../../shared/app/ports';
import { importStatement } from '../../shared/app/statements/import-statement';
import type { StatementDeps } from '../../shared/app/statements/statement-sink';
import { parseConfig } from '../../shared/config/load';
import type { RelayConfig } from '../../shared/config/schema';
import type { TransactionRecord } from '../../shared/domain/transaction';
import { createTestTable } from './dynamo';
import { registered } from './reports';

/**
 * What the statement tests on DynamoDB Local share (test/integration/statement*, account-day-index): one
 * Daraja account, its merchant export's columns, the person importing, and a table with the deps the
 * statement use cases take. Written once so a change of the export's columns or of the deps' shape is made
 * here, not in each file.
 */

/** The M-PESA org portal's merchant export header (the `mpesa-merchant` layout detects it). */
export const MERCHANT_HEADER =
  'STORE_NAME,RECEIPT_NUMBER,ACCOUNT_TYPE_NAME,TRANSACTION_TYPE,START_TIMESTAMP,TRANSACTION_PARTY_DETAILS,CREDIT_AMOUNT,DEBIT_AMOUNT,BALANCE,LINKED_TRANSACTION_ID';

/** A row of the merchant export, in MERCHANT_HEADER's order; `time` is Nairobi's (UTC+3), as the portal writes it. */
export function merchantRow(row: {
  receipt: string;
  time?: string;
  credit?: string;
  debit?: string;
  type?: string;
  party?: string;
  store?: string;
  linked?: string;
}): string {
  const {
    receipt,
    time = '2026-11-21 10:00:00',
    credit = '1500.00',
    debit = '0.00',
    type = 'Pay Merchant',
    party = '254708374149 - JANE DOE',
    store = 'Main Store',
    linked = '',
  } = row;
  return `${store},${receipt},Merchant Account,${type},${time},${party},${credit},${debit},0,${linked}`;
}

/** A whole merchant export: the header, then the rows. */
export const merchantExport = (...rows: string[]) => [MERCHANT_HEADER, ...rows].join('\n');

/** The person who imports files and closes days in these tests. */
export const OPERATOR = { kind: 'person' as const, name: 'jane.doe' };

export const silentLog: RelayLogger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

/** One Daraja account, `daraja/ke` (short code 600638), and a reconciliation window of an hour. */
export const statementConfig = parseConfig({
  management: { bearerToken: 'a-long-enough-token' },
  reconciliation: { windowSeconds: 3600 },
  accounts: { daraja: { ke: { pathSecret: 'daraja-path-secret-0123', shortCode: '600638' } } },
});

export type StatementTable = Awaited<ReturnType<typeof createTestTable>>;
export type { StatementDeps };

/**
 * A fresh DynamoDB Local table, and the statement use cases' deps on it, their clock reading `now()` at
 * each call (a test moves its time by changing what `now` returns). The caller drops the table.
 */
export async function openStatementWorld(
  now: () => string,
  config: RelayConfig = statementConfig,
): Promise<{ table: StatementTable; deps: StatementDeps }> {
  const table = await createTestTable();
  const deps: StatementDeps = {
    config,
    store: table.store,
    statements: new DynamoStatementStore(table.doc, { tableName: table.tableName, retentionDays: 400 }),
    clock: { now: () => new Date(now()) },
    log: silentLog,
  };
  return { table, deps };
}

/** Imports `text` as a file of `daraja/ke` named `ref`, by OPERATOR (a dry run when asked). */
export const importMerchantFile = (deps: StatementDeps, ref: string, text: string, dryRun = false) =>
  importStatement(deps, {
    provider: 'daraja',
    account: 'ke',
    ref,
    actor: OPERATOR,
    open: () => [text],
    ...(dryRun ? { dryRun: true } : {}),
  });

/**
 * A Daraja C2B payment the relay holds final (SUCCEEDED unless `status` says): its verdict at `at` by
 * `origin`; created at `createdAt` when given; the provider's id its `receipt` when given.
 */
export function finalC2b(payment: {
  account?: string;
  reference: string;
  amount: string;
  status?: 'SUCCEEDED' | 'FAILED';
  createdAt?: string;
  at: string;
  origin?: 'callback' | 'poll';
  receipt?: string;
}): TransactionRecord {
  const {
    account = 'ke',
    reference,
    amount,
    status = 'SUCCEEDED',
    createdAt,
    at,
    origin = 'callback',
  } = payment;
  return registered({
    key: { provider: 'daraja', account, reference },
    kind: 'c2b',
    status,
    ...(payment.receipt ? { providerTransactionId: payment.receipt } : {}),
    amount: { value: amount, currency: 'KES' },
    ...(createdAt ? { createdAt } : {}),
    transitions: [{ from: 'PENDING', to: status, at, origin, receiptId: undefined }],
  });
}
