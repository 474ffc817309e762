import { Duration, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as events from 'aws-cdk-lib/aws-events';
import { addToDeadLetterQueueResourcePolicy } from 'aws-cdk-lib/aws-events-targets';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { ConfigError } from '../../shared/domain/errors';
import type { RelayConfig } from '../../shared/config/relay-config';
import type { MobileMoneyRelayProps, RelaySubscriberOptions } from './props';

/** Actions a subscriber account may use on the relay bus for rules it created (EventBridge's documented policy). */
export const SUBSCRIBER_RULE_ACTIONS = [
  'events:PutRule',
  'events:DeleteRule',
  'events:DescribeRule',
  'events:DisableRule',
  'events:EnableRule',
  'events:PutTargets',
  'events:RemoveTargets',
  'events:ListTargetsByRule',
] as const;

/**
 * An EventBridge rule's event pattern: at most 2,048 characters by EventBridge's default quota (adjustable
 * to 4,096; docs.aws.amazon.com/eventbridge/latest/userguide/eb-quota.html). The relay's patterns grow
 * only with a destination's or subscriber's lists, its accounts above all: an account costs its name and
 * three characters, so about 180 accounts of 8 characters fit one pattern.
 */
const EVENT_PATTERN_CHARS = 2_048;

/** The characters of a pattern as EventBridge gets it (CDK writes `detailType` as `detail-type`). */
function eventPatternChars(pattern: events.EventPattern): number {
  const { detailType, ...rest } = new Stack().resolve(pattern) as Record<string, unknown>;
  return JSON.stringify(detailType === undefined ? rest : { ...rest, 'detail-type': detailType }).length;
}

/** Why a rule of this pattern would not deploy (past EVENT_PATTERN_CHARS), naming `key` and its lists. */
export function eventPatternProblem(key: string, pattern: events.EventPattern): string | undefined {
  const chars = eventPatternChars(pattern);
  if (chars <= EVENT_PATTERN_CHARS) return undefined;
  return `${key}: its EventBridge rule's event pattern would be ${chars} characters, more than the ${EVENT_PATTERN_CHARS} EventBridge takes (its default quota): name fewer accounts (split them over two, or filter by provider)`;
}

/**
 * Accounts `subscriberAccounts` may name. The bus has one resource policy, at most 10,240 characters
 * (EventBridge's default quota, adjustable; eb-quota.html): the relay's own statement takes about 800 of
 * them, the subscribers' statement about 700 and 39 an account (its root ARN in the longest partition),
 * so 224 fit; 200 leaves room for a statement of your own.
 */
export const MAX_SUBSCRIBER_ACCOUNTS = 200;

export interface RelayEvents {
  readonly eventBus: events.IEventBus;
  readonly eventArchive: events.Archive | undefined;
}

/** The bus the relay publishes to, its replay archive, and the subscriber accounts' bus policy. */
export function createRelayEvents(
  scope: Construct,
  config: RelayConfig,
  props: Pick<
    MobileMoneyRelayProps,
    'eventBus' | 'eventArchive' | 'eventArchiveRetention' | 'subscriberAccounts'
  >,
): RelayEvents {
  const eventSource = config.events.source;
  const eventBus =
    props.eventBus ??
    new events.EventBus(scope, 'Bus', {
      eventBusName: config.events.busName === 'default' ? undefined : config.events.busName,
      description: 'Normalized mobile-money transaction events (mobile-money callback relay)',
    });
  const eventArchive =
    (props.eventArchive ?? true)
      ? new events.Archive(scope, 'EventArchive', {
          sourceEventBus: eventBus,
          eventPattern: { source: [eventSource] },
          retention: props.eventArchiveRetention ?? Duration.days(30),
          description: `Replay archive of ${eventSource} events`,
        })
      : undefined;
  if (props.subscriberAccounts?.length) {
    const stack = Stack.of(scope);
    // EventBridge's documented policy for rules other accounts create on this bus: each account
    // manages only the rules it created (events:creatorAccount), and only rules on the relay's events.
    new events.CfnEventBusPolicy(scope, 'SubscriberPolicy', {
      eventBusName: eventBus.eventBusName,
      statementId: 'RelaySubscriberAccountsManageTheirRules',
      statement: {
        Sid: 'RelaySubscriberAccountsManageTheirRules',
        Effect: 'Allow',
        Principal: {
          AWS: props.subscriberAccounts.map((account) =>
            stack.formatArn({ service: 'iam', region: '', account, resource: 'root' }),
          ),
        },
        Action: [...SUBSCRIBER_RULE_ACTIONS],
        Resource: stack.formatArn({
          service: 'events',
          resource: 'rule',
          resourceName: `${eventBus.eventBusName}/*`,
        }),
        Condition: {
          StringEqualsIfExists: {
            'events:creatorAccount': '${aws:PrincipalAccount}',
            'events:source': eventSource,
          },
        },
      },
    });
  }
  return { eventBus, eventArchive };
}

/**
 * Only the outbox publisher may put events with the relay's `source` on a bus the construct created:
 * subscribers trust `source` (every rule matches on it), so a principal of the account allowed
 * events:PutEvents on the bus could otherwise forge a TransactionSucceeded. A Deny in the bus's
 * resource policy wins over any identity policy. `events:source` holds every entry's source, so
 * `ForAnyValue` refuses a batch with one forged entry.
 */
export function restrictRelaySource(
  scope: Construct,
  eventBus: events.IEventBus,
  eventSource: string,
  publisher: iam.IRole,
): void {
  if (!(eventBus instanceof events.EventBus)) return;
  new events.CfnEventBusPolicy(scope, 'RelaySourcePolicy', {
    eventBusName: eventBus.eventBusName,
    statementId: 'OnlyTheOutboxPublisherPutsRelayEvents',
    statement: {
      Sid: 'OnlyTheOutboxPublisherPutsRelayEvents',
      Effect: 'Deny',
      Principal: '*',
      Action: 'events:PutEvents',
      Resource: eventBus.eventBusArn,
      Condition: {
        'ForAnyValue:StringEquals': { 'events:source': [eventSource] },
        ArnNotEquals: { 'aws:PrincipalArn': publisher.roleArn },
      },
    },
  });
}

/** A subscriber rule's retries: EventBridge's maximum (185 attempts, 24 hours), then its DLQ. */
const SUBSCRIBER_RETRY_POLICY = { maximumRetryAttempts: 185, maximumEventAgeInSeconds: 86_400 };

/**
 * The rule `MobileMoneyRelay.addSubscriber` creates, under the relay's `Subscribers`: its target gets
 * EventBridge's longest retries and a DLQ of its own (unless the target brought its own), and one
 * message in that DLQ pages (`alarmTopic`): the subscriber missed a relay event.
 */
export function createSubscriberRule(
  relay: Construct,
  id: string,
  eventBus: events.IEventBus,
  eventSource: string,
  options: RelaySubscriberOptions,
  alarmTopic?: sns.ITopic,
): { rule: events.Rule; dlq: sqs.Queue; alarm: cloudwatch.Alarm } {
  if (!options.detailTypes.length) {
    throw new ConfigError(`addSubscriber(${id}): detailTypes: name at least one event type`);
  }
  const data: Record<string, string[]> = {};
  if (options.providers?.length) data.provider = options.providers;
  if (options.accounts?.length) data.account = options.accounts;
  const eventPattern: events.EventPattern = {
    source: [eventSource],
    detailType: options.detailTypes,
    ...(Object.keys(data).length ? { detail: { data } } : {}),
  };
  const tooLong = eventPatternProblem(`addSubscriber(${id})`, eventPattern);
  if (tooLong) throw new ConfigError(tooLong);
  const subscribers = relay.node.tryFindChild('Subscribers') ?? new Construct(relay, 'Subscribers');
  const dlq = new sqs.Queue(subscribers, `${id}Dlq`, {
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
  });
  NagSuppressions.addResourceSuppressions(dlq, [
    {
      id: 'AwsSolutions-SQS3',
      reason: `The dead-letter queue of the ${id} subscriber rule (relay events its target could not take after 24 hours of retries). A DLQ of a DLQ would only hide failures; its alarm pages on one message.`,
    },
  ]);
  const target = options.target;
  const rule = new events.Rule(subscribers, id, {
    eventBus,
    description: options.description ?? `Relay events (${options.detailTypes.join(', ')}) for ${id}`,
    eventPattern,
    targets: [
      {
        bind: (rule, targetId) => {
          const config = target.bind(rule, targetId);
          if (!config.deadLetterConfig) addToDeadLetterQueueResourcePolicy(rule, dlq);
          return {
            ...config,
            deadLetterConfig: config.deadLetterConfig ?? { arn: dlq.queueArn },
            retryPolicy: config.retryPolicy ?? SUBSCRIBER_RETRY_POLICY,
          };
        },
      },
    ],
  });
  const alarm = new cloudwatch.Alarm(subscribers, `${id}DlqAlarm`, {
    alarmDescription: `The ${id} subscriber's dead-letter queue holds a relay event its target could not take after 24 hours of retries: the subscriber missed it. Fix the target, then replay from the queue or the event archive (docs/deploy.md, "Subscribing to events").`,
    metric: dlq.metricApproximateNumberOfMessagesVisible({
      period: Duration.minutes(1),
      statistic: 'Maximum',
    }),
    threshold: 1,
    evaluationPeriods: 1,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
  });
  if (alarmTopic) {
    alarm.addAlarmAction(new SnsAction(alarmTopic));
    alarm.addOkAction(new SnsAction(alarmTopic));
  }
  return { rule, dlq, alarm };
}
