import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
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
  },
});
