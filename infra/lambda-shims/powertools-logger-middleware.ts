import type { MiddlewareObj } from '@middy/core';
import type { Logger } from './powertools-logger';

/**
 * Bundled in place of `@aws-lambda-powertools/logger/middleware` (esbuild alias, infra/bundling.ts), with
 * the logger shim beside it: the invocation's context added to the logger before the handler, the
 * temporary keys dropped after it when asked (`resetKeys`). The package's middleware also refreshes the
 * debug sampling, logs the event and flushes the log buffer, none of which the shim has
 * (powertools-logger.ts).
 */
export function injectLambdaContext(
  target: Logger | Logger[],
  options?: { resetKeys?: boolean; clearState?: boolean },
): MiddlewareObj {
  const loggers = Array.isArray(target) ? target : [target];
  const reset = () => {
    if (options?.resetKeys || options?.clearState) for (const logger of loggers) logger.resetKeys();
  };
  return {
    before: (request) => {
      for (const logger of loggers) logger.addContext(request.context);
    },
    after: reset,
    onError: reset,
  };
}
