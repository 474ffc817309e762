import { afterAll, beforeAll } from 'vitest';
import { createTestTable } from '../helpers/dynamo';
import { describeRelayStoreContract } from '../contract/relay-store.contract';

let table: Awaited<ReturnType<typeof createTestTable>>;
beforeAll(async () => {
  table = await createTestTable();
});
afterAll(async () => {
  await table.drop();
});

describeRelayStoreContract('the DynamoDB adapter on DynamoDB Local', () => table.store);
