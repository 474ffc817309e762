import { join } from 'node:path';
import { Annotations, Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import {
  BUNDLE_OPTIONS,
  bundleAliases,
  PROJECT_ROOT,
  RELAY_FUNCTIONS,
  type RelayFunctionId,
} from '../bundling';
import { RUNTIME_CONFIG_PATH, writeRuntimeConfigLayer } from '../runtime-config';
import { buildTracingLayer } from '../tracing-layer';
import { prebuiltFunctionCode } from '../prebuilt-assets';
import type { RelayConfig } from '../../shared/config/relay-config';
import {
  BUFFER_CONSUMER_TIMEOUT,
  CALLBACK_FUNCTION_TIMEOUT,
  type CallbackBulkhead,
  callbackBulkhead,
  concurrencyFor,
  describeShare,
} from './limits';
import type { MobileMoneyRelayProps } from './props';
import { DELIVERY_FUNCTION_TIMEOUT } from './delivery';
import { providerDecisionRoutes } from './providers';

export interface RelayFunctions {
  readonly callback: nodejs.NodejsFunction;
  readonly management: nodejs.NodejsFunction;
  readonly outboxPublisher: nodejs.NodejsFunction;
  readonly poller: nodejs.NodejsFunction;
  readonly transactionInitiated: nodejs.NodejsFunction;
  /** Applies the callbacks buffered when DynamoDB could not be written. */
  readonly bufferConsumer: nodejs.NodejsFunction;
  /** Imports the files uploaded to the statement bucket and closes the due days on a schedule. */
  readonly statements: nodejs.NodejsFunction;
  /** Webhook deliveries from the destination queues: only with `destinations` (infra/relay/delivery.ts). */
  readonly delivery?: nodejs.NodejsFunction;
  /**
   * The callback code again, one function per provider decision route (e.g. C2B validation),
   * with the callback function's role and its own reserved concurrency: a slow decision holds only
   * these executions.
   */
  readonly decisions: ReadonlyArray<RelayDecisionFunction>;
  /** The callback function's reserved concurrency (undefined: none): the bulkhead unless overridden. */
  readonly callbackReservedConcurrency: number | undefined;
}

export interface RelayDecisionFunction {
  /** The decision route's id (`C2bValidation`). */
  readonly id: string;
  readonly provider: string;
  readonly method: string;
  readonly path: string;
  readonly fn: nodejs.NodejsFunction;
  /** Its reserved concurrency (undefined: none). */
  readonly reservedConcurrency: number | undefined;
  readonly throttle: { readonly rateLimit: number; readonly burstLimit: number };
}

export interface RelayFunctionsOptions {
  readonly table: dynamodb.ITable;
  readonly eventBus: events.IEventBus;
  readonly eventSource: string;
  /** The config of every function that loads it: its config layer's file (infra/runtime-config.ts). */
  readonly runtimeConfigJson: string;
  readonly metricsNamespace: string;
  readonly logRetention: logs.RetentionDays;
  readonly removalPolicy: RemovalPolicy;
  /** Providers with a configured account: their routes' rates size the reservations. */
  readonly providers: readonly string[];
  /** The validated config: its `ackBudgets` size the callback function's bulkhead; `destinations` add the delivery function. */
  readonly config: Pick<RelayConfig, 'ackBudgets'> & Partial<Pick<RelayConfig, 'destinations'>>;
}

/**
 * The functions run once per callback or transaction: actively traced only with `hotPathTracing`
 * (Lambda's sampling traces most of them at low volume, docs/deploy.md#cost-notes).
 */
const HOT_PATH_FUNCTIONS: ReadonlySet<RelayFunctionId> = new Set<RelayFunctionId>([
  'callback',
  'management',
  'outbox-publisher',
  'transaction-initiated',
  'delivery',
]);

/** The outbox publisher's memory unless `memorySize` sets every function's. */
const PUBLISHER_MEMORY_MB = 256;

type RelayFunctionsProps = Pick<
  MobileMoneyRelayProps,
  | 'memorySize'
  | 'logLevel'
  | 'reservedConcurrency'
  | 'providerThrottles'
  | 'decisionThrottles'
  | 'hotPathTracing'
  | 'throttle'
>;
type LogLevel = NonNullable<MobileMoneyRelayProps['logLevel']>;

/** What one relay function has of its own; the layers, logging and defaults are the relay's. */
interface RelayFunctionSpec {
  description: string;
  timeout: Duration;
  environment: Record<string, string>;
  name?: string;
  role?: iam.Role;
  serviceName?: string;
  reservedConcurrency?: number;
  memorySize?: number;
}
type MakeRelayFunction = (id: RelayFunctionId, spec: RelayFunctionSpec) => nodejs.NodejsFunction;

/**
 * The environments the functions share: the HTTP functions load the config and publish events, the
 * others load the config and read the table; the outbox publisher only publishes.
 */
interface RelayEnvironments {
  readonly http: Record<string, string>;
  readonly table: Record<string, string>;
  readonly publisher: Record<string, string>;
}

/**
 * The relay functions, each with its own log group and role (log writes to that group only), the
 * shared tracing layer, and the environment it needs; no access to anything else yet.
 */
export function createRelayFunctions(
  scope: Construct,
  props: RelayFunctionsProps,
  options: RelayFunctionsOptions,
): RelayFunctions {
  const logLevel = props.logLevel ?? 'INFO';
  const layers = createLayers(scope, options.runtimeConfigJson);
  const bulkhead = callbackBulkhead({ ...props, providers: options.providers, config: options.config });
  const callbackReservedConcurrency = reservedConcurrencyOf(props, 'callback', bulkhead.total);
  announceBulkhead(scope, bulkhead, props.reservedConcurrency?.callback);
  const relayFunction = relayFunctionMaker(scope, props, options, {
    ...layers,
    callbackReservedConcurrency,
    logLevel,
  });
  const environments = functionEnvironments(options, logLevel);
  const callback = relayFunction('callback', {
    description: 'Provider callbacks: verify, store durably (or buffer), ack in the provider format',
    // Above the integration timeout (7.5 s, below the strictest provider's 8 s): API Gateway decides
    // what a provider sees, and a store write already under way may still land.
    timeout: CALLBACK_FUNCTION_TIMEOUT,
    environment: environments.http,
  });
  const fns: RelayFunctions = {
    callback,
    decisions: createDecisionFunctions(relayFunction, props, options.providers, callback, environments.http),
    callbackReservedConcurrency,
    ...createOtherFunctions(relayFunction, props, options.config, environments),
  };
  warnAboutReservedTotal(scope, fns);
  return fns;
}

/**
 * Executions one relay may reserve on an account with Lambda's default concurrency quota (1,000): Lambda
 * keeps 100 unreserved, and refuses a reservation that would leave fewer.
 */
const DEFAULT_QUOTA_RESERVABLE = 900;

/** Warns when the functions' reservations together need more than Lambda's default concurrency quota. */
function warnAboutReservedTotal(scope: Construct, fns: RelayFunctions): void {
  const all = [
    ...Object.values(fns).filter((f): f is nodejs.NodejsFunction => f instanceof lambda.Function),
    ...fns.decisions.map((d) => d.fn),
  ];
  const total = all.reduce(
    (sum, fn) => sum + ((fn.node.defaultChild as lambda.CfnFunction).reservedConcurrentExecutions ?? 0),
    0,
  );
  if (total > DEFAULT_QUOTA_RESERVABLE)
    Annotations.of(scope).addWarningV2(
      'mobile-money-relay:reservedAboveDefaultQuota',
      `The relay's functions reserve ${total} executions: Lambda keeps 100 of the account's concurrency unreserved, so the deploy needs a concurrency quota of at least ${total + 100} (the default is 1,000; docs/deploy.md, "The bulkhead"). Request the increase first, or lower reservedConcurrency / the throttles.`,
    );
}

/** `reservedConcurrency[id]` of the props: `false` is none, unset is `fallback`. */
function reservedConcurrencyOf(
  props: RelayFunctionsProps,
  id: RelayFunctionId,
  fallback?: number,
): number | undefined {
  const value = props.reservedConcurrency?.[id];
  return value === false ? undefined : (value ?? fallback);
}

/** The two layers every function may carry: the tracer, and the config as a file. */
function createLayers(
  scope: Construct,
  runtimeConfigJson: string,
): { tracingLayer: lambda.LayerVersion; configLayer: lambda.LayerVersion } {
  // Powertools Tracer and the X-Ray SDK, shared by every function (shared/adapters/tracing/xray.ts).
  const tracingLayer = new lambda.LayerVersion(scope, 'TracingLayer', {
    code: lambda.Code.fromAsset(buildTracingLayer()),
    compatibleRuntimes: [lambda.Runtime.NODEJS_22_X],
    compatibleArchitectures: [lambda.Architecture.ARM_64],
    description: 'Powertools Tracer and the X-Ray SDK for the relay functions (relay-tracing)',
  });
  // The config (no secret values, only their ids) as a file beside the code: out of the environment and
  // the template, and not capped by Lambda's 4 KB environment (infra/runtime-config.ts).
  const configLayer = new lambda.LayerVersion(scope, 'ConfigLayer', {
    code: lambda.Code.fromAsset(writeRuntimeConfigLayer(runtimeConfigJson)),
    compatibleRuntimes: [lambda.Runtime.NODEJS_22_X],
    compatibleArchitectures: [lambda.Architecture.ARM_64],
    description: `The relay config, read from ${RUNTIME_CONFIG_PATH}`,
  });
  return { tracingLayer, configLayer };
}

/** Builds one relay function from its spec, with the relay's defaults for what the spec leaves out. */
function relayFunctionMaker(
  scope: Construct,
  props: RelayFunctionsProps,
  options: Pick<RelayFunctionsOptions, 'metricsNamespace' | 'logRetention' | 'removalPolicy'>,
  shared: {
    tracingLayer: lambda.ILayerVersion;
    configLayer: lambda.ILayerVersion;
    callbackReservedConcurrency: number | undefined;
    logLevel: LogLevel;
  },
): MakeRelayFunction {
  const memorySize = props.memorySize ?? 512;
  return (id, fn) =>
    createRelayFunction(scope, id, {
      ...fn,
      memorySize: fn.memorySize ?? memorySize,
      reservedConcurrency:
        fn.reservedConcurrency ??
        // The callback function's: its routes' throttles on the degraded path (limits.ts, the bulkhead).
        (id === 'callback' ? shared.callbackReservedConcurrency : reservedConcurrencyOf(props, id)),
      tracingLayer: shared.tracingLayer,
      traced: props.hotPathTracing === true || !HOT_PATH_FUNCTIONS.has(id),
      // Only the functions that load the config get it (RELAY_CONFIG names its file).
      configLayer: 'RELAY_CONFIG' in fn.environment ? shared.configLayer : undefined,
      metricsNamespace: options.metricsNamespace,
      logRetention: options.logRetention,
      removalPolicy: options.removalPolicy,
      logLevel: shared.logLevel,
    });
}

/**
 * The callback code again on each decision route of a configured provider, with the callback function's
 * role and a reserved concurrency sized from the route's own throttle: a slow decision holds only these.
 */
function createDecisionFunctions(
  relayFunction: MakeRelayFunction,
  props: RelayFunctionsProps,
  providers: readonly string[],
  callback: nodejs.NodejsFunction,
  environment: Record<string, string>,
): RelayDecisionFunction[] {
  return providerDecisionRoutes()
    .filter((route) => providers.includes(route.provider))
    .map((route): RelayDecisionFunction => {
      const throttle = props.decisionThrottles?.[route.id] ?? route.throttle;
      const override = props.reservedConcurrency?.callback;
      // `reservedConcurrency.callback: false` (a small account) turns these reservations off too.
      const reservedConcurrency =
        override === false
          ? undefined
          : concurrencyFor(throttle.rateLimit, Duration.millis(route.worstCaseMs));
      return {
        ...route,
        throttle,
        reservedConcurrency,
        fn: relayFunction('callback', {
          name: route.id,
          // Its own service name: its logs and traces are told apart from the callback function's.
          serviceName: `relay-${route.id.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase()}`,
          description: `Provider callbacks, ${route.provider} ${route.path} only (its own concurrency: it waits on a decision)`,
          timeout: CALLBACK_FUNCTION_TIMEOUT,
          environment,
          // The callback function's role: the same code needs the same grants (table, secrets, buffer).
          role: callback.role as iam.Role,
          reservedConcurrency,
        }),
      };
    });
}

function functionEnvironments(
  { table, eventBus, eventSource }: Pick<RelayFunctionsOptions, 'table' | 'eventBus' | 'eventSource'>,
  logLevel: LogLevel,
): RelayEnvironments {
  return {
    http: {
      TABLE_NAME: table.tableName,
      RELAY_CONFIG: RUNTIME_CONFIG_PATH,
      EVENT_BUS_NAME: eventBus.eventBusName,
      EVENT_SOURCE: eventSource,
      LOG_LEVEL: logLevel,
    },
    table: { TABLE_NAME: table.tableName, RELAY_CONFIG: RUNTIME_CONFIG_PATH, LOG_LEVEL: logLevel },
    publisher: { EVENT_BUS_NAME: eventBus.eventBusName, EVENT_SOURCE: eventSource, LOG_LEVEL: logLevel },
  };
}

/** Every function but the callback code, in the order they appear in the template. */
function createOtherFunctions(
  relayFunction: MakeRelayFunction,
  props: RelayFunctionsProps,
  config: RelayFunctionsOptions['config'],
  environments: RelayEnvironments,
): Omit<RelayFunctions, 'callback' | 'decisions' | 'callbackReservedConcurrency'> {
  return {
    management: relayFunction('management', {
      description:
        'Management API: register transactions, read state and history, check now, resolve, report (IAM-authorized)',
      timeout: Duration.seconds(10),
      environment: environments.http,
    }),
    outboxPublisher: relayFunction('outbox-publisher', {
      description: 'Publishes outbox events from the table stream to EventBridge',
      timeout: Duration.seconds(60),
      environment: environments.publisher,
      // Waits on PutEvents, not on CPU, and off the ack path (a cold start delays an event, not an answer):
      // half the callback's memory halves its GB-seconds.
      memorySize: props.memorySize ?? PUBLISHER_MEMORY_MB,
    }),
    poller: relayFunction('poller', {
      description: 'Reconciliation: one poll cycle (due transactions leased, checked with the status APIs)',
      // The cycle stops claiming 15 s before the timeout; a cycle ends before the next one starts
      // (two at once would still be safe: every item is leased).
      timeout: Duration.seconds(60),
      environment: environments.table,
    }),
    transactionInitiated: relayFunction('transaction-initiated', {
      description: 'TransactionInitiated events from the partner: register the transaction',
      timeout: Duration.seconds(10),
      environment: environments.table,
    }),
    bufferConsumer: relayFunction('buffer-consumer', {
      description: 'Applies the callbacks buffered in SQS when DynamoDB could not be written (origin buffer)',
      timeout: BUFFER_CONSUMER_TIMEOUT,
      environment: environments.table,
    }),
    statements: relayFunction('statements', {
      description:
        'Statements: imports each file uploaded to the statement bucket; closes the due days on a schedule',
      // A file is read twice (checked whole, then imported in batches): a large one takes minutes.
      timeout: Duration.minutes(5),
      environment: environments.table,
    }),
    ...(Object.keys(config.destinations ?? {}).length
      ? {
          delivery: relayFunction('delivery', {
            description:
              'Webhook deliveries: one signed attempt per destination queue message (Standard Webhooks)',
            timeout: DELIVERY_FUNCTION_TIMEOUT,
            environment: environments.table,
          }),
        }
      : {}),
  };
}

/**
 * Prints the bulkhead's arithmetic at synth (an info per route, then the total), and warns when
 * `reservedConcurrency.callback` is set below it: then a slow provider can hold executions the others need.
 */
function announceBulkhead(
  scope: Construct,
  bulkhead: CallbackBulkhead,
  override: number | false | undefined,
): void {
  const annotations = Annotations.of(scope);
  for (const share of bulkhead.shares) annotations.addInfo(`Callback bulkhead, ${describeShare(share)}`);
  annotations.addInfo(
    `Callback bulkhead: ${bulkhead.shares.map((s) => s.concurrency).join(' + ')} = ${bulkhead.total} reserved executions${
      override === undefined ? '' : ` (reservedConcurrency.callback: ${override})`
    }`,
  );
  if (typeof override === 'number' && override < bulkhead.total) {
    annotations.addWarningV2(
      'mobile-money-relay:bulkheadBelowThrottles',
      `reservedConcurrency.callback: ${override} is below the bulkhead of the route throttles (${bulkhead.total}): while DynamoDB is slow, one provider's callbacks can take executions another's need (docs/deploy.md, "The bulkhead"). Lower providerThrottles / throttle with it.`,
    );
  }
}

/** The relay's functions with the names their alarms use. */
export function namedRelayFunctions(
  fns: Omit<RelayFunctions, 'callbackReservedConcurrency'>,
): Array<[string, nodejs.NodejsFunction]> {
  return [
    ['Callback', fns.callback],
    ['Management', fns.management],
    ['OutboxPublisher', fns.outboxPublisher],
    ['Poller', fns.poller],
    ['TransactionInitiated', fns.transactionInitiated],
    ['BufferConsumer', fns.bufferConsumer],
    ['Statements', fns.statements],
    ...(fns.delivery ? [['Delivery', fns.delivery] as [string, nodejs.NodejsFunction]] : []),
    ...fns.decisions.map((d): [string, nodejs.NodejsFunction] => [d.id, d.fn]),
  ];
}

function createRelayFunction(
  scope: Construct,
  id: RelayFunctionId,
  options: {
    description: string;
    timeout: Duration;
    memorySize: number;
    reservedConcurrency: number | undefined;
    environment: Record<string, string>;
    tracingLayer: lambda.ILayerVersion;
    /** Active X-Ray tracing (Lambda's own sampling); otherwise pass-through and no tracer loaded. */
    traced: boolean;
    configLayer: lambda.ILayerVersion | undefined;
    metricsNamespace: string;
    logRetention: logs.RetentionDays;
    removalPolicy: RemovalPolicy;
    /** Construct name prefix. @default from `id` */
    name?: string;
    /** Share this role (its log statement is added). @default a role of its own */
    role?: iam.Role;
    /** POWERTOOLS_SERVICE_NAME. @default the function id's */
    serviceName?: string;
    /** The relay's LOG_LEVEL: decides Lambda's own log filtering too (platformLogging). */
    logLevel: LogLevel;
  },
): nodejs.NodejsFunction {
  const { entry } = RELAY_FUNCTIONS[id];
  const serviceName = options.serviceName ?? RELAY_FUNCTIONS[id].serviceName;
  const name = options.name ?? constructName(id);
  const { logGroup, role } = createLogGroupAndRole(scope, id, name, options);
  return new nodejs.NodejsFunction(scope, `${name}Function`, {
    entry: join(PROJECT_ROOT, entry),
    handler: 'handler',
    // The packed library deploys the bundles built at `npm pack` (infra/prebuilt-assets.ts).
    ...prebuiltFunctionCode(id),
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
    ...platformLogging(options.logLevel),
    tracing: options.traced ? lambda.Tracing.ACTIVE : lambda.Tracing.PASS_THROUGH,
    layers: [options.tracingLayer, ...(options.configLayer ? [options.configLayer] : [])],
    environment: {
      ...options.environment,
      POWERTOOLS_SERVICE_NAME: serviceName,
      POWERTOOLS_METRICS_NAMESPACE: options.metricsNamespace,
      // Traces keep timings and errors, never handler responses: acks, transactions and reports
      // carry MSISDNs, amounts and references.
      POWERTOOLS_TRACER_CAPTURE_RESPONSE: 'false',
      // Untraced: the tracer (X-Ray SDK, ~25 ms of cold start) is not even loaded.
      ...(options.traced ? {} : { POWERTOOLS_TRACE_ENABLED: 'false' }),
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
      esbuildArgs: { '--alias': Object.entries(bundleAliases(id)).map(([from, to]) => `${from}=${to}`) },
    },
  });
}

/**
 * A function's log group, and the role that may write to it: its own, or the one it shares (the decision
 * functions share the callback function's).
 */
function createLogGroupAndRole(
  scope: Construct,
  id: RelayFunctionId,
  name: string,
  options: { logRetention: logs.RetentionDays; removalPolicy: RemovalPolicy; role?: iam.Role },
): { logGroup: logs.LogGroup; role: iam.Role } {
  const logGroup = new logs.LogGroup(scope, `${name}Logs`, {
    retention: options.logRetention,
    removalPolicy: options.removalPolicy,
  });
  // An own role instead of AWSLambdaBasicExecutionRole: log writes to this function's group only.
  const role =
    options.role ??
    new iam.Role(scope, `${name}Role`, {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of the relay ${id} function`,
    });
  role.addToPolicy(
    new iam.PolicyStatement({
      actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
      resources: [logGroup.logGroupArn],
    }),
  );
  return { logGroup, role };
}

/**
 * Lambda's own lines (START, END, REPORT: ~500 B an invocation, as much as the callback's own line) are
 * dropped by its advanced logging controls: JSON format with system logs at WARN (what is left: dropped
 * log records and the like). Nothing reads them: the alarms read Lambda's free metrics (Duration,
 * Errors, Throttles), the ack-time query reads the functions' own "callback handled" lines.
 * The application filter then passes the relay's LOG_LEVEL and every line with no level at or above it
 * (Lambda counts a line without a level, such as an EMF metric document, as INFO); Powertools takes that
 * level as its own (AWS_LAMBDA_LOG_LEVEL wins over LOG_LEVEL), so the two agree. At WARN or ERROR the
 * same filter would drop the EMF documents, and with them every custom metric and its alarm: those
 * levels keep Lambda's text format and its lines.
 */
function platformLogging(
  logLevel: NonNullable<MobileMoneyRelayProps['logLevel']>,
): Pick<lambda.FunctionProps, 'loggingFormat' | 'systemLogLevelV2' | 'applicationLogLevelV2'> {
  if (logLevel !== 'DEBUG' && logLevel !== 'INFO') return {};
  return {
    loggingFormat: lambda.LoggingFormat.JSON,
    systemLogLevelV2: lambda.SystemLogLevel.WARN,
    applicationLogLevelV2:
      logLevel === 'DEBUG' ? lambda.ApplicationLogLevel.DEBUG : lambda.ApplicationLogLevel.INFO,
  };
}

function constructName(id: RelayFunctionId): string {
  return id
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}
