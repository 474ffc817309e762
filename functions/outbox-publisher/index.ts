import { Logger } from '@aws-lambda-powertools/logger';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { EventBridgeSink } from '../../shared/adapters/events/eventbridge-sink';
import { PowertoolsRelayMetrics } from '../../shared/adapters/metrics/powertools-metrics';
import { captureClient, startTracing } from '../../shared/adapters/tracing/xray';
import { useInvocationMetrics } from '../../shared/runtime/lambda-middleware';
import { requireEnv } from '../../shared/runtime/env';
import { createOutboxPublisher } from './handler';

const logger = new Logger({ serviceName: 'relay-outbox-publisher' });
startTracing({ serviceName: 'relay-outbox-publisher', warn: (message) => logger.warn(message) });
const metrics = new PowertoolsRelayMetrics();
useInvocationMetrics(metrics);
// Adaptive retry spreads throttled PutEvents calls; entry-level failures are retried by the sink.
const client = captureClient(new EventBridgeClient({ maxAttempts: 5, retryMode: 'adaptive' }));
const sink = new EventBridgeSink(client, {
  busName: requireEnv('EVENT_BUS_NAME'),
  source: process.env.EVENT_SOURCE ?? 'mobile-money.relay',
});
export const handler = createOutboxPublisher({ sink, log: logger, metrics });
