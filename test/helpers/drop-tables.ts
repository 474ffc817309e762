import { afterAll, beforeAll } from 'vitest';
import { dropTablesOfThisFile, noteTablesBeforeThisFile } from './dynamo';
import { startWorkerDynamoDb } from './worker-dynamodb';

/**
 * A setup file of the dynamodb lane (vitest.config.ts): the worker's own DynamoDB Local is started before
 * the file is imported (a file may name its endpoint at the top), and after each test file its tables are
 * deleted (test/helpers/dynamo.ts testTableName), and any other table it added to that instance.
 * Registered before the file's own hooks, so it runs after them, once the file's relays have stopped.
 */
await startWorkerDynamoDb();

beforeAll(() => noteTablesBeforeThisFile());
afterAll(() => dropTablesOfThisFile());
