import { Duration, Stack } from 'aws-cdk-lib';
import type * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import {
  type CustomMetricGroup,
  DefaultDashboardFactory,
  MonitoringFacade,
  SnsAlarmActionStrategy,
} from 'cdk-monitoring-constructs';
import { Construct } from 'constructs';
import { providerAckLimits } from './relay/providers';

/**
 * Relay metrics (Powertools Metrics, namespace `metricsNamespace`) with an alarm. Each is published
 * without dimensions (the roll-up every alarm here watches) and with its dimensions.
 */
export const ALARMED_RELAY_METRICS = [
  'TransactionsExpired',
  'VerificationDisagreements',
  'StatusNotFoundConflicts',
  'AmbiguousEscalated',
  'CallbacksBuffered',
  'BufferedCallbacksFailed',
  'CallbacksRejected',
] as const;

/** Accounts whose callbacks are silent, written by the poller's callback-health look every cycle. */
export const SILENT_ACCOUNTS_METRIC = 'SilentAccounts';

/** Per-account metric the silence alarms watch (dimensions `provider`, `account`). */
export const CALLBACKS_RECEIVED_METRIC = 'CallbacksReceived';

/**
 * The longest limit a provider gives the relay to answer a callback (declared by the provider modules):
 * the callback p99 alarm is set against it.
 */
export const PROVIDER_ACK_LIMIT = Duration.millis(Math.max(...providerAckLimits().map((limit) => limit.ms)));

/** What the monitoring watches; every member comes from the relay construct. */
export interface RelayMonitoringTargets {
  readonly functions: ReadonlyArray<{ readonly name: string; readonly fn: lambda.IFunction }>;
  readonly callbackFunction: lambda.IFunction;
  readonly outboxPublisherFunction: lambda.IFunction;
  readonly api: apigwv2.IHttpApi;
  readonly table: dynamodb.ITable;
  /** Dead-letter queues: one message pages. */
  readonly deadLetterQueues: ReadonlyArray<{
    readonly name: string;
    readonly queue: sqs.IQueue;
    readonly action: string;
  }>;
  readonly ingressBuffer: sqs.IQueue;
  readonly ingressBufferDlq: sqs.IQueue;
  /** `provider/account` of every configured account (callback silence alarms). */
  readonly accounts: ReadonlyArray<{ readonly provider: string; readonly account: string }>;
}

export interface RelayMonitoringSettings {
  readonly metricsNamespace: string;
  readonly alarmTopic: sns.ITopic;
  /** Prefix of alarm and dashboard names (unique per account and region). */
  readonly namePrefix: string;
  readonly dashboard: boolean;
  readonly iteratorAgeThreshold: Duration;
  readonly callbackLatencyThreshold: Duration;
  /** Per `provider/account`: the silence period, or false (no alarm). */
  readonly callbackSilence: (provider: string, account: string) => Duration | false;
  readonly rejectedCallbacksThreshold: number;
  readonly bufferMaxAge: Duration;
}

const GTE = cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD;

/**
 * The relay's dashboard and alarms, built with cdk-monitoring-constructs. Every alarm notifies the alarm
 * topic on ALARM and on OK. The policy (docs/monitoring.md): page at once on what is never transient
 * (a DLQ message, a buffered callback, an expired transaction, a disagreement); page on errors,
 * throttles and 5xx only when they persist (2 of the last 3 minutes), never on one transient failure.
 */
export class RelayMonitoring extends Construct {
  readonly facade: MonitoringFacade;
  readonly dashboard: cloudwatch.Dashboard | undefined;

  constructor(
    scope: Construct,
    id: string,
    targets: RelayMonitoringTargets,
    settings: RelayMonitoringSettings,
  ) {
    super(scope, id);
    const topic = settings.alarmTopic;
    const dashboards = new DefaultDashboardFactory(this, 'Dashboards', {
      dashboardNamePrefix: settings.namePrefix,
      createDashboard: settings.dashboard,
      createSummaryDashboard: false,
      createAlarmDashboard: false,
    });
    this.facade = new MonitoringFacade(this, 'Facade', {
      alarmFactoryDefaults: {
        alarmNamePrefix: settings.namePrefix,
        actionsEnabled: true,
        action: new SnsAlarmActionStrategy({ onAlarmTopic: topic, onOkTopic: topic }),
        datapointsToAlarm: 1,
        evaluationPeriods: 1,
      },
      metricFactoryDefaults: { namespace: settings.metricsNamespace, period: Duration.minutes(1) },
      dashboardFactory: dashboards,
    });
    this.dashboard = dashboards.dashboard;
    const persistent = { datapointsToAlarm: 2, evaluationPeriods: 3 };
    const facade = this.facade;

    // ---- the public edge ----------------------------------------------------------------------------
    facade.addLargeHeader('Mobile-money relay: provider callbacks');
    facade.monitorApiGatewayV2HttpApi({
      api: targets.api,
      apiStage: '$default',
      humanReadableName: 'HTTP API',
      alarmFriendlyName: 'Api',
      add5xxCountAlarm: {
        Critical: {
          maxErrorCount: 0,
          ...persistent,
          alarmDescriptionOverride:
            'The HTTP API answered 5xx in 2 of the last 3 minutes. MoMo does not retry callbacks (the poller reconciles them); Daraja and Airtel retry. Look at the callback function logs and the table. One isolated 5xx does not page: the buffer and the poller cover it.',
        },
      },
    });
    const latency = settings.callbackLatencyThreshold;
    facade.monitorLambdaFunction({
      lambdaFunction: targets.callbackFunction,
      humanReadableName: 'callback function',
      alarmFriendlyName: 'CallbackLatency',
      addLatencyP99Alarm: {
        Critical: {
          maxLatency: latency,
          datapointsToAlarm: 3,
          evaluationPeriods: 5,
          alarmDescriptionOverride: `The callback function's p99 duration reached ${latency.toHumanString()} in 3 of the last 5 minutes: acks are close to ${ackLimitsPhrase()}. Look at DynamoDB latency and throttles, the C2B decision endpoint, cold starts.`,
        },
      },
    });
    facade.monitorCustom({
      alarmFriendlyName: 'AckLatency',
      humanReadableName: 'Ack latency (inside the handler)',
      metricGroups: [
        {
          title: 'AckLatency p50 / p99 (ms)',
          metrics: [
            this.relayMetric(settings, 'AckLatency', 'p50'),
            this.relayMetric(settings, 'AckLatency', 'p99'),
          ],
          horizontalAnnotations: providerAckLimits().map(({ ms, label }) => ({ value: ms, label })),
        },
      ],
    });

    facade.monitorCustom({
      alarmFriendlyName: 'RefusalsNotStored',
      humanReadableName: 'Refusals counted, not stored (quarantine flood limits)',
      metricGroups: [
        {
          // Not alarmed: the CallbacksRejected alarm pages on the spike itself (docs/routes.md).
          title: 'RefusalsNotStored (sum per minute)',
          metrics: [this.relayMetric(settings, 'RefusalsNotStored', 'Sum')],
        },
      ],
    });

    // ---- functions ----------------------------------------------------------------------------------
    facade.addLargeHeader('Functions');
    for (const { name, fn } of targets.functions) {
      const isPublisher = fn === targets.outboxPublisherFunction;
      facade.monitorLambdaFunction({
        lambdaFunction: fn,
        humanReadableName: `${name} function`,
        alarmFriendlyName: name,
        addFaultCountAlarm: {
          Critical: {
            maxErrorCount: 0,
            ...persistent,
            alarmDescriptionOverride: `The ${name} function failed (unhandled error or timeout) in 2 of the last 3 minutes. ${FUNCTION_ERROR_HINTS[name] ?? 'See its logs and X-Ray traces.'}`,
          },
        },
        addThrottlesCountAlarm: {
          Critical: {
            maxErrorCount: 0,
            ...persistent,
            alarmDescriptionOverride: `Lambda throttled the ${name} function in 2 of the last 3 minutes: its reserved concurrency or the account's concurrency is exhausted.${name === 'Callback' ? ' A throttled callback is a 5xx to the provider (MoMo does not retry).' : ''}`,
          },
        },
        ...(isPublisher
          ? {
              addMaxIteratorAgeAlarm: {
                Critical: {
                  maxAgeInMillis: settings.iteratorAgeThreshold.toMilliseconds(),
                  datapointsToAlarm: 3,
                  evaluationPeriods: 3,
                  treatMissingDataOverride: cloudwatch.TreatMissingData.NOT_BREACHING,
                  alarmDescriptionOverride: `The outbox publisher lags the table stream by more than ${settings.iteratorAgeThreshold.toHumanString()} for 3 minutes: events reach subscribers late (EventBridge throttling, publisher errors). Records older than 12 h go to the outbox DLQ.`,
                },
              },
            }
          : {}),
      });
    }

    // ---- storage ------------------------------------------------------------------------------------
    facade.addLargeHeader('Storage and queues');
    facade.monitorDynamoTable({
      table: targets.table,
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      humanReadableName: 'relay table',
      alarmFriendlyName: 'Table',
      addReadThrottledEventsCountAlarm: {
        Critical: {
          maxThrottledEventsThreshold: 0,
          ...persistent,
          alarmDescriptionOverride:
            'DynamoDB throttled reads of the relay table in 2 of the last 3 minutes (on-demand: a hot partition or the table/account limit). The SDK retries; sustained throttling delays acks and the poller.',
        },
      },
      addWriteThrottledEventsCountAlarm: {
        Critical: {
          maxThrottledEventsThreshold: 0,
          ...persistent,
          alarmDescriptionOverride:
            'DynamoDB throttled writes to the relay table in 2 of the last 3 minutes. Callbacks that cannot be stored in time go to the ingress buffer (CallbacksBuffered alarm).',
        },
      },
      addSystemErrorCountAlarm: {
        Critical: {
          maxErrorCount: 0,
          ...persistent,
          alarmDescriptionOverride:
            'DynamoDB returned system errors (HTTP 500) in 2 of the last 3 minutes: an AWS-side problem. Check the AWS Health Dashboard; callbacks go to the ingress buffer meanwhile.',
        },
      },
    });
    for (const { name, queue, action } of targets.deadLetterQueues) {
      facade.monitorSqsQueue({
        queue,
        humanReadableName: `${name} DLQ`,
        alarmFriendlyName: `${name}Dlq`,
        addQueueMaxSizeAlarm: {
          Critical: {
            maxMessageCount: 0,
            // Idle queues stop publishing metrics: no data means no message.
            treatMissingDataOverride: cloudwatch.TreatMissingData.NOT_BREACHING,
            alarmDescriptionOverride: `The ${name} dead-letter queue holds a message: ${action} A DLQ message is never transient, so one pages.`,
          },
        },
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
          alarmDescriptionOverride: `A buffered callback has waited more than ${settings.bufferMaxAge.toHumanString()}: the buffer consumer is not draining the ingress buffer (DynamoDB still failing, consumer errors or throttles).`,
        },
      },
      addDeadLetterQueueMaxSizeAlarm: {
        Critical: {
          maxMessageCount: 0,
          treatMissingDataOverride: cloudwatch.TreatMissingData.NOT_BREACHING,
          alarmDescriptionOverride:
            'A buffered callback could not be applied after 5 receives and is in the ingress buffer DLQ: the provider already got its ack, so only this message holds it. Fix the cause, then redrive (docs/deploy.md: aws sqs start-message-move-task).',
        },
      },
    });

    // ---- relay metrics ------------------------------------------------------------------------------
    facade.addLargeHeader('Relay metrics');
    const now = (
      metricName: (typeof ALARMED_RELAY_METRICS)[number],
      description: string,
    ): CustomMetricGroup['metrics'][number] => ({
      metric: this.relayMetric(settings, metricName, 'Sum'),
      alarmFriendlyName: metricName,
      addAlarm: {
        Critical: {
          threshold: 1,
          comparisonOperator: GTE,
          treatMissingDataOverride: cloudwatch.TreatMissingData.NOT_BREACHING,
          alarmDescriptionOverride: description,
        },
      },
    });
    const rejectedPeriod = Duration.minutes(5);
    const silentPeriod = Duration.minutes(5);
    facade.monitorCustom({
      alarmFriendlyName: 'Relay',
      humanReadableName: 'Relay metrics',
      metricGroups: [
        {
          title: 'Ingress',
          metrics: [
            this.relayMetric(settings, CALLBACKS_RECEIVED_METRIC, 'Sum'),
            now(
              'CallbacksBuffered',
              'A callback was acked from the ingress buffer because DynamoDB could not be written in time: DynamoDB is failing or slow. The buffer consumer applies it later; watch the buffer age and its DLQ.',
            ),
            now(
              'BufferedCallbacksFailed',
              'The buffer consumer could not apply a buffered callback (it will be retried, then dead-lettered after 5 receives). See the buffer-consumer logs.',
            ),
            {
              metric: this.relayMetric(settings, 'CallbacksRejected', 'Sum', rejectedPeriod),
              alarmFriendlyName: 'CallbacksRejected',
              addAlarm: {
                Critical: {
                  threshold: settings.rejectedCallbacksThreshold,
                  comparisonOperator: GTE,
                  period: rejectedPeriod,
                  treatMissingDataOverride: cloudwatch.TreatMissingData.NOT_BREACHING,
                  alarmDescriptionOverride: `${settings.rejectedCallbacksThreshold} or more callbacks were rejected (authentication or format) in 5 minutes: a misconfigured provider account (path secret, Airtel key, Daraja IPs) or someone probing. See the CallbackRejected events and the quarantine. A few rejections are normal noise.`,
                },
              },
            },
          ],
        },
        {
          title: 'Badge feed (docs/badges.md)',
          metrics: [
            this.relayMetric(settings, 'BadgeReads', 'Sum'),
            this.relayMetric(settings, 'BadgeEvents', 'Sum'),
            this.relayMetric(settings, 'BadgeListInconsistent', 'Sum'),
            {
              metric: this.relayMetric(settings, 'BadgeReadFailures', 'Sum'),
              alarmFriendlyName: 'BadgeReadFailures',
              addAlarm: {
                Critical: {
                  threshold: 1,
                  comparisonOperator: GTE,
                  datapointsToAlarm: 3,
                  evaluationPeriods: 5,
                  treatMissingDataOverride: cloudwatch.TreatMissingData.NOT_BREACHING,
                  alarmDescriptionOverride:
                    "A shop's badge API failed to read (error, timeout, garbage, credentials) in 3 of the last 5 minutes: no badge change is seen meanwhile (nothing is changed either). See the poller logs and the shop's read-failure record (docs/badges.md).",
                },
              },
            },
          ],
        },
        {
          title: 'Reconciliation',
          metrics: [
            now(
              'TransactionsExpired',
              'A transaction reached the end of its reconciliation window without a final answer (TransactionExpired): a person must look (the history, the provider; resolve by hand).',
            ),
            now(
              'VerificationDisagreements',
              'A status check contradicted a success callback (UNVERIFIED_SUCCESS conflict): possibly a forged callback. Check the transaction history and the quarantine.',
            ),
            now(
              'StatusNotFoundConflicts',
              'The status API does not know a reference a callback reported on (NOT_FOUND conflict; the transaction is AMBIGUOUS and escalated, never failed): usually the request was made with another API user than the account is configured with (docs/clients/mtn-momo.md). Compare the API user that made the request with accounts.<provider>.<account>.api.',
            ),
            now(
              'AmbiguousEscalated',
              'A transaction stayed ambiguous past escalateAmbiguousAfterSeconds (TransactionEscalated): ask the provider.',
            ),
            {
              // Written by the poller every cycle (0 or more): ALARM while an account is silent, OK once
              // its callbacks are back (docs/reconciliation.md#callback-health).
              metric: this.relayMetric(settings, SILENT_ACCOUNTS_METRIC, 'Maximum', silentPeriod),
              alarmFriendlyName: SILENT_ACCOUNTS_METRIC,
              addAlarm: {
                Critical: {
                  threshold: 1,
                  comparisonOperator: GTE,
                  period: silentPeriod,
                  treatMissingDataOverride: cloudwatch.TreatMissingData.NOT_BREACHING,
                  alarmDescriptionOverride:
                    "An account's callbacks stopped while transactions wait for one (CallbackSilence event): the relay polls its waiting transactions every silencePollSeconds meanwhile, and returns to OK after CallbacksResumed. Check the account's callback URLs (npm run check-urls), path secret, the provider's status page.",
                },
              },
            },
            this.relayMetric(settings, 'CallbackSilenceStarted', 'Sum'),
            this.relayMetric(settings, 'CallbacksResumed', 'Sum'),
          ],
        },
      ],
    });

    const silent = targets.accounts
      .map(({ provider, account }) => ({
        provider,
        account,
        period: settings.callbackSilence(provider, account),
      }))
      .filter((a): a is { provider: string; account: string; period: Duration } => a.period !== false);
    if (silent.length) {
      facade.monitorCustom({
        alarmFriendlyName: 'CallbackSilence',
        humanReadableName: 'Callbacks received per account',
        metricGroups: [
          {
            title: 'CallbacksReceived per account',
            metrics: silent.map(({ provider, account, period }) => ({
              metric: new cloudwatch.Metric({
                namespace: settings.metricsNamespace,
                metricName: CALLBACKS_RECEIVED_METRIC,
                dimensionsMap: { provider, account },
                statistic: 'Sum',
                period,
                label: `${provider}/${account}`,
              }),
              alarmFriendlyName: `Silence-${provider}-${account}`,
              addAlarm: {
                Critical: {
                  threshold: 1,
                  comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
                  period,
                  treatMissingDataOverride: cloudwatch.TreatMissingData.BREACHING,
                  alarmDescriptionOverride: `No callback from ${provider}/${account} for ${period.toHumanString()}: the provider may have stopped calling back (callback URL, path secret, Daraja URL registration) or the account has no traffic. Tune or turn off with callbackSilencePeriod / callbackSilencePeriods.`,
                },
              },
            })),
          },
        ],
      });
    }
  }

  /** Every alarm created (the library's). */
  get alarms(): cloudwatch.AlarmBase[] {
    return this.facade.createdAlarms().map((a) => a.alarm);
  }

  private relayMetric(
    settings: RelayMonitoringSettings,
    metricName: string,
    statistic: string,
    period = Duration.minutes(1),
  ): cloudwatch.Metric {
    return new cloudwatch.Metric({
      namespace: settings.metricsNamespace,
      metricName,
      statistic,
      period,
      label: `${metricName} (${statistic})`,
    });
  }
}

const FUNCTION_ERROR_HINTS: Record<string, string> = {
  Callback:
    'A provider may have had no ack; the ingress buffer and the poller cover most cases. Logs, X-Ray.',
  Management: 'Callers got 5xx. Logs.',
  OutboxPublisher: 'Stream batches are retried (bisected), then their pointers go to the outbox DLQ.',
  Poller: 'Transactions are not being reconciled. Logs: the due index, a status API client.',
  TransactionInitiated: 'Lambda retries twice, then the event goes to the TransactionInitiated DLQ.',
  BufferConsumer: 'Buffered callbacks are retried by SQS, then dead-lettered after 5 receives.',
};

/** Alarm and dashboard name prefix: the stack name and the construct path, safe characters only. */
export function monitoringNamePrefix(scope: Construct): string {
  const stack = Stack.of(scope);
  const path = scope.node.path.slice(stack.node.path.length).replace(/^\//, '');
  return `${stack.stackName}-${path}`.replace(/[^A-Za-z0-9_-]/g, '-').slice(0, 200);
}

/** The providers' ack limits for the latency alarm: the longest one first, then the others. */
function ackLimitsPhrase(): string {
  const [longest, ...others] = providerAckLimits().sort((a, b) => b.ms - a.ms);
  return `${longest!.phrase}${others.length ? ` and far past ${others.map((limit) => limit.phrase).join(', ')}` : ''}`;
}
