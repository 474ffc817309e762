import { appendFileSync } from 'node:fs';
import type { TestProject } from 'vitest/node';
import {
  type DynamoDbLocalHandle,
  dynamoDbLocalProcesses,
  startDynamoDbLocal,
} from '../../local/dynamodb-local';
import { processCpu } from './proc-cpu';

/**
 * DynamoDB Local for the whole run, one instance per test worker (every test file creates its own
 * uniquely named tables in its worker's instance, test/helpers/dynamo.ts). Only the
 * dynamodb lane's projects name this setup (vitest.config.ts), and vitest runs a project's global setup
 * only when the run has files of that project, so `npm run test:fast` or one unit file starts no Java.
 * The lane's two projects (shared and isolated workers) each load this module apart, so the one
 * instance is kept on globalThis of vitest's main process and stopped when the last of them tears down.
 */
interface Shared {
  started: Promise<DynamoDbLocalHandle[]>;
  users: number;
}

const KEY = Symbol.for('mobile-money-relay.test.dynamodb-local');
const registry = globalThis as { [KEY]?: Shared };

/**
 * One instance per test worker (vitest.config.ts maxWorkers: two). DynamoDB Local runs every request to its
 * database on one SQLite thread: with one instance for the lane, that thread was the queue every test file
 * waited in (measured on part of the lane: 41,000 requests, about 4.7 ms of CPU each on a loaded machine),
 * while the other core could not help. It must be one per worker, not fewer: after each file,
 * drop-tables.ts deletes every table that appeared on its worker's instance while the file ran, which on a
 * shared instance are another worker's too (with three workers on two instances, relay-simulator lost its
 * tables mid-run: 24 tests failed on "Cannot do operations on a non-existent table").
 */
export async function setup(project: TestProject): Promise<void> {
  const shared = (registry[KEY] ??= {
    started: Promise.all(Array.from({ length: project.config.maxWorkers }, () => startDynamoDbLocal())),
    users: 0,
  });
  shared.users++;
  const handles = await shared.started;
  project.provide(
    'dynamoEndpoints',
    handles.map((handle) => handle.endpoint),
  );
  project.provide(
    'dynamoPids',
    handles.map((handle) => handle.pid),
  );
}

export async function teardown(): Promise<void> {
  const shared = registry[KEY];
  if (!shared || --shared.users > 0) return;
  delete registry[KEY];
  // A start that failed has already failed the setup; there is nothing to stop.
  await shared.started.then(
    (handles) => {
      logJvmCpu(handles);
      return Promise.all(handles.map((handle) => handle.stop()));
    },
    () => undefined,
  );
}

/**
 * With TEST_CPU_LOG (test/helpers/cpu-meter.ts), each instance's CPU over the whole run, as one more line
 * of the log: DynamoDB Local runs detached, so no test file's CPU counts it, and it is the lane's largest
 * single consumer (docs/development.md#how-long-the-suite-takes).
 */
function logJvmCpu(handles: DynamoDbLocalHandle[]): void {
  const log = process.env.TEST_CPU_LOG;
  if (!log) return;
  handles.forEach((handle, index) => {
    const selfMs = dynamoDbLocalProcesses(handle).reduce((sum, pid) => sum + processCpu(pid).self, 0);
    appendFileSync(
      log,
      `${JSON.stringify({ file: `dynamodb-local#${index + 1}`, wallMs: 0, selfMs, childrenMs: 0 })}\n`,
    );
  });
}
