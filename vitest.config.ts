import { defineConfig } from 'vitest/config';

/**
 * Test files that only import modules and build values (unit, CDK templates, the simulator in-process, the
 * store contract): they share their worker's module cache instead of loading aws-cdk-lib, the AWS SDK and
 * the relay again for every file. Measured on 2 cores: 292 s of CPU isolated, 126 s shared, for the same
 * 2,346 tests. A file that mocks modules, stubs the environment or replaces globals stays isolated.
 */
const SHARED_WORKERS = [
  'test/unit/**/*.test.ts',
  'test/infra/**/*.test.ts',
  'test/simulator/**/*.test.ts',
  'test/contract/**/*.test.ts',
  'test/docs/**/*.test.ts',
];
const NEEDS_ISOLATION = [
  'test/unit/local/file-ingress-buffer.test.ts', // vi.mock('node:fs/promises')
  'test/unit/adapters/metrics/metrics.test.ts', // vi.stubEnv, process.stdout spy
  'test/unit/adapters/tracing.test.ts', // vi.stubEnv of the Lambda environment
  'test/unit/domain/badges.test.ts', // process.env.TZ
];

export default defineConfig({
  test: {
    globalSetup: ['test/helpers/global-setup.ts'],
    reporters: ['default', './test/helpers/summary-reporter.ts'],
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    // Timeouts are a safety net for a hung test, not a speed check: the e2e tests wait on conditions (a
    // child process started, an event published) and CDK synth with asset bundling takes 30-50 s when the
    // cores are busy. Speed is measured by `npm run bench`, never asserted (docs/development.md).
    testTimeout: 90_000,
    hookTimeout: 180_000,
    // Two cores: two forks (each test file may also start a relay, a simulator or child processes).
    maxWorkers: 2,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: { name: 'shared', include: SHARED_WORKERS, exclude: NEEDS_ISOLATION, isolate: false },
      },
      // Every other file, and the shared folders' exceptions, one process per file as before.
      { extends: true, test: { name: 'isolated', include: ['test/**/*.test.ts'], exclude: SHARED_WORKERS } },
      { extends: true, test: { name: 'isolated-exceptions', include: NEEDS_ISOLATION } },
    ],
  },
});
