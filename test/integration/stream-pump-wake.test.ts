import { GetItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalStreamPump } from '../../local/stream-pump';
import { createDynamoClients } from '../../shared/adapters/dynamodb/client';
import { createTestTable } from '../helpers/dynamo';
import { silentLogger, startTestRelay, type TestRelay } from '../helpers/relay';

describe("the stream pump's wake on writes", () => {
  let table: Awaited<ReturnType<typeof createTestTable>>;
  let wakes = 0;
  let pump: LocalStreamPump;
  beforeAll(async () => {
    table = await createTestTable();
    pump = new LocalStreamPump(
      table.client,
      table.endpoint,
      table.tableName,
      async () => undefined,
      silentLogger,
    );
    pump.wakeOnWrites(table.client);
    pump.onWrite(() => wakes++);
  });
  afterAll(async () => {
    await table.drop();
  });

  it('is woken by every write of the document client and of the client under it', async () => {
    // Prepare
    const key = { pk: 'WAKE#1', sk: 'A' };
    const before = wakes;

    // Act
    await table.doc.send(new PutCommand({ TableName: table.tableName, Item: { ...key, n: 1 } }));
    await table.client.send(
      new UpdateItemCommand({
        TableName: table.tableName,
        Key: { pk: { S: key.pk }, sk: { S: key.sk } },
        UpdateExpression: 'SET n = :n',
        ExpressionAttributeValues: { ':n': { N: '2' } },
      }),
    );
    await table.doc.send(
      new TransactWriteCommand({
        TransactItems: [{ Put: { TableName: table.tableName, Item: { pk: 'WAKE#2', sk: 'A' } } }],
      }),
    );

    // Assess
    expect(wakes - before).toBe(3);
  });

  it('is not woken by reads, nor by a client it was not given', async () => {
    // Prepare
    const other = createDynamoClients({ endpoint: table.endpoint, requestTimeoutMs: 15_000 });
    const before = wakes;

    // Act
    await table.doc.send(new GetCommand({ TableName: table.tableName, Key: { pk: 'WAKE#1', sk: 'A' } }));
    await table.client.send(
      new GetItemCommand({ TableName: table.tableName, Key: { pk: { S: 'WAKE#1' }, sk: { S: 'A' } } }),
    );
    await other.doc.send(new PutCommand({ TableName: table.tableName, Item: { pk: 'WAKE#3', sk: 'A' } }));
    other.client.destroy();

    // Assess
    expect(wakes).toBe(before);
  });
});

const REFERENCE = '5f0d3b4e-8a51-4c1e-9d7a-2b6c1e0f9a11';

describe("a relay's pump", () => {
  let relay: TestRelay;
  let wakes = 0;
  beforeAll(async () => {
    relay = await startTestRelay({
      accounts: { momo: { demo: { currency: 'EUR', confirmSuccess: false } } },
    });
    relay.pump.onWrite(() => wakes++);
  });
  afterAll(async () => {
    await relay?.stop();
  });

  it('is woken by what the relay writes: a registration, then its callback', async () => {
    // Act: an operator registers a transaction
    const before = wakes;
    const registered = await relay.admin('POST', '/v1/transactions', {
      provider: 'momo',
      account: 'demo',
      kind: 'requesttopay',
      reference: REFERENCE,
      amount: '100',
      currency: 'EUR',
      externalId: 'wake-order-1',
    });
    const afterRegistration = wakes;
    // Act: its callback
    const paid = await relay.request('PUT', `/v1/momo/demo/requesttopay/${REFERENCE}`, {
      financialTransactionId: '1795',
      externalId: 'wake-order-1',
      amount: '100',
      currency: 'EUR',
      payer: { partyIdType: 'MSISDN', partyId: '46733123459' },
      status: 'SUCCESSFUL',
    });

    // Assess
    expect(registered.status).toBe(201);
    expect(afterRegistration).toBeGreaterThan(before);
    expect(paid.status).toBe(200);
    expect(wakes).toBeGreaterThan(afterRegistration);
  });
});
