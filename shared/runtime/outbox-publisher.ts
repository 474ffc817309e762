import { Logger } from '@aws-lambda-powertools/logger';
import { createEventBridgeClient, EventBridgeSink } from '../adapters/events/eventbridge-sink';
import { PowertoolsRelayMetrics } from '../adapters/metrics/powertools-metrics';
import { captureClient, startTracing } from '../adapters/tracing/xray';
import type { PublishOutboxDeps } from '../app/outbox/publish-outbox';
import { requireEnv } from './env';
import { useInvocationMetrics } from './lambda-middleware';
import { RelayLogFormatter } from './log-format';

/**
 * The outbox publisher's wiring in Lambda: its own small root, apart from shared/runtime/lambda.ts, so its
 * bundle carries the EventBridge client and not the store's or the providers' code.
 */
export function lambdaOutboxPublisherDeps(): PublishOutboxDeps {
  const logger = new Logger({ serviceName: 'relay-outbox-publisher', logFormatter: new RelayLogFormatter() });
  startTracing({ serviceName: 'relay-outbox-publisher', warn: (message) => logger.warn(message) });
  const metrics = new PowertoolsRelayMetrics();
  useInvocationMetrics(metrics);
  const client = captureClient(createEventBridgeClient());
  const sink = new EventBridgeSink(client, {
    busName: requireEnv('EVENT_BUS_NAME'),
    source: process.env.EVENT_SOURCE ?? 'mobile-money.relay',
  });
  return { sink, log: logger, metrics };
}
