import type { MiddlewareObj } from '@middy/core';
import { activeTracing } from '../adapters/tracing/xray';
import type { RelayMetrics } from '../app/ports';

let processMetrics: RelayMetrics | undefined;

/** The process's metrics, flushed after every invocation by `lambdaMiddlewares` (set once at cold start). */
export function useInvocationMetrics(metrics: RelayMetrics | undefined): void {
  processMetrics = metrics;
}

/** Writes what the invocation collected (one EMF document per dimension set); never fails the invocation. */
function flushMetrics(): MiddlewareObj<unknown, unknown> {
  const flush = async () => {
    try {
      processMetrics?.flush();
    } catch (error) {
      console.error(`metrics flush failed: ${(error as Error).message}`);
    }
  };
  return { after: flush, onError: flush };
}

/**
 * What every function's middy chain starts with: the X-Ray handler segment (when tracing runs; see
 * shared/adapters/tracing/xray.ts) and the metrics flush. Outside Lambda it is only the flush.
 */
export function lambdaMiddlewares<TEvent = unknown, TResult = unknown>(): MiddlewareObj<TEvent, TResult>[] {
  const tracing = activeTracing();
  // The middlewares only read the request's context and error, never the typed event or result.
  const middlewares = [...(tracing ? [tracing.middleware] : []), flushMetrics()];
  return middlewares as unknown as MiddlewareObj<TEvent, TResult>[];
}
