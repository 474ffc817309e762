import type { Logger } from '@aws-lambda-powertools/logger';
import { DynamoDeliveryLog } from '../adapters/dynamodb/delivery-log';
import { DynamoDestinationStateStore } from '../adapters/dynamodb/destination-state-store';
import { sharedSecretReader } from '../adapters/secrets/secrets-manager';
import { sqsDeliveryQueue } from '../adapters/sqs/sqs-delivery-queue';
import { createSqsBufferClient } from '../adapters/sqs/sqs-ingress-buffer';
import { type DeliveryAdmin, secretRefResolver } from '../app/delivery/destinations-admin';
import { replayToQueue } from '../app/delivery/queue-delivery';
import { systemClock } from '../app/ports';
import type { ReconcileServices } from '../app/reconciliation/reconcile';
import { requireEnv } from './env';
import { lambdaReconcileServices } from './lambda';
import type { DynamoDoc } from './lambda-core';

/**
 * The management function's wiring: the poller's services (its "check now" calls the status APIs) plus
 * the webhook destinations' log, states and replays (docs/webhooks.md), which only the management API
 * reads. Kept apart from lambda.ts so the other functions' bundles leave these adapters and the SQS
 * client out.
 */
export async function lambdaManagementServices(
  serviceName: string,
): Promise<{ services: ReconcileServices; logger: Logger }> {
  const { services, logger, doc } = await lambdaReconcileServices(serviceName);
  const { config } = services;
  return {
    logger,
    services: {
      ...services,
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
