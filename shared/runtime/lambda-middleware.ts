import type { MiddlewareObj } from '@middy/core';
import { activeTracing } from '../adapters/tracing/xray';
import type { RelayMetrics } from '../app/ports';

let processMetrics: RelayMetrics | undefined;

/** The process's metrics, flushed after every invocation by `lambdaMiddlewares` (set once at cold start). */
export function useInvocationMetrics(metrics: RelayMetrics | undefined): void {
  processMetrics = metrics;
}

let processRefresh: (() => Promise<void>) | undefined;

/**
 * What every invocation starts (set once at cold start): the config's secret refresh, a clock comparison
 * until its interval has passed (shared/config/load.ts loadRefreshingConfig). Never throws. It is not
 * awaited: a Secrets Manager read must not sit on a callback's ack path (MoMo's 2 s budget), and the
 * invocation uses the values in place; the refreshed ones serve the next invocations (a frozen instance
 * finishes the read when it thaws). The previous path secret is accepted meanwhile (docs/deploy.md).
 */
export function useInvocationRefresh(refresh: (() => Promise<void>) | undefined): void {
  processRefresh = refresh;
}

function startRefresh(): MiddlewareObj<unknown, unknown> {
  return {
    before: () => {
      void processRefresh?.();
    },
  };
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
 * shared/adapters/tracing/xray.ts), the metrics flush and the secrets refresh. Outside Lambda: the last two.
 */
export function lambdaMiddlewares<TEvent = unknown, TResult = unknown>(): MiddlewareObj<TEvent, TResult>[] {
  const tracing = activeTracing();
  // The middlewares only read the request's context and error, never the typed event or result.
  const middlewares = [...(tracing ? [tracing.middleware] : []), flushMetrics(), startRefresh()];
  return middlewares as unknown as MiddlewareObj<TEvent, TResult>[];
}
