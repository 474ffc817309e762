import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import type * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import type * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as events from 'aws-cdk-lib/aws-events';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as scheduler from 'aws-cdk-lib/aws-scheduler';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { MonitoringFacade } from 'cdk-monitoring-constructs';
import { Construct } from 'constructs';
import { DEFAULT_METRICS_NAMESPACE } from '../shared/config/metric-names';
import { defaultRelayNamespace } from './monitoring';
import type { RelayConfig } from '../shared/config/relay-config';
import { alarmTopicsFor, configuredProviders, monitorRelay } from './relay/alarms';
import { addCustomDomainRecords, createHttpApi, grantManagementRoutes, type RelayHttpApi } from './relay/api';
import { createConsole, type RelayConsole } from './relay/console';
import { createDistribution, createEdgeProbe, createOriginAuthorizer } from './relay/edge';
import { createDelivery, deliveryAlarms, destinationProblems } from './relay/delivery';
import { createRelayEvents, createSubscriberRule, restrictRelaySource } from './relay/events';
import {
  createRelayFunctions,
  namedRelayFunctions,
  type RelayDecisionFunction,
  type RelayFunctions,
} from './relay/functions';
import { createIngressBuffer } from './relay/ingress-buffer';
import { suppressEdgeFindings, suppressRelayFindings } from './relay/nag-suppressions';
import { connectOutbox } from './relay/outbox';
import type { MobileMoneyRelayProps, RelaySubscriberOptions } from './relay/props';
import { schedulePolling } from './relay/reconciliation';
import { createStatementFiles } from './relay/statement-files';
import { pullAlarms } from './relay/statements';
import { registerInitiatedTransactions } from './relay/registration';
import { DEFAULT_SECRET_NAME_PREFIX, grantConfigSecrets, planSecretGrants } from './relay/secrets';
import { createTable, grantTableAccess } from './relay/storage';
import { validateForCloud, validateProps, warnAboutConfig } from './relay/validate';
import { runtimeConfigJson } from './runtime-config';

export { MANAGEMENT_ROUTES } from './relay/api';
export { SUBSCRIBER_RULE_ACTIONS } from './relay/events';
export {
  BUFFER_CONSUMER_TIMEOUT,
  CALLBACK_FUNCTION_TIMEOUT,
  CALLBACK_INTEGRATION_TIMEOUT,
  DEFAULT_CALLBACK_RESERVED_CONCURRENCY,
  DEFAULT_CALLBACK_THROTTLE,
  DEFAULT_MANAGEMENT_THROTTLE,
} from './relay/limits';
export { OUTBOX_FILTER_PATTERN } from './relay/outbox';
export type {
  MobileMoneyRelayProps,
  RelayCloudFrontEdge,
  RelayCustomDomain,
  RelaySubscriberOptions,
  RelayThrottle,
} from './relay/props';
export { DEFAULT_SECRET_NAME_PREFIX, secretArns } from './relay/secrets';
export { POLLER_TABLE_ACTIONS, TABLE_DATA_ACTIONS, TABLE_KEY_ACTIONS } from './relay/storage';

/**
 * The mobile-money callback relay: one DynamoDB table (its stream is the outbox; `due` and `byDay`
 * indexes), an EventBridge bus with an archive, an HTTP API (public provider callbacks on `$default`,
 * the management API behind IAM), the callback and management functions, the outbox publisher, the
 * reconciliation poller (EventBridge Scheduler), the `TransactionInitiated` consumer (an EventBridge
 * rule), the ingress buffer (SQS) with its consumer, DLQs, a CloudWatch dashboard and alarms
 * (cdk-monitoring-constructs) on an SNS topic.
 *
 * Each part is built by a function in infra/relay/ that creates its resources directly in this
 * construct, not in a child construct of its own: a child scope would change every logical id, and
 * CloudFormation would replace the table, the queues and the bus of every deployed relay.
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
  /**
   * The callback code on each provider decision route (C2B validation: `C2bValidationFunction`),
   * with the callback function's role and a reserved concurrency of its own.
   */
  readonly decisionFunctions: ReadonlyArray<RelayDecisionFunction>;
  readonly managementFunction: nodejs.NodejsFunction;
  readonly outboxPublisherFunction: nodejs.NodejsFunction;
  readonly pollerFunction: nodejs.NodejsFunction;
  readonly transactionInitiatedFunction: nodejs.NodejsFunction;
  /** Applies the callbacks buffered when DynamoDB could not be written. */
  readonly bufferConsumerFunction: nodejs.NodejsFunction;
  /** Imports the files uploaded to `statementBucket`; closes the due days (`dayCloseSchedule`). */
  readonly statementsFunction: nodejs.NodejsFunction;
  /**
   * The statement files (docs/statements.md#in-aws): private, SSE-S3, TLS only, lifecycle. An object
   * created under `statements/<provider>/<account>/[template=<name>/]<file>` is imported; its answer is
   * written to `reports/…/<file>.json`. Who may upload: `grantStatementUpload` (or your own bucket policy).
   */
  readonly statementBucket: s3.Bucket;
  /** Closes the due business days every `dayCloseInterval`. */
  readonly dayCloseSchedule: scheduler.Schedule;
  /** Raw callbacks the callback function could not store in time (guarantee 1). */
  readonly ingressBuffer: sqs.Queue;
  /** Buffered callbacks the consumer could not apply after 5 receives. */
  readonly ingressBufferDlq: sqs.Queue;
  /**
   * The HMAC key that seals every buffered message (Secrets Manager, generated); undefined when the
   * config's `ingressBuffer.sealSecretId` names a secret member for it.
   */
  readonly ingressBufferSealKey: secretsmanager.Secret | undefined;
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
  /**
   * IAM resources `secretsmanager:GetSecretValue` is granted on for the callbackSecretId, apiSecretId,
   * edge.originVerifySecretId: per kind the `secretNamePrefix` pattern, then the ids outside it.
   */
  readonly accountSecretArns: string[];
  /** ARNs the poller may read for the badge shops' credentials (`badges.shops.<shop>.secretId`). */
  readonly badgeShopSecretArns: string[];
  /** The page topic: alarms that need a person now (always present; `alarmTopic` = `pageTopic`). */
  readonly alarmTopic: sns.ITopic;
  /** The ticket topic: alarms that need a person in working hours (docs/monitoring.md). */
  readonly ticketTopic: sns.ITopic;
  /** The cdk-monitoring-constructs facade: add your own monitoring to the relay's dashboard. */
  readonly monitoring: MonitoringFacade;
  /** The relay dashboard (`dashboard`). */
  readonly dashboard: cloudwatch.Dashboard | undefined;
  /** Every alarm of the relay. */
  readonly alarms: cloudwatch.AlarmBase[];
  /** The operator console (`console` prop): its user pool, API, bucket, distribution and URL. */
  readonly console: RelayConsole | undefined;
  /** Webhook deliveries (with `destinations`): the delivery function (docs/webhooks.md#in-aws). */
  readonly deliveryFunction: nodejs.NodejsFunction | undefined;
  /** Per destination: its EventBridge rule and SQS queue. */
  readonly deliveryDestinations: Readonly<Record<string, { rule: events.Rule; queue: sqs.Queue }>>;
  /** Delivery messages the function could not process, and events a destination rule could not queue. */
  readonly deliveryDlq: sqs.Queue | undefined;

  constructor(scope: Construct, id: string, props: MobileMoneyRelayProps) {
    super(scope, id);
    this.config = validateRelay(this, props);
    this.eventSource = this.config.events.source;
    // One namespace per relay: two relays in one account must not feed (and trip) each other's alarms.
    this.metricsNamespace = props.metricsNamespace ?? defaultRelayNamespace(this, DEFAULT_METRICS_NAMESPACE);
    const logging: RelayLogging = {
      logRetention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    };

    // The order below is the order the resources appear in the template (and in each role's policy).
    this.table = createTable(this, {
      encryptionKey: props.tableEncryptionKey,
      removalPolicy: logging.removalPolicy,
    });
    ({ eventBus: this.eventBus, eventArchive: this.eventArchive } = createRelayEvents(
      this,
      this.config,
      props,
    ));
    const fns = createFunctions(this, props, logging);
    this.callbackFunction = fns.callback;
    this.decisionFunctions = fns.decisions;
    this.managementFunction = fns.management;
    this.outboxPublisherFunction = fns.outboxPublisher;
    this.pollerFunction = fns.poller;
    this.transactionInitiatedFunction = fns.transactionInitiated;
    this.bufferConsumerFunction = fns.bufferConsumer;
    this.statementsFunction = fns.statements;
    this.deliveryFunction = fns.delivery;
    ({ accountSecretArns: this.accountSecretArns, badgeShopSecretArns: this.badgeShopSecretArns } =
      grantFunctionAccess(this, fns, props));

    ({
      queue: this.ingressBuffer,
      dlq: this.ingressBufferDlq,
      sealKey: this.ingressBufferSealKey,
    } = bufferCallbacks(this, fns, props));
    this.outboxDlq = connectOutbox(this, this.table, fns.outboxPublisher, this.eventBus);
    restrictRelaySource(this, this.eventBus, this.eventSource, fns.outboxPublisher.role as iam.IRole);
    const reconciliation = schedulePolling(this, fns.poller, props);
    ({ schedule: this.pollSchedule, dlq: this.pollScheduleDlq } = reconciliation);
    ({ rule: this.transactionInitiatedRule, dlq: this.transactionInitiatedDlq } = registerTransactions(
      this,
      fns,
      props,
    ));
    const delivery = deliverWebhooks(this, fns, props);
    this.deliveryDestinations = delivery?.destinations ?? {};
    this.deliveryDlq = delivery?.dlq;

    const exposed = exposeRelay(this, fns, props, logging);
    ({ api: this.api, stage: this.stage, domainName: this.domainName } = exposed.http);
    ({ apiUrl: this.apiUrl, distribution: this.distribution, publicUrl: this.publicUrl } = exposed);
    this.console = props.console ? createConsole(this, fns.management, props.console, logging) : undefined;

    ({ page: this.alarmTopic, ticket: this.ticketTopic } = alarmTopicsFor(this, props));
    ({
      facade: this.monitoring,
      dashboard: this.dashboard,
      alarms: this.alarms,
    } = watchRelay(this, fns, exposed, props));
    const statementFiles = createStatementFiles(
      this,
      fns.statements,
      {
        removalPolicy: logging.removalPolicy,
        metricsNamespace: this.metricsNamespace,
        ticketTopic: this.ticketTopic,
      },
      props,
    );
    this.statementBucket = statementFiles.bucket;
    this.dayCloseSchedule = statementFiles.closeSchedule;
    this.alarms.push(...statementFiles.alarms, ...watchDelivery(this, delivery));

    suppressFindings(this, fns, exposed.http, reconciliation.scheduleRole);
  }

  /** The relay's functions with the names their alarms use. */
  get relayFunctions(): Array<[string, nodejs.NodejsFunction]> {
    return namedRelayFunctions({
      callback: this.callbackFunction,
      management: this.managementFunction,
      outboxPublisher: this.outboxPublisherFunction,
      poller: this.pollerFunction,
      transactionInitiated: this.transactionInitiatedFunction,
      bufferConsumer: this.bufferConsumerFunction,
      statements: this.statementsFunction,
      ...(this.deliveryFunction ? { delivery: this.deliveryFunction } : {}),
      decisions: this.decisionFunctions,
    });
  }

  /**
   * Lets `grantee` call the management API (`execute-api:Invoke` on the management routes of the
   * `$default` stage, never the provider `$default` route). `operator: false` leaves out check, resolve
   * and the report (a partner service that only registers and reads transactions).
   */
  grantManagementApi(grantee: iam.IGrantable, options: { operator?: boolean } = {}): iam.Grant {
    return grantManagementRoutes(this.api, grantee, options);
  }

  /**
   * Lets `grantee` upload statement files (s3:PutObject under `statements/`): each upload is imported with
   * the uploader's principal as the operator on its evidence (docs/statements.md#in-aws). Uploaders may
   * also read the reports (s3:GetObject under `reports/`).
   */
  grantStatementUpload(grantee: iam.IGrantable): iam.Grant {
    const upload = this.statementBucket.grantPut(grantee, 'statements/*');
    this.statementBucket.grantRead(grantee, 'reports/*');
    return upload;
  }

  /**
   * A rule on the relay bus delivering the relay's events of `detailTypes` (optionally of some
   * providers/accounts) to `target`. Delivery is at least once: dedupe on `detail.metadata.id`. The
   * target gets EventBridge's longest retries (24 hours) and a DLQ of its own, and one message in that
   * DLQ pages (`<id>DlqAlarm`).
   */
  addSubscriber(id: string, options: RelaySubscriberOptions): events.Rule {
    const { rule, alarm } = createSubscriberRule(
      this,
      id,
      this.eventBus,
      this.eventSource,
      options,
      this.alarmTopic,
    );
    this.alarms.push(alarm);
    return rule;
  }
}

// The constructor's steps. Each reads the relay fields set before it and creates its resources in the
// relay itself (never a child scope: logical ids stay as they are), in the order of the template.

/** Where the relay's functions and API log, and what happens to its data when the stack is deleted. */
interface RelayLogging {
  readonly logRetention: logs.RetentionDays;
  readonly removalPolicy: RemovalPolicy;
}

/** The relay functions (infra/relay/functions.ts), with what they are configured with. */
function createFunctions(
  relay: MobileMoneyRelay,
  props: MobileMoneyRelayProps,
  logging: RelayLogging,
): RelayFunctions {
  return createRelayFunctions(relay, props, {
    table: relay.table,
    eventBus: relay.eventBus,
    eventSource: relay.eventSource,
    runtimeConfigJson: runtimeConfigJson(props.config),
    providers: configuredProviders(relay.config),
    config: relay.config,
    metricsNamespace: relay.metricsNamespace,
    ...logging,
  });
}

/** The rule that hands the partner's `TransactionInitiated` events to the transaction-initiated function. */
function registerTransactions(relay: MobileMoneyRelay, fns: RelayFunctions, props: MobileMoneyRelayProps) {
  return registerInitiatedTransactions(relay, fns.transactionInitiated, relay.eventBus, {
    eventSource: relay.eventSource,
    sources: props.transactionInitiatedSources,
  });
}

/**
 * The config checked for AWS before anything is created (and before bundling): a bad config or prop
 * fails synth fast. Returns the validated config.
 */
function validateRelay(relay: MobileMoneyRelay, props: MobileMoneyRelayProps): RelayConfig {
  const config = validateForCloud(props.config, { allowInlineSecrets: props.allowInlineSecrets });
  const secretNamePrefix = props.secretNamePrefix ?? DEFAULT_SECRET_NAME_PREFIX;
  // Secret ids that cannot be granted fail here, before anything is built (planned again at the grant).
  planSecretGrants(Stack.of(relay), config, secretNamePrefix);
  const destinationErrors = destinationProblems(config, secretNamePrefix);
  if (destinationErrors.length)
    throw new Error(`Invalid relay config for AWS:\n${destinationErrors.join('\n')}`);
  validateProps(props, config);
  warnAboutConfig(relay, config, props);
  return config;
}

/**
 * The functions' access to the table and to the config's secrets. Returns the secret ARNs granted
 * (the accounts' and the badge shops').
 */
function grantFunctionAccess(
  relay: MobileMoneyRelay,
  fns: RelayFunctions,
  props: MobileMoneyRelayProps,
): { accountSecretArns: string[]; badgeShopSecretArns: string[] } {
  // Every function but the outbox publisher loads the config (and so reads the table and the secrets).
  const configReaders = [
    fns.callback,
    fns.management,
    fns.poller,
    fns.transactionInitiated,
    fns.bufferConsumer,
    fns.statements,
  ];
  grantTableAccess(
    relay.table,
    {
      itemReaders: [
        fns.callback,
        fns.management,
        fns.transactionInitiated,
        fns.bufferConsumer,
        fns.statements,
      ],
      reporters: [fns.management, fns.statements],
      poller: fns.poller,
      keyUsers: configReaders,
    },
    props.tableEncryptionKey,
  );
  return grantConfigSecrets(
    relay,
    relay.config,
    {
      // By function id: each reads only its kinds of secret (shared/config/secret-reader.ts).
      readers: {
        callback: fns.callback,
        management: fns.management,
        poller: fns.poller,
        'transaction-initiated': fns.transactionInitiated,
        'buffer-consumer': fns.bufferConsumer,
      },
      poller: fns.poller,
    },
    props.secretsEncryptionKey,
    props.secretNamePrefix,
  );
}

/** The ingress buffer: the callback code's queue for what it could not store, and its consumer. */
function bufferCallbacks(relay: MobileMoneyRelay, fns: RelayFunctions, props: MobileMoneyRelayProps) {
  return createIngressBuffer(
    relay,
    {
      callback: fns.callback,
      consumer: fns.bufferConsumer,
      callbackSiblings: fns.decisions.map((d) => d.fn),
    },
    {
      senderArns: props.ingressBufferSenderArns,
      tableEncryptionKey: props.tableEncryptionKey,
      secretsEncryptionKey: props.secretsEncryptionKey,
      consumerMaxConcurrency: props.bufferConsumerMaxConcurrency ?? 5,
      ...(relay.config.ingressBuffer ? { sealSecretId: relay.config.ingressBuffer.sealSecretId } : {}),
    },
  );
}

/** Webhook delivery, when the config has destinations (and so the delivery function exists). */
function deliverWebhooks(relay: MobileMoneyRelay, fns: RelayFunctions, props: MobileMoneyRelayProps) {
  if (!fns.delivery) return undefined;
  return createDelivery(relay, {
    config: relay.config,
    fn: fns.delivery,
    eventBus: relay.eventBus,
    eventSource: relay.eventSource,
    table: relay.table,
    tableEncryptionKey: props.tableEncryptionKey,
    secretsEncryptionKey: props.secretsEncryptionKey,
    management: fns.management,
    secretNamePrefix: props.secretNamePrefix ?? DEFAULT_SECRET_NAME_PREFIX,
  });
}

/** How providers and partners reach the relay: the HTTP API, and the CloudFront edge when asked for. */
interface ExposedRelay {
  readonly http: RelayHttpApi;
  readonly apiUrl: string;
  readonly distribution: cloudfront.Distribution | undefined;
  readonly publicUrl: string;
  /** The synthetic check of every provider route through the edge (with the edge only). */
  readonly edgeProbe: ReturnType<typeof createEdgeProbe> | undefined;
}

/**
 * The HTTP API (behind the origin check when CloudFront must be the only way in), the CloudFront edge,
 * the custom domain's records and the edge probe.
 */
function exposeRelay(
  relay: MobileMoneyRelay,
  fns: RelayFunctions,
  props: MobileMoneyRelayProps,
  logging: RelayLogging,
): ExposedRelay {
  const { config, metricsNamespace } = relay;
  // With CloudFront in front and a custom domain, the execute-api URL (a way around the WAF) is off:
  // CloudFront and the management API use the custom domain. Without one, it must stay on.
  const executeApiOff = Boolean(props.cloudFront && props.customDomain);
  // Whatever URL reaches the API, a public route refuses a request without CloudFront's origin header
  // before any callback or decision function runs (the origin-check authorizer, infra/relay/edge.ts).
  // Not in cloudfront-or-direct mode: direct callbacks are allowed there on purpose (validate.ts warns).
  const originCheck =
    props.cloudFront && config.edge.mode === 'cloudfront'
      ? createOriginAuthorizer(relay, config, {
          metricsNamespace,
          ...logging,
          secretsEncryptionKey: props.secretsEncryptionKey,
        })
      : undefined;
  const http = createHttpApi(
    relay,
    fns,
    {
      ...props,
      disableExecuteApiEndpoint: executeApiOff,
      providers: configuredProviders(config),
      originAuthorizer: originCheck?.authorizer,
    },
    { retention: logging.logRetention, removalPolicy: logging.removalPolicy },
  );
  const apiUrl = executeApiOff ? `https://${props.customDomain!.domainName}/` : http.stage.url;
  let distribution: cloudfront.Distribution | undefined;
  if (props.cloudFront) {
    distribution = createDistribution(
      relay,
      http.api,
      props.cloudFront,
      config,
      executeApiOff ? props.customDomain!.domainName : undefined,
    );
    suppressEdgeFindings(distribution, props.cloudFront);
  }
  const publicUrl = distribution
    ? `https://${props.cloudFront?.domainNames?.[0] ?? distribution.distributionDomainName}/`
    : props.customDomain
      ? `https://${props.customDomain.domainName}/`
      : apiUrl;
  addCustomDomainRecords(relay, props.customDomain, http.domainName);
  // With the edge on, a synthetic check calls every provider route through it (EdgeOutage pages).
  const edgeProbe = distribution
    ? createEdgeProbe(relay, {
        publicUrl,
        providers: configuredProviders(config),
        metricsNamespace,
        ...logging,
      })
    : undefined;
  return { http, apiUrl, distribution, publicUrl, edgeProbe };
}

/**
 * The dashboard and the alarms of the relay's parts (on the page and ticket topics, which the relay
 * already has), and the statement pull alarms.
 */
function watchRelay(
  relay: MobileMoneyRelay,
  fns: RelayFunctions,
  exposed: Pick<ExposedRelay, 'http' | 'edgeProbe'>,
  props: MobileMoneyRelayProps,
) {
  const monitoring = monitorRelay(
    relay,
    {
      config: relay.config,
      functions: fns,
      api: relay.api,
      table: relay.table,
      outboxDlq: relay.outboxDlq,
      pollScheduleDlq: relay.pollScheduleDlq,
      transactionInitiatedDlq: relay.transactionInitiatedDlq,
      ingressBuffer: relay.ingressBuffer,
      ingressBufferDlq: relay.ingressBufferDlq,
      accessLogs: exposed.http.accessLogs,
      pageTopic: relay.alarmTopic,
      ticketTopic: relay.ticketTopic,
      metricsNamespace: relay.metricsNamespace,
      distribution: relay.distribution,
      edgeProbe: exposed.edgeProbe,
    },
    props,
  );
  // `alarms` is a getter that builds a new array: the relay keeps this one, with the pull alarms.
  const alarms = monitoring.alarms;
  alarms.push(
    ...pullAlarms(relay, {
      config: relay.config,
      metricsNamespace: relay.metricsNamespace,
      pageTopic: relay.alarmTopic,
      ticketTopic: relay.ticketTopic,
    }),
  );
  return { facade: monitoring.facade, dashboard: monitoring.dashboard, alarms };
}

/** The delivery alarms, with webhook delivery only. */
function watchDelivery(
  relay: MobileMoneyRelay,
  delivery: { dlq: sqs.Queue } | undefined,
): cloudwatch.AlarmBase[] {
  if (!delivery) return [];
  return deliveryAlarms(relay, {
    metricsNamespace: relay.metricsNamespace,
    dlq: delivery.dlq,
    pageTopic: relay.alarmTopic,
    ticketTopic: relay.ticketTopic,
  });
}

/** The cdk-nag findings the relay's resources answer by design, each with its reason (nag-suppressions.ts). */
function suppressFindings(
  relay: MobileMoneyRelay,
  fns: RelayFunctions,
  http: RelayHttpApi,
  pollScheduleRole: iam.Role,
): void {
  suppressRelayFindings({
    functions: fns,
    api: relay.api,
    publicRoutes: http.publicRoutes,
    ingressBufferSealKey: relay.ingressBufferSealKey,
    outboxDlq: relay.outboxDlq,
    pollScheduleDlq: relay.pollScheduleDlq,
    transactionInitiatedDlq: relay.transactionInitiatedDlq,
    ingressBufferDlq: relay.ingressBufferDlq,
    pollScheduleRole,
  });
}
