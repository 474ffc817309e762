import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { NEEDS_ISOLATION } from './test/helpers/isolation.js';
import { CDK_FOLDERS, FAST_FOLDERS, laneOf, testsUnder } from './test/helpers/lanes.js';
import { STARTS_FIRST, startFirst } from './test/helpers/sequencer.js';

/**
 * Lanes (test/helpers/lanes.ts, docs/development.md#test-lanes): `npm run test:fast` runs the fast lane's
 * projects, `npm test` all of them. Only the dynamodb lane starts DynamoDB Local (one per worker, its setup file).
 *
 * Test files share their worker's module cache (isolate: false) instead of loading aws-cdk-lib, the AWS SDK
 * and the relay again for each of 165 files: every file builds its own relays, tables and stacks, and the
 * files of one worker run one after another. Measured on 2 cores, unit + infra + simulator + contract:
 * 292 s of CPU isolated, 126 s shared; e2e + hostile: 317 s against 288 s. A file that mocks modules,
 * stubs the environment or spies on a shared module stays isolated, in a process of its own
 * (test/helpers/isolation.ts): a lane with such files has an "-isolated" project for them (the dynamodb lane
 * has none: test/unit/architecture/test-isolation.test.ts).
 */
const ISOLATED = Object.keys(NEEDS_ISOLATION);
/**
 * The dynamodb lane's tests run relays, DynamoDB Local, the simulator, Chromium and child processes on two
 * shared cores: they wait on conditions, but a wait's generous deadline can still pass on a machine loaded
 * far beyond what it was written for. A failed test there is run once more; one that then passes is listed
 * as flaky at the end of the run (test/helpers/summary-reporter.ts), to be fixed, not forgotten. The fast
 * and cdk lanes are deterministic: no retry.
 */
const DYNAMODB_LOCAL = {
  // The lane waits more than it computes (relays' clocks, simulators' settling, child processes): alone on
  // 2 cores, two workers leave a core idle a fifth of the time. More workers, each with its own DynamoDB
  // Local, fill those waits, but each also loads the relay's modules and runs a JVM: three, because a fourth
  // saturated both cores on one machine (the lane 10 % slower, 13 % more CPU) and saved a tenth on another
  // (the runs: commits f1e5100 and c8fe4d7, and the one that made it four). The CPU-bound lanes keep two, in
  // a group of their own before this one (projects of one group share one worker count).
  maxWorkers: Number(process.env.DYNAMODB_WORKERS ?? 3),
  sequence: { groupOrder: 1 },
  // Each worker starts its own DynamoDB Local (test/helpers/worker-dynamodb.ts), and after each file the
  // tables it made are deleted: DynamoDB Local gets slower with every table it holds.
  // (A project's setupFiles come after the root's: the CPU meter's hooks stay outermost.)
  setupFiles: ['test/helpers/drop-tables.ts'],
  retry: 1,
};
const ENV = { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
/**
 * aws-cdk-lib (2.27x) validates every synthesized template with a built-in CloudFormation engine (WASM):
 * starting it costs about 14 s of CPU in each process that synthesizes (each cdk-lane worker, each
 * `cdk synth` a test runs) and each template 0.5 s more. Without the validation feature flag it only
 * prints warnings, never fails a synth, so no test reads it: cfn-lint checks the same schemas and fails
 * on an error (test/infra/cfn-lint.ts). `CDK_VALIDATION=false` (the CDK's own switch) turns it off in the
 * lane's workers and the `cdk synth` processes they start.
 */
const CDK = { env: { ...ENV, CDK_VALIDATION: 'false' } };

function lane(
  name: ReturnType<typeof laneOf>,
  include: string[],
  exclude: string[],
  extra: TestProjectInlineConfiguration['test'] = {},
): TestProjectInlineConfiguration[] {
  const isolated = ISOLATED.filter((file) => laneOf(file) === name);
  return [
    {
      extends: true as const,
      test: { name, include, exclude: [...exclude, ...isolated], isolate: false, ...extra },
    },
    // A project with no files would fall back to the default globs: only lanes that have such files get one.
    ...(isolated.length
      ? [{ extends: true as const, test: { name: `${name}-isolated`, include: isolated, ...extra } }]
      : []),
  ];
}

/**
 * vitest's module cache on disk (`experimental.fsModuleCache`), fresh for each run: the six projects load
 * the same sources, and with the cache each is transformed once per run, not once per project. Measured on
 * 2 cores, the whole suite from an empty cache, two pairs alternated in the same hour: 346.8 → 323.6 s and
 * 363.3 → 341.8 s, CPU 462 → 431 s and 475 → 455 s. Not kept between runs: a kept entry holds its imports'
 * resolved paths, so after a branch switch renames a module its importers fail with "Cannot find module"
 * (vitest-dev/vitest#11246). Removed when the run ends.
 */
const MODULE_CACHE = join(tmpdir(), `relay-vitest-modules-${process.pid}`);
// vitest reads this file once for the run and once per project, all in this process: the first empties
// the folder (a run killed before its exit could have left one under a pid now reused).
const FRESH = Symbol.for('relay.vitest.moduleCache');
if (!(globalThis as Record<symbol, unknown>)[FRESH]) {
  (globalThis as Record<symbol, unknown>)[FRESH] = true;
  rmSync(MODULE_CACHE, { recursive: true, force: true });
  process.once('exit', () => rmSync(MODULE_CACHE, { recursive: true, force: true }));
}

/** vitest's order (groups, then projects, then its cached durations), the suite's longest files first in each project. */
class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { root } = this.ctx.config;
    return startFirst(
      await super.sort(files),
      STARTS_FIRST,
      (spec) => relative(root, spec.moduleId).split('\\').join('/'),
      (spec) => spec.project.name,
    );
  }
}

export default defineConfig({
  test: {
    reporters: ['default', './test/helpers/summary-reporter.ts'],
    // TEST_CPU_LOG=<file>: each test file logs the CPU it took (test/helpers/cpu-meter.ts).
    setupFiles: process.env.TEST_CPU_LOG ? ['test/helpers/cpu-meter.ts'] : [],
    env: ENV,
    // Timeouts are a safety net for a hung test, not a speed check: the e2e tests wait on conditions (a
    // child process started, an event published) and CDK synth with asset bundling takes 30-50 s when the
    // cores are busy. Speed is measured by `npm run bench`, never asserted (docs/development.md).
    testTimeout: 90_000,
    hookTimeout: 180_000,
    // Two cores: two forks for the fast and cdk lanes, which compute rather than wait (a third worker there
    // only loads aws-cdk-lib once more). The dynamodb lane runs after them with its own count (DYNAMODB_LOCAL
    // above). The whole suite in one group of three was no faster (355 s against 366 s, 2026-12-03).
    maxWorkers: 2,
    pool: 'forks',
    sequence: { sequencer: LongestFirstSequencer },
    experimental: { fsModuleCache: true, fsModuleCachePath: MODULE_CACHE },
    projects: [
      ...lane('fast', testsUnder(FAST_FOLDERS), []),
      ...lane('cdk', testsUnder(CDK_FOLDERS), [], CDK),
      ...lane(
        'dynamodb',
        ['test/**/*.test.ts'],
        testsUnder([...FAST_FOLDERS, ...CDK_FOLDERS]),
        DYNAMODB_LOCAL,
      ),
    ],
  },
});
