import { afterAll } from 'vitest';
import { dropTablesOfThisFile } from './dynamo';

/**
 * A setup file of the dynamodb lane (vitest.config.ts): after each test file, its tables are deleted
 * (test/helpers/dynamo.ts testTableName). Registered before the file's own hooks, so it runs after them,
 * once the file's relays have stopped.
 */
afterAll(() => dropTablesOfThisFile());
