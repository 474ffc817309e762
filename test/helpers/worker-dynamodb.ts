import { type DynamoDbLocalHandle, startDynamoDbLocal } from '../../local/dynamodb-local';

/**
 * One DynamoDB Local per test worker process of the dynamodb lane, started by the first of its files
 * (test/helpers/drop-tables.ts, before the file is imported) and stopped when the process exits: every
 * file of the worker creates its own uniquely named tables there (test/helpers/dynamo.ts), and after each
 * file drop-tables.ts deletes every table that appeared while it ran, which is only safe on an instance
 * no other file uses at the same time. A worker owns its instance, so it never is: instances handed out by
 * worker number (VITEST_POOL_ID) were shared once the lane ran more workers in a group of its own (vitest
 * reuses a worker with the number it had while another took that number meanwhile; due-index lost its
 * table mid-run). The module cache is shared by the files of a worker (isolate: false) but not always
 * reloaded the same way, so the instance is kept on globalThis.
 */
interface Slot {
  started?: Promise<DynamoDbLocalHandle>;
  handle?: DynamoDbLocalHandle;
}

const KEY = Symbol.for('mobile-money-relay.test.worker-dynamodb');
const slot = ((globalThis as { [KEY]?: Slot })[KEY] ??= {});

/** Starts this worker's DynamoDB Local once; later calls get the same one. */
export function startWorkerDynamoDb(): Promise<DynamoDbLocalHandle> {
  slot.started ??= startDynamoDbLocal().then((handle) => {
    slot.handle = handle;
    // The worker ends by a signal more often than by exiting: the watchdog startDynamoDbLocal sets up stops
    // the instance within a second or so then; on a normal exit it is killed here at once.
    process.once('exit', () => {
      try {
        process.kill(-handle.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    });
    return handle;
  });
  return slot.started;
}

/** This worker's DynamoDB Local, once started (undefined outside the dynamodb lane). */
export function workerDynamoDb(): DynamoDbLocalHandle | undefined {
  return slot.handle;
}
