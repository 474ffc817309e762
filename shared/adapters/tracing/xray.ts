import { createRequire } from 'node:module';
import type { MiddlewareObj } from '@middy/core';

/**
 * X-Ray tracing through Powertools Tracer, loaded from the construct's tracing layer.
 *
 * Why a layer and not the bundle: Tracer brings the X-Ray SDK (about 125 KB minified, 25 ms to load),
 * which would put every function over its 500 KB / 150 ms budget. The layer (`relay-tracing`, built
 * by infra/tracing-layer.ts from the same package-lock versions) is shared by all functions and found
 * through Lambda's NODE_PATH (/opt/nodejs/node_modules). Only CommonJS `require` honours NODE_PATH,
 * hence createRequire. Outside Lambda (npm start, tests) nothing is loaded: there is no X-Ray daemon.
 */
export const TRACING_LAYER_MODULE = 'relay-tracing';

/** What the layer exports (infra/lambda-shims/relay-tracing.ts). */
interface TracingModule {
  Tracer: new (options: { serviceName: string; captureHTTPsRequests?: boolean }) => TracerLike;
  captureLambdaHandler: (
    tracer: TracerLike,
    options?: { captureResponse?: boolean },
  ) => MiddlewareObj<unknown, unknown>;
}

interface TracerLike {
  captureAWSv3Client<T>(client: T): T;
  isTracingEnabled(): boolean;
}

export interface Tracing {
  tracer: TracerLike;
  /** The handler's segment: cold start and service annotations, errors; responses are never captured. */
  middleware: MiddlewareObj<unknown, unknown>;
}

let active: Tracing | undefined;

export interface TracingOptions {
  serviceName: string;
  env?: NodeJS.ProcessEnv;
  /** Loads the layer module (tests pass their own). @default require through NODE_PATH */
  load?: (id: string) => unknown;
  /** Told once when tracing is wanted but the layer is missing. */
  warn?: (message: string) => void;
}

/**
 * Starts tracing for this process when running in Lambda with tracing not switched off
 * (POWERTOOLS_TRACE_ENABLED=false). Call it before creating SDK clients: clients created later are
 * captured by `captureClient`. Never throws: a missing layer only loses the traces.
 */
export function startTracing(options: TracingOptions): Tracing | undefined {
  const env = options.env ?? process.env;
  if (!env.AWS_LAMBDA_FUNCTION_NAME || env.POWERTOOLS_TRACE_ENABLED?.toLowerCase() === 'false') {
    active = undefined;
    return undefined;
  }
  const load = options.load ?? createRequire(import.meta.url);
  let module: TracingModule;
  try {
    module = load(TRACING_LAYER_MODULE) as TracingModule;
  } catch (error) {
    (options.warn ?? console.warn)(
      `tracing is off: the ${TRACING_LAYER_MODULE} layer is not attached to this function (${(error as Error).message.split('\n')[0]})`,
    );
    active = undefined;
    return undefined;
  }
  try {
    const tracer = new module.Tracer({ serviceName: options.serviceName });
    active = { tracer, middleware: module.captureLambdaHandler(tracer, { captureResponse: false }) };
  } catch (error) {
    // A layer of another shape (an older build attached by hand): traces are lost, the function runs.
    (options.warn ?? console.warn)(
      `tracing is off: the tracer could not start (${(error as Error).message})`,
    );
    active = undefined;
  }
  return active;
}

/** The SDK client, with an X-Ray subsegment per call when tracing is on; unchanged otherwise. */
export function captureClient<T>(client: T): T {
  return active ? active.tracer.captureAWSv3Client(client) : client;
}

/** The running tracing, if any (for the handlers' middy chains). */
export function activeTracing(): Tracing | undefined {
  return active;
}

/** For tests: forget the process's tracing. */
export function stopTracing(): void {
  active = undefined;
}
