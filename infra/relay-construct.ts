import { join } from 'node:path';
import { Annotations, ArnFormat, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpIamAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as eventTargets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as schedulerTargets from 'aws-cdk-lib/aws-scheduler-targets';
import * as sns from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { DAY_INDEX, DUE_INDEX, TABLE_KEYS } from '../shared/adapters/dynamodb/table';
import { DEFAULT_METRICS_NAMESPACE } from '../shared/adapters/metrics/powertools-metrics';
import { accountSecretId, accountsWithoutPathSecret, parseConfig } from '../shared/config/load';
import type { RelayConfig } from '../shared/config/schema';
import { ConfigError } from '../shared/domain/errors';
import { BUNDLE_OPTIONS, PROJECT_ROOT, RELAY_FUNCTIONS, type RelayFunctionId } from './bundling';
import { inlineConfigJson } from './runtime-config';

/**
 * DynamoDB actions the HTTP functions need: exactly the commands
 * `shared/adapters/dynamodb/relay-store.ts` sends (Get, Put, Update, Query, and DescribeTable for the
 * readiness ping) plus ConditionCheckItem for transactional writes. No Scan, no table management.
 * test/infra checks this list against the store's source, so a new command there fails the tests
 * until it is granted here.
 */
export const TABLE_DATA_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:Query',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:ConditionCheckItem',
  'dynamodb:DescribeTable',
] as const;

/**
 * DynamoDB actions of the poller: list due items (Query on the `due` index), claim and update them,
 * read and write transactions, the readiness ping. No ConditionCheckItem (the store sends no
 * transactional writes), no Scan. Granted on the table and both its indexes.
 */
export const POLLER_TABLE_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:Query',
  'dynamodb:DescribeTable',
] as const;

/** The custom metrics the relay's alarms watch (published by PowertoolsRelayMetrics without dimensions). */
export const ALARMED_RELAY_METRICS = [
  'TransactionsExpired',
  'VerificationDisagreements',
  'AmbiguousEscalated',
] as const;

/**
 * Stream filter of the outbox publisher: only records whose new image carries at least one outbox
 * event (an `outbox` list whose entries have `metadata.id`). `exists` only works on leaf values, so
 * the pattern names the leaf; Lambda's matcher looks inside every element of the list.
 * Receipts (the most frequent writes) carry no outbox and never invoke the publisher.
 */
export const OUTBOX_FILTER_PATTERN = {
  dynamodb: {
    NewImage: { outbox: { L: { M: { metadata: { M: { id: { S: lambda.FilterRule.exists() } } } } } } },
  },
};

/** Lambda caps a function's environment at 4 KB in total; the inline config must leave room. */
const MAX_INLINE_CONFIG_BYTES = 3 * 1024;

export interface RelayThrottle {
  /** Steady-state requests per second for the whole API. */
  readonly rateLimit: number;
  /** Burst bucket size. */
  readonly burstLimit: number;
}

export interface MobileMoneyRelayProps {
  /**
   * The relay config: the same JSON `npm start` reads (see `shared/config/schema.ts`). Validated at
   * synth time with `parseConfig`, so a bad config fails `cdk synth` with the dotted key named.
   * `management.auth` must be `"iam"`, and every MoMo and Daraja account needs a `pathSecret` (their
   * callbacks carry no other authentication) or an explicit `allowNoPathSecret: "<reason>"`. It reaches
   * the functions inline (RELAY_CONFIG_JSON, which Lambda encrypts at rest); move secrets to Secrets
   * Manager before production (see docs/deploy.md).
   */
  readonly config: unknown;
  /** Publish to this bus instead of creating one (e.g. `EventBus.fromEventBusName(this, 'B', 'default')`). */
  readonly eventBus?: events.IEventBus;
  /** Archive the relay's events on the bus for replay. @default true */
  readonly eventArchive?: boolean;
  /** @default 30 days */
  readonly eventArchiveRetention?: Duration;
  /** Alarm actions go to this topic. */
  readonly alarmTopic?: sns.ITopic;
  /** Creates an encrypted alarm topic with this e-mail subscribed (ignored when `alarmTopic` is set). */
  readonly alarmEmail?: string;
  /** Retention of the functions' and the API's log groups. @default one month */
  readonly logRetention?: logs.RetentionDays;
  /** Removal policy of the data (table, log groups). @default RETAIN (and table deletion protection on) */
  readonly removalPolicy?: RemovalPolicy;
  /** Customer-managed key for the table (and its stream). @default AWS-managed DynamoDB key */
  readonly tableEncryptionKey?: kms.IKey;
  /** Reserved concurrency per function. @default none (account pool) */
  readonly reservedConcurrency?: Partial<Record<RelayFunctionId, number>>;
  /** @default 512 MB for every function (more memory = more CPU = faster cold start) */
  readonly memorySize?: number;
  /** LOG_LEVEL of the functions. @default INFO */
  readonly logLevel?: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  /**
   * API Gateway stage throttling. Keep it generous: a throttled provider callback is an HTTP 429,
   * and MoMo does not retry callbacks. @default 500 rps, burst 1000
   */
  readonly throttle?: RelayThrottle;
  /** Stream lag (publisher IteratorAge) that raises the alarm. @default 2 minutes */
  readonly iteratorAgeAlarmThreshold?: Duration;
  /**
   * How often EventBridge Scheduler starts a poll cycle (whole minutes, at least one). Each cycle only
   * reads the due index, so a short interval costs little when nothing is due. @default 1 minute
   */
  readonly pollInterval?: Duration;
  /**
   * Let Scheduler start each cycle anywhere within this window (spreads load across many relays in an
   * account). @default none: cycles start on the interval
   */
  readonly pollFlexibleWindow?: Duration;
  /** Turn the schedule off (e.g. while migrating) without removing the poller. @default true */
  readonly pollingEnabled?: boolean;
  /**
   * `source`s whose `TransactionInitiated` events on the relay's bus register transactions (the same
   * use case as POST /v1/transactions). @default any source except the relay's own (`events.source`)
   */
  readonly transactionInitiatedSources?: string[];
  /** CloudWatch namespace of the relay's metrics (poller, "check now"). @default MobileMoneyRelay */
  readonly metricsNamespace?: string;
  /**
   * Customer-managed KMS key encrypting the accounts' secrets (`secretId`): the functions that read
   * them get kms:Decrypt through Secrets Manager. @default the secrets use aws/secretsmanager
   */
  readonly secretsEncryptionKey?: kms.IKey;
}

/**
 * The mobile-money callback relay: one DynamoDB table (its stream is the outbox; `due` and `byDay`
 * indexes), an EventBridge bus, two Lambda functions behind an HTTP API (public provider callbacks on
 * `$default`, the management API behind IAM), the outbox publisher, the reconciliation poller
 * (EventBridge Scheduler), the `TransactionInitiated` consumer (an EventBridge rule), DLQs, and
 * CloudWatch alarms.
 */
export class MobileMoneyRelay extends Construct {
  /** The validated relay config. */
  readonly config: RelayConfig;
  readonly table: dynamodb.Table;
  readonly eventBus: events.IEventBus;
  readonly eventSource: string;
  readonly api: apigwv2.HttpApi;
  readonly stage: apigwv2.HttpStage;
  /** Base URL of the API (`https://<id>.execute-api.<region>.amazonaws.com/`). */
  readonly apiUrl: string;
  readonly callbackFunction: nodejs.NodejsFunction;
  readonly managementFunction: nodejs.NodejsFunction;
  readonly outboxPublisherFunction: nodejs.NodejsFunction;
  readonly pollerFunction: nodejs.NodejsFunction;
  readonly transactionInitiatedFunction: nodejs.NodejsFunction;
  /** On-failure destination of the outbox stream mapping. */
  readonly outboxDlq: sqs.Queue;
  /** Starts a poll cycle every `pollInterval`. */
  readonly pollSchedule: scheduler.Schedule;
  /** Poll cycles Scheduler could not hand to Lambda. */
  readonly pollScheduleDlq: sqs.Queue;
  /** `TransactionInitiated` events → the transaction-initiated function. */
  readonly transactionInitiatedRule: events.Rule;
  /** `TransactionInitiated` events that could not be delivered or registered after all retries. */
  readonly transactionInitiatedDlq: sqs.Queue;
  /** CloudWatch namespace of the relay's custom metrics. */
  readonly metricsNamespace: string;
  /** ARNs `secretsmanager:GetSecretValue` is granted on (from the accounts' `secretId`). */
  readonly accountSecretArns: string[];
  readonly alarmTopic: sns.ITopic | undefined;
  readonly alarms: cloudwatch.Alarm[] = [];

  private readonly logRetention: logs.RetentionDays;
  private readonly removalPolicy: RemovalPolicy;

  constructor(scope: Construct, id: string, props: MobileMoneyRelayProps) {
    super(scope, id);
    // Validate before creating anything (and before bundling): a bad config fails synth fast.
    this.config = validateForCloud(props.config);
    const runtimeConfigJson = inlineConfigJson(props.config);
    this.eventSource = this.config.events.source;
    const baseHost = new URL(this.config.publicBaseUrl).hostname;
    if (
      baseHost === 'localhost' ||
      baseHost === '127.0.0.1' ||
      baseHost.endsWith('.example.com') ||
      baseHost === 'example.com'
    ) {
      Annotations.of(this).addWarningV2(
        'mobile-money-relay:publicBaseUrl',
        `publicBaseUrl (${this.config.publicBaseUrl}) is a placeholder: the callback URLs the relay hands out (MoMo X-Callback-Url) will not reach this deployment. Set it to the ApiUrl output or your custom domain and deploy again.`,
      );
    }
    for (const account of this.config.accounts.values()) {
      if (account.pathSecret && /^replace/i.test(account.pathSecret)) {
        Annotations.of(this).addWarningV2(
          'mobile-money-relay:pathSecret',
          `accounts.${account.provider}.${account.id}.pathSecret is still a placeholder: anyone who read the example config knows it, so it protects nothing. Generate one per account (openssl rand -hex 16) and deploy again.`,
        );
      }
    }
    this.logRetention = props.logRetention ?? logs.RetentionDays.ONE_MONTH;
    this.removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;

    // ---- storage: one table, its stream is the outbox --------------------------------------------
    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: { name: TABLE_KEYS.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: TABLE_KEYS.sortKey, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: TABLE_KEYS.ttlAttribute,
      stream: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: props.tableEncryptionKey
        ? dynamodb.TableEncryption.CUSTOMER_MANAGED
        : dynamodb.TableEncryption.AWS_MANAGED,
      encryptionKey: props.tableEncryptionKey,
      removalPolicy: this.removalPolicy,
      deletionProtection: this.removalPolicy === RemovalPolicy.RETAIN,
    });
    // Keys only: the poller's claim (UpdateItem, ALL_NEW) and the report read the items themselves.
    for (const index of [DUE_INDEX, DAY_INDEX]) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: { name: index.partitionKey, type: dynamodb.AttributeType.STRING },
        sortKey: { name: index.sortKey, type: dynamodb.AttributeType.STRING },
        projectionType: dynamodb.ProjectionType.KEYS_ONLY,
      });
    }

    // ---- events -----------------------------------------------------------------------------------
    this.eventBus =
      props.eventBus ??
      new events.EventBus(this, 'Bus', {
        eventBusName: this.config.events.busName === 'default' ? undefined : this.config.events.busName,
        description: 'Normalized mobile-money transaction events (mobile-money callback relay)',
      });
    if (props.eventArchive ?? true) {
      new events.Archive(this, 'EventArchive', {
        sourceEventBus: this.eventBus,
        eventPattern: { source: [this.eventSource] },
        retention: props.eventArchiveRetention ?? Duration.days(30),
        description: `Replay archive of ${this.eventSource} events`,
      });
    }

    // ---- functions --------------------------------------------------------------------------------
    const memorySize = props.memorySize ?? 512;
    const logLevel = props.logLevel ?? 'INFO';
    this.metricsNamespace = props.metricsNamespace ?? DEFAULT_METRICS_NAMESPACE;
    const httpEnvironment = {
      TABLE_NAME: this.table.tableName,
      RELAY_CONFIG_JSON: runtimeConfigJson,
      EVENT_BUS_NAME: this.eventBus.eventBusName,
      EVENT_SOURCE: this.eventSource,
      LOG_LEVEL: logLevel,
    };
    this.callbackFunction = this.relayFunction('callback', {
      description: 'Provider callbacks: verify, store durably, ack in the provider format',
      // C2B validation must be answered below 8 s; the rest of the callbacks well before that.
      timeout: Duration.seconds(10),
      memorySize,
      reservedConcurrency: props.reservedConcurrency?.callback,
      environment: httpEnvironment,
    });
    this.managementFunction = this.relayFunction('management', {
      description:
        'Management API: register transactions, read state and history, check now, resolve, report (IAM-authorized)',
      timeout: Duration.seconds(10),
      memorySize,
      reservedConcurrency: props.reservedConcurrency?.management,
      // "Check now" emits the poller's metrics.
      environment: { ...httpEnvironment, POWERTOOLS_METRICS_NAMESPACE: this.metricsNamespace },
    });
    this.outboxPublisherFunction = this.relayFunction('outbox-publisher', {
      description: 'Publishes outbox events from the table stream to EventBridge',
      timeout: Duration.seconds(60),
      memorySize,
      reservedConcurrency: props.reservedConcurrency?.['outbox-publisher'],
      environment: {
        EVENT_BUS_NAME: this.eventBus.eventBusName,
        EVENT_SOURCE: this.eventSource,
        LOG_LEVEL: logLevel,
      },
    });
    this.pollerFunction = this.relayFunction('poller', {
      description: 'Reconciliation: one poll cycle (due transactions leased, checked with the status APIs)',
      // The cycle stops claiming 15 s before the timeout; a cycle ends before the next one starts
      // (two at once would still be safe: every item is leased).
      timeout: Duration.seconds(60),
      memorySize,
      reservedConcurrency: props.reservedConcurrency?.poller,
      environment: {
        TABLE_NAME: this.table.tableName,
        RELAY_CONFIG_JSON: runtimeConfigJson,
        LOG_LEVEL: logLevel,
        POWERTOOLS_METRICS_NAMESPACE: this.metricsNamespace,
      },
    });
    this.transactionInitiatedFunction = this.relayFunction('transaction-initiated', {
      description: 'TransactionInitiated events from the partner: register the transaction',
      timeout: Duration.seconds(10),
      memorySize,
      reservedConcurrency: props.reservedConcurrency?.['transaction-initiated'],
      environment: {
        TABLE_NAME: this.table.tableName,
        RELAY_CONFIG_JSON: runtimeConfigJson,
        LOG_LEVEL: logLevel,
      },
    });

    // Table access: item reads/writes on this table only (no Scan, no table management); indexes
    // only where a function queries them.
    const indexArn = (index: { name: string }) => `${this.table.tableArn}/index/${index.name}`;
    for (const fn of [this.callbackFunction, this.managementFunction, this.transactionInitiatedFunction]) {
      fn.addToRolePolicy(
        new iam.PolicyStatement({ actions: [...TABLE_DATA_ACTIONS], resources: [this.table.tableArn] }),
      );
    }
    // The reconciliation report lists transactions by creation day.
    this.managementFunction.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['dynamodb:Query'], resources: [indexArn(DAY_INDEX)] }),
    );
    this.pollerFunction.addToRolePolicy(
      new iam.PolicyStatement({
        actions: [...POLLER_TABLE_ACTIONS],
        resources: [this.table.tableArn, indexArn(DUE_INDEX), indexArn(DAY_INDEX)],
      }),
    );
    const configReaders = [
      this.callbackFunction,
      this.managementFunction,
      this.pollerFunction,
      this.transactionInitiatedFunction,
    ];
    for (const fn of configReaders) props.tableEncryptionKey?.grantEncryptDecrypt(fn);

    // Account secrets: every function that loads the config reads every account's secret at cold start
    // (the config is validated whole); the outbox publisher never sees the config.
    this.accountSecretArns = [
      ...new Set(
        [...this.config.accounts.values()].flatMap((account) => {
          const secretId = accountSecretId(account);
          return secretId ? secretArns(Stack.of(this), secretId) : [];
        }),
      ),
    ];
    if (this.accountSecretArns.length) {
      for (const fn of configReaders) {
        fn.addToRolePolicy(
          new iam.PolicyStatement({
            actions: ['secretsmanager:GetSecretValue'],
            resources: this.accountSecretArns,
          }),
        );
        if (props.secretsEncryptionKey) {
          fn.addToRolePolicy(
            new iam.PolicyStatement({
              actions: ['kms:Decrypt'],
              resources: [props.secretsEncryptionKey.keyArn],
              conditions: {
                StringEquals: {
                  'kms:ViaService': `secretsmanager.${Stack.of(this).region}.${Stack.of(this).urlSuffix}`,
                },
              },
            }),
          );
        }
      }
    }

    // ---- outbox: stream → publisher → EventBridge, failures → DLQ ----------------------------------
    // On-failure records of a stream mapping hold shard and sequence numbers, never item data, so
    // SQS-managed encryption is enough (and the DLQ needs no KMS grants).
    this.outboxDlq = new sqs.Queue(this, 'OutboxDlq', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    this.outboxPublisherFunction.addEventSource(
      new DynamoEventSource(this.table, {
        startingPosition: lambda.StartingPosition.TRIM_HORIZON,
        batchSize: 100,
        bisectBatchOnError: true,
        retryAttempts: 10,
        // Give up (to the DLQ) well before the stream's 24 h retention trims the records.
        maxRecordAge: Duration.hours(12),
        reportBatchItemFailures: true,
        onFailure: new SqsDlq(this.outboxDlq),
        filters: [lambda.FilterCriteria.filter(OUTBOX_FILTER_PATTERN)],
      }),
    );
    this.eventBus.grantPutEventsTo(this.outboxPublisherFunction);

    // ---- reconciliation: Scheduler → poller ------------------------------------------------------------
    // Scheduler invokes Lambda asynchronously. A failed cycle is not retried (the next one starts within
    // a minute and finds the same due items); the DLQ receives the cycles Scheduler could not hand over.
    this.pollerFunction.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: Duration.minutes(1) });
    this.pollScheduleDlq = new sqs.Queue(this, 'PollScheduleDlq', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(4),
    });
    const pollInterval = props.pollInterval ?? Duration.minutes(1);
    if (
      pollInterval.toMinutes({ integral: false }) < 1 ||
      !Number.isInteger(pollInterval.toMinutes({ integral: false }))
    ) {
      throw new ConfigError(`pollInterval: whole minutes, at least 1 (got ${pollInterval.toHumanString()})`);
    }
    // An own role (not the stack-wide one the target would create): invoke this function, send to this DLQ.
    const scheduleRole = new iam.Role(this, 'PollScheduleRole', {
      description: 'EventBridge Scheduler: invokes the relay poller',
      assumedBy: new iam.PrincipalWithConditions(new iam.ServicePrincipal('scheduler.amazonaws.com'), {
        StringEquals: { 'aws:SourceAccount': Stack.of(this).account },
      }),
    });
    this.pollSchedule = new scheduler.Schedule(this, 'PollSchedule', {
      description: 'Starts a reconciliation poll cycle of the mobile-money relay',
      schedule: scheduler.ScheduleExpression.rate(pollInterval),
      target: new schedulerTargets.LambdaInvoke(this.pollerFunction, {
        role: scheduleRole,
        retryAttempts: 0,
        maxEventAge: Duration.minutes(1),
        deadLetterQueue: this.pollScheduleDlq,
      }),
      timeWindow: props.pollFlexibleWindow
        ? scheduler.TimeWindow.flexible(props.pollFlexibleWindow)
        : scheduler.TimeWindow.off(),
      enabled: props.pollingEnabled ?? true,
    });

    // ---- TransactionInitiated events → registration ----------------------------------------------------
    // Two failure paths, one DLQ, both holding the original event (replayable with put-events): the rule
    // cannot deliver (EventBridge retries, then its target DLQ), or the function throws (an outage; Lambda
    // retries the asynchronous invocation twice, then the function's DLQ). Refused input is not retried.
    this.transactionInitiatedDlq = new sqs.Queue(this, 'TransactionInitiatedDlq', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    this.transactionInitiatedFunction.configureAsyncInvoke({
      retryAttempts: 2,
      maxEventAge: Duration.hours(6),
    });
    const dlqTarget = this.transactionInitiatedFunction.node.defaultChild as lambda.CfnFunction;
    dlqTarget.deadLetterConfig = { targetArn: this.transactionInitiatedDlq.queueArn };
    this.transactionInitiatedDlq.grantSendMessages(this.transactionInitiatedFunction);
    const sources = props.transactionInitiatedSources;
    if (sources && sources.length === 0) {
      throw new ConfigError(
        'transactionInitiatedSources: name at least one source (or leave it out for any)',
      );
    }
    if (sources?.includes(this.eventSource)) {
      throw new ConfigError(
        `transactionInitiatedSources: "${this.eventSource}" is the relay's own source (events.source); the relay never initiates transactions`,
      );
    }
    this.transactionInitiatedRule = new events.Rule(this, 'TransactionInitiatedRule', {
      eventBus: this.eventBus,
      description: 'TransactionInitiated events from the partner: register the transaction with the relay',
      eventPattern: {
        detailType: ['TransactionInitiated'],
        source: sources ?? events.Match.anythingBut(this.eventSource),
      },
      targets: [
        new eventTargets.LambdaFunction(this.transactionInitiatedFunction, {
          retryAttempts: 185,
          maxEventAge: Duration.hours(24),
          deadLetterQueue: this.transactionInitiatedDlq,
        }),
      ],
    });

    // ---- HTTP API -------------------------------------------------------------------------------------
    const accessLogs = new logs.LogGroup(this, 'ApiAccessLogs', {
      retention: this.logRetention,
      removalPolicy: this.removalPolicy,
    });
    this.api = new apigwv2.HttpApi(this, 'Api', {
      description: 'Mobile-money callback relay: provider callbacks ($default) and the management API (IAM)',
      createDefaultStage: false,
      // Everything that is not the management API is a provider callback; providers cannot sign
      // requests, so the handler authenticates them (path secret, Airtel hash, source-IP allow-list).
      defaultIntegration: new HttpLambdaIntegration('CallbackIntegration', this.callbackFunction),
    });
    const management = new HttpLambdaIntegration('ManagementIntegration', this.managementFunction);
    const iamAuthorizer = new HttpIamAuthorizer();
    this.api.addRoutes({
      path: '/v1/transactions',
      methods: [apigwv2.HttpMethod.POST],
      integration: management,
      authorizer: iamAuthorizer,
    });
    this.api.addRoutes({
      path: '/v1/transactions/{provider}/{account}/{reference}',
      methods: [apigwv2.HttpMethod.GET],
      integration: management,
      authorizer: iamAuthorizer,
    });
    // Operators: "check now", resolve by hand, the reconciliation report.
    for (const path of [
      '/v1/transactions/{provider}/{account}/{reference}/check',
      '/v1/transactions/{provider}/{account}/{reference}/resolve',
    ]) {
      this.api.addRoutes({
        path,
        methods: [apigwv2.HttpMethod.POST],
        integration: management,
        authorizer: iamAuthorizer,
      });
    }
    this.api.addRoutes({
      path: '/v1/reconciliation/report',
      methods: [apigwv2.HttpMethod.GET],
      integration: management,
      authorizer: iamAuthorizer,
    });
    const throttle = props.throttle ?? { rateLimit: 500, burstLimit: 1000 };
    this.stage = this.api.addStage('DefaultStage', {
      stageName: '$default',
      autoDeploy: true,
      throttle,
      accessLogSettings: {
        destination: new apigwv2.LogGroupLogDestination(accessLogs),
        // No $context.path: callback paths can carry a per-account path secret.
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            requestTime: '$context.requestTime',
            sourceIp: '$context.identity.sourceIp',
            userAgent: '$context.identity.userAgent',
            caller: '$context.identity.userArn',
            method: '$context.httpMethod',
            routeKey: '$context.routeKey',
            status: '$context.status',
            protocol: '$context.protocol',
            responseLength: '$context.responseLength',
            responseLatency: '$context.responseLatency',
            integrationLatency: '$context.integrationLatency',
            integrationStatus: '$context.integrationStatus',
            integrationError: '$context.integrationErrorMessage',
            authorizerError: '$context.authorizer.error',
            error: '$context.error.message',
          }),
        ),
      },
    });
    this.apiUrl = this.stage.url;

    // ---- alarms -------------------------------------------------------------------------------------
    this.alarmTopic =
      props.alarmTopic ?? (props.alarmEmail ? this.createAlarmTopic(props.alarmEmail) : undefined);
    this.createAlarms(props.iteratorAgeAlarmThreshold ?? Duration.minutes(2));

    this.addNagSuppressions();
  }

  private relayFunction(
    id: RelayFunctionId,
    options: {
      description: string;
      timeout: Duration;
      memorySize: number;
      reservedConcurrency: number | undefined;
      environment: Record<string, string>;
    },
  ): nodejs.NodejsFunction {
    const { entry, serviceName } = RELAY_FUNCTIONS[id];
    const name = constructName(id);
    const logGroup = new logs.LogGroup(this, `${name}Logs`, {
      retention: this.logRetention,
      removalPolicy: this.removalPolicy,
    });
    // An own role instead of AWSLambdaBasicExecutionRole: log writes to this function's group only.
    const role = new iam.Role(this, `${name}Role`, {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of the relay ${id} function`,
    });
    role.addToPolicy(
      new iam.PolicyStatement({
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [logGroup.logGroupArn],
      }),
    );
    return new nodejs.NodejsFunction(this, `${name}Function`, {
      entry: join(PROJECT_ROOT, entry),
      handler: 'handler',
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: join(PROJECT_ROOT, 'package-lock.json'),
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      description: options.description,
      timeout: options.timeout,
      memorySize: options.memorySize,
      reservedConcurrentExecutions: options.reservedConcurrency,
      role,
      logGroup,
      tracing: lambda.Tracing.ACTIVE,
      environment: {
        ...options.environment,
        POWERTOOLS_SERVICE_NAME: serviceName,
        NODE_OPTIONS: '--enable-source-maps',
      },
      bundling: {
        forceDockerBundling: false,
        format: nodejs.OutputFormat.ESM,
        target: BUNDLE_OPTIONS.target,
        minify: BUNDLE_OPTIONS.minify,
        sourceMap: BUNDLE_OPTIONS.sourcemap,
        sourcesContent: BUNDLE_OPTIONS.sourcesContent,
        mainFields: [...BUNDLE_OPTIONS.mainFields],
        externalModules: [...BUNDLE_OPTIONS.external],
        banner: BUNDLE_OPTIONS.banner,
        tsconfig: join(PROJECT_ROOT, 'tsconfig.json'),
        logLevel: nodejs.LogLevel.WARNING,
        esbuildArgs: { '--alias': Object.entries(BUNDLE_OPTIONS.alias).map(([from, to]) => `${from}=${to}`) },
      },
    });
  }

  private createAlarmTopic(email: string): sns.Topic {
    const stack = Stack.of(this);
    // CloudWatch can only publish to an encrypted topic whose key it may use: AWS-managed
    // alias/aws/sns does not allow that, so the topic gets its own key.
    const key = new kms.Key(this, 'AlarmTopicKey', {
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
    const topic = new sns.Topic(this, 'AlarmTopic', {
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
    topic.addSubscription(new EmailSubscription(email));
    return topic;
  }

  private createAlarms(iteratorAgeThreshold: Duration): void {
    const minute = Duration.minutes(1);
    const add = (
      id: string,
      description: string,
      metric: cloudwatch.IMetric,
      threshold: number,
      periods = 1,
      datapoints = periods,
    ) => {
      const alarm = new cloudwatch.Alarm(this, id, {
        alarmDescription: description,
        metric,
        threshold,
        evaluationPeriods: periods,
        datapointsToAlarm: datapoints,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
      if (this.alarmTopic) {
        alarm.addAlarmAction(new SnsAction(this.alarmTopic));
        alarm.addOkAction(new SnsAction(this.alarmTopic));
      }
      this.alarms.push(alarm);
      return alarm;
    };

    add(
      'CallbackErrorsAlarm',
      'The callback function failed (unhandled error or timeout): a provider may have received no ack.',
      this.callbackFunction.metricErrors({ period: minute, statistic: 'Sum' }),
      1,
    );
    add(
      'ManagementErrorsAlarm',
      'The management function failed (unhandled error or timeout).',
      this.managementFunction.metricErrors({ period: minute, statistic: 'Sum' }),
      1,
    );
    add(
      'OutboxPublisherErrorsAlarm',
      'The outbox publisher failed; the stream batch is retried, then sent to the DLQ.',
      this.outboxPublisherFunction.metricErrors({ period: minute, statistic: 'Sum' }),
      1,
    );
    add(
      'Api5xxAlarm',
      'The HTTP API answered 5xx. MoMo does not retry callbacks: check the callback function and the table.',
      this.api.metricServerError({ period: minute, statistic: 'Sum' }),
      1,
    );
    add(
      'OutboxDlqDepthAlarm',
      'Events could not be published to EventBridge after all retries (outbox DLQ not empty). See docs/deploy.md.',
      this.outboxDlq.metricApproximateNumberOfMessagesVisible({ period: minute, statistic: 'Maximum' }),
      1,
    );
    add(
      'OutboxIteratorAgeAlarm',
      `The outbox publisher lags the table stream by more than ${iteratorAgeThreshold.toHumanString()}.`,
      this.outboxPublisherFunction.metric('IteratorAge', { period: minute, statistic: 'Maximum' }),
      iteratorAgeThreshold.toMilliseconds(),
      3,
    );
    // ---- reconciliation
    add(
      'PollerErrorsAlarm',
      'Poll cycles failed (unhandled error or timeout) in 2 of the last 3 minutes: transactions are not being reconciled. See the poller logs.',
      this.pollerFunction.metricErrors({ period: minute, statistic: 'Sum' }),
      1,
      3,
      2,
    );
    add(
      'PollScheduleDlqDepthAlarm',
      'EventBridge Scheduler could not invoke the poller (poll schedule DLQ not empty): check the schedule role and the poller concurrency.',
      this.pollScheduleDlq.metricApproximateNumberOfMessagesVisible({ period: minute, statistic: 'Maximum' }),
      1,
    );
    add(
      'TransactionInitiatedDlqDepthAlarm',
      'TransactionInitiated events could not be registered after all retries (DLQ not empty): the transactions are unknown to the relay. Replay them with put-events once the cause is fixed (docs/deploy.md).',
      this.transactionInitiatedDlq.metricApproximateNumberOfMessagesVisible({
        period: minute,
        statistic: 'Maximum',
      }),
      1,
    );
    const relayMetric = (metricName: string) =>
      new cloudwatch.Metric({
        namespace: this.metricsNamespace,
        metricName,
        period: minute,
        statistic: 'Sum',
      });
    const descriptions: Record<(typeof ALARMED_RELAY_METRICS)[number], string> = {
      TransactionsExpired:
        'A transaction reached the end of its reconciliation window without a final answer (TransactionExpired): a person must look.',
      VerificationDisagreements:
        'A status check contradicted a success callback (UNVERIFIED_SUCCESS conflict): possibly a forged callback. Check the transaction history.',
      AmbiguousEscalated:
        'A transaction stayed ambiguous past escalateAmbiguousAfterSeconds (TransactionEscalated): ask the provider.',
    };
    for (const metricName of ALARMED_RELAY_METRICS) {
      add(`${metricName}Alarm`, descriptions[metricName], relayMetric(metricName), 1);
    }

    for (const [id, fn] of [
      ['Callback', this.callbackFunction],
      ['Management', this.managementFunction],
      ['OutboxPublisher', this.outboxPublisherFunction],
      ['Poller', this.pollerFunction],
      ['TransactionInitiated', this.transactionInitiatedFunction],
    ] as const) {
      add(
        `${id}ThrottlesAlarm`,
        `The ${id} function was throttled (concurrency limit reached).`,
        fn.metricThrottles({ period: minute, statistic: 'Sum' }),
        1,
      );
    }
  }

  /** Every suppression names the resource it is about and why the finding does not apply. */
  private addNagSuppressions(): void {
    const defaultRoute = this.api.node.findChild('DefaultRoute');
    NagSuppressions.addResourceSuppressions(defaultRoute, [
      {
        id: 'AwsSolutions-APIG4',
        reason:
          'The $default route receives mobile-money provider callbacks. Providers (MoMo, Airtel, Daraja) cannot sign requests or send IAM/JWT credentials; the callback handler authenticates each request itself (per-account path secret compared in constant time, Airtel HMAC hash, Daraja source-IP allow-list) and quarantines rejected ones.',
      },
    ]);
    for (const fn of [
      this.callbackFunction,
      this.managementFunction,
      this.outboxPublisherFunction,
      this.pollerFunction,
      this.transactionInitiatedFunction,
    ]) {
      NagSuppressions.addResourceSuppressions(fn, [
        {
          id: 'AwsSolutions-L1',
          reason:
            'The runtime is pinned to Node.js 22 by the project contract (design.md: "Lambda runtime: Node.js 22, ARM64"); dependencies and bundles are tested against it. Moving to a newer runtime is a deliberate, tested upgrade.',
        },
      ]);
    }
    for (const fn of [
      this.callbackFunction,
      this.managementFunction,
      this.pollerFunction,
      this.transactionInitiatedFunction,
    ]) {
      NagSuppressions.addResourceSuppressions(
        fn.role!,
        [
          {
            id: 'AwsSolutions-IAM5',
            reason:
              'Active X-Ray tracing needs xray:PutTraceSegments and xray:PutTelemetryRecords, which support no resource-level permissions (Resource "*"). Table access is limited to item actions on the relay table ARN (and the named indexes a function queries).',
            appliesTo: ['Resource::*'],
          },
        ],
        true,
      );
    }
    NagSuppressions.addResourceSuppressions(
      this.outboxPublisherFunction.role!,
      [
        {
          id: 'AwsSolutions-IAM5',
          reason:
            'xray:PutTraceSegments/PutTelemetryRecords (active tracing) and dynamodb:ListStreams (stream event source) support no resource-level permissions (Resource "*"). Stream reads are limited to the table stream ARN and events:PutEvents to the relay bus.',
          appliesTo: ['Resource::*'],
        },
      ],
      true,
    );
    NagSuppressions.addResourceSuppressions(this.outboxDlq, [
      {
        id: 'AwsSolutions-SQS3',
        reason:
          'This queue is itself a dead-letter queue: the on-failure destination of the outbox stream event source mapping. A DLQ of a DLQ would only hide failures; the OutboxDlqDepth alarm watches it.',
      },
    ]);
    NagSuppressions.addResourceSuppressions(
      this.node.findChild('PollScheduleRole'),
      [
        {
          id: 'AwsSolutions-IAM5',
          reason:
            'lambda:InvokeFunction is granted on the poller function and its qualified ARNs (<function ARN>:*, versions and aliases of this one function), as Function.grantInvoke does; no other function or action.',
          appliesTo: [{ regex: '/^Resource::<.*PollerFunction.*\\.Arn>:\\*$/g' }],
        },
      ],
      true,
    );
    NagSuppressions.addResourceSuppressions(this.pollScheduleDlq, [
      {
        id: 'AwsSolutions-SQS3',
        reason:
          'This queue is itself a dead-letter queue: poll cycles EventBridge Scheduler could not hand to the poller function. A DLQ of a DLQ would only hide failures; the PollScheduleDlqDepth alarm watches it.',
      },
    ]);
    NagSuppressions.addResourceSuppressions(this.transactionInitiatedDlq, [
      {
        id: 'AwsSolutions-SQS3',
        reason:
          'This queue is itself a dead-letter queue: TransactionInitiated events the rule could not deliver or the function could not register. A DLQ of a DLQ would only hide failures; the TransactionInitiatedDlqDepth alarm watches it.',
      },
    ]);
  }
}

/**
 * IAM resources for a `secretId`. A name: the secret of that name in the stack's account and region,
 * with Secrets Manager's random 6-character suffix (`-??????`). An ARN: as given, and with the suffix
 * (a partial ARN, without it, cannot be told apart from a complete one reliably). Never a wider wildcard.
 */
export function secretArns(stack: Stack, secretId: string): string[] {
  if (secretId.startsWith('arn:')) return [secretId, `${secretId}-??????`];
  return [
    stack.formatArn({
      service: 'secretsmanager',
      resource: 'secret',
      resourceName: `${secretId}-??????`,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    }),
  ];
}

function constructName(id: RelayFunctionId): string {
  return id
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

/**
 * `parseConfig` plus the cloud-only rules; errors name the dotted key, like every config error, and
 * list every broken rule at once.
 */
function validateForCloud(input: unknown): RelayConfig {
  // The accounts' secrets are read at cold start, not at synth: keys absent from an account that names a
  // secretId are assumed to come from it.
  const config = parseConfig(input, { secretsUnresolved: true });
  const problems: string[] = [];
  if (config.management.auth !== 'iam') {
    problems.push(
      'management.auth: must be "iam" in the cloud (API Gateway authorizes the management API with AWS IAM; "bearer" is for the local server)',
    );
  }
  for (const account of accountsWithoutPathSecret(config)) {
    if (account.allowNoPathSecret !== undefined) continue;
    problems.push(
      `${account.key}: required in the cloud: ${account.providerName} callbacks carry no other authentication, so without a path secret anyone who knows a reference can post a callback. Set one (at least 16 characters of A-Z a-z 0-9 _ -, e.g. \`openssl rand -hex 16\`), or opt out explicitly with accounts.${account.provider}.${account.id}.allowNoPathSecret: "<reason, at least 10 characters>"`,
    );
  }
  const bytes = Buffer.byteLength(inlineConfigJson(input));
  if (bytes > MAX_INLINE_CONFIG_BYTES) {
    problems.push(
      `(root): the config is ${bytes} bytes as inline JSON, over the ${MAX_INLINE_CONFIG_BYTES} bytes RELAY_CONFIG_JSON may use of Lambda's 4 KB environment (split the accounts over several stacks, or move settings out of the config)`,
    );
  }
  if (problems.length) throw new ConfigError(`Invalid relay config:\n${problems.join('\n')}`);
  return config;
}
