import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { CALLBACKS_BUFFERED_METRIC, POLL_CYCLE_FAILURES_METRIC } from '../../shared/config/metric-names';
import { DEGRADED_NOTE, type MonitoringKit } from './kit';
import type { RelayMonitoringTargets } from './types';

/**
 * The table as the relay sees it failing, in one alarm: callbacks acked from the ingress buffer because
 * the table could not be written in time (system errors, timeouts and throttles alike) or poll cycles
 * that could not read the due index (the only sign while no callback arrives), minute after minute.
 * DynamoDB's own metrics are graphed only: its SystemErrors come per operation (9 billed alarm metrics for
 * this table) and a throttle that matters shows here first. It pages, and it is ServiceDegraded's
 * actions suppressor: during a storage outage the rest is its symptoms.
 */
export function monitorStorage(kit: MonitoringKit, targets: RelayMonitoringTargets): cloudwatch.Alarm {
  const { facade } = kit;
  facade.addLargeHeader('Storage and queues');
  facade.monitorDynamoTable({
    table: targets.table,
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
    humanReadableName: 'relay table',
    alarmFriendlyName: 'Table',
  });
  const buffered = kit.relayMetric(CALLBACKS_BUFFERED_METRIC, 'Sum');
  const pollFailures = kit.relayMetric(POLL_CYCLE_FAILURES_METRIC, 'Sum');
  // Not the logical id or name of the composite it replaces: CloudFormation cannot change a resource's type.
  const storageOutage = kit.alarm('StorageOutageAlarm', {
    name: 'StorageOutage-Critical',
    metric: new cloudwatch.MathExpression({
      expression: 'MAX([FILL(buffered, 0), FILL(pollFailures, 0)])',
      usingMetrics: { buffered, pollFailures },
      period: Duration.minutes(1),
      label: 'callbacks buffered or poll cycles failed (the larger)',
    }),
    threshold: 1,
    persist: [2, 3],
    route: 'page',
    description:
      'The relay table is failing: callbacks were acked from the ingress buffer because the table could not be written in time (DynamoDB system errors, timeouts or throttling), or poll cycles could not read the due index, in 2 of the last 3 minutes. Callbacks go to the ingress buffer and are acked; the poller and the management API fail meanwhile (ServiceDegraded stays quiet: they are this outage). Check the AWS Health Dashboard and the table graphs; nothing to replay afterwards (the buffer drains itself). One page for the outage.',
  });
  monitorQueues(kit, targets);
  return storageOutage;
}

/** The DLQs (one message pages, unless another alarm pages for the same failure) and the ingress buffer. */
function monitorQueues(kit: MonitoringKit, targets: RelayMonitoringTargets): void {
  const { facade, settings } = kit;
  for (const { name, queue, action, coveredBy } of targets.deadLetterQueues) {
    facade.monitorSqsQueue({
      queue,
      humanReadableName: `${name} DLQ`,
      alarmFriendlyName: `${name}Dlq`,
      ...(coveredBy
        ? {}
        : {
            addQueueMaxSizeAlarm: {
              Critical: {
                maxMessageCount: 0,
                // Idle queues stop publishing metrics: no data means no message.
                treatMissingDataOverride: cloudwatch.TreatMissingData.NOT_BREACHING,
                ...kit.routing('page'),
                alarmDescriptionOverride: `The ${name} dead-letter queue holds a message: ${action} A DLQ message is never transient, so one pages.`,
              },
            },
          }),
    });
  }
  facade.monitorSqsQueueWithDlq({
    queue: targets.ingressBuffer,
    deadLetterQueue: targets.ingressBufferDlq,
    humanReadableName: 'ingress buffer',
    alarmFriendlyName: 'IngressBuffer',
    addQueueMaxMessageAgeAlarm: {
      Critical: {
        maxAgeInSeconds: settings.bufferMaxAge.toSeconds(),
        treatMissingDataOverride: cloudwatch.TreatMissingData.NOT_BREACHING,
        ...kit.routing('degraded'),
        alarmDescriptionOverride: `A buffered callback has waited more than ${settings.bufferMaxAge.toHumanString()}: the buffer consumer is not draining the ingress buffer (DynamoDB still failing, consumer errors or throttles). The consumer backs off (up to 15 minutes between tries) and dead-letters after about 3.5 days.${DEGRADED_NOTE}`,
      },
    },
    addDeadLetterQueueMaxSizeAlarm: {
      Critical: {
        maxMessageCount: 0,
        treatMissingDataOverride: cloudwatch.TreatMissingData.NOT_BREACHING,
        ...kit.routing('page'),
        alarmDescriptionOverride:
          'A buffered callback could not be applied after about 3.5 days of tries (or could never be) and is in the ingress buffer DLQ: the provider already got its ack, so only this message holds it. Fix the cause, then redrive (docs/deploy.md: aws sqs start-message-move-task).',
      },
    },
  });
}
