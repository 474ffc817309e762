import { Logger } from '@aws-lambda-powertools/logger';
import { createDynamoClients } from '../adapters/dynamodb/client';
import { DynamoRelayStore } from '../adapters/dynamodb/relay-store';
import { PowertoolsRelayMetrics } from '../adapters/metrics/powertools-metrics';
import { systemClock } from '../app/ports';
import type { ReconcileServices } from '../app/reconcile';
import { statusApiRegistry } from '../app/status-apis';
import { type RelayServices, scrubbingLogger } from '../app/services';
import { loadConfig } from '../config/load';
import { secretScrubber } from '../config/secrets';
import { requireEnv } from './env';

/**
 * Composition root of the Lambda functions, the one place they are wired, once per cold start:
 * config loaded (asynchronously: secrets may come from a secret store) and validated, failing fast
 * with the bad key; SDK clients created; adapters wired; the logger scrubs every configured secret.
 */
export async function lambdaServices(
  serviceName: string,
): Promise<{ services: RelayServices; logger: Logger }> {
  const config = await loadConfig();
  const logger = new Logger({ serviceName, logLevel: (process.env.LOG_LEVEL as 'INFO') ?? 'INFO' });
  const scrub = secretScrubber(config);
  const { doc } = createDynamoClients();
  const store = new DynamoRelayStore(doc, {
    tableName: requireEnv('TABLE_NAME'),
    retention: config.retention,
  });
  return {
    logger,
    services: { config, store, clock: systemClock, log: scrubbingLogger(logger, scrub), scrub },
  };
}

/**
 * The poller's wiring: the relay's services plus one status API client per account (created once per
 * cold start, so tokens are cached across invocations) and Powertools Metrics (EMF; namespace from
 * POWERTOOLS_METRICS_NAMESPACE, which the construct sets).
 */
export async function lambdaReconcileServices(
  serviceName: string,
): Promise<{ services: ReconcileServices; logger: Logger }> {
  const { services, logger } = await lambdaServices(serviceName);
  return {
    logger,
    services: { ...services, statusApi: statusApiRegistry(services), metrics: new PowertoolsRelayMetrics() },
  };
}
