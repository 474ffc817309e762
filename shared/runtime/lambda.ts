import { Logger } from '@aws-lambda-powertools/logger';
import { wordPressBadgeApi } from '../adapters/badges/wordpress-badge-api';
import { createDynamoClients } from '../adapters/dynamodb/client';
import { DynamoRelayStore } from '../adapters/dynamodb/relay-store';
import { PowertoolsRelayMetrics } from '../adapters/metrics/powertools-metrics';
import { sharedSecretReader } from '../adapters/secrets/secrets-manager';
import { startTracing } from '../adapters/tracing/xray';
import { CallbackTracker, trackingCallbacks } from '../app/callbacks/callback-health';
import { systemClock } from '../app/ports';
import { RefusalSampler } from '../app/callbacks/refusal-sampler';
import type { ReconcileServices } from '../app/reconciliation/reconcile';
import { statusApiRegistry } from '../app/reconciliation/status-apis';
import { type RelayServices, scrubbingLogger } from '../app/services';
import { loadConfig } from '../config/load';
import { secretScrubber } from '../config/secrets';
import { requireEnv } from './env';
import { useInvocationMetrics } from './lambda-middleware';

/** What the Lambda wiring adds: metrics for every function, the quarantine's flood limits. */
export type LambdaRelayServices = RelayServices & {
  metrics: PowertoolsRelayMetrics;
  refusalSampler: RefusalSampler;
};

/**
 * Composition root of the Lambda functions, the one place they are wired, once per cold start:
 * tracing started first (so every SDK client created after it, the secrets reader's included, is
 * captured), config loaded (asynchronously: secrets may come from a secret store) and validated,
 * failing fast with the bad key; SDK clients created; adapters wired; the logger scrubs every
 * configured secret; Powertools Metrics (EMF; namespace from POWERTOOLS_METRICS_NAMESPACE, which the
 * construct sets) flushed after every invocation by the handlers' middy chain.
 */
export async function lambdaServices(
  serviceName: string,
): Promise<{ services: LambdaRelayServices; logger: Logger }> {
  const logger = new Logger({ serviceName, logLevel: (process.env.LOG_LEVEL as 'INFO') ?? 'INFO' });
  startTracing({ serviceName, warn: (message) => logger.warn(message) });
  const config = await loadConfig();
  const scrub = secretScrubber(config);
  const { doc } = createDynamoClients();
  const table = new DynamoRelayStore(doc, {
    tableName: requireEnv('TABLE_NAME'),
    retention: config.retention,
  });
  const metrics = new PowertoolsRelayMetrics();
  useInvocationMetrics(metrics);
  const log = scrubbingLogger(logger, scrub);
  // Every stored callback notes its account's callback health (a write per account per minute at most).
  const store = trackingCallbacks(table, new CallbackTracker(table, config, log));
  return {
    logger,
    services: {
      config,
      store,
      clock: systemClock,
      log,
      scrub,
      metrics,
      // Per process: a flood of refusals costs bounded writes (shared/app/callbacks/refusal-sampler.ts).
      refusalSampler: new RefusalSampler(),
    },
  };
}

/**
 * The poller's wiring: the relay's services plus one status API client per account (created once per
 * cold start, so tokens are cached across invocations).
 */
export async function lambdaReconcileServices(
  serviceName: string,
): Promise<{ services: ReconcileServices; logger: Logger }> {
  const { services, logger } = await lambdaServices(serviceName);
  return {
    logger,
    services: {
      ...services,
      statusApi: statusApiRegistry(services),
      readSecret: sharedSecretReader(),
      badgeApi: wordPressBadgeApi({ readSecret: sharedSecretReader() }),
    },
  };
}
