import { DynamoDeliveryLog } from '../adapters/dynamodb/delivery-log';
import { DynamoDestinationStateStore } from '../adapters/dynamodb/destination-state-store';
import { type DeliveryAdmin, secretRefResolver } from '../app/delivery/destinations-admin';
import { replayToQueue } from '../app/delivery/queue-delivery';
import { createSqsBufferClient } from '../adapters/sqs/sqs-ingress-buffer';
import { sqsDeliveryQueue } from '../adapters/sqs/sqs-delivery-queue';
import { StatementLedger } from '../app/statements/statement-sink';
import type { Logger } from '@aws-lambda-powertools/logger';
import { wordPressBadgeApi } from '../adapters/badges/wordpress-badge-api';
import { DynamoStatementStore } from '../adapters/dynamodb/statement-store';
import { sharedSecretReader } from '../adapters/secrets/secrets-manager';
import { systemClock } from '../app/ports';
import type { ReconcileServices } from '../app/reconciliation/reconcile';
import { statusApiRegistry } from '../app/reconciliation/status-apis';
import { requireEnv } from './env';
import { type DynamoDoc, type LambdaRelayServices, lambdaCoreServices } from './lambda-core';

/**
 * Composition root of the Lambda functions but the callback (functions/callback takes lambdaCoreServices
 * alone): the core services plus the provider's own records (statements) and the webhook destinations'
 * log, states and replays, whose adapters the callback never uses.
 */
export async function lambdaServices(
  serviceName: string,
): Promise<{ services: LambdaRelayServices; logger: Logger }> {
  const { services, logger, doc } = await lambdaCoreServices(serviceName);
  const { config } = services;
  return {
    logger,
    services: {
      ...services,
      statements: new DynamoStatementStore(doc, {
        tableName: requireEnv('TABLE_NAME'),
        retentionDays: config.retention.transactionDays,
      }),
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
function deliveryReplay(doc: DynamoDoc, retentionDays: number): Pick<DeliveryAdmin, 'replay'> {
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
