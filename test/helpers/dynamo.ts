import { randomUUID } from 'node:crypto';
import { DeleteTableCommand, type DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { workerDynamoDb } from './worker-dynamodb';
import { createDynamoClients } from '../../shared/adapters/dynamodb/client';
import { DynamoRelayStore, type RelayStoreOptions } from '../../shared/adapters/dynamodb/relay-store';
import { widenTransactionItem } from '../../shared/adapters/dynamodb/transaction-item';
import { widenReceiptItem } from '../../shared/adapters/dynamodb/receipt-item';
import { ensureTable } from '../../shared/adapters/dynamodb/setup';

export const TEST_RETENTION = { receiptDays: 30, quarantineDays: 30, transactionDays: 400 };

/**
 * The run's DynamoDB Local. Only the dynamodb lane starts one (test/helpers/lanes.ts): a file of another
 * lane that asks fails here, naming where it belongs, instead of reaching for a real AWS endpoint.
 */
export function dynamoEndpoint(): string {
  // The worker's own instance (test/helpers/worker-dynamodb.ts): a file's relays, tables and clients all meet there.
  const endpoint = workerDynamoDb()?.endpoint;
  if (!endpoint)
    throw new Error(
      'This test file uses DynamoDB Local, which only the dynamodb lane starts: move it under test/integration ' +
        '(or test/e2e, test/hostile, test/browser); see "Test lanes" in docs/development.md',
    );
  return endpoint;
}

/** The tables this process made for the running test file (test/helpers/drop-tables.ts deletes them after it). */
const madeForThisFile = new Set<string>();

/**
 * A unique table name for this test file, deleted once the file ends: a table left behind stays in its
 * DynamoDB Local for the rest of the run, and every table there makes each later request dearer (measured:
 * reads cost about 1.8 times as much CPU with 300 other tables in the database as with none).
 */
export function testTableName(prefix: string): string {
  const name = `${prefix}-${randomUUID()}`;
  madeForThisFile.add(name);
  return name;
}

/** Every table in the worker's DynamoDB Local. */
export async function tableNames(client: DynamoDBClient): Promise<string[]> {
  const names: string[] = [];
  let start: string | undefined;
  do {
    const page = await client.send(new ListTablesCommand({ ExclusiveStartTableName: start }));
    names.push(...(page.TableNames ?? []));
    start = page.LastEvaluatedTableName;
  } while (start);
  return names;
}

/** The tables in the worker's DynamoDB Local before the running file started (test/helpers/drop-tables.ts). */
let before: Set<string> | undefined;

/** Notes the tables there are before a test file starts: those it adds are deleted after it. */
export async function noteTablesBeforeThisFile(): Promise<void> {
  const { client } = createDynamoClients({ endpoint: dynamoEndpoint(), requestTimeoutMs: 15_000 });
  try {
    before = new Set(await tableNames(client));
  } finally {
    client.destroy();
  }
}

/**
 * Deletes the tables testTableName named for the file that just ended (its relays are stopped by then) and
 * every other table the file added: a script the file runs in-process (`npm run ledger`'s stack, by port)
 * names its own, and one left behind, with its stream records, made every later file's requests dearer
 * (a file of the statements after ledger-day's two days: 3.5 s of DynamoDB Local CPU, then 12.9 s).
 */
export async function dropTablesOfThisFile(): Promise<void> {
  const { client } = createDynamoClients({ endpoint: dynamoEndpoint(), requestTimeoutMs: 15_000 });
  try {
    const added = before ? (await tableNames(client)).filter((name) => !before!.has(name)) : [];
    const names = [...new Set([...madeForThisFile, ...added])];
    madeForThisFile.clear();
    await Promise.all(
      names.map((name) => client.send(new DeleteTableCommand({ TableName: name })).catch(() => undefined)),
    );
  } finally {
    client.destroy();
  }
}

/** A fresh table in the run's DynamoDB Local, so test files never see each other's items. */
export async function createTestTable(options: Partial<RelayStoreOptions> = {}) {
  const endpoint = dynamoEndpoint();
  // The store's 1.5 s request timeout is the Lambda budget; these tests check what the store does, not how
  // fast DynamoDB Local answers, and on a busy machine a write can take longer (then it failed the test).
  const { client, doc } = createDynamoClients({ endpoint, requestTimeoutMs: 15_000 });
  const tableName = testTableName('test');
  await ensureTable(client, tableName);
  const store = new DynamoRelayStore(doc, { tableName, retention: TEST_RETENTION, ...options });
  return {
    endpoint,
    client,
    doc,
    tableName,
    store,
    /**
     * Every item of the table (small test tables only), transaction and receipt items in their plain
     * layout (the compact ones pack most of them into one compressed attribute: a test reads the content).
     */
    async listAll(): Promise<Record<string, unknown>[]> {
      const page = await doc.send(new ScanCommand({ TableName: tableName }));
      return (page.Items ?? []).map((item) => widenReceiptItem(widenTransactionItem(item)));
    },
    async drop() {
      await client.send(new DeleteTableCommand({ TableName: tableName })).catch(() => undefined);
      client.destroy();
    },
  };
}
