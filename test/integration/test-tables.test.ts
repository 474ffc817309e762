import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createDynamoClients } from '../../shared/adapters/dynamodb/client';
import { ensureTable } from '../../shared/adapters/dynamodb/setup';
import { createTestTable, dropTablesOfThisFile, dynamoEndpoint, tableNames } from '../helpers/dynamo';

async function tablesNow(): Promise<string[]> {
  const { client } = createDynamoClients({ endpoint: dynamoEndpoint(), requestTimeoutMs: 15_000 });
  try {
    return await tableNames(client);
  } finally {
    client.destroy();
  }
}

describe("a test file's tables in the run's DynamoDB Local", () => {
  it('are deleted when the file ends, those it named itself too, and no table from before the file', async () => {
    // Prepare: two tables of this file (testTableName), one it named itself as a script does (`npm run
    // ledger`'s stack, by port), and what the database held before the file (noted by the setup file).
    const first = await createTestTable();
    const second = await createTestTable();
    const own = `named-by-a-script-${randomUUID()}`;
    await ensureTable(first.client, own);
    const others = (await tablesNow()).filter((n) => ![first.tableName, second.tableName, own].includes(n));

    // Act: what the dynamodb lane's setup file (test/helpers/drop-tables.ts) does after each file.
    await dropTablesOfThisFile();

    // Assess
    const left = await tablesNow();
    expect(left).not.toContain(first.tableName);
    expect(left).not.toContain(second.tableName);
    expect(left).not.toContain(own);
    expect(left).toEqual(expect.arrayContaining(others));
    first.client.destroy();
    second.client.destroy();
  });
});
