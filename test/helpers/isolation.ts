/**
 * Test files that run in a process of their own (vitest.config.ts, project "isolated"); every other file
 * shares its worker's module cache. A file belongs here when it changes what later files of the same
 * worker would see: a mocked module, a stubbed global or environment variable, a spy on a shared module.
 * test/unit/architecture/test-isolation.test.ts fails for such a file missing from this list.
 */
export const NEEDS_ISOLATION: Record<string, string> = {
  'test/unit/local/file-ingress-buffer.test.ts': "vi.mock('node:fs/promises')",
  'test/unit/adapters/metrics/metrics.test.ts': 'vi.stubEnv, a process.stdout spy',
  'test/unit/infra/emf-metrics-shim.test.ts': 'vi.stubEnv, process.stdout/stderr and console spies',
  'test/unit/infra/powertools-logger-shim.test.ts': 'vi.stubEnv, process.stdout/stderr and console spies',
  'test/unit/adapters/tracing.test.ts': 'vi.stubEnv of the Lambda environment',
  'test/unit/runtime/log-format.test.ts': 'vi.stubEnv of the trace id, a process.stdout spy',
  'test/unit/domain/badges.test.ts': 'process.env.TZ',
  'test/clients/mpesa-api.test.ts': "vi.spyOn(http, 'request')",
  'test/unit/runtime/lambda-middleware.test.ts': "vi.spyOn(console, 'error')",
  'test/infra/edge-isolation.test.ts':
    "vi.stubEnv of the edge functions' environment, vi.spyOn(console, 'log')",
};

/** What makes a file need its own process (see NEEDS_ISOLATION). */
export const CHANGES_SHARED_STATE =
  /vi\.(mock|doMock|stubEnv|stubGlobal)\(|vi\.spyOn\((http|https|net|dns|fs|process|console|globalThis)\b|process\.env\.[A-Za-z_]+ *= [^=]|process\.env\[[^\]]+\] *= [^=]|delete process\.env/;
