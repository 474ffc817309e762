import { ArnFormat, Duration, Names, Stack, Tags } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as eventTargets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';
import { OPERATOR_EVENT_TYPES } from '../../shared/domain/event-envelope';
import { DESTINATION_QUEUE_TAG } from '../../shared/config/delivery-queues';
import { deliveryConcurrency } from '../../shared/config/limits';
import {
  DELIVERIES_DEAD_LETTERED_METRIC,
  DESTINATIONS_DISABLED_METRIC,
} from '../../shared/config/metric-names';
import type { DestinationConfig, RelayConfig } from '../../shared/config/schema';
import { assumedRoles, destinationProblems as typeProblems } from '../../shared/destinations/registry';
import { monitoringNamePrefix, PAGE_TAG, TICKET_TAG } from '../monitoring';
import { eventPatternProblem } from './events';
import { SECRET_ARN_PREFIX_CHARS } from './secrets';
import { TABLE_DATA_ACTIONS, TABLE_KEY_ACTIONS } from './storage';

/** The delivery function's timeout: a batch of 10 attempts of at most 15 s each, and the margins. */
export const DELIVERY_FUNCTION_TIMEOUT = Duration.minutes(3);
/** Records per delivery invocation. */
const DELIVERY_BATCH_SIZE = 10;
/**
 * Receives of one message before the delivery DLQ: a wait of up to 24 h takes three (a 15-minute send
 * delay, then 12-hour hides), which leaves seven for crashes and time-outs of the function itself.
 */
const DELIVERY_MAX_RECEIVE_COUNT = 10;

export interface RelayDelivery {
  /** Per destination: its rule on the relay bus and its queue. */
  readonly destinations: Record<string, { rule: events.Rule; queue: sqs.Queue }>;
  /** Messages the delivery function could not process after DELIVERY_MAX_RECEIVE_COUNT receives, and events the rules could not put on a queue. */
  readonly dlq: sqs.Queue;
  readonly alarms: cloudwatch.Alarm[];
}

/**
 * Characters of ARNs in one managed policy of the delivery function's grants that grow with the
 * destinations (the partner roles it assumes, the signing secrets it reads): a managed policy holds 6,144
 * (whitespace not counted), the rest is the statement around them. Kept out of the role's inline policy
 * (10,240 for all of them), which the queues, table and keys already use.
 */
const ARN_CHARS_PER_POLICY = 5_000;
/** Managed policies the delivery role may have (IAM's default quota is 10; two are left for the account's own). */
const MAX_DELIVERY_POLICIES = 8;

/**
 * Destinations one relay takes, measured on the largest relay (test/infra/scale.test.ts: 1,000 accounts,
 * every option, 64-character names, checked against AWS's limits): 48 fit (500 resources; 49 did until the
 * statements function's failures queue, its policy, its invoke config and its alarm). At 49 the stack
 * passes CloudFormation's 500 resources: each destination adds four (its queue, queue policy, rule and
 * event source mapping), and every QUEUES_PER_POLICY of them a managed policy of the replay grant.
 */
export const MAX_DESTINATIONS = 48;
/**
 * Destination queues per managed policy of the management function's replay grant: an SQS queue ARN is
 * at most about 133 characters deployed (an 80-character name, the longest partition and region), so 25
 * and their statement stay inside IAM's 6,144 characters of a managed policy.
 */
const QUEUES_PER_POLICY = 25;

/**
 * The ARNs (or secret names, `name-??????`, that a secret ARN ends with) in groups that each fit one
 * managed policy, in order.
 */
export function arnChunks(arns: readonly string[], budget = ARN_CHARS_PER_POLICY): string[][] {
  const chunks: string[][] = [];
  let size = budget;
  for (const arn of arns) {
    // An ARN costs its characters, two quotes and a comma in the policy's JSON; a name, its ARN's too.
    const cost = arn.length + 3 + (arn.startsWith('arn:') ? 0 : SECRET_ARN_PREFIX_CHARS);
    if (size + cost > budget) {
      chunks.push([]);
      size = 0;
    }
    chunks.at(-1)!.push(arn);
    size += cost;
  }
  return chunks;
}

/**
 * Synth-time checks of the destinations for AWS: each type's own (https only, no local-only flag, an SQS
 * queue and role of the accepted forms), signing secrets by reference, the partner roles within IAM's limits.
 */
export function destinationProblems(config: RelayConfig, secretNamePrefix: string): string[] {
  const problems = typeProblems(config.destinations, { runtime: 'aws' });
  const count = Object.keys(config.destinations).length;
  if (count > MAX_DESTINATIONS)
    problems.push(
      `destinations: ${count} destinations, more than ${MAX_DESTINATIONS}: the stack would pass CloudFormation's 500 resources (each destination adds four: its queue, queue policy, rule and event source mapping): split the destinations over two relays`,
    );
  const roles = arnChunks(assumedRoles(config.destinations)).length;
  const secrets = arnChunks(signingSecretResources(config, secretNamePrefix)).length;
  if (roles + secrets > MAX_DELIVERY_POLICIES)
    problems.push(
      `destinations: the delivery function's grants need ${roles + secrets} managed policies (${roles} of partner roles, roleArn; ${secrets} of signing secrets), more than ${MAX_DELIVERY_POLICIES}: split the destinations over two relays`,
    );
  for (const [name, d] of Object.entries(config.destinations)) {
    const tooLong = eventPatternProblem(
      `destinations.${name}.filter`,
      destinationEventPattern(d, config.events.source),
    );
    if (tooLong) problems.push(tooLong);
    if (d.signingSecretId === undefined && d.signingSecrets.length === 0)
      problems.push(`destinations.${name}: no signing secret (signingSecretId)`);
    if (
      d.signingSecretId !== undefined &&
      !d.signingSecretId.startsWith('arn:') &&
      !d.signingSecretId.startsWith(secretNamePrefix)
    )
      problems.push(
        `destinations.${name}.signingSecretId: "${d.signingSecretId}" is outside secretNamePrefix "${secretNamePrefix}" (name it "${secretNamePrefix}webhooks/${name}")`,
      );
  }
  return problems;
}

/**
 * The EventBridge pattern of a destination's filter: the relay's source, its event types (every type but
 * the operator events when none is named) and, when named, the providers and accounts in `data`.
 */
function destinationEventPattern(
  destination: Pick<DestinationConfig, 'filter'>,
  eventSource: string,
): events.EventPattern {
  const { eventTypes, providers, accounts } = destination.filter;
  const data: Record<string, string[]> = {};
  if (providers.length) data.provider = [...providers];
  if (accounts.length) data.account = [...accounts];
  return {
    source: [eventSource],
    detailType: eventTypes.length
      ? eventTypes.filter((t) => !OPERATOR_EVENT_TYPES.has(t))
      : events.Match.anythingBut(...OPERATOR_EVENT_TYPES),
    ...(Object.keys(data).length ? { detail: { data } } : {}),
  };
}

/**
 * The AWS delivery path (docs/webhooks.md#in-aws): per destination an EventBridge rule (its filter as the
 * pattern) into its own SQS queue (SSE-SQS, SSL only), consumed by the delivery function with partial
 * batch failures and the destination's concurrency as the mapping's maximum concurrency, so a slow or
 * dead destination holds only its own queue and invocations. One DLQ for every destination queue (and
 * the rules' undeliverable events): one alarm whatever the number of destinations.
 */
export function createDelivery(
  scope: Construct,
  parts: {
    config: RelayConfig;
    fn: lambda.Function;
    eventBus: events.IEventBus;
    eventSource: string;
    table: dynamodb.ITable;
    tableEncryptionKey: kms.IKey | undefined;
    secretsEncryptionKey: kms.IKey | undefined;
    /** Replays: the management API puts them on the destination queues. */
    management: lambda.Function;
    secretNamePrefix: string;
  },
): Omit<RelayDelivery, 'alarms'> {
  const { config, fn } = parts;
  const stack = Stack.of(scope);
  const dlq = createDeliveryDlq(scope);
  // The rules dead-letter through a reference to the DLQ: given the queue itself, CDK adds one statement
  // per rule to its policy, and SQS caps a policy at 20 statements and 8,192 bytes (about 11
  // destinations). One statement of a fixed size allows the relay bus's rules instead (allowDeadLetteredRules).
  const dlqRef = sqs.Queue.fromQueueArn(scope, 'DeliveryDlqRef', dlq.queueArn);
  const destinations: Record<string, { rule: events.Rule; queue: sqs.Queue }> = {};
  for (const [name, destination] of Object.entries(config.destinations))
    destinations[name] = createDestinationQueue(scope, name, destination, { ...parts, dlq, dlqRef });
  if (Object.keys(destinations).length) allowDeadLetteredRules(stack, dlq, parts.eventBus);
  grantQueueSends(scope, destinations, dlq, fn, parts.management);
  // sqs destinations: the partners' roles, each by its ARN and no other (docs/webhooks.md#sqs-destinations),
  // in managed policies sized to IAM's limit, however many destinations name one.
  arnChunks(assumedRoles(config.destinations)).forEach((roleArns, index) => {
    new iam.ManagedPolicy(scope, `DeliveryAssumePartnerRoles${index}`, {
      description:
        'The webhook delivery function assumes the partner roles of the sqs destinations, these only',
      statements: [new iam.PolicyStatement({ actions: ['sts:AssumeRole'], resources: roleArns })],
      roles: [fn.role!],
    });
  });
  grantDeliveryTable(stack, fn, parts.table, parts.tableEncryptionKey);
  grantSigningSecrets(scope, fn, config, parts);
  suppressDeliveryFindings(fn);
  return { destinations, dlq };
}

/** One DLQ for every destination queue and rule. */
function createDeliveryDlq(scope: Construct): sqs.Queue {
  // SSE-SQS: EventBridge sends to it without a key policy (a customer key would need one for events.amazonaws.com).
  const dlq = new sqs.Queue(scope, 'DeliveryDlq', {
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
  });
  NagSuppressions.addResourceSuppressions(dlq, [
    {
      id: 'AwsSolutions-SQS3',
      reason:
        'This queue is itself a dead-letter queue: the webhook delivery messages that could not be processed',
    },
  ]);
  return dlq;
}

/**
 * EventBridge may send the events the rules of the relay bus could not deliver to the DLQ: one statement
 * of a fixed size, by the pattern of the bus's rule ARNs in this account. A list of the destination rules'
 * ARNs (up to 259 bytes each) passed SQS's 8,192 bytes of queue policy at 30 destinations.
 */
function allowDeadLetteredRules(stack: Stack, dlq: sqs.Queue, eventBus: events.IEventBus): void {
  // A rule on the default bus is `rule/<name>`; on any other `rule/<bus>/<name>`.
  const busName = eventBus.eventBusName;
  dlq.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'AllowDeliveryRules',
      principals: [new iam.ServicePrincipal('events.amazonaws.com')],
      actions: ['sqs:SendMessage'],
      resources: [dlq.queueArn],
      conditions: {
        StringEquals: { 'aws:SourceAccount': stack.account },
        ArnLike: {
          'aws:SourceArn': stack.formatArn({
            service: 'events',
            resource: 'rule',
            resourceName: busName === 'default' ? '*' : `${busName}/*`,
          }),
        },
      },
    }),
  );
}

/**
 * A destination's queue, the rule that fills it from the relay bus (its filter), and the delivery
 * function's mapping on it, at most the destination's concurrency.
 */
function createDestinationQueue(
  scope: Construct,
  name: string,
  destination: DestinationConfig,
  parts: {
    fn: lambda.Function;
    eventBus: events.IEventBus;
    eventSource: string;
    dlq: sqs.Queue;
    /** The DLQ by reference, for the rule's target (no statement per rule: allowDeadLetteredRules). */
    dlqRef: sqs.IQueue;
  },
): { rule: events.Rule; queue: sqs.Queue } {
  const { dlq } = parts;
  const queue = new sqs.Queue(scope, `Delivery${name}Queue`, {
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    // The schedule's 3.3 days and a disabled destination's backlog fit; each retry is a new message.
    retentionPeriod: Duration.days(14),
    // Lambda's advice: six times the function's timeout (a crashed batch comes back after it).
    visibilityTimeout: Duration.seconds(DELIVERY_FUNCTION_TIMEOUT.toSeconds() * 6),
    deadLetterQueue: { queue: dlq, maxReceiveCount: DELIVERY_MAX_RECEIVE_COUNT },
  });
  // How the management function finds this queue for a replay (grantQueueSends): a tag, updated in place.
  Tags.of(queue).add(DESTINATION_QUEUE_TAG, name);
  const rule = new events.Rule(scope, `Delivery${name}Rule`, {
    eventBus: parts.eventBus,
    description: `Relay events for the webhook destination ${name} (its filter)`,
    eventPattern: destinationEventPattern(destination, parts.eventSource),
    targets: [
      new eventTargets.SqsQueue(queue, {
        message: events.RuleTargetInput.fromObject({
          destination: name,
          attempt: 0,
          event: events.EventField.fromPath('$.detail'),
        }),
        retryAttempts: 185,
        maxEventAge: Duration.hours(24),
        deadLetterQueue: parts.dlqRef,
      }),
    ],
  });
  // The mapping SqsEventSource would add (its id too, so an upgrade keeps it), without its statement per
  // queue: the function consumes every destination queue through one statement (grantQueueSends).
  parts.fn.addEventSourceMapping(`SqsEventSource:${Names.nodeUniqueId(queue.node)}`, {
    eventSourceArn: queue.queueArn,
    batchSize: DELIVERY_BATCH_SIZE,
    reportBatchItemFailures: true,
    maxConcurrency: deliveryConcurrency(destination),
  });
  return { rule, queue };
}

/** What an SQS event source mapping needs of its queue (those of Queue.grantConsumeMessages). */
const CONSUME_ACTIONS = [
  'sqs:ReceiveMessage',
  'sqs:ChangeMessageVisibility',
  'sqs:GetQueueUrl',
  'sqs:DeleteMessage',
  'sqs:GetQueueAttributes',
] as const;

/**
 * The delivery function consumes every destination queue and puts its retries on them, in one statement
 * whatever the number of destinations. Retries (and held deliveries) are new messages on the record's own queue; replays are the management
 * API's. It finds the queues at run time (shared/runtime/lambda-management.ts): the DLQ's source queues
 * (DELIVERY_DLQ_ARN, a fixed size whatever the number of destinations), each by its destination tag. It
 * may list the DLQ's sources, and read the tags of and send to the destination queues, no other queue.
 */
function grantQueueSends(
  scope: Construct,
  destinations: Record<string, { queue: sqs.Queue }>,
  dlq: sqs.Queue,
  fn: lambda.Function,
  management: lambda.Function,
): void {
  const queueArns = Object.values(destinations).map((d) => d.queue.queueArn);
  if (!queueArns.length) return;
  fn.addToRolePolicy(
    new iam.PolicyStatement({ actions: [...CONSUME_ACTIONS, 'sqs:SendMessage'], resources: queueArns }),
  );
  // The replay grant grows with the destinations (about 133 characters a queue): in the management
  // role's inline policy it took 6,400 of the 10,240 characters IAM allows all of that policy at 49
  // destinations, and the secret ids outside the naming convention pushed it past. Managed policies of
  // its own, QUEUES_PER_POLICY queues each, leave the inline policy to the rest.
  for (let i = 0; i * QUEUES_PER_POLICY < queueArns.length; i++)
    new iam.ManagedPolicy(scope, `DeliveryReplayQueues${i}`, {
      description:
        'The management function puts replays on the webhook destination queues and reads their tags',
      statements: [
        new iam.PolicyStatement({
          actions: ['sqs:SendMessage', 'sqs:ListQueueTags'],
          resources: queueArns.slice(i * QUEUES_PER_POLICY, (i + 1) * QUEUES_PER_POLICY),
        }),
      ],
      roles: [management.role!],
    });
  management.addToRolePolicy(
    new iam.PolicyStatement({ actions: ['sqs:ListDeadLetterSourceQueues'], resources: [dlq.queueArn] }),
  );
  management.addEnvironment('DELIVERY_DLQ_ARN', dlq.queueArn);
}

/** The delivery log and the destination states (item reads and writes, Query for the dead letters). */
function grantDeliveryTable(
  stack: Stack,
  fn: lambda.Function,
  table: dynamodb.ITable,
  tableEncryptionKey: kms.IKey | undefined,
): void {
  fn.addToRolePolicy(
    new iam.PolicyStatement({ actions: [...TABLE_DATA_ACTIONS], resources: [table.tableArn] }),
  );
  if (tableEncryptionKey)
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: [...TABLE_KEY_ACTIONS],
        resources: [tableEncryptionKey.keyArn],
        conditions: { StringEquals: { 'kms:ViaService': `dynamodb.${stack.region}.${stack.urlSuffix}` } },
      }),
    );
}

/**
 * What the delivery function reads of Secrets Manager: each configured signing secret by its name (its ARN
 * ends `<name>-??????`) or its ARN, never a wider pattern; and the rotated-in ones under their destination,
 * <secretNamePrefix>webhooks/<destination>/<anything> (POST /v1/destinations/{id}/rotate).
 */
function signingSecretResources(config: RelayConfig, secretNamePrefix: string): string[] {
  const ids = new Set(
    Object.values(config.destinations).flatMap((d) => (d.signingSecretId ? [d.signingSecretId] : [])),
  );
  return [
    ...[...ids].flatMap((id) => (id.startsWith('arn:') ? [id, `${id}-??????`] : [`${id}-??????`])),
    ...Object.keys(config.destinations).map((name) => `${secretNamePrefix}webhooks/${name}/*`),
  ];
}

/** The rotated-in secrets' pattern, one per destination (cdk-nag's IAM5 finds a wildcard). */
const ROTATED_SECRETS_SUPPRESSION = {
  id: 'AwsSolutions-IAM5',
  reason:
    'A rotated-in signing secret is read by its reference, named <secretNamePrefix>webhooks/<destination>/<anything> (docs/webhooks.md#rotating-a-secret): one pattern per configured destination, no wider.',
  appliesTo: [{ regex: '/^Resource::arn:<AWS::Partition>:secretsmanager:.*webhooks\\/.*\\/\\*$/g' }],
};

/**
 * The signing secrets (signingSecretResources), read at run time, never in the template: in managed
 * policies sized to IAM's limit, however many destinations (one statement of them all passed a managed
 * policy's 6,144 characters at 40 destinations).
 */
function grantSigningSecrets(
  scope: Construct,
  fn: lambda.Function,
  config: RelayConfig,
  parts: { secretNamePrefix: string; secretsEncryptionKey: kms.IKey | undefined },
): void {
  const stack = Stack.of(scope);
  const chunks = arnChunks(signingSecretResources(config, parts.secretNamePrefix));
  chunks.forEach((resources, index) => {
    const policy = new iam.ManagedPolicy(scope, `DeliverySigningSecrets${index}`, {
      description: 'The webhook delivery function reads the signing secrets of its destinations, these only',
      statements: [
        new iam.PolicyStatement({
          actions: ['secretsmanager:GetSecretValue'],
          resources: resources.map((r) =>
            r.startsWith('arn:')
              ? r
              : stack.formatArn({
                  service: 'secretsmanager',
                  resource: 'secret',
                  resourceName: r,
                  arnFormat: ArnFormat.COLON_RESOURCE_NAME,
                }),
          ),
        }),
      ],
      roles: [fn.role!],
    });
    NagSuppressions.addResourceSuppressions(policy, [ROTATED_SECRETS_SUPPRESSION]);
  });
  if (chunks.length && parts.secretsEncryptionKey)
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['kms:Decrypt'],
        resources: [parts.secretsEncryptionKey.keyArn],
        conditions: {
          StringEquals: { 'kms:ViaService': `secretsmanager.${stack.region}.${stack.urlSuffix}` },
        },
      }),
    );
}

function suppressDeliveryFindings(fn: lambda.Function): void {
  NagSuppressions.addResourceSuppressions(
    fn.role!,
    [
      {
        id: 'AwsSolutions-IAM5',
        reason:
          'X-Ray tracing needs xray:PutTraceSegments and xray:PutTelemetryRecords, which support no resource-level permissions (Resource "*"). Table access is limited to item actions on the relay table ARN, SQS to the destination queues, Secrets Manager to the named signing secrets and the rotated-in ones under <secretNamePrefix>webhooks/<destination>/.',
        appliesTo: ['Resource::*'],
      },
    ],
    true,
  );
}

/**
 * The delivery alarms (docs/monitoring.md), three whatever the number of destinations: a destination
 * disabled pages (its partner receives nothing until a person resumes it); a delivery dead-lettered past
 * the schedule is a ticket (kept in the delivery log, replayable; the destination still works); a message
 * in the delivery DLQ pages like every DLQ (the delivery function could not process it at all).
 */
export function deliveryAlarms(
  scope: Construct,
  parts: { metricsNamespace: string; dlq: sqs.Queue; pageTopic: sns.ITopic; ticketTopic: sns.ITopic },
): cloudwatch.Alarm[] {
  const prefix = monitoringNamePrefix(scope);
  const make = (
    id: string,
    metric: cloudwatch.IMetric,
    description: string,
    topic: sns.ITopic,
    tag: string,
  ) => {
    const alarm = new cloudwatch.Alarm(scope, `Delivery${id}Alarm`, {
      alarmName: `${prefix}-Delivery-${id}`,
      alarmDescription: `[${tag}] ${description}`,
      metric,
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    // OK goes where ALARM went (docs/monitoring.md).
    alarm.addAlarmAction(new SnsAction(topic));
    alarm.addOkAction(new SnsAction(topic));
    return alarm;
  };
  const relayMetric = (metricName: string) =>
    new cloudwatch.Metric({
      namespace: parts.metricsNamespace,
      metricName,
      statistic: 'Sum',
      period: Duration.minutes(5),
    });
  return [
    make(
      'DestinationsDisabled',
      // The delivery function's own counts (queue-delivery.ts): one name for the emitter and the alarm.
      relayMetric(DESTINATIONS_DISABLED_METRIC),
      'A webhook destination was disabled (410 Gone, or disableAfterFailures failures in a row): its partner receives nothing; its events are dead-lettered. The DestinationDisabled event names it; fix with the partner, resume it, replay its dead letters (docs/webhooks.md).',
      parts.pageTopic,
      PAGE_TAG,
    ),
    make(
      'DeadLettered',
      relayMetric(DELIVERIES_DEAD_LETTERED_METRIC),
      'A webhook delivery was dead-lettered: the retry schedule ended (or its destination is disabled). It is kept in the delivery log (DLVDEAD#<destination>); replay it once the destination answers (docs/webhooks.md).',
      parts.ticketTopic,
      TICKET_TAG,
    ),
    make(
      'Dlq',
      parts.dlq.metricApproximateNumberOfMessagesVisible({
        statistic: 'Maximum',
        period: Duration.minutes(5),
      }),
      'A webhook delivery message is in the delivery DLQ: the delivery function could not process it (10 receives) or a rule could not put the event on its destination queue. The delivery function logs name it; redrive the DLQ to the destination queue (docs/webhooks.md).',
      parts.pageTopic,
      PAGE_TAG,
    ),
  ];
}
