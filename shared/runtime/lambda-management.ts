import type { Logger } from '@aws-lambda-powertools/logger';
import { DynamoDeliveryLog } from '../adapters/dynamodb/delivery-log';
import { DynamoDestinationStateStore } from '../adapters/dynamodb/destination-state-store';
import { sharedSecretReader } from '../adapters/secrets/secrets-manager';
import { destinationQueueArns, sqsDeliveryQueue } from '../adapters/sqs/sqs-delivery-queue';
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
 * Replays in AWS: the destination queues are found at the first replay from the delivery DLQ named by
 * DELIVERY_DLQ_ARN (its source queues, each tagged with its destination: destinationQueueArns), and kept
 * for the life of the execution environment (a new destination is a new config, so new environments).
 * The construct grants sqs:ListDeadLetterSourceQueues on that DLQ, and sqs:ListQueueTags and
 * sqs:SendMessage on the destination queues only. Without it (no destinations) a replay answers 503 and
 * its dry run still counts.
 */
function deliveryReplay(doc: DynamoDoc, retentionDays: number): Pick<DeliveryAdmin, 'replay'> {
  const dlqArn = process.env.DELIVERY_DLQ_ARN;
  if (!dlqArn) return {};
  const client = createSqsBufferClient();
  let found: Promise<Record<string, string>> | undefined;
  // A failed look-up is not kept: the next replay asks SQS again.
  const queueArns = () =>
    (found ??= destinationQueueArns(client, dlqArn).catch((error: unknown) => {
      found = undefined;
      throw error;
    }));
  const deps = {
    log: new DynamoDeliveryLog(doc, { tableName: requireEnv('TABLE_NAME'), retentionDays }),
    queue: sqsDeliveryQueue(client),
    clock: systemClock,
  };
  return {
    replay: async (destination, selector, options) =>
      replayToQueue({ ...deps, queueArns: await queueArns() }, destination, selector, options),
  };
}
