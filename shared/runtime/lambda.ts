import { DynamoDeliveryLog } from '../adapters/dynamodb/delivery-log';
import { DynamoDestinationStateStore } from '../adapters/dynamodb/destination-state-store';
import { type DeliveryAdmin, secretRefResolver } from '../app/delivery/destinations-admin';
import { replayToQueue } from '../app/delivery/queue-delivery';
import { createSqsBufferClient } from '../adapters/sqs/sqs-ingress-buffer';
import { sqsDeliveryQueue } from '../adapters/sqs/sqs-delivery-queue';
import { StatementLedger } from '../app/statements/statement-sink';
import { Logger } from '@aws-lambda-powertools/logger';
import { wordPressBadgeApi } from '../adapters/badges/wordpress-badge-api';
import { createDynamoClients } from '../adapters/dynamodb/client';
import { DynamoRelayStore } from '../adapters/dynamodb/relay-store';
import { DynamoStatementStore } from '../adapters/dynamodb/statement-store';
import { PowertoolsRelayMetrics } from '../adapters/metrics/powertools-metrics';
import { sharedSecretReader } from '../adapters/secrets/secrets-manager';
import { startTracing } from '../adapters/tracing/xray';
import { CallbackTracker, trackingCallbacks } from '../app/callbacks/callback-health';
import { systemClock } from '../app/ports';
import { RefusalSampler } from '../app/callbacks/refusal-sampler';
import type { ReconcileServices } from '../app/reconciliation/reconcile';
import { statusApiRegistry } from '../app/reconciliation/status-apis';
import { type RelayServices, scrubbingLogger } from '../app/services';
import { loadRefreshingConfig } from '../config/load';
import { FUNCTION_SECRET_KINDS } from '../config/secret-reader';
import { secretScrubber } from '../config/secrets';
import type { Scrubber } from '../util/redact';
import { requireEnv } from './env';
import { useInvocationMetrics, useInvocationRefresh } from './lambda-middleware';
import { RelayLogFormatter } from './log-format';

/** What the Lambda wiring adds: metrics for every function, the quarantine's flood limits. */
export type LambdaRelayServices = RelayServices & {
  metrics: PowertoolsRelayMetrics;
  refusalSampler: RefusalSampler;
};

/**
 * Composition root of the Lambda functions, the one place they are wired, once per cold start:
 * tracing started first (so every SDK client created after it, the secrets reader's included, is
 * captured), config loaded (asynchronously: the secrets this function may read come from Secrets
 * Manager, refreshed while warm) and validated,
 * failing fast with the bad key; SDK clients created; adapters wired; the logger scrubs every
 * configured secret; Powertools Metrics (EMF; namespace from POWERTOOLS_METRICS_NAMESPACE, which the
 * construct sets) flushed after every invocation by the handlers' middy chain.
 */
export async function lambdaServices(
  serviceName: string,
): Promise<{ services: LambdaRelayServices; logger: Logger }> {
  const logger = new Logger({
    serviceName,
    logLevel: (process.env.LOG_LEVEL as 'INFO') ?? 'INFO',
    logFormatter: new RelayLogFormatter(),
  });
  startTracing({ serviceName, warn: (message) => logger.warn(message) });
  // Only the secret kinds this function's role may read (infra/relay/secrets.ts grants the same table);
  // a function missing from the table reads the callback secrets, so a forgotten grant fails its cold
  // start instead of leaving path secrets unset.
  const secretKinds = FUNCTION_SECRET_KINDS[serviceName.replace(/^relay-/, '')] ?? ['callback'];
  let scrubNow: Scrubber = (text) => text;
  const { config, refresh } = await loadRefreshingConfig(process.env, undefined, {
    readSecret: sharedSecretReader(),
    secretKinds,
    onChange: (fresh) => {
      scrubNow = secretScrubber(fresh);
      logger.info('secrets refreshed: rotated values in use');
    },
    onError: (error) =>
      logger.error('secrets not refreshed: the values in use are kept', { error: scrubNow(error.message) }),
  });
  scrubNow = secretScrubber(config);
  // The scrubber follows the refreshes (old values stay in it: they were registered, never removed).
  const scrub: Scrubber = (text) => scrubNow(text);
  // Every invocation starts a refresh of the secrets when they are older than the refresh interval (not awaited).
  useInvocationRefresh(refresh);
  const { doc } = createDynamoClients();
  const table = new DynamoRelayStore(doc, {
    tableName: requireEnv('TABLE_NAME'),
    retention: config.retention,
  });
  const statements = new DynamoStatementStore(doc, {
    tableName: requireEnv('TABLE_NAME'),
    retentionDays: config.retention.transactionDays,
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
      statements,
      // Webhook destinations' log and states (docs/webhooks.md); replays go on the destinations' queues.
      deliveries: {
        destinations: config.destinations,
        log: new DynamoDeliveryLog(doc, {
          tableName: requireEnv('TABLE_NAME'),
          retentionDays: config.retention.transactionDays,
        }),
        states: new DynamoDestinationStateStore(doc, { tableName: requireEnv('TABLE_NAME') }),
        resolveSecret: secretRefResolver({ runtime: 'aws', readSecret: sharedSecretReader() }),
        ...deliveryReplay(doc, config.retention.transactionDays),
      },
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
      // The pull and balance cycles hand the provider's own records to the one statement ledger.
      ...(services.statements
        ? { statementSink: new StatementLedger({ ...services, statements: services.statements }) }
        : {}),
    },
  };
}

/**
 * Replays in AWS: the destination queues' ARNs come from DELIVERY_QUEUE_ARNS (the construct sets it on the
 * management function with the destinations, and grants sqs:SendMessage on those queues only). Without it
 * (no destinations) a replay answers 503 and its dry run still counts.
 */
function deliveryReplay(
  doc: ReturnType<typeof createDynamoClients>['doc'],
  retentionDays: number,
): Pick<DeliveryAdmin, 'replay'> {
  const json = process.env.DELIVERY_QUEUE_ARNS;
  if (!json) return {};
  const queueArns = JSON.parse(json) as Record<string, string>;
  const deps = {
    log: new DynamoDeliveryLog(doc, { tableName: requireEnv('TABLE_NAME'), retentionDays }),
    queue: sqsDeliveryQueue(createSqsBufferClient()),
    queueArns,
    clock: systemClock,
  };
  return { replay: (destination, selector, options) => replayToQueue(deps, destination, selector, options) };
}
