import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import { NEEDS_ISOLATION } from './test/helpers/isolation.js';
import { CDK_FOLDERS, FAST_FOLDERS, laneOf, testsUnder } from './test/helpers/lanes.js';

/**
 * Lanes (test/helpers/lanes.ts, docs/development.md#test-lanes): `npm run test:fast` runs the fast lane's
 * projects, `npm test` all of them. Only the dynamodb lane starts DynamoDB Local (its global setup).
 *
 * Test files share their worker's module cache (isolate: false) instead of loading aws-cdk-lib, the AWS SDK
 * and the relay again for each of 165 files: every file builds its own relays, tables and stacks, and the
 * files of one worker run one after another. Measured on 2 cores, unit + infra + simulator + contract:
 * 292 s of CPU isolated, 126 s shared; e2e + hostile: 317 s against 288 s. A file that mocks modules,
 * stubs the environment or spies on a shared module stays isolated, in a process of its own
 * (test/helpers/isolation.ts): each lane has an "-isolated" project for its files of that kind.
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
  globalSetup: ['test/helpers/global-setup.ts'],
  // After each file, the tables it made are deleted: DynamoDB Local gets slower with every table it holds.
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
    // Two cores: two forks (each test file may also start a relay, a simulator or child processes). A third
    // was measured three times: on a shared machine, no faster, and the dynamodb lane's waits failed more
    // often; on 2 idle cores with a third DynamoDB Local (fresh clone, 2026-11-30), 475 s against 429-480 s;
    // on the dynamodb lane alone (2026-12-02), 325.7 s and 581 s of CPU against 309.4 s and 497 s. The lane
    // is CPU-bound: a third worker fills the moments both files wait on clocks, but burns more than it fills.
    // Each worker needs its own DynamoDB Local (test/helpers/global-setup.ts starts one per worker).
    maxWorkers: 2,
    pool: 'forks',
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
