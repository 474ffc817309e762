import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { createDynamoClients } from '../../shared/adapters/dynamodb/client';
import { createTestTable, dropTablesOfThisFile, dynamoEndpoint } from '../helpers/dynamo';

async function tableNames(): Promise<string[]> {
  const { client } = createDynamoClients({ endpoint: dynamoEndpoint(), requestTimeoutMs: 15_000 });
  try {
    const names: string[] = [];
    let start: string | undefined;
    do {
      const page = await client.send(new ListTablesCommand({ ExclusiveStartTableName: start }));
      names.push(...(page.TableNames ?? []));
      start = page.LastEvaluatedTableName;
    } while (start);
    return names;
  } finally {
    client.destroy();
  }
}

describe("a test file's tables in the run's DynamoDB Local", () => {
  it('are deleted when the file ends, and no other table is', async () => {
    // Prepare: two tables of this file, and what the database held besides.
    const first = await createTestTable();
    const second = await createTestTable();
    const others = (await tableNames()).filter((n) => n !== first.tableName && n !== second.tableName);

    // Act: what the dynamodb lane's setup file (test/helpers/drop-tables.ts) does after each file.
    await dropTablesOfThisFile();

    // Assess
    const left = await tableNames();
    expect(left).not.toContain(first.tableName);
    expect(left).not.toContain(second.tableName);
    expect(left).toEqual(expect.arrayContaining(others));
    first.client.destroy();
    second.client.destroy();
  });
});
