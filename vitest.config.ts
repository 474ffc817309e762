import { defineConfig } from 'vitest/config';
import { NEEDS_ISOLATION } from './test/helpers/isolation';

/**
 * Test files share their worker's module cache (isolate: false) instead of loading aws-cdk-lib, the AWS SDK
 * and the relay again for each of 165 files: every file builds its own relays, tables and stacks, and the
 * files of one worker run one after another. Measured on 2 cores, unit + infra + simulator + contract:
 * 292 s of CPU isolated, 126 s shared; e2e + hostile: 317 s against 288 s. A file that mocks modules,
 * stubs the environment or spies on a shared module stays isolated, in a process of its own
 * (test/helpers/isolation.ts).
 */

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
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts'],
          exclude: Object.keys(NEEDS_ISOLATION),
          isolate: false,
        },
      },
      { extends: true, test: { name: 'isolated', include: Object.keys(NEEDS_ISOLATION) } },
    ],
  },
});
