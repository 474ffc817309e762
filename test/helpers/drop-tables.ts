import { afterAll, beforeAll } from 'vitest';
import { dropTablesOfThisFile, noteTablesBeforeThisFile } from './dynamo';

/**
 * A setup file of the dynamodb lane (vitest.config.ts): after each test file, its tables are deleted
 * (test/helpers/dynamo.ts testTableName), and any other table it added to the worker's DynamoDB Local.
 * Registered before the file's own hooks, so it runs after them, once the file's relays have stopped.
 */
beforeAll(() => noteTablesBeforeThisFile());
afterAll(() => dropTablesOfThisFile());
