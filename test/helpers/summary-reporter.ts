import { existsSync, readFileSync } from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';
import { laneOf } from './lanes';

/**
 * Ends the run with the slowest test files (where the suite's time goes: docs/development.md) and one
 * plain line ("Tests: N passed, N failed, N skipped") that CI systems and people can read without
 * parsing vitest's coloured summary, after the tests that passed only when run again (flaky). With TEST_CPU_LOG set (test/helpers/cpu-meter.ts), also the CPU
 * each lane and its costliest files took.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const slowest = testModules
      .map((module) => ({ file: module.relativeModuleId, ms: module.diagnostic().duration }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 10);
    if (slowest.length) {
      process.stdout.write('\nSlowest test files:\n');
      for (const { file, ms } of slowest) process.stdout.write(`  ${seconds(ms)}  ${file}\n`);
    }
    const log = process.env.TEST_CPU_LOG;
    if (log && existsSync(log)) process.stdout.write(cpuSummary(readFileSync(log, 'utf8')));
    const flaky = flakyTests(testModules);
    if (flaky.length) {
      process.stdout.write('\nFlaky: failed, then passed when run again (retry: 1 in the dynamodb lane):\n');
      for (const { name, firstFailure } of flaky) process.stdout.write(`  ${name}\n${indent(firstFailure)}`);
    }
    const { passed, failed, skipped } = countTests(testModules);
    process.stdout.write(`\nTests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}

/** What countTests reads of vitest's TestModule. */
interface CountedModule {
  state(): string;
  children: { allTests(): Iterable<{ result(): { state: string } }> };
}

/**
 * Tests by outcome. A file that failed with no failed test counts as one failure: it did not load, or
 * its beforeAll threw (a hook timeout on a busy machine) and vitest marked its tests skipped.
 */
export function countTests(modules: ReadonlyArray<CountedModule>) {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  for (const module of modules) {
    let failedHere = 0;
    for (const test of module.children.allTests()) {
      const state = test.result().state;
      if (state === 'passed') passed++;
      else if (state === 'failed') failedHere++;
      else skipped++;
    }
    failed += module.state() === 'failed' ? Math.max(failedHere, 1) : failedHere;
  }
  return { passed, failed, skipped };
}

/** What flakyTests reads of vitest's TestModule. */
interface RetriedModule {
  relativeModuleId: string;
  children: {
    allTests(): Iterable<{
      fullName: string;
      diagnostic(): { flaky: boolean } | undefined;
      result(): { errors?: ReadonlyArray<{ message?: string }> };
    }>;
  };
}

/** How much of a flaky test's first failure the summary keeps: a `npm run sim` transcript fits. */
const FIRST_FAILURE_CHARS = 6_000;

/**
 * Tests that failed and then passed on their retry, as `file > test`, each with what its first try
 * failed with (vitest keeps that try's errors on the passed test): a flake seen once in CI is then
 * explained by its log, not lost with the retry's pass.
 */
export function flakyTests(
  modules: ReadonlyArray<RetriedModule>,
): Array<{ name: string; firstFailure: string }> {
  return modules.flatMap((module) =>
    [...module.children.allTests()]
      .filter((test) => test.diagnostic()?.flaky === true)
      .map((test) => ({
        name: `${module.relativeModuleId} > ${test.fullName}`,
        firstFailure: (test.result().errors?.[0]?.message ?? '(no error kept)').slice(0, FIRST_FAILURE_CHARS),
      })),
  );
}

const indent = (text: string) =>
  text
    .split('\n')
    .map((line) => `      ${line}\n`)
    .join('');

const seconds = (ms: number) => `${(ms / 1000).toFixed(1).padStart(6)} s`;

/**
 * The CPU lines of a TEST_CPU_LOG (one JSON line per test file, test/helpers/cpu-meter.ts): per lane,
 * then the ten costliest files. A file's cost includes what its requests cost its worker's DynamoDB Local.
 */
export function cpuSummary(log: string): string {
  const rows = log
    .split('\n')
    .filter(Boolean)
    .map(
      (line) =>
        JSON.parse(line) as {
          file: string;
          selfMs: number;
          childrenMs: number;
          dynamoMs?: number;
          startedAt?: number;
          wallMs: number;
        },
    )
    .map((row) => ({ ...row, dynamoMs: row.dynamoMs ?? 0 }))
    .map((row) => ({ ...row, cpuMs: row.selfMs + row.childrenMs + row.dynamoMs }));
  const files = rows;
  const lanes = new Map<string, number>();
  for (const row of files) {
    const lane = laneOf(row.file);
    lanes.set(lane, (lanes.get(lane) ?? 0) + row.cpuMs);
  }
  let text =
    '\nCPU of the test files (their workers, the child processes they reaped, their DynamoDB Local requests):\n';
  for (const [lane, ms] of lanes) text += `  ${seconds(ms)}  ${lane} lane\n`;
  for (const row of files.sort((a, b) => b.cpuMs - a.cpuMs).slice(0, 10))
    text += `  ${seconds(row.cpuMs)}  ${row.file} (child processes ${seconds(row.childrenMs).trim()}, DynamoDB Local ${seconds(row.dynamoMs).trim()})\n`;
  const busy = coresBusy(files);
  if (busy.length)
    text +=
      `\nCores busy, each ${BUSY_WINDOW_S} s of the run (each file's CPU spread over its run time; the vitest ` +
      `process not counted): ${busy.map((cores) => cores.toFixed(1)).join(' ')}\n`;
  return text;
}

const BUSY_WINDOW_S = 30;

/**
 * How many cores the test files kept busy in each BUSY_WINDOW_S of the run: each file's CPU (its worker's,
 * its children's, its DynamoDB Local requests') spread evenly over its wall time. Below the core count
 * while every worker runs a file, the files are waiting (poll cycles, simulators, child processes): the
 * idle the suite's time is made of (docs/development.md#how-long-the-suite-takes).
 */
export function coresBusy(
  files: ReadonlyArray<{ startedAt?: number; wallMs: number; cpuMs: number }>,
  windowMs = BUSY_WINDOW_S * 1000,
): number[] {
  const timed = files.filter((f) => f.startedAt !== undefined && f.wallMs > 0);
  if (!timed.length) return [];
  const start = Math.min(...timed.map((f) => f.startedAt!));
  const end = Math.max(...timed.map((f) => f.startedAt! + f.wallMs));
  const windows = Array.from({ length: Math.ceil((end - start) / windowMs) }, () => 0);
  for (const f of timed) {
    const from = f.startedAt! - start;
    const to = from + f.wallMs;
    for (let w = Math.floor(from / windowMs); w * windowMs < to; w++) {
      const overlap = Math.min(to, (w + 1) * windowMs) - Math.max(from, w * windowMs);
      windows[w]! += (f.cpuMs * overlap) / f.wallMs / windowMs;
    }
  }
  return windows;
}
