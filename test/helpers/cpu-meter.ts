import { appendFileSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { afterAll, expect, inject } from 'vitest';

/**
 * Where a lane's time goes, in CPU rather than wall time (a busy machine stretches wall time, not CPU):
 * with TEST_CPU_LOG=<file>, vitest.config.ts adds this setup file and each test file appends one JSON
 * line: its wall time, the CPU of its worker while it ran (its imports included), and the CPU of the child
 * processes it started and reaped (DynamoDB Local, `npm start`, `npm pack`, Chromium, cdk synth). Read by
 * the summary reporter, which ends the run with the files that took the most CPU
 * (docs/development.md#how-long-the-suite-takes). Off by default.
 */
const LOG = process.env.TEST_CPU_LOG;
const TICK_MS = 10; // Linux reports /proc times in clock ticks of 1/100 s (getconf CLK_TCK).

/** This process's own CPU and that of its reaped children, in ms (/proc/self/stat fields 14 to 17). */
function cpu(): { self: number; children: number } {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const at = (field: number) => Number(fields[field - 3]) * TICK_MS;
  return { self: at(14) + at(15), children: at(16) + at(17) };
}

/**
 * The CPU of this worker's DynamoDB Local (the dynamodb lane gives each worker its own instance,
 * test/helpers/dynamo.ts), in ms: what the file's requests cost the database. 0 in the other lanes.
 */
function jvmCpu(): number {
  const pids = inject('dynamoPids');
  if (!pids?.length) return 0;
  const pid = pids[(Number(process.env.VITEST_POOL_ID ?? 1) - 1) % pids.length];
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return 0;
  }
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
      })}\n`,
    );
  });
}
