import { join } from 'node:path';
import { Annotations, ArnFormat, Duration, RemovalPolicy, SecretValue, Stack, Token } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpIamAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as cloudfrontOrigins from 'aws-cdk-lib/aws-cloudfront-origins';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as eventTargets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as route53 from 'aws-cdk-lib/aws-route53';
import * as route53Targets from 'aws-cdk-lib/aws-route53-targets';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as schedulerTargets from 'aws-cdk-lib/aws-scheduler-targets';
import * as sns from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { MonitoringFacade } from 'cdk-monitoring-constructs';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { DAY_INDEX, DUE_INDEX, TABLE_KEYS } from '../shared/adapters/dynamodb/table';
import { DEFAULT_METRICS_NAMESPACE } from '../shared/adapters/metrics/powertools-metrics';
import { accountSecretId, accountsWithoutPathSecret, parseConfig } from '../shared/config/load';
import { ORIGIN_VERIFY_HEADER, type RelayConfig } from '../shared/config/schema';
import { ackBudgetFor } from '../shared/app/ingress-buffer';
import { PROVIDERS } from '../shared/providers/registry';
import { ConfigError } from '../shared/domain/errors';
import { C2B_DEADLINE_CAP_MS } from '../shared/providers/daraja/schema';
import { BUNDLE_OPTIONS, PROJECT_ROOT, RELAY_FUNCTIONS, type RelayFunctionId } from './bundling';
import { monitoringNamePrefix, RelayMonitoring } from './monitoring';
import { buildTracingLayer } from './tracing-layer';
import { inlineConfigJson } from './runtime-config';

export { ALARMED_RELAY_METRICS, CALLBACKS_RECEIVED_METRIC } from './monitoring';

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

/**
 * KMS actions on a customer-managed table key (`tableEncryptionKey`), spelled out instead of
 * `grantEncryptDecrypt`'s `kms:ReEncrypt*`/`kms:GenerateDataKey*` wildcards, and only through DynamoDB
 * (`kms:ViaService`): what a table reader/writer needs when the table uses that key.
 */
export const TABLE_KEY_ACTIONS = [
  'kms:Decrypt',
  'kms:Encrypt',
  'kms:GenerateDataKey',
  'kms:ReEncryptFrom',
  'kms:ReEncryptTo',
  'kms:DescribeKey',
] as const;

/**
 * Timeouts of the public edge. Daraja cuts a C2B validation off at 8 s; the handler answers by the
 * account's `c2b.deadlineMs` (default 5 s, at most 7.5 s) minus a margin. API Gateway gives up on the
 * callback integration at 7.5 s, so even a hung function is answered (503) before Daraja's limit; the
 * function may run 0.5 s longer so a store write already under way still lands (the poller reconciles).
 * MoMo's 2 s budget is kept in code (the store budget, then the ingress buffer).
 */
export const CALLBACK_INTEGRATION_TIMEOUT = Duration.millis(7500);
export const CALLBACK_FUNCTION_TIMEOUT = Duration.seconds(8);

/** The buffer consumer's timeout; the ingress buffer's visibility timeout is 6× it (AWS's advice). */
export const BUFFER_CONSUMER_TIMEOUT = Duration.seconds(30);

/** Reserved concurrency of the callback function unless `reservedConcurrency.callback` says otherwise. */
export const DEFAULT_CALLBACK_RESERVED_CONCURRENCY = 50;

/** Throttling defaults: provider callbacks (`$default`) and each management route. */
export const DEFAULT_CALLBACK_THROTTLE: RelayThrottle = { rateLimit: 500, burstLimit: 1000 };
export const DEFAULT_MANAGEMENT_THROTTLE: RelayThrottle = { rateLimit: 50, burstLimit: 100 };

/** Management routes (IAM-authorized); `operator` routes are check, resolve and the report. */
export const MANAGEMENT_ROUTES = [
  { method: 'POST', path: '/v1/transactions', operator: false },
  { method: 'GET', path: '/v1/transactions/{provider}/{account}/{reference}', operator: false },
  { method: 'POST', path: '/v1/transactions/{provider}/{account}/{reference}/check', operator: true },
  { method: 'POST', path: '/v1/transactions/{provider}/{account}/{reference}/resolve', operator: true },
  { method: 'GET', path: '/v1/reconciliation/report', operator: true },
] as const;

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
  /** Steady-state requests per second. */
  readonly rateLimit: number;
  /** Burst bucket size. */
  readonly burstLimit: number;
}

/** A custom domain for the HTTP API, so the public base URL is known at synth time. */
export interface RelayCustomDomain {
  /** e.g. `relay.payments.example.org`. `publicBaseUrl` in the config should be `https://<domainName>`. */
  readonly domainName: string;
  /** An ACM certificate for `domainName`, in the stack's region (a regional API endpoint). */
  readonly certificate: acm.ICertificate;
  /**
   * The Route 53 hosted zone to create the alias records (A and AAAA) in. @default no record: point your
   * DNS at the `CustomDomainTarget` output (a CNAME) yourself
   */
  readonly hostedZone?: route53.IHostedZone;
}

/**
 * An optional CloudFront distribution in front of the provider callbacks, so an AWS WAF web ACL can
 * protect them (HTTP APIs cannot have one). Needs `edge: { mode: "cloudfront", originVerifySecrets }` in
 * the config: the relay then refuses callbacks that went around CloudFront and reads the viewer's IP from
 * `CloudFront-Viewer-Address` (docs/deploy.md, "The public edge").
 */
export interface RelayCloudFrontEdge {
  /**
   * ARN of a CLOUDFRONT-scope web ACL (us-east-1), e.g. the `WebAclArn` output of `RelayEdgeWebAclStack`.
   * @default none: the distribution has no WAF (synth warns)
   */
  readonly webAclArn?: string;
  /**
   * The value CloudFront sends in the `x-relay-origin-verify` origin header. Must be one of the config's
   * `edge.originVerifySecrets` (checked when it is a plain string). It is part of the distribution
   * config (and so of the template when a plain string). @default `edge.originVerifySecrets[0]`
   */
  readonly originVerifySecret?: string | SecretValue;
  /**
   * Edge locations used. PRICE_CLASS_200 includes Africa and the Middle East, where the providers call
   * from; PRICE_CLASS_100 (North America, Europe, Israel) would route them to a farther edge.
   * @default PRICE_CLASS_200
   */
  readonly priceClass?: cloudfront.PriceClass;
  /** Alternate domain names of the distribution (then `publicBaseUrl` should be `https://<first>`). @default none */
  readonly domainNames?: string[];
  /** ACM certificate for `domainNames`, in us-east-1 (required with `domainNames`). Viewers then need TLS 1.2. */
  readonly certificate?: acm.ICertificate;
}

/** A rule on the relay bus for one subscriber (see `MobileMoneyRelay.addSubscriber`). */
export interface RelaySubscriberOptions {
  /** `detail-type`s to deliver, e.g. `['TransactionSucceeded', 'TransactionFailed']`. At least one. */
  readonly detailTypes: string[];
  readonly target: events.IRuleTarget;
  /** Only events of these providers (`detail.data.provider`). @default every provider */
  readonly providers?: string[];
  /** Only events of these configured accounts (`detail.data.account`). @default every account */
  readonly accounts?: string[];
  readonly description?: string;
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
  /**
   * Publish to this bus instead of creating one (e.g. `EventBus.fromEventBusName(this, 'B', 'default')`).
   * @default a bus named `events.busName` (or generated)
   */
  readonly eventBus?: events.IEventBus;
  /** Archive the relay's events on the bus for replay. @default true */
  readonly eventArchive?: boolean;
  /** @default 30 days */
  readonly eventArchiveRetention?: Duration;
  /**
   * AWS account ids (12 digits) allowed to create and manage their own rules on the relay bus (rules
   * matching the relay's `source` only; each account manages only the rules it created). Only for a bus
   * the construct creates. @default none
   */
  readonly subscriberAccounts?: string[];
  /**
   * Every alarm notifies this topic (on ALARM and on OK). With a KMS-encrypted topic, its key must let
   * `cloudwatch.amazonaws.com` use it. @default a topic created and encrypted with its own KMS key
   */
  readonly alarmTopic?: sns.ITopic;
  /** Subscribes this address to the alarm topic (confirm the e-mail AWS sends). @default none: synth warns */
  readonly alarmEmail?: string;
  /** Create the CloudWatch dashboard. @default true */
  readonly dashboard?: boolean;
  /** Retention of the functions' and the API's log groups. @default one month */
  readonly logRetention?: logs.RetentionDays;
  /** Removal policy of the data (table, log groups). @default RETAIN (and table deletion protection on) */
  readonly removalPolicy?: RemovalPolicy;
  /** Customer-managed key for the table (and its stream). @default AWS-managed DynamoDB key */
  readonly tableEncryptionKey?: kms.IKey;
  /**
   * Reserved concurrency per function; `false` for none (the account's unreserved pool). Lambda keeps
   * 100 (new accounts: 10) unreserved, so a reservation fails the deploy on an account whose quota is too
   * small: set `callback: false` there (docs/deploy.md). @default callback 50, the others none
   */
  readonly reservedConcurrency?: Partial<Record<RelayFunctionId, number | false>>;
  /** @default 512 MB for every function (more memory = more CPU = faster cold start) */
  readonly memorySize?: number;
  /** LOG_LEVEL of the functions. @default INFO */
  readonly logLevel?: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  /**
   * Throttling of the provider callbacks (`$default` route, the stage default). Keep it generous: a
   * throttled provider callback is an HTTP 429, and MoMo does not retry callbacks. @default 500 rps, burst 1000
   */
  readonly throttle?: RelayThrottle;
  /** Throttling of each management route (route settings). @default 50 rps, burst 100 */
  readonly managementThrottle?: RelayThrottle;
  /** A custom domain for the API (and the public base URL). @default none: the execute-api URL */
  readonly customDomain?: RelayCustomDomain;
  /**
   * A CloudFront distribution (with an optional WAF web ACL) in front of the API for the provider
   * callbacks; the management API is still called on the execute-api URL. @default none
   */
  readonly cloudFront?: RelayCloudFrontEdge;
  /** Stream lag (publisher IteratorAge) that raises the alarm. @default 2 minutes */
  readonly iteratorAgeAlarmThreshold?: Duration;
  /**
   * Callback function p99 duration that raises the latency alarm (3 of 5 minutes). Below Daraja's 8 s
   * C2B limit, above the default C2B deadline (5 s). @default 6 seconds
   */
  readonly callbackLatencyAlarmThreshold?: Duration;
  /**
   * Alarm when a configured account received no callback (`CallbacksReceived{provider,account}`) for
   * this long (5 minutes to 24 hours), or `false` for no silence alarms. @default 6 hours
   */
  readonly callbackSilencePeriod?: Duration | false;
  /** Per account (`"<provider>/<account>"`), overrides `callbackSilencePeriod`. @default none */
  readonly callbackSilencePeriods?: Record<string, Duration | false>;
  /** Rejected callbacks (`CallbacksRejected`) in 5 minutes that raise the alarm. @default 20 */
  readonly rejectedCallbacksAlarmThreshold?: number;
  /** Age of the oldest buffered callback that raises the alarm. @default 15 minutes */
  readonly ingressBufferMaxAge?: Duration;
  /** Concurrent buffer consumer invocations the SQS event source may run (2–1000). @default 5 */
  readonly bufferConsumerMaxConcurrency?: number;
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
  /** CloudWatch namespace of the relay's metrics (Powertools Metrics). @default MobileMoneyRelay */
  readonly metricsNamespace?: string;
  /**
   * Customer-managed KMS key encrypting the accounts' secrets (`secretId`): the functions that read
   * them get kms:Decrypt through Secrets Manager. @default the secrets use aws/secretsmanager
   */
  readonly secretsEncryptionKey?: kms.IKey;
}

/**
 * The mobile-money callback relay: one DynamoDB table (its stream is the outbox; `due` and `byDay`
 * indexes), an EventBridge bus with an archive, an HTTP API (public provider callbacks on `$default`,
 * the management API behind IAM), the callback and management functions, the outbox publisher, the
 * reconciliation poller (EventBridge Scheduler), the `TransactionInitiated` consumer (an EventBridge
 * rule), the ingress buffer (SQS) with its consumer, DLQs, a CloudWatch dashboard and alarms
 * (cdk-monitoring-constructs) on an SNS topic.
 */
export class MobileMoneyRelay extends Construct {
  /** The validated relay config. */
  readonly config: RelayConfig;
  readonly table: dynamodb.Table;
  readonly eventBus: events.IEventBus;
  /** The replay archive of the relay's events (`eventArchive`). */
  readonly eventArchive: events.Archive | undefined;
  readonly eventSource: string;
  readonly api: apigwv2.HttpApi;
  readonly stage: apigwv2.HttpStage;
  /** Base URL of the API (`https://<id>.execute-api.<region>.amazonaws.com/`). */
  readonly apiUrl: string;
  /** The custom domain, when `customDomain` is set. */
  readonly domainName: apigwv2.DomainName | undefined;
  /** Where providers reach the relay: the CloudFront edge (`cloudFront`), else `https://<customDomain>/`, else `apiUrl`. */
  readonly publicUrl: string;
  /** The CloudFront edge in front of the provider callbacks (`cloudFront`). */
  readonly distribution: cloudfront.Distribution | undefined;
  readonly callbackFunction: nodejs.NodejsFunction;
  readonly managementFunction: nodejs.NodejsFunction;
  readonly outboxPublisherFunction: nodejs.NodejsFunction;
  readonly pollerFunction: nodejs.NodejsFunction;
  readonly transactionInitiatedFunction: nodejs.NodejsFunction;
  /** Applies the callbacks buffered when DynamoDB could not be written. */
  readonly bufferConsumerFunction: nodejs.NodejsFunction;
  /** Raw callbacks the callback function could not store in time (guarantee 1). */
  readonly ingressBuffer: sqs.Queue;
  /** Buffered callbacks the consumer could not apply after 5 receives. */
  readonly ingressBufferDlq: sqs.Queue;
  /** The HMAC key that seals every buffered message (Secrets Manager, generated). */
  readonly ingressBufferSealKey: secretsmanager.Secret;
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
  /** ARNs the poller may read for the badge shops' credentials (`badges.shops.<shop>.secretId`). */
  readonly badgeShopSecretArns: string[];
  /** Every alarm notifies this topic (always present). */
  readonly alarmTopic: sns.ITopic;
  /** The cdk-monitoring-constructs facade: add your own monitoring to the relay's dashboard. */
  readonly monitoring: MonitoringFacade;
  /** The relay dashboard (`dashboard`). */
  readonly dashboard: cloudwatch.Dashboard | undefined;
  /** Every alarm of the relay. */
  readonly alarms: cloudwatch.AlarmBase[];

  private readonly logRetention: logs.RetentionDays;
  private readonly removalPolicy: RemovalPolicy;
  private readonly managementRoutes: apigwv2.HttpRoute[] = [];
  private subscribers?: Construct;
  private tracingLayer?: lambda.LayerVersion;

  constructor(scope: Construct, id: string, props: MobileMoneyRelayProps) {
    super(scope, id);
    // Validate before creating anything (and before bundling): a bad config or prop fails synth fast.
    this.config = validateForCloud(props.config);
    validateProps(props, this.config);
    const runtimeConfigJson = inlineConfigJson(props.config);
    this.eventSource = this.config.events.source;
    const baseHost = new URL(this.config.publicBaseUrl).hostname;
    if (props.cloudFront) {
      this.warnAboutEdge(props.cloudFront, baseHost);
    } else if (props.customDomain && !Token.isUnresolved(props.customDomain.domainName)) {
      if (baseHost !== props.customDomain.domainName.toLowerCase()) {
        Annotations.of(this).addWarningV2(
          'mobile-money-relay:publicBaseUrl-domain',
          `publicBaseUrl (${this.config.publicBaseUrl}) does not match the custom domain ${props.customDomain.domainName}: the callback URLs the relay hands out (MoMo X-Callback-Url) would point elsewhere. Set publicBaseUrl to https://${props.customDomain.domainName}.`,
        );
      }
    } else if (
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
    this.eventArchive =
      (props.eventArchive ?? true)
        ? new events.Archive(this, 'EventArchive', {
            sourceEventBus: this.eventBus,
            eventPattern: { source: [this.eventSource] },
            retention: props.eventArchiveRetention ?? Duration.days(30),
            description: `Replay archive of ${this.eventSource} events`,
          })
        : undefined;
    if (props.subscriberAccounts?.length) {
      // EventBridge's documented policy for rules other accounts create on this bus: each account
      // manages only the rules it created (events:creatorAccount), and only rules on the relay's events.
      new events.CfnEventBusPolicy(this, 'SubscriberPolicy', {
        eventBusName: this.eventBus.eventBusName,
        statementId: 'RelaySubscriberAccountsManageTheirRules',
        statement: {
          Sid: 'RelaySubscriberAccountsManageTheirRules',
          Effect: 'Allow',
          Principal: {
            AWS: props.subscriberAccounts.map((account) =>
              Stack.of(this).formatArn({
                service: 'iam',
                region: '',
                account,
                resource: 'root',
              }),
            ),
          },
          Action: [...SUBSCRIBER_RULE_ACTIONS],
          Resource: Stack.of(this).formatArn({
            service: 'events',
            resource: 'rule',
            resourceName: `${this.eventBus.eventBusName}/*`,
          }),
          Condition: {
            StringEqualsIfExists: {
              'events:creatorAccount': '${aws:PrincipalAccount}',
              'events:source': this.eventSource,
            },
          },
        },
      });
    }

    // ---- functions --------------------------------------------------------------------------------
    const memorySize = props.memorySize ?? 512;
    const logLevel = props.logLevel ?? 'INFO';
    this.metricsNamespace = props.metricsNamespace ?? DEFAULT_METRICS_NAMESPACE;
    const reserved = (id: RelayFunctionId, fallback?: number) => {
      const value = props.reservedConcurrency?.[id];
      return value === false ? undefined : (value ?? fallback);
    };
    const httpEnvironment = {
      TABLE_NAME: this.table.tableName,
      RELAY_CONFIG_JSON: runtimeConfigJson,
      EVENT_BUS_NAME: this.eventBus.eventBusName,
      EVENT_SOURCE: this.eventSource,
      LOG_LEVEL: logLevel,
    };
    this.callbackFunction = this.relayFunction('callback', {
      description: 'Provider callbacks: verify, store durably (or buffer), ack in the provider format',
      // Above the integration timeout (7.5 s, below Daraja's 8 s): API Gateway decides what a provider
      // sees, and a store write already under way may still land.
      timeout: CALLBACK_FUNCTION_TIMEOUT,
      memorySize,
      reservedConcurrency: reserved('callback', DEFAULT_CALLBACK_RESERVED_CONCURRENCY),
      environment: httpEnvironment,
    });
    this.managementFunction = this.relayFunction('management', {
      description:
        'Management API: register transactions, read state and history, check now, resolve, report (IAM-authorized)',
      timeout: Duration.seconds(10),
      memorySize,
      reservedConcurrency: reserved('management'),
      environment: httpEnvironment,
    });
    this.outboxPublisherFunction = this.relayFunction('outbox-publisher', {
      description: 'Publishes outbox events from the table stream to EventBridge',
      timeout: Duration.seconds(60),
      memorySize,
      reservedConcurrency: reserved('outbox-publisher'),
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
      reservedConcurrency: reserved('poller'),
      environment: {
        TABLE_NAME: this.table.tableName,
        RELAY_CONFIG_JSON: runtimeConfigJson,
        LOG_LEVEL: logLevel,
      },
    });
    this.transactionInitiatedFunction = this.relayFunction('transaction-initiated', {
      description: 'TransactionInitiated events from the partner: register the transaction',
      timeout: Duration.seconds(10),
      memorySize,
      reservedConcurrency: reserved('transaction-initiated'),
      environment: {
        TABLE_NAME: this.table.tableName,
        RELAY_CONFIG_JSON: runtimeConfigJson,
        LOG_LEVEL: logLevel,
      },
    });
    this.bufferConsumerFunction = this.relayFunction('buffer-consumer', {
      description: 'Applies the callbacks buffered in SQS when DynamoDB could not be written (origin buffer)',
      timeout: BUFFER_CONSUMER_TIMEOUT,
      memorySize,
      reservedConcurrency: reserved('buffer-consumer'),
      environment: {
        TABLE_NAME: this.table.tableName,
        RELAY_CONFIG_JSON: runtimeConfigJson,
        LOG_LEVEL: logLevel,
      },
    });

    // Table access: item reads/writes on this table only (no Scan, no table management); indexes
    // only where a function queries them.
    const indexArn = (index: { name: string }) => `${this.table.tableArn}/index/${index.name}`;
    for (const fn of [
      this.callbackFunction,
      this.managementFunction,
      this.transactionInitiatedFunction,
      this.bufferConsumerFunction,
    ]) {
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
      this.bufferConsumerFunction,
    ];
    if (props.tableEncryptionKey) {
      for (const fn of configReaders) {
        fn.addToRolePolicy(
          new iam.PolicyStatement({
            actions: [...TABLE_KEY_ACTIONS],
            resources: [props.tableEncryptionKey.keyArn],
            conditions: {
              StringEquals: {
                'kms:ViaService': `dynamodb.${Stack.of(this).region}.${Stack.of(this).urlSuffix}`,
              },
            },
          }),
        );
      }
    }

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

    // Badge shops' credentials (badges.shops.<shop>.secretId): only the poller runs the badge feed.
    this.badgeShopSecretArns = [
      ...new Set(
        Object.values(this.config.badges.shops).flatMap((shop) =>
          shop.secretId ? secretArns(Stack.of(this), shop.secretId) : [],
        ),
      ),
    ];
    if (this.badgeShopSecretArns.length) {
      this.pollerFunction.addToRolePolicy(
        new iam.PolicyStatement({
          actions: ['secretsmanager:GetSecretValue'],
          resources: this.badgeShopSecretArns,
        }),
      );
      // kms:Decrypt through Secrets Manager: already granted to the poller with the account secrets.
      if (props.secretsEncryptionKey && !this.accountSecretArns.length) {
        this.pollerFunction.addToRolePolicy(
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

    // ---- ingress buffer: callbacks DynamoDB could not take in time → SQS → the buffer consumer -------
    // The callback is acked once SQS has it (guarantee 1). The messages are the raw callbacks (redacted by
    // the provider module before they are written): encrypted with the table's customer-managed key when
    // there is one (they hold what the table holds), else SQS-managed. The buffer keeps a message 4 days
    // (a DynamoDB outage is hours; the alarm on its oldest message pages after 15 minutes); the DLQ 14,
    // counted from the original enqueue time, so a redrive has at least 10 days.
    const bufferEncryption = props.tableEncryptionKey
      ? { encryption: sqs.QueueEncryption.KMS, encryptionMasterKey: props.tableEncryptionKey }
      : { encryption: sqs.QueueEncryption.SQS_MANAGED };
    this.ingressBufferDlq = new sqs.Queue(this, 'IngressBufferDlq', {
      ...bufferEncryption,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    this.ingressBuffer = new sqs.Queue(this, 'IngressBuffer', {
      ...bufferEncryption,
      enforceSSL: true,
      retentionPeriod: Duration.days(4),
      visibilityTimeout: Duration.seconds(BUFFER_CONSUMER_TIMEOUT.toSeconds() * 6),
      deadLetterQueue: { queue: this.ingressBufferDlq, maxReceiveCount: 5 },
    });
    // The consumer applies a message as the callback function judged it (authenticated, verification
    // facts), so every message is sealed (HMAC) with this key, readable by those two functions only: a
    // principal allowed to send to the queue cannot make up a callback (docs/ingress-buffer.md).
    this.ingressBufferSealKey = new secretsmanager.Secret(this, 'IngressBufferSealKey', {
      description: 'Seals the ingress buffer messages of the mobile-money relay (HMAC key)',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      encryptionKey: props.secretsEncryptionKey,
    });
    for (const fn of [this.callbackFunction, this.bufferConsumerFunction]) {
      fn.addEnvironment('INGRESS_BUFFER_SEAL_SECRET_ID', this.ingressBufferSealKey.secretArn);
      fn.addToRolePolicy(
        new iam.PolicyStatement({
          actions: ['secretsmanager:GetSecretValue'],
          resources: [this.ingressBufferSealKey.secretArn],
        }),
      );
      if (props.secretsEncryptionKey) props.secretsEncryptionKey.grantDecrypt(fn);
    }
    this.callbackFunction.addEnvironment('INGRESS_BUFFER_QUEUE_URL', this.ingressBuffer.queueUrl);
    // SendMessage only (grantSendMessages would add GetQueueAttributes and GetQueueUrl).
    this.callbackFunction.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.ingressBuffer.queueArn] }),
    );
    if (props.tableEncryptionKey) {
      // Sending to a KMS-encrypted queue: a data key for the message (SQS calls KMS on the caller's behalf).
      this.callbackFunction.addToRolePolicy(
        new iam.PolicyStatement({
          actions: ['kms:GenerateDataKey', 'kms:Decrypt'],
          resources: [props.tableEncryptionKey.keyArn],
          conditions: {
            StringEquals: { 'kms:ViaService': `sqs.${Stack.of(this).region}.${Stack.of(this).urlSuffix}` },
          },
        }),
      );
    }
    this.bufferConsumerFunction.addEventSource(
      new SqsEventSource(this.ingressBuffer, {
        batchSize: 10,
        reportBatchItemFailures: true,
        // A recovering table is not stampeded by the backlog.
        maxConcurrency: props.bufferConsumerMaxConcurrency ?? 5,
      }),
    );

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
      defaultIntegration: new HttpLambdaIntegration('CallbackIntegration', this.callbackFunction, {
        timeout: CALLBACK_INTEGRATION_TIMEOUT,
      }),
    });
    const management = new HttpLambdaIntegration('ManagementIntegration', this.managementFunction);
    const iamAuthorizer = new HttpIamAuthorizer();
    for (const route of MANAGEMENT_ROUTES) {
      this.managementRoutes.push(
        ...this.api.addRoutes({
          path: route.path,
          methods: [route.method as apigwv2.HttpMethod],
          integration: management,
          authorizer: iamAuthorizer,
        }),
      );
    }
    if (props.customDomain) {
      this.domainName = new apigwv2.DomainName(this, 'CustomDomain', {
        domainName: props.customDomain.domainName,
        certificate: props.customDomain.certificate,
        securityPolicy: apigwv2.SecurityPolicy.TLS_1_2,
      });
    }
    const throttle = props.throttle ?? DEFAULT_CALLBACK_THROTTLE;
    this.stage = this.api.addStage('DefaultStage', {
      stageName: '$default',
      autoDeploy: true,
      throttle,
      domainMapping: this.domainName ? { domainName: this.domainName } : undefined,
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
    // Per-route throttling: the management routes get their own (lower) limits; `$default` keeps the
    // stage default. Route settings name route keys, so the stage waits for the routes.
    const managementThrottle = props.managementThrottle ?? DEFAULT_MANAGEMENT_THROTTLE;
    const cfnStage = this.stage.node.defaultChild as apigwv2.CfnStage;
    cfnStage.routeSettings = Object.fromEntries(
      MANAGEMENT_ROUTES.map((route) => [
        `${route.method} ${route.path}`,
        // RouteSettings is free-form JSON in CloudFormation's own (PascalCase) spelling.
        {
          ThrottlingRateLimit: managementThrottle.rateLimit,
          ThrottlingBurstLimit: managementThrottle.burstLimit,
        },
      ]),
    );
    for (const route of this.managementRoutes) cfnStage.node.addDependency(route);
    this.apiUrl = this.stage.url;
    this.distribution = props.cloudFront ? this.createDistribution(props.cloudFront) : undefined;
    this.publicUrl = this.distribution
      ? `https://${props.cloudFront?.domainNames?.[0] ?? this.distribution.distributionDomainName}/`
      : props.customDomain
        ? `https://${props.customDomain.domainName}/`
        : this.apiUrl;
    if (props.customDomain?.hostedZone && this.domainName) {
      const target = route53.RecordTarget.fromAlias(
        new route53Targets.ApiGatewayv2DomainProperties(
          this.domainName.regionalDomainName,
          this.domainName.regionalHostedZoneId,
        ),
      );
      const zone = props.customDomain.hostedZone;
      new route53.ARecord(this, 'CustomDomainAlias', {
        zone,
        recordName: props.customDomain.domainName,
        target,
      });
      new route53.AaaaRecord(this, 'CustomDomainAliasIpv6', {
        zone,
        recordName: props.customDomain.domainName,
        target,
      });
    }

    // ---- alarms and dashboard --------------------------------------------------------------------------
    this.alarmTopic = props.alarmTopic ?? this.createAlarmTopic();
    if (props.alarmEmail) this.alarmTopic.addSubscription(new EmailSubscription(props.alarmEmail));
    if (!props.alarmTopic && !props.alarmEmail) {
      Annotations.of(this).addWarningV2(
        'mobile-money-relay:alarmTopic',
        'Nobody is subscribed to the alarm topic: alarms will reach no one. Set ALARM_EMAIL (alarmEmail) or pass an alarmTopic you subscribe to (docs/deploy.md).',
      );
    }
    const silenceDefault = props.callbackSilencePeriod ?? Duration.hours(6);
    const relayMonitoring = new RelayMonitoring(
      this,
      'Monitoring',
      {
        functions: this.relayFunctions.map(([name, fn]) => ({ name, fn })),
        callbackFunction: this.callbackFunction,
        outboxPublisherFunction: this.outboxPublisherFunction,
        api: this.api,
        table: this.table,
        deadLetterQueues: [
          {
            name: 'Outbox',
            queue: this.outboxDlq,
            action:
              'stream batches the publisher could not publish after all retries. The items keep their outbox; re-publish once the cause is fixed (docs/deploy.md).',
          },
          {
            name: 'PollSchedule',
            queue: this.pollScheduleDlq,
            action:
              'EventBridge Scheduler could not invoke the poller: check the schedule role and the poller concurrency.',
          },
          {
            name: 'TransactionInitiated',
            queue: this.transactionInitiatedDlq,
            action:
              'TransactionInitiated events could not be registered after all retries: the transactions are unknown to the relay. Replay them with put-events once the cause is fixed (docs/deploy.md).',
          },
        ],
        ingressBuffer: this.ingressBuffer,
        ingressBufferDlq: this.ingressBufferDlq,
        accounts: [...this.config.accounts.values()].map((a) => ({ provider: a.provider, account: a.id })),
      },
      {
        metricsNamespace: this.metricsNamespace,
        alarmTopic: this.alarmTopic,
        namePrefix: monitoringNamePrefix(this),
        dashboard: props.dashboard ?? true,
        iteratorAgeThreshold: props.iteratorAgeAlarmThreshold ?? Duration.minutes(2),
        callbackLatencyThreshold: props.callbackLatencyAlarmThreshold ?? Duration.seconds(6),
        callbackSilence: (provider, account) =>
          props.callbackSilencePeriods?.[`${provider}/${account}`] ?? silenceDefault,
        rejectedCallbacksThreshold: props.rejectedCallbacksAlarmThreshold ?? 20,
        bufferMaxAge: props.ingressBufferMaxAge ?? Duration.minutes(15),
      },
    );
    this.monitoring = relayMonitoring.facade;
    this.dashboard = relayMonitoring.dashboard;
    this.alarms = relayMonitoring.alarms;

    this.addNagSuppressions();
  }

  /** The relay's functions with the names their alarms use. */
  get relayFunctions(): Array<[string, nodejs.NodejsFunction]> {
    return [
      ['Callback', this.callbackFunction],
      ['Management', this.managementFunction],
      ['OutboxPublisher', this.outboxPublisherFunction],
      ['Poller', this.pollerFunction],
      ['TransactionInitiated', this.transactionInitiatedFunction],
      ['BufferConsumer', this.bufferConsumerFunction],
    ];
  }

  /**
   * Lets `grantee` call the management API (`execute-api:Invoke` on the management routes of the
   * `$default` stage, never the provider `$default` route). `operator: false` leaves out check, resolve
   * and the report (a partner service that only registers and reads transactions).
   */
  grantManagementApi(grantee: iam.IGrantable, options: { operator?: boolean } = {}): iam.Grant {
    const routes = MANAGEMENT_ROUTES.filter((route) => (options.operator ?? true) || !route.operator);
    return iam.Grant.addToPrincipal({
      grantee,
      actions: ['execute-api:Invoke'],
      resourceArns: routes.map((route) =>
        this.api.arnForExecuteApi(route.method, route.path.replace(/\{[^}]+\}/g, '*'), '$default'),
      ),
    });
  }

  /**
   * A rule on the relay bus delivering the relay's events of `detailTypes` (optionally of some
   * providers/accounts) to `target`. Delivery is at least once: dedupe on `detail.metadata.id`.
   */
  addSubscriber(id: string, options: RelaySubscriberOptions): events.Rule {
    if (!options.detailTypes.length) {
      throw new ConfigError(`addSubscriber(${id}): detailTypes: name at least one event type`);
    }
    const data: Record<string, string[]> = {};
    if (options.providers?.length) data.provider = options.providers;
    if (options.accounts?.length) data.account = options.accounts;
    this.subscribers ??= new Construct(this, 'Subscribers');
    return new events.Rule(this.subscribers, id, {
      eventBus: this.eventBus,
      description: options.description ?? `Relay events (${options.detailTypes.join(', ')}) for ${id}`,
      eventPattern: {
        source: [this.eventSource],
        detailType: options.detailTypes,
        ...(Object.keys(data).length ? { detail: { data } } : {}),
      },
      targets: [options.target],
    });
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
    // Powertools Tracer and the X-Ray SDK, shared by every function (shared/adapters/tracing/xray.ts).
    this.tracingLayer ??= new lambda.LayerVersion(this, 'TracingLayer', {
      code: lambda.Code.fromAsset(buildTracingLayer()),
      compatibleRuntimes: [lambda.Runtime.NODEJS_22_X],
      compatibleArchitectures: [lambda.Architecture.ARM_64],
      description: 'Powertools Tracer and the X-Ray SDK for the relay functions (relay-tracing)',
    });
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
      layers: [this.tracingLayer],
      environment: {
        ...options.environment,
        POWERTOOLS_SERVICE_NAME: serviceName,
        POWERTOOLS_METRICS_NAMESPACE: this.metricsNamespace,
        // Traces keep timings and errors, never handler responses: acks, transactions and reports
        // carry MSISDNs, amounts and references.
        POWERTOOLS_TRACER_CAPTURE_RESPONSE: 'false',
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

  /**
   * The CloudFront edge: the HTTP API as its only origin (HTTPS, TLS 1.2), every method, nothing cached,
   * every viewer header but Host forwarded plus CloudFront's own (CloudFront-Viewer-Address among them:
   * the managed AllViewerExceptHostHeader policy, API Gateway refuses a foreign Host), the query string,
   * the body, and the origin secret in `x-relay-origin-verify` (CloudFront overwrites a viewer's header
   * of that name).
   */
  private createDistribution(edge: RelayCloudFrontEdge): cloudfront.Distribution {
    const stack = Stack.of(this);
    const secret =
      edge.originVerifySecret === undefined
        ? this.config.edge.originVerifySecrets[0]!
        : typeof edge.originVerifySecret === 'string'
          ? edge.originVerifySecret
          : edge.originVerifySecret.unsafeUnwrap();
    const origin = new cloudfrontOrigins.HttpOrigin(
      `${this.api.apiId}.execute-api.${stack.region}.${stack.urlSuffix}`,
      {
        protocolPolicy: cloudfront.OriginProtocolPolicy.HTTPS_ONLY,
        originSslProtocols: [cloudfront.OriginSslPolicy.TLS_V1_2],
        customHeaders: { [ORIGIN_VERIFY_HEADER]: secret },
      },
    );
    const distribution = new cloudfront.Distribution(this, 'Edge', {
      comment: 'Mobile-money relay: provider callbacks through AWS WAF',
      defaultBehavior: {
        origin,
        viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
        allowedMethods: cloudfront.AllowedMethods.ALLOW_ALL,
        cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
        originRequestPolicy: cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
        compress: false,
      },
      priceClass: edge.priceClass ?? cloudfront.PriceClass.PRICE_CLASS_200,
      webAclId: edge.webAclArn,
      domainNames: edge.domainNames,
      certificate: edge.certificate,
      minimumProtocolVersion: edge.certificate ? cloudfront.SecurityPolicyProtocol.TLS_V1_2_2021 : undefined,
      enableLogging: false,
    });
    const suppressions = [
      {
        id: 'AwsSolutions-CFR1',
        reason:
          'The relay CloudFront distribution serves mobile-money provider callbacks: providers call from their own networks, whose countries are not documented and change; a geo restriction would refuse real callbacks (MoMo never retries). The Daraja source-IP allow-list, path secrets and the Airtel hash authenticate callbacks instead.',
      },
      {
        id: 'AwsSolutions-CFR3',
        reason:
          'CloudFront standard access logs of the relay distribution would record every request URI, and provider callback paths carry per-account path secrets; the API stage access log deliberately omits the path. Every callback is kept as a receipt or in quarantine (with the viewer IP), and the web ACL has CloudWatch metrics and sampled requests.',
      },
    ];
    if (!edge.certificate) {
      suppressions.push({
        id: 'AwsSolutions-CFR4',
        reason:
          'The relay distribution uses its *.cloudfront.net default certificate, with which CloudFront cannot enforce a minimum TLS version; give cloudFront.domainNames and a us-east-1 certificate to require TLS 1.2 (TLSv1.2_2021). The origin connection is HTTPS with TLS 1.2 only.',
      });
    }
    if (!edge.webAclArn) {
      suppressions.push({
        id: 'AwsSolutions-CFR2',
        reason:
          'The relay distribution was created without cloudFront.webAclArn (the construct warns at synth): deploy RelayEdgeWebAclStack in us-east-1 and pass its WebAclArn. Callbacks are still authenticated by the relay (origin secret, path secrets, Airtel hash, Daraja allow-list).',
      });
    }
    NagSuppressions.addResourceSuppressions(distribution, suppressions);
    return distribution;
  }

  /** Synth warnings for a CloudFront edge the config does not match. */
  private warnAboutEdge(edge: RelayCloudFrontEdge, baseHost: string): void {
    const mode = this.config.edge.mode;
    if (mode !== 'cloudfront') {
      Annotations.of(this).addWarningV2(
        'mobile-money-relay:edge-mode',
        `cloudFront creates a distribution, but edge.mode is "${mode}": callbacks that go around it to the execute-api URL are not refused${mode === 'direct' ? ", and Daraja's source-IP check sees CloudFront addresses (refusing every Daraja callback through CloudFront in enforce mode)" : ''}. Once providers use the distribution's URL, set edge.mode to "cloudfront" (docs/deploy.md).`,
      );
    }
    const names = (edge.domainNames ?? []).filter((n) => !Token.isUnresolved(n)).map((n) => n.toLowerCase());
    if (!names.includes(baseHost) && !baseHost.endsWith('.cloudfront.net')) {
      Annotations.of(this).addWarningV2(
        'mobile-money-relay:publicBaseUrl-edge',
        `publicBaseUrl (${this.config.publicBaseUrl}) does not point at the CloudFront distribution${names.length ? ` (${names.join(', ')})` : ''}: the callback URLs the relay hands out would go around the web ACL${this.config.edge.mode === 'cloudfront' ? ', and the relay refuses those callbacks' : ''}. Set it to the EdgeUrl output (https://<id>.cloudfront.net) or to ${names.length ? `https://${names[0]}` : 'a domain you point at the distribution'}.`,
      );
    }
    if (!edge.webAclArn) {
      Annotations.of(this).addWarningV2(
        'mobile-money-relay:edge-web-acl',
        'cloudFront has no webAclArn: the distribution adds no protection without a web ACL. Deploy RelayEdgeWebAclStack in us-east-1 (RELAY_WEB_ACL_STACK=on) and pass its WebAclArn (RELAY_WEB_ACL_ARN).',
      );
    }
  }

  private createAlarmTopic(): sns.Topic {
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
    return topic;
  }

  /** Every suppression names the resource it is about and why the finding does not apply. */
  private addNagSuppressions(): void {
    NagSuppressions.addResourceSuppressions(this.ingressBufferSealKey, [
      {
        id: 'AwsSolutions-SMG4',
        reason:
          'The ingress buffer seal key is an HMAC key between two functions of this stack, never given to a person or a provider. Rotating it would make the messages sealed with the old key, still in the queue or its DLQ (up to 14 days), unappliable; replace it by hand after the queues are empty (docs/ingress-buffer.md).',
      },
    ]);
    const defaultRoute = this.api.node.findChild('DefaultRoute');
    NagSuppressions.addResourceSuppressions(defaultRoute, [
      {
        id: 'AwsSolutions-APIG4',
        reason:
          'The $default route receives mobile-money provider callbacks. Providers (MoMo, Airtel, Daraja) cannot sign requests or send IAM/JWT credentials; the callback handler authenticates each request itself (per-account path secret compared in constant time, Airtel HMAC hash, Daraja source-IP allow-list) and quarantines rejected ones.',
      },
    ]);
    for (const [, fn] of this.relayFunctions) {
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
      this.bufferConsumerFunction,
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
    const dlqs: Array<[sqs.Queue, string]> = [
      [
        this.outboxDlq,
        'the on-failure destination of the outbox stream event source mapping. A DLQ of a DLQ would only hide failures; the OutboxDlq alarm pages on one message.',
      ],
      [
        this.pollScheduleDlq,
        'poll cycles EventBridge Scheduler could not hand to the poller function. A DLQ of a DLQ would only hide failures; the PollScheduleDlq alarm pages on one message.',
      ],
      [
        this.transactionInitiatedDlq,
        'TransactionInitiated events the rule could not deliver or the function could not register. A DLQ of a DLQ would only hide failures; the TransactionInitiatedDlq alarm pages on one message.',
      ],
      [
        this.ingressBufferDlq,
        'buffered callbacks the buffer consumer could not apply after 5 receives (redrive policy of the IngressBuffer queue). A DLQ of a DLQ would only hide failures; the IngressBuffer DLQ alarm pages on one message.',
      ],
    ];
    for (const [queue, what] of dlqs) {
      NagSuppressions.addResourceSuppressions(queue, [
        { id: 'AwsSolutions-SQS3', reason: `This queue is itself a dead-letter queue: ${what}` },
      ]);
    }
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

/**
 * The construct's own props, checked before anything is created; every problem is listed at once,
 * each naming the prop.
 */
function validateProps(props: MobileMoneyRelayProps, config: RelayConfig): void {
  const problems: string[] = [];
  const positiveInteger = (
    name: string,
    value: number | undefined,
    min = 1,
    max = Number.MAX_SAFE_INTEGER,
  ) => {
    if (value === undefined || Token.isUnresolved(value)) return;
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push(`${name}: a whole number from ${min} to ${max} (got ${value})`);
    }
  };
  const pollInterval = props.pollInterval ?? Duration.minutes(1);
  const minutes = pollInterval.toMinutes({ integral: false });
  if (minutes < 1 || !Number.isInteger(minutes)) {
    problems.push(`pollInterval: whole minutes, at least 1 (got ${pollInterval.toHumanString()})`);
  }
  const sources = props.transactionInitiatedSources;
  if (sources && sources.length === 0) {
    problems.push('transactionInitiatedSources: name at least one source (or leave it out for any)');
  }
  if (sources?.includes(config.events.source)) {
    problems.push(
      `transactionInitiatedSources: "${config.events.source}" is the relay's own source (events.source); the relay never initiates transactions`,
    );
  }
  positiveInteger('memorySize', props.memorySize, 128, 10240);
  for (const [fn, value] of Object.entries(props.reservedConcurrency ?? {})) {
    if (!(fn in RELAY_FUNCTIONS)) {
      problems.push(
        `reservedConcurrency.${fn}: unknown function (one of ${Object.keys(RELAY_FUNCTIONS).join(', ')})`,
      );
    } else if (value !== false) {
      // 0 would throttle every invocation: a silent outage, never what anyone means.
      positiveInteger(`reservedConcurrency.${fn}`, value, 1, 10000);
    }
  }
  for (const [name, throttle] of [
    ['throttle', props.throttle],
    ['managementThrottle', props.managementThrottle],
  ] as const) {
    if (!throttle) continue;
    if (!(throttle.rateLimit > 0))
      problems.push(`${name}.rateLimit: more than 0 requests per second (got ${throttle.rateLimit})`);
    positiveInteger(`${name}.burstLimit`, throttle.burstLimit, 1, 5000);
  }
  positiveInteger('bufferConsumerMaxConcurrency', props.bufferConsumerMaxConcurrency, 2, 1000);
  positiveInteger('rejectedCallbacksAlarmThreshold', props.rejectedCallbacksAlarmThreshold, 1);
  const silences: Array<[string, Duration | false | undefined]> = [
    ['callbackSilencePeriod', props.callbackSilencePeriod],
    ...Object.entries(props.callbackSilencePeriods ?? {}).map(
      ([key, value]) => [`callbackSilencePeriods["${key}"]`, value] as [string, Duration | false],
    ),
  ];
  for (const [name, period] of silences) {
    if (period === undefined || period === false) continue;
    const seconds = period.toSeconds({ integral: false });
    if (seconds < 300 || seconds > 86_400 || seconds % 60 !== 0) {
      problems.push(
        `${name}: whole minutes from 5 minutes to 24 hours, or false (got ${period.toHumanString()})`,
      );
    }
  }
  for (const key of Object.keys(props.callbackSilencePeriods ?? {})) {
    if (!config.accounts.has(key)) {
      problems.push(
        `callbackSilencePeriods["${key}"]: no such account in the config (keys are "<provider>/<account>": ${[...config.accounts.keys()].join(', ')})`,
      );
    }
  }
  const latency = props.callbackLatencyAlarmThreshold;
  if (
    latency &&
    (latency.toMilliseconds() <= 0 || latency.toMilliseconds() > CALLBACK_FUNCTION_TIMEOUT.toMilliseconds())
  ) {
    problems.push(
      `callbackLatencyAlarmThreshold: more than 0 and at most the callback timeout ${CALLBACK_FUNCTION_TIMEOUT.toHumanString()} (got ${latency.toHumanString()})`,
    );
  }
  if (props.alarmEmail !== undefined && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(props.alarmEmail)) {
    problems.push(`alarmEmail: not an e-mail address (got "${props.alarmEmail}")`);
  }
  if (props.subscriberAccounts) {
    if (props.eventBus) {
      problems.push(
        'subscriberAccounts: only for the bus the relay creates; set the policy of your own bus (eventBus) yourself (docs/deploy.md)',
      );
    }
    for (const account of props.subscriberAccounts) {
      if (!/^\d{12}$/.test(account))
        problems.push(`subscriberAccounts: "${account}" is not a 12-digit AWS account id`);
    }
  }
  const domain = props.customDomain;
  if (domain) {
    if (!domain.certificate)
      problems.push(
        'customDomain.certificate: required (an ACM certificate for the domain, in the stack region)',
      );
    if (
      !Token.isUnresolved(domain.domainName) &&
      !/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i.test(domain.domainName)
    ) {
      problems.push(`customDomain.domainName: not a domain name (got "${domain.domainName}")`);
    }
  }
  const edge = props.cloudFront;
  if (edge) {
    const secret = edge.originVerifySecret;
    if (secret === undefined && config.edge.originVerifySecrets.length === 0) {
      problems.push(
        'cloudFront.originVerifySecret: required unless the config has edge.originVerifySecrets (the first one is used)',
      );
    }
    if (
      typeof secret === 'string' &&
      !Token.isUnresolved(secret) &&
      !config.edge.originVerifySecrets.includes(secret)
    ) {
      problems.push(
        "cloudFront.originVerifySecret: not one of the config's edge.originVerifySecrets: the relay would refuse every callback coming through the distribution",
      );
    }
    if (
      edge.webAclArn &&
      !Token.isUnresolved(edge.webAclArn) &&
      !/^arn:aws[\w-]*:wafv2:us-east-1:\d{12}:global\/webacl\/[^/]+\/[^/]+$/.test(edge.webAclArn)
    ) {
      problems.push(
        `cloudFront.webAclArn: not the ARN of a CLOUDFRONT-scope web ACL (arn:aws:wafv2:us-east-1:<account>:global/webacl/<name>/<id>; got "${edge.webAclArn}")`,
      );
    }
    if (Boolean(edge.domainNames?.length) !== Boolean(edge.certificate)) {
      problems.push(
        'cloudFront.domainNames, cloudFront.certificate: give both (the certificate in us-east-1) or neither',
      );
    }
  }
  // An ack budget past the integration timeout: API Gateway would answer 504 before the buffer is tried.
  for (const provider of new Set([...PROVIDERS.map((p) => p.id), ...Object.keys(config.ackBudgets)])) {
    const { ackMs } = ackBudgetFor(config, provider);
    if (ackMs > CALLBACK_INTEGRATION_TIMEOUT.toMilliseconds() - 500) {
      problems.push(
        `ackBudgets.${provider}.ackMs: ${ackMs} ms leaves no room inside the callback integration timeout (${CALLBACK_INTEGRATION_TIMEOUT.toMilliseconds()} ms; at most ${CALLBACK_INTEGRATION_TIMEOUT.toMilliseconds() - 500})`,
      );
    }
  }
  // The event source polls with up to maxConcurrency invocations; reserved concurrency below it throttles
  // them, and a throttled poll still counts as a receive towards the DLQ.
  const consumerReserved = props.reservedConcurrency?.['buffer-consumer'];
  const consumerMax = props.bufferConsumerMaxConcurrency ?? 5;
  if (typeof consumerReserved === 'number' && consumerReserved < consumerMax) {
    problems.push(
      `reservedConcurrency.buffer-consumer: ${consumerReserved} is below bufferConsumerMaxConcurrency (${consumerMax}); throttled polls count as receives and send buffered callbacks to the DLQ`,
    );
  }
  // A C2B deadline longer than the integration timeout could never be answered.
  for (const account of config.accounts.values()) {
    const c2b = account.settings.c2b as { deadlineMs?: number } | undefined;
    if (
      account.provider === 'daraja' &&
      c2b?.deadlineMs &&
      c2b.deadlineMs > CALLBACK_INTEGRATION_TIMEOUT.toMilliseconds()
    ) {
      problems.push(
        `accounts.daraja.${account.id}.c2b.deadlineMs: above the callback integration timeout (${CALLBACK_INTEGRATION_TIMEOUT.toMilliseconds()} ms, cap ${C2B_DEADLINE_CAP_MS} ms)`,
      );
    }
  }
  if (problems.length) throw new ConfigError(`Invalid MobileMoneyRelay props:\n${problems.join('\n')}`);
}
