/**
 * Entry of the tracing layer (`/opt/nodejs/node_modules/relay-tracing`, built by infra/tracing-layer.ts):
 * Powertools Tracer and its middy middleware, with the X-Ray SDK, bundled once for every function.
 * shared/adapters/tracing/xray.ts loads it.
 */
export { Tracer } from '@aws-lambda-powertools/tracer';
export { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
