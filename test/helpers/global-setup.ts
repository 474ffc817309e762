import type { TestProject } from 'vitest/node';
import { type DynamoDbLocalHandle, startDynamoDbLocal } from '../../local/dynamodb-local';

/**
 * One DynamoDB Local for the whole run; every test file creates its own uniquely named table. Only the
 * dynamodb lane's projects name this setup (vitest.config.ts), and vitest runs a project's global setup
 * only when the run has files of that project, so `npm run test:fast` or one unit file starts no Java.
 * The lane's two projects (shared and isolated workers) each load this module apart, so the one
 * instance is kept on globalThis of vitest's main process and stopped when the last of them tears down.
 */
interface Shared {
  started: Promise<DynamoDbLocalHandle>;
  users: number;
}
const KEY = Symbol.for('mobile-money-relay.test.dynamodb-local');
const registry = globalThis as { [KEY]?: Shared };

export async function setup(project: TestProject): Promise<void> {
  const shared = (registry[KEY] ??= { started: startDynamoDbLocal(), users: 0 });
  shared.users++;
  project.provide('dynamoEndpoint', (await shared.started).endpoint);
}

export async function teardown(): Promise<void> {
  const shared = registry[KEY];
  if (!shared || --shared.users > 0) return;
  delete registry[KEY];
  // A start that failed has already failed the setup; there is nothing to stop.
  await shared.started.then(
    (handle) => handle.stop(),
    () => undefined,
  );
}
