import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    reporters: ['default', './test/helpers/summary-reporter.ts'],
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // Two cores on CI: keep parallelism modest so timing-sensitive e2e tests are not starved.
    maxWorkers: 2,
    pool: 'forks',
  },
});
