import { Annotations, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { RelayConfig } from '../../shared/config/schema';
import { monitoringNamePrefix, RelayMonitoring } from '../monitoring';
import { namedRelayFunctions, type RelayFunctions } from './functions';
import type { MobileMoneyRelayProps } from './props';

/** The topic every alarm notifies: `alarmTopic`, else one created; `alarmEmail` subscribed to it. */
export function alarmTopicFor(
  scope: Construct,
  props: Pick<MobileMoneyRelayProps, 'alarmTopic' | 'alarmEmail'>,
): sns.ITopic {
  const topic = props.alarmTopic ?? createAlarmTopic(scope);
  if (props.alarmEmail) topic.addSubscription(new EmailSubscription(props.alarmEmail));
  if (!props.alarmTopic && !props.alarmEmail) {
    Annotations.of(scope).addWarningV2(
      'mobile-money-relay:alarmTopic',
      'Nobody is subscribed to the alarm topic: alarms will reach no one. Set ALARM_EMAIL (alarmEmail) or pass an alarmTopic you subscribe to (docs/deploy.md).',
    );
  }
  return topic;
}

/** The dashboard and alarms (infra/monitoring.ts) over the relay's parts. */
export function monitorRelay(
  scope: Construct,
  parts: {
    config: RelayConfig;
    functions: RelayFunctions;
    api: apigwv2.HttpApi;
    table: dynamodb.Table;
    outboxDlq: sqs.IQueue;
    pollScheduleDlq: sqs.IQueue;
    transactionInitiatedDlq: sqs.IQueue;
    ingressBuffer: sqs.IQueue;
    ingressBufferDlq: sqs.IQueue;
    alarmTopic: sns.ITopic;
    metricsNamespace: string;
  },
  props: MobileMoneyRelayProps,
): RelayMonitoring {
  const silenceDefault = props.callbackSilencePeriod ?? Duration.hours(6);
  return new RelayMonitoring(
    scope,
    'Monitoring',
    {
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
      accounts: [...parts.config.accounts.values()].map((a) => ({ provider: a.provider, account: a.id })),
    },
    {
      metricsNamespace: parts.metricsNamespace,
      alarmTopic: parts.alarmTopic,
      namePrefix: monitoringNamePrefix(scope),
      dashboard: props.dashboard ?? true,
      iteratorAgeThreshold: props.iteratorAgeAlarmThreshold ?? Duration.minutes(2),
      callbackLatencyThreshold: props.callbackLatencyAlarmThreshold ?? Duration.seconds(6),
      callbackSilence: (provider, account) =>
        props.callbackSilencePeriods?.[`${provider}/${account}`] ?? silenceDefault,
      rejectedCallbacksThreshold: props.rejectedCallbacksAlarmThreshold ?? 20,
      bufferMaxAge: props.ingressBufferMaxAge ?? Duration.minutes(15),
    },
  );
}

function createAlarmTopic(scope: Construct): sns.Topic {
  const stack = Stack.of(scope);
  // CloudWatch can only publish to an encrypted topic whose key it may use: AWS-managed
  // alias/aws/sns does not allow that, so the topic gets its own key.
  const key = new kms.Key(scope, 'AlarmTopicKey', {
    enableKeyRotation: true,
    description: 'Encrypts the relay alarm topic',
    removalPolicy: RemovalPolicy.DESTROY,
  });
  key.addToResourcePolicy(
    new iam.PolicyStatement({
      principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
      actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
      resources: ['*'],
      conditions: { StringEquals: { 'aws:SourceAccount': stack.account } },
    }),
  );
  const topic = new sns.Topic(scope, 'AlarmTopic', {
    displayName: 'Mobile-money relay alarms',
    masterKey: key,
    enforceSSL: true,
  });
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
