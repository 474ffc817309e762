import { appendFileSync } from 'node:fs';
import { relative } from 'node:path';
import { afterAll, expect } from 'vitest';
import { processCpu } from './proc-cpu';
import { workerDynamoDb } from './worker-dynamodb';

/**
 * Where a lane's time goes, in CPU rather than wall time (a busy machine stretches wall time, not CPU):
 * with TEST_CPU_LOG=<file>, vitest.config.ts adds this setup file and each test file appends one JSON
 * line: its wall time, the CPU of its worker while it ran (its imports included), and the CPU of the child
 * processes it started and reaped (DynamoDB Local, `npm start`, `npm pack`, Chromium, cdk synth). Read by
 * the summary reporter, which ends the run with the files that took the most CPU
 * (docs/development.md#how-long-the-suite-takes). Off by default.
 */
const LOG = process.env.TEST_CPU_LOG;
/** This process's own CPU and that of its reaped children, in ms. */
const cpu = () => processCpu('self');

/**
 * The CPU of this worker's DynamoDB Local (the dynamodb lane gives each worker its own instance,
 * test/helpers/worker-dynamodb.ts), in ms: what the file's requests cost the database. 0 in the other lanes.
 */
function jvmCpu(): number {
  const pid = workerDynamoDb()?.pid;
  return pid === undefined ? 0 : processCpu(pid).self;
}

if (LOG) {
  // A setup file runs again before each test file, shared workers included: the file's imports count.
  const start = { at: Date.now(), wall: performance.now(), ...cpu(), jvm: jvmCpu() };
  afterAll(() => {
    const end = cpu();
    appendFileSync(
      LOG,
      `${JSON.stringify({
        file: relative(process.cwd(), expect.getState().testPath ?? '?'),
        // When it started (epoch ms): the run's timeline, which file waited for which, can be drawn from the log.
        startedAt: start.at,
        wallMs: Math.round(performance.now() - start.wall),
        selfMs: end.self - start.self,
        childrenMs: end.children - start.children,
        dynamoMs: jvmCpu() - start.jvm,
        // Which worker ran it (VITEST_POOL_ID): the timeline by worker, and which DynamoDB Local it used.
        pool: Number(process.env.VITEST_POOL_ID ?? 0),
      })}\n`,
    );
  });
}
