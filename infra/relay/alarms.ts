import { Annotations, Duration, Stack } from 'aws-cdk-lib';
import type * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import type * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as sns from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { NagSuppressions } from 'cdk-nag';
import type { RelayConfig } from '../../shared/config/relay-config';
import {
  monitoringNamePrefix,
  RelayMonitoring,
  type RelayMonitoringSettings,
  type RelayMonitoringTargets,
} from '../monitoring';
import { namedRelayFunctions, type RelayFunctions } from './functions';
import type { MobileMoneyRelayProps } from './props';
import { PROVIDER_INFRA_DECLARATIONS } from './providers';

/**
 * The two alarm topics (docs/monitoring.md): **page** (`pageTopic`, else `alarmTopic`, else one
 * created; `alarmEmail` subscribed) and **ticket** (`ticketTopic`, else one created; `ticketEmail`
 * subscribed). The page topic keeps the logical id of the old single topic (`AlarmTopic`).
 */
export function alarmTopicsFor(
  scope: Construct,
  props: Pick<
    MobileMoneyRelayProps,
    'alarmTopic' | 'alarmEmail' | 'pageTopic' | 'ticketTopic' | 'ticketEmail'
  >,
): { page: sns.ITopic; ticket: sns.ITopic } {
  const given = props.pageTopic ?? props.alarmTopic;
  const page =
    given ?? createAlarmTopic(scope, 'AlarmTopic', 'Mobile-money relay: page (needs a person now)');
  if (props.alarmEmail) page.addSubscription(new EmailSubscription(props.alarmEmail));
  if (!given && !props.alarmEmail) {
    Annotations.of(scope).addWarningV2(
      'mobile-money-relay:alarmTopic',
      'Nobody is subscribed to the page topic: urgent alarms will reach no one. Set ALARM_EMAIL (alarmEmail) or pass a pageTopic you subscribe to (docs/deploy.md).',
    );
  }
  const ticket =
    props.ticketTopic ??
    createAlarmTopic(scope, 'TicketTopic', 'Mobile-money relay: ticket (needs a person in working hours)');
  if (props.ticketEmail) ticket.addSubscription(new EmailSubscription(props.ticketEmail));
  if (!props.ticketTopic && !props.ticketEmail) {
    Annotations.of(scope).addWarningV2(
      'mobile-money-relay:ticketTopic',
      'Nobody is subscribed to the ticket topic: expiries, escalations, silences and single buffered callbacks will reach no one. Pass ticketEmail (TICKET_EMAIL with this repository’s app) or a ticketTopic wired to your ticket queue (docs/monitoring.md).',
    );
  }
  return { page, ticket };
}

/** What the relay's monitoring needs of its parts. */
type MonitoredParts = {
  config: RelayConfig;
  functions: RelayFunctions;
  api: apigwv2.HttpApi;
  table: dynamodb.Table;
  outboxDlq: sqs.IQueue;
  pollScheduleDlq: sqs.IQueue;
  transactionInitiatedDlq: sqs.IQueue;
  ingressBuffer: sqs.IQueue;
  ingressBufferDlq: sqs.IQueue;
  accessLogs: logs.ILogGroup;
  pageTopic: sns.ITopic;
  ticketTopic: sns.ITopic;
  metricsNamespace: string;
  /** The CloudFront edge (`cloudFront`): its outage pages once (EdgeOutage). */
  distribution?: cloudfront.IDistribution;
  /** The synthetic check through the edge (infra/relay/edge.ts). */
  edgeProbe?: lambda.IFunction;
};

/** The dashboard and alarms (infra/monitoring.ts) over the relay's parts. */
export function monitorRelay(
  scope: Construct,
  parts: MonitoredParts,
  props: MobileMoneyRelayProps,
): RelayMonitoring {
  return new RelayMonitoring(
    scope,
    'Monitoring',
    monitoringTargets(parts),
    monitoringSettings(scope, parts, props),
  );
}

/** The parts watched: functions, queues, the API, the table, the accounts and providers, the edge. */
function monitoringTargets(parts: MonitoredParts): RelayMonitoringTargets {
  const fns = parts.functions;
  const reservedFunctions = [
    { name: 'Callback', fn: fns.callback as lambda.IFunction, reserved: fns.callbackReservedConcurrency },
    ...fns.decisions.map((d) => ({
      name: d.id,
      fn: d.fn as lambda.IFunction,
      reserved: d.reservedConcurrency,
    })),
  ].filter((f): f is { name: string; fn: lambda.IFunction; reserved: number } => f.reserved !== undefined);
  return {
    functions: namedRelayFunctions(parts.functions).map(([name, fn]) => ({ name, fn })),
    callbackFunction: parts.functions.callback,
    outboxPublisherFunction: parts.functions.outboxPublisher,
    api: parts.api,
    table: parts.table,
    deadLetterQueues: [
      {
        name: 'Outbox',
        queue: parts.outboxDlq,
        action:
          'stream batches the publisher could not publish after all retries. The items keep their outbox; re-publish once the cause is fixed (docs/deploy.md).',
      },
      {
        name: 'PollSchedule',
        queue: parts.pollScheduleDlq,
        action:
          'EventBridge Scheduler could not invoke the poller: check the schedule role and the poller concurrency.',
        // A cycle that never started is one the heartbeat misses: it pages, not this queue.
        coveredBy: 'PollerHeartbeat',
      },
      {
        name: 'TransactionInitiated',
        queue: parts.transactionInitiatedDlq,
        action:
          'TransactionInitiated events could not be registered after all retries: the transactions are unknown to the relay. Replay them with put-events once the cause is fixed (docs/deploy.md).',
      },
    ],
    ingressBuffer: parts.ingressBuffer,
    ingressBufferDlq: parts.ingressBufferDlq,
    accessLogs: parts.accessLogs,
    reservedFunctions,
    pollerFunction: fns.poller,
    decisionFunctions: fns.decisions.map((d) => ({ name: d.id, fn: d.fn as lambda.IFunction })),
    providers: configuredProviders(parts.config),
    badges: Object.keys(parts.config.badges?.shops ?? {}).length > 0,
    ...(parts.distribution ? { edge: { distribution: parts.distribution, probe: parts.edgeProbe } } : {}),
    accounts: [...parts.config.accounts.values()].map((a) => ({ provider: a.provider, account: a.id })),
  };
}

/** Thresholds, topics and names, from the construct's props and the providers' declarations. */
function monitoringSettings(
  scope: Construct,
  parts: MonitoredParts,
  props: MobileMoneyRelayProps,
): RelayMonitoringSettings {
  const silenceDefault = props.callbackSilencePeriod ?? Duration.hours(6);
  return {
    metricsNamespace: parts.metricsNamespace,
    pageTopic: parts.pageTopic,
    ticketTopic: parts.ticketTopic,
    namePrefix: monitoringNamePrefix(scope),
    dashboard: props.dashboard ?? true,
    iteratorAgeThreshold: props.iteratorAgeAlarmThreshold ?? Duration.minutes(2),
    callbackLatencyThreshold: props.callbackLatencyAlarmThreshold ?? Duration.seconds(6),
    callbackSilence: (provider, account) =>
      props.callbackSilencePeriods?.[`${provider}/${account}`] ?? silenceDefault,
    rejectedCallbacksThreshold: props.rejectedCallbacksAlarmThreshold ?? 20,
    bufferMaxAge: props.ingressBufferMaxAge ?? Duration.minutes(15),
    ackLatencyAlarms: PROVIDER_INFRA_DECLARATIONS.flatMap((p) =>
      p.ackLatencyAlarmMs
        ? [
            {
              provider: p.id,
              ms: p.ackLatencyAlarmMs,
              ...(p.ackLimit ? { limit: p.ackLimit.phrase } : {}),
              retries: p.retriesCallbacks,
            },
          ]
        : [],
    ),
    concurrencyAlarmRatio: props.concurrencyAlarmRatio ?? 0.8,
    pollerHeartbeatPeriod:
      props.pollingEnabled === false ? false : (props.pollerHeartbeatPeriod ?? Duration.minutes(10)),
    throttledRatePercent: props.throttledRatePercent ?? 1,
    serverErrorRatePercent: props.serverErrorRatePercent ?? 5,
  };
}

/** Providers with at least one configured account. */
export function configuredProviders(config: RelayConfig): string[] {
  return [...new Set([...config.accounts.values()].map((a) => a.provider))];
}

export function createAlarmTopic(scope: Construct, id: string, displayName: string): sns.Topic {
  const stack = Stack.of(scope);
  // No customer key: CloudWatch can publish only to a topic whose key policy lets it use the key, and
  // AWS-managed alias/aws/sns does not, so encryption at rest here means a key of our own at $1 a
  // month. It would protect nothing: an alarm notification holds the alarm's name, description, state
  // and metric values, never a payment, an MSISDN or a secret (the descriptions are written in this
  // file and infra/monitoring.ts), and it leaves AWS by e-mail anyway. In transit it is TLS only
  // (enforceSSL); who may publish is the policy below. cdk-nag's SNS2 is suppressed with that reason.
  const topic = new sns.Topic(scope, id, { displayName, enforceSSL: true });
  NagSuppressions.addResourceSuppressions(topic, [
    {
      id: 'AwsSolutions-SNS2',
      reason:
        'Alarm notifications only: alarm names, descriptions, states and metric values, no payment data, MSISDN or secret. CloudWatch cannot publish to a topic under the AWS-managed SNS key, and a customer key ($1 a month) would protect nothing a recipient mailbox does not hold in clear. Publishing is limited to CloudWatch alarms of this account and TLS is enforced.',
    },
  ]);
  topic.addToResourcePolicy(
    new iam.PolicyStatement({
      principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
      actions: ['sns:Publish'],
      resources: [topic.topicArn],
      conditions: {
        StringEquals: { 'aws:SourceAccount': stack.account },
        ArnLike: {
          'aws:SourceArn': `arn:${stack.partition}:cloudwatch:${stack.region}:${stack.account}:alarm:*`,
        },
      },
    }),
  );
  return topic;
}
