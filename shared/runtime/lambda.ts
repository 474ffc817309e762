import { Logger } from '@aws-lambda-powertools/logger';
import { createDynamoClients } from '../adapters/dynamodb/client';
import { DynamoRelayStore } from '../adapters/dynamodb/relay-store';
import { loadConfig } from '../config/load';
import type { RelayConfig } from '../config/schema';
import { CallbackServices } from '../domain/callback-services';
import { systemClock } from '../domain/ports';
import { requireEnv } from './env';

/**
 * Composition root of the Lambda functions, built once per cold start at module scope: config
 * parsed (failing fast with the bad key), SDK clients created, adapters wired.
 */
export function lambdaRuntime(serviceName: string) {
  const config: RelayConfig = loadConfig();
  const logger = new Logger({ serviceName, logLevel: (process.env.LOG_LEVEL as 'INFO') ?? 'INFO' });
  const { doc } = createDynamoClients();
  const store = new DynamoRelayStore(doc, {
    tableName: requireEnv('TABLE_NAME'),
    retention: config.retention,
  });
  const services = new CallbackServices(store, systemClock, logger, {
    reconcileWindowSeconds: config.reconciliation.windowSeconds,
  });
  return { config, logger, store, services };
}
