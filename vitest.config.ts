import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // Two cores on CI: keep parallelism modest so timing-sensitive e2e tests are not starved.
    maxWorkers: 2,
    pool: 'forks',
  },
});
