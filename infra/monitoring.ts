import { Duration, Stack } from 'aws-cdk-lib';
import type * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import {
  type CustomMetricGroup,
  DefaultDashboardFactory,
  MonitoringFacade,
  noopAction,
  SnsAlarmActionStrategy,
} from 'cdk-monitoring-constructs';
import { Construct } from 'constructs';
import { inParentheses, providerAckLimits, providerWords } from './relay/providers';

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

/**
 * The heartbeat's expression over the poller's own Lambda metrics (free): invocations that did not fail
 * (an error or a timeout) are completed poll cycles. A custom series of its own would bill all month.
 */
export const POLL_CYCLES_COMPLETED_EXPRESSION = 'FILL(invocations, 0) - FILL(errors, 0)';

/** Status API calls refused for credentials (401/403, a revoked key), by the poller and "check now". */
export const STATUS_CREDENTIAL_FAILURES_METRIC = 'StatusApiCredentialFailures';

/** Callback invocations while the ingress buffer is off (no queue URL or no seal key at cold start). */
export const INGRESS_BUFFER_OFF_METRIC = 'IngressBufferOff';

/** Requests the stage throttled (429), counted from the API access logs by a metric filter. */
export const STAGE_THROTTLED_METRIC = 'StageThrottled';

/** Custom tags on every alarm: where it goes (docs/monitoring.md). */
export const PAGE_TAG = 'page';
export const TICKET_TAG = 'ticket';
/** Members of the storage-outage composite: no action of their own, the composite pages. */
export const STORAGE_OUTAGE_TAG = 'storage-outage';
/**
 * Members of the `ServiceDegraded` composite (the callback path, the functions that page, the poller
 * heartbeat, the buffer age): no action of their own; the composite pages once, and not at all while
 * `StorageOutage` is in ALARM (they are its symptoms then).
 */
export const SERVICE_DEGRADED_TAG = 'service-degraded';

/** Status API calls that failed (timeouts, 5xx, garbage), per provider: the provider-outage alarm watches them. */
export const STATUS_CALL_ERRORS_METRIC = 'StatusCallErrors';

/** Written by the synthetic check every run: providers whose route failed through the public URL. */
export const EDGE_PROBE_FAILURES_METRIC = 'EdgeProbeFailures';

/** Requests refused by the origin check (they went around CloudFront, or it sent a wrong secret). */
export const ORIGIN_VERIFY_REFUSALS_METRIC = 'OriginVerifyRefusals';

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
  /** The API's access log group (the stage's 429s are counted from it). */
  readonly accessLogs: logs.ILogGroup;
  /** Functions with reserved concurrency: alarmed when their concurrency nears it. */
  readonly reservedFunctions: ReadonlyArray<{
    readonly name: string;
    readonly fn: lambda.IFunction;
    readonly reserved: number;
  }>;
  /** The poller (its heartbeat). */
  readonly pollerFunction: lambda.IFunction;
  /** The decision-route functions (e.g. C2B validation): each gets its own latency alarm, and its faults page. */
  readonly decisionFunctions?: ReadonlyArray<{ readonly name: string; readonly fn: lambda.IFunction }>;
  /** Providers with a configured account: one provider-outage alarm each (never one per account). */
  readonly providers?: readonly string[];
  /**
   * The CloudFront edge, when the relay has one: origin-verify refusals, and (a stack in us-east-1 only,
   * where CloudFront publishes its metrics) the distribution's 5xx rate, join the `EdgeOutage` composite.
   */
  readonly edge?: { readonly distribution: cloudfront.IDistribution; readonly probe?: lambda.IFunction };
}

export interface RelayMonitoringSettings {
  readonly metricsNamespace: string;
  /** Needs a person now. */
  readonly pageTopic: sns.ITopic;
  /** Needs a person in working hours. */
  readonly ticketTopic: sns.ITopic;
  /** Prefix of alarm and dashboard names (unique per account and region). */
  readonly namePrefix: string;
  readonly dashboard: boolean;
  readonly iteratorAgeThreshold: Duration;
  readonly callbackLatencyThreshold: Duration;
  /** Per `provider/account`: the silence period, or false (no alarm). */
  readonly callbackSilence: (provider: string, account: string) => Duration | false;
  readonly rejectedCallbacksThreshold: number;
  readonly bufferMaxAge: Duration;
  /**
   * Per provider: the AckLatency p99 that pages (from the providers' declarations), and for its
   * description the provider's own answer limit (`limit`, e.g. "X's 2 s"; absent when it documents
   * none) and whether it delivers a callback again (`retries`).
   */
  readonly ackLatencyAlarms: ReadonlyArray<{
    readonly provider: string;
    readonly ms: number;
    readonly limit?: string;
    readonly retries?: boolean;
  }>;
  /** Share of the reserved concurrency that raises the near-the-limit alarm. */
  readonly concurrencyAlarmRatio: number;
  /** No completed poll cycle for this long pages; false: polling is off (`pollingEnabled: false`), no alarm. */
  readonly pollerHeartbeatPeriod: Duration | false;
  readonly throttledRatePercent: number;
  readonly serverErrorRatePercent: number;
  /** Failed status API calls of one provider per 5 minutes (2 of 3) that page as its outage. @default 10 */
  readonly providerOutageErrors?: number;
}

/** Appended to every ServiceDegraded member's description (they have no action of their own). */
const DEGRADED_NOTE =
  ' No action of its own: ServiceDegraded pages, once, and not while StorageOutage is in ALARM.';

/** Below this many requests in 5 minutes, the 429 and 5xx rates are not judged (one error in 3 is not an outage). */
const RATE_MIN_REQUESTS = 20;

const GTE = cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD;

/**
 * The relay's dashboard and alarms, built with cdk-monitoring-constructs. Two topics (docs/monitoring.md):
 * **page** for what needs a person now (a storage outage, a DLQ message, the buffer off, acks too slow
 * for a provider's budget, a poller that stopped, credentials refused, 429/5xx rates), **ticket** for what needs one in
 * working hours (an expired or escalated transaction, a silent account, one buffered callback, a rejection
 * spike, a single failing function that has a safety net). Each alarm notifies its topic on ALARM and on
 * OK and carries its topic as a custom tag. The DynamoDB alarms have no action of their own: one
 * composite `StorageOutage` alarm pages for all of them, so an outage is one page, not eight.
 */
export class RelayMonitoring extends Construct {
  readonly facade: MonitoringFacade;
  readonly dashboard: cloudwatch.Dashboard | undefined;
  /** The composite alarm that pages for a storage outage. */
  readonly storageOutage: cloudwatch.CompositeAlarm;
  /** The composite alarm that pages once for the callback path, the paging functions, the heartbeat, the buffer age. */
  readonly serviceDegraded: cloudwatch.CompositeAlarm;
  /** The composite alarm that pages once for an edge outage (`cloudFront`), else undefined. */
  readonly edgeOutage: cloudwatch.CompositeAlarm | undefined;
  private readonly own: cloudwatch.AlarmBase[] = [];

  constructor(
    scope: Construct,
    id: string,
    targets: RelayMonitoringTargets,
    settings: RelayMonitoringSettings,
  ) {
    super(scope, id);
    const page = new SnsAlarmActionStrategy({
      onAlarmTopic: settings.pageTopic,
      onOkTopic: settings.pageTopic,
    });
    const ticket = new SnsAlarmActionStrategy({
      onAlarmTopic: settings.ticketTopic,
      onOkTopic: settings.ticketTopic,
    });
    const toPage = { customTags: [PAGE_TAG] };
    const toTicket = { actionOverride: ticket, customTags: [TICKET_TAG] };
    const toStorage = { actionOverride: noopAction(), customTags: [STORAGE_OUTAGE_TAG] };
    // Pages through the ServiceDegraded composite (once; not during a storage outage, whose symptoms they are).
    const toDegraded = { actionOverride: noopAction(), customTags: [SERVICE_DEGRADED_TAG] };
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
        action: page,
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
          ...toTicket,
          alarmDescriptionOverride: `The HTTP API answered 5xx in 2 of the last 3 minutes (ticket: the 5xx rate alarm pages when it is more than noise).${providerWords.retrySentence()} Look at the callback function logs and the table.`,
        },
      },
    });
    const ratePeriod = Duration.minutes(5);
    const requests = targets.api.metricCount({ period: ratePeriod, statistic: 'Sum' });
    // The stage's 429s: HTTP APIs publish no throttle metric, the access log has the status.
    new logs.MetricFilter(this, 'StageThrottledFilter', {
      logGroup: targets.accessLogs,
      metricNamespace: settings.metricsNamespace,
      metricName: STAGE_THROTTLED_METRIC,
      filterPattern: logs.FilterPattern.stringValue('$.status', '=', '429'),
      metricValue: '1',
    });
    const rate = (id: string, errors: cloudwatch.IMetric, label: string) =>
      new cloudwatch.MathExpression({
        expression: `IF(requests >= ${RATE_MIN_REQUESTS}, 100 * ${id} / requests, 0)`,
        usingMetrics: { [id]: errors, requests },
        period: ratePeriod,
        label,
      });
    facade.monitorCustom({
      alarmFriendlyName: 'Stage',
      humanReadableName: 'Stage 429 and 5xx rates (% of requests, 5 minutes)',
      metricGroups: [
        {
          title: '429 and 5xx rates (%)',
          metrics: [
            {
              metric: rate(
                'throttled',
                this.relayMetric(settings, STAGE_THROTTLED_METRIC, 'Sum', ratePeriod),
                '429 rate (%)',
              ),
              alarmFriendlyName: 'Stage429Rate',
              addAlarm: {
                Critical: {
                  threshold: settings.throttledRatePercent,
                  comparisonOperator: GTE,
                  period: ratePeriod,
                  treatMissingDataOverride: cloudwatch.TreatMissingData.NOT_BREACHING,
                  ...toPage,
                  alarmDescriptionOverride: `The stage throttled ${settings.throttledRatePercent}% or more of the requests in 5 minutes (at least ${RATE_MIN_REQUESTS} requests): providers get 429${providerWords.nonRetrying() ? ' and some never retry' : ''}${inParentheses(providerWords.nonRetrying())}. A provider's route throttle (providerThrottles) or the stage's is too low for its traffic, or a flood; see the access logs (status 429, routeKey) and the WAF metrics.`,
                },
              },
            },
            {
              metric: rate(
                'serverErrors',
                targets.api.metricServerError({ period: ratePeriod, statistic: 'Sum' }),
                '5xx rate (%)',
              ),
              alarmFriendlyName: 'Stage5xxRate',
              addAlarm: {
                Critical: {
                  threshold: settings.serverErrorRatePercent,
                  comparisonOperator: GTE,
                  period: ratePeriod,
                  treatMissingDataOverride: cloudwatch.TreatMissingData.NOT_BREACHING,
                  ...toDegraded,
                  alarmDescriptionOverride: `${settings.serverErrorRatePercent}% or more of the requests in 5 minutes were answered 5xx (at least ${RATE_MIN_REQUESTS} requests): callbacks are neither stored nor buffered (503), or the functions are throttled or failing. Look at StorageOutage, the callback function's errors and throttles, IngressBufferOff.${DEGRADED_NOTE}`,
                },
              },
            },
          ],
        },
      ],
    });
    const latency = settings.callbackLatencyThreshold;
    // Each latency alarm watches the function it names: the provider callbacks run in the callback
    // function, each decision route (C2B validation, which waits on the partner) in its own.
    for (const { name, fn } of [
      { name: 'Callback', fn: targets.callbackFunction },
      ...(targets.decisionFunctions ?? []),
    ]) {
      const decision = fn !== targets.callbackFunction;
      facade.monitorLambdaFunction({
        lambdaFunction: fn,
        humanReadableName: `${name} function latency`,
        alarmFriendlyName: `${name}Latency`,
        addLatencyP99Alarm: {
          Critical: {
            maxLatency: latency,
            datapointsToAlarm: 3,
            evaluationPeriods: 5,
            ...toDegraded,
            alarmDescriptionOverride: decision
              ? `The ${name} function's p99 duration reached ${latency.toHumanString()} in 3 of the last 5 minutes: its answers are close to ${ackLimitsPhrase()}. Look at the partner decision endpoint it asks (its timeouts), DynamoDB latency, cold starts.${DEGRADED_NOTE}`
              : `The callback function's p99 duration reached ${latency.toHumanString()} in 3 of the last 5 minutes: acks are close to ${ackLimitsPhrase()}. Look at DynamoDB latency and throttles, cold starts, the callback function's concurrency.${DEGRADED_NOTE}`,
          },
        },
      });
    }
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
        ...(settings.ackLatencyAlarms.length
          ? [
              {
                title: 'AckLatency p99 per provider (ms)',
                metrics: settings.ackLatencyAlarms.map(({ provider, ms, limit, retries }) => ({
                  metric: new cloudwatch.Metric({
                    namespace: settings.metricsNamespace,
                    metricName: 'AckLatency',
                    dimensionsMap: { provider },
                    statistic: 'p99',
                    period: Duration.minutes(1),
                    label: `${provider} p99`,
                  }),
                  alarmFriendlyName: `AckLatency-${provider}`,
                  addAlarm: {
                    Critical: {
                      threshold: ms,
                      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
                      datapointsToAlarm: 3,
                      evaluationPeriods: 5,
                      treatMissingDataOverride: cloudwatch.TreatMissingData.NOT_BREACHING,
                      ...toDegraded,
                      alarmDescriptionOverride: `${provider} callbacks' ack p99 (AckLatency{provider=${provider}}, inside the handler) was above ${ms} ms in 3 of the last 5 minutes: ${limit ? `close to ${limit} budget, past which the provider counts the callback as failed` : 'close to 2 s, the yardstick where a provider documents no answer limit'}${retries === false ? ' (it may not retry)' : ''}. Look at DynamoDB latency (StorageOutage), cold starts, the callback function's concurrency.${DEGRADED_NOTE}`,
                    },
                  },
                })),
              },
            ]
          : []),
      ],
    });

    facade.monitorCustom({
      alarmFriendlyName: 'RefusalsNotStored',
      humanReadableName: 'Refusals counted, not stored (quarantine flood limits)',
      metricGroups: [
        {
          // Not alarmed: the CallbacksRejected alarm tickets on the spike itself (docs/routes.md).
          title: 'RefusalsNotStored (sum per minute)',
          metrics: [this.relayMetric(settings, 'RefusalsNotStored', 'Sum')],
        },
      ],
    });

    // ---- functions ----------------------------------------------------------------------------------
    facade.addLargeHeader('Functions');
    // A decision route answers a provider while it waits (C2B validation): its failures page like the callback's.
    const decisionNames = new Set((targets.decisionFunctions ?? []).map((d) => d.name));
    for (const { name, fn } of targets.functions) {
      const isPublisher = fn === targets.outboxPublisherFunction;
      // A failing callback path loses acks now; the others have a net (retries, a DLQ that pages, the
      // heartbeat, the buffer age) and get a ticket.
      const urgent = PAGED_FUNCTIONS.has(name) || decisionNames.has(name);
      facade.monitorLambdaFunction({
        lambdaFunction: fn,
        humanReadableName: `${name} function`,
        alarmFriendlyName: name,
        addFaultCountAlarm: {
          Critical: {
            maxErrorCount: 0,
            ...persistent,
            ...(urgent ? toDegraded : toTicket),
            alarmDescriptionOverride: `The ${name} function failed (unhandled error or timeout) in 2 of the last 3 minutes. ${FUNCTION_ERROR_HINTS[name] ?? 'See its logs and X-Ray traces.'}${urgent ? DEGRADED_NOTE : ''}`,
          },
        },
        // Throttles of a function with a net (retries and a DLQ, the heartbeat, the buffer age, the
        // iterator age) are caught by that net's alarm when they matter: no alarm of their own.
        ...(urgent
          ? {
              addThrottlesCountAlarm: {
                Critical: {
                  maxErrorCount: 0,
                  ...persistent,
                  ...toDegraded,
                  alarmDescriptionOverride: `Lambda throttled the ${name} function in 2 of the last 3 minutes: its reserved concurrency or the account's concurrency is exhausted. A throttled callback is a 5xx to the provider${inParentheses(providerWords.doesNotRetry())}.${DEGRADED_NOTE}`,
                },
              },
            }
          : {}),
        ...(isPublisher
          ? {
              addMaxIteratorAgeAlarm: {
                Critical: {
                  maxAgeInMillis: settings.iteratorAgeThreshold.toMilliseconds(),
                  datapointsToAlarm: 3,
                  evaluationPeriods: 3,
                  treatMissingDataOverride: cloudwatch.TreatMissingData.NOT_BREACHING,
                  ...toPage,
                  alarmDescriptionOverride: `The outbox publisher lags the table stream by more than ${settings.iteratorAgeThreshold.toHumanString()} for 3 minutes: events reach subscribers late (EventBridge throttling, publisher errors). Records older than 12 h go to the outbox DLQ.`,
                },
              },
            }
          : {}),
      });
    }
    if (targets.reservedFunctions.length) {
      const ratio = settings.concurrencyAlarmRatio;
      facade.monitorCustom({
        alarmFriendlyName: 'Concurrency',
        humanReadableName: 'Concurrency of the functions with reserved concurrency',
        metricGroups: [
          {
            title: 'ConcurrentExecutions (max) against the reservation',
            metrics: targets.reservedFunctions.map(({ name, fn, reserved }) => ({
              metric: fn.metric('ConcurrentExecutions', {
                statistic: 'Maximum',
                period: Duration.minutes(1),
                label: `${name} (of ${reserved})`,
              }),
              alarmFriendlyName: `${name}Concurrency`,
              addAlarm: {
                Critical: {
                  threshold: Math.max(1, Math.floor(reserved * ratio)),
                  comparisonOperator: GTE,
                  datapointsToAlarm: 3,
                  evaluationPeriods: 5,
                  treatMissingDataOverride: cloudwatch.TreatMissingData.NOT_BREACHING,
                  ...toDegraded,
                  alarmDescriptionOverride: `The ${name} function ran ${Math.max(1, Math.floor(reserved * ratio))} or more of its ${reserved} reserved executions in 3 of the last 5 minutes: the next spike is throttled (a 5xx to the provider${providerWords.doesNotRetry() ? `; ${providerWords.doesNotRetry()}` : ''}). Usually DynamoDB is slow (each callback holds an execution longer: StorageOutage, AckLatency) or traffic grew past the route throttles the reservation is sized from (docs/deploy.md, "The public edge"): raise providerThrottles and reservedConcurrency together.${DEGRADED_NOTE}`,
                },
              },
            })),
          },
        ],
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
          ...toStorage,
          alarmDescriptionOverride:
            'DynamoDB throttled reads of the relay table in 2 of the last 3 minutes (on-demand: a hot partition or the table/account limit). No action of its own: StorageOutage pages.',
        },
      },
      addWriteThrottledEventsCountAlarm: {
        Critical: {
          maxThrottledEventsThreshold: 0,
          ...persistent,
          ...toStorage,
          alarmDescriptionOverride:
            'DynamoDB throttled writes to the relay table in 2 of the last 3 minutes. Callbacks that cannot be stored in time go to the ingress buffer. No action of its own: StorageOutage pages.',
        },
      },
    });
    // DynamoDB publishes SystemErrors per operation only: its alarm read 9 metrics ($0.90 a month). The
    // relay's own view of a failing table costs one: callbacks acked from the ingress buffer because the
    // table could not be written in time (system errors, timeouts, throttles alike), minute after minute.
    facade.monitorCustom({
      alarmFriendlyName: 'StoreFailing',
      humanReadableName: 'Callbacks buffered because the table failed',
      metricGroups: [
        {
          title: 'CallbacksBuffered (sum per minute)',
          metrics: [
            {
              metric: this.relayMetric(settings, 'CallbacksBuffered', 'Sum'),
              alarmFriendlyName: 'CallbacksBufferedPersisting',
              addAlarm: {
                Critical: {
                  threshold: 1,
                  comparisonOperator: GTE,
                  ...persistent,
                  treatMissingDataOverride: cloudwatch.TreatMissingData.NOT_BREACHING,
                  ...toStorage,
                  alarmDescriptionOverride:
                    'Callbacks were acked from the ingress buffer in 2 of the last 3 minutes: the callback function could not write the table in time (DynamoDB system errors, timeouts or throttling). No action of its own: StorageOutage pages.',
                },
              },
            },
          ],
        },
      ],
    });
    facade.monitorCustom({
      alarmFriendlyName: 'PollCycleFailures',
      humanReadableName: 'Poll cycles that could not read the due index',
      metricGroups: [
        {
          title: 'PollCycleFailures (sum per minute)',
          metrics: [
            {
              metric: this.relayMetric(settings, 'PollCycleFailures', 'Sum'),
              alarmFriendlyName: 'PollCycleFailures',
              addAlarm: {
                Critical: {
                  threshold: 1,
                  comparisonOperator: GTE,
                  ...persistent,
                  treatMissingDataOverride: cloudwatch.TreatMissingData.NOT_BREACHING,
                  ...toStorage,
                  alarmDescriptionOverride:
                    'Poll cycles could not read the due index in 2 of the last 3 minutes: the table is unreachable from the poller. No action of its own: StorageOutage pages.',
                },
              },
            },
          ],
        },
      ],
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
            ...toPage,
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
          ...toDegraded,
          alarmDescriptionOverride: `A buffered callback has waited more than ${settings.bufferMaxAge.toHumanString()}: the buffer consumer is not draining the ingress buffer (DynamoDB still failing, consumer errors or throttles). The consumer backs off (up to 15 minutes between tries) and dead-letters after about 3.5 days.${DEGRADED_NOTE}`,
        },
      },
      addDeadLetterQueueMaxSizeAlarm: {
        Critical: {
          maxMessageCount: 0,
          treatMissingDataOverride: cloudwatch.TreatMissingData.NOT_BREACHING,
          ...toPage,
          alarmDescriptionOverride:
            'A buffered callback could not be applied after about 3.5 days of tries (or could never be) and is in the ingress buffer DLQ: the provider already got its ack, so only this message holds it. Fix the cause, then redrive (docs/deploy.md: aws sqs start-message-move-task).',
        },
      },
    });

    // ---- relay metrics ------------------------------------------------------------------------------
    facade.addLargeHeader('Relay metrics');
    const now = (
      metricName: (typeof ALARMED_RELAY_METRICS)[number],
      description: string,
      route: typeof toPage | typeof toTicket,
    ): CustomMetricGroup['metrics'][number] => ({
      metric: this.relayMetric(settings, metricName, 'Sum'),
      alarmFriendlyName: metricName,
      addAlarm: {
        Critical: {
          threshold: 1,
          comparisonOperator: GTE,
          treatMissingDataOverride: cloudwatch.TreatMissingData.NOT_BREACHING,
          ...route,
          alarmDescriptionOverride: description,
        },
      },
    });
    const rejectedPeriod = Duration.minutes(5);
    const silentPeriod = Duration.minutes(5);
    // Polling switched off on purpose is no outage: the cycles are still graphed, nothing pages.
    const heartbeat = settings.pollerHeartbeatPeriod || Duration.minutes(10);
    const heartbeatAlarmed = settings.pollerHeartbeatPeriod !== false;
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
              'A callback was acked from the ingress buffer because DynamoDB could not be written in time (ticket: one buffered callback is handled; StorageOutage pages for an outage). The buffer consumer applies it later; watch the buffer age and its DLQ.',
              toTicket,
            ),
            now(
              'BufferedCallbacksFailed',
              'The buffer consumer could not apply a buffered callback (it backs off and retries, then dead-letters after about 3.5 days). See the buffer-consumer logs.',
              toTicket,
            ),
            {
              metric: this.relayMetric(settings, INGRESS_BUFFER_OFF_METRIC, 'Sum'),
              alarmFriendlyName: INGRESS_BUFFER_OFF_METRIC,
              addAlarm: {
                Critical: {
                  threshold: 1,
                  comparisonOperator: GTE,
                  treatMissingDataOverride: cloudwatch.TreatMissingData.NOT_BREACHING,
                  ...toPage,
                  alarmDescriptionOverride: `A callback function runs without its ingress buffer (INGRESS_BUFFER_QUEUE_URL missing, or the seal key unreadable at cold start): while DynamoDB fails, callbacks are answered 503 instead of buffered${providerWords.doesNotRetry() ? `, and ${providerWords.doesNotRetry()}` : ''}. See the callback logs ("ingress buffer off"); a new cold start (redeploy, or update the function configuration) retries the key.`,
                },
              },
            },
            {
              metric: this.relayMetric(settings, 'CallbacksRejected', 'Sum', rejectedPeriod),
              alarmFriendlyName: 'CallbacksRejected',
              addAlarm: {
                Critical: {
                  threshold: settings.rejectedCallbacksThreshold,
                  comparisonOperator: GTE,
                  period: rejectedPeriod,
                  treatMissingDataOverride: cloudwatch.TreatMissingData.NOT_BREACHING,
                  ...toTicket,
                  alarmDescriptionOverride: `${settings.rejectedCallbacksThreshold} or more callbacks were rejected (authentication or format) in 5 minutes: usually a scanner probing the public URL, sometimes a misconfigured provider account (${['path secret', ...providerWords.misconfigurations()].join(', ')}). See the CallbackRejected events and the quarantine.`,
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
                  ...toTicket,
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
            {
              metric: new cloudwatch.MathExpression({
                expression: POLL_CYCLES_COMPLETED_EXPRESSION,
                usingMetrics: {
                  invocations: targets.pollerFunction.metricInvocations({
                    statistic: 'Sum',
                    period: heartbeat,
                  }),
                  errors: targets.pollerFunction.metricErrors({ statistic: 'Sum', period: heartbeat }),
                },
                period: heartbeat,
                label: 'Poll cycles completed (poller invocations − errors)',
              }),
              alarmFriendlyName: 'PollerHeartbeat',
              addAlarm: heartbeatAlarmed
                ? {
                    Critical: {
                      threshold: 1,
                      comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
                      period: heartbeat,
                      // No data is exactly what a stopped poller looks like.
                      treatMissingDataOverride: cloudwatch.TreatMissingData.BREACHING,
                      ...toDegraded,
                      alarmDescriptionOverride: `No poll cycle completed for ${heartbeat.toHumanString()}: nothing is being reconciled (lost callbacks stay pending, nothing expires). Check the schedule (pollingEnabled, the PollSchedule DLQ), the poller's errors, throttles and timeouts, StorageOutage.${DEGRADED_NOTE}`,
                    },
                  }
                : {},
            },
            {
              metric: this.relayMetric(
                settings,
                STATUS_CREDENTIAL_FAILURES_METRIC,
                'Sum',
                Duration.minutes(5),
              ),
              alarmFriendlyName: STATUS_CREDENTIAL_FAILURES_METRIC,
              addAlarm: {
                Critical: {
                  threshold: 1,
                  comparisonOperator: GTE,
                  period: Duration.minutes(5),
                  datapointsToAlarm: 2,
                  evaluationPeriods: 3,
                  treatMissingDataOverride: cloudwatch.TreatMissingData.NOT_BREACHING,
                  ...toPage,
                  alarmDescriptionOverride:
                    "A provider's status API refused the relay's credentials (401/403: a revoked or rotated key, an expired API user) in 2 of the last three 5-minute periods: no transaction of that account can be reconciled. See StatusApiCredentialFailures{provider,account} and the poller logs; update the account's API secret (docs/deploy.md).",
                },
              },
            },
            now(
              'TransactionsExpired',
              'A transaction reached the end of its reconciliation window without a final answer (TransactionExpired): a person must look (the history, the provider; resolve by hand).',
              toTicket,
            ),
            now(
              'VerificationDisagreements',
              'A status check contradicted a success callback (UNVERIFIED_SUCCESS conflict): possibly a forged callback. Check the transaction history and the quarantine.',
              toPage,
            ),
            now(
              'StatusNotFoundConflicts',
              'The status API does not know a reference a callback reported on (NOT_FOUND conflict; the transaction is AMBIGUOUS and escalated, never failed): usually the request was made with another API user than the account is configured with (docs/reconciliation.md, "Precedence"; docs/clients/ for each client library). Compare the API user that made the request with accounts.<provider>.<account>.api.',
              toTicket,
            ),
            now(
              'AmbiguousEscalated',
              'A transaction stayed ambiguous past escalateAmbiguousAfterSeconds (TransactionEscalated): ask the provider.',
              toTicket,
            ),
            {
              // Written by the poller each cycle while an account is silent (nothing otherwise: no data is
              // OK), so it returns to OK once the callbacks are back (docs/reconciliation.md#callback-health).
              metric: this.relayMetric(settings, SILENT_ACCOUNTS_METRIC, 'Maximum', silentPeriod),
              alarmFriendlyName: SILENT_ACCOUNTS_METRIC,
              addAlarm: {
                Critical: {
                  threshold: 1,
                  comparisonOperator: GTE,
                  period: silentPeriod,
                  treatMissingDataOverride: cloudwatch.TreatMissingData.NOT_BREACHING,
                  ...toTicket,
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

    // One silence alarm per provider, on CallbacksReceived{provider}: per-account series and alarm
    // metrics were $0.40 a month per account (issue 28), and 500 accounts would need 51 alarms. An
    // account that goes quiet while its transactions wait is named by the poller (SilentAccounts, the
    // CallbackSilence event); this alarm catches a provider that stopped calling back altogether.
    const silences = silencePeriodsByProvider(targets.accounts, settings.callbackSilence);
    if (silences.length) {
      facade.monitorCustom({
        alarmFriendlyName: 'CallbackSilence',
        humanReadableName: 'Callbacks received per provider',
        metricGroups: [
          {
            title: 'CallbacksReceived per provider (sum over the silence period)',
            metrics: silences.map(({ provider, period, accounts }) => ({
              metric: new cloudwatch.Metric({
                namespace: settings.metricsNamespace,
                metricName: CALLBACKS_RECEIVED_METRIC,
                dimensionsMap: { provider },
                statistic: 'Sum',
                period,
                label: provider,
              }),
              alarmFriendlyName: `Silence-${provider}`,
              addAlarm: {
                Critical: {
                  threshold: 1,
                  comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
                  period,
                  // No datapoint is exactly what a provider that stopped calling back looks like.
                  treatMissingDataOverride: cloudwatch.TreatMissingData.BREACHING,
                  ...toTicket,
                  alarmDescriptionOverride: silenceDescription(provider, period, accounts, providerWords),
                },
              },
            })),
          },
        ],
      });
    }

    // ---- provider outages: one alarm per provider (never per account) -----------------------------
    const outageErrors = settings.providerOutageErrors ?? 10;
    const outagePeriod = Duration.minutes(5);
    for (const provider of targets.providers ?? []) {
      // A Metrics Insights query sums StatusCallErrors{provider,account,error} over the provider's
      // accounts: one alarm whatever the number of accounts.
      const alarm = new cloudwatch.Alarm(this, `ProviderOutage-${provider}`, {
        alarmName: `${settings.namePrefix}-ProviderOutage-${provider}`,
        actionsEnabled: true,
        metric: new cloudwatch.MathExpression({
          expression: `SELECT SUM(${STATUS_CALL_ERRORS_METRIC}) FROM "${settings.metricsNamespace}" WHERE provider = '${provider}'`,
          usingMetrics: {},
          period: outagePeriod,
          label: `${provider} status API errors`,
        }),
        threshold: outageErrors,
        comparisonOperator: GTE,
        evaluationPeriods: 3,
        datapointsToAlarm: 2,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        alarmDescription: `${provider}'s status API failed ${outageErrors} or more times (timeouts, 5xx, unreadable answers) in 2 of the last three 5-minute periods, across its accounts: the provider is probably down. Its transactions stay pending and are polled again; its accounts' silence tickets follow. Check the provider's status page; tell the partner. One page for the provider, not one per account.`,
      });
      this.routeTo(alarm, settings.pageTopic);
    }

    // ---- the edge ----------------------------------------------------------------------------------
    let edgeMembers: cloudwatch.IAlarm[] = [];
    if (targets.edge) {
      const refusals = new cloudwatch.Alarm(this, 'OriginVerifyRefusals', {
        alarmName: `${settings.namePrefix}-Edge-OriginVerifyRefusals`,
        metric: this.relayMetric(settings, ORIGIN_VERIFY_REFUSALS_METRIC, 'Sum', Duration.minutes(5)),
        threshold: 5,
        comparisonOperator: GTE,
        evaluationPeriods: 3,
        datapointsToAlarm: 2,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        alarmDescription:
          'Five or more requests in 2 of the last three 5-minute periods carried a wrong origin-verify header: CloudFront sends a secret the relay does not accept (a rotation half done: docs/deploy.md), or someone probes the API around the edge. No action of its own: EdgeOutage pages.',
      });
      edgeMembers = [refusals];
      if (targets.edge.probe) {
        edgeMembers.push(
          new cloudwatch.Alarm(this, 'EdgeProbe', {
            alarmName: `${settings.namePrefix}-Edge-SyntheticCheck`,
            metric: this.relayMetric(settings, EDGE_PROBE_FAILURES_METRIC, 'Maximum', Duration.minutes(5)),
            threshold: 1,
            comparisonOperator: GTE,
            // Two runs in a row: one lost request is not an outage.
            evaluationPeriods: 2,
            datapointsToAlarm: 2,
            // A check that stopped reporting proves nothing: that is a failure too.
            treatMissingData: cloudwatch.TreatMissingData.BREACHING,
            alarmDescription:
              'The synthetic check (every 5 minutes, one harmless request per provider route through the public URL) failed twice in a row for at least one provider, or stopped reporting: providers cannot reach the relay through the edge. Its log (EdgeProbe function) names the provider and the status. No action of its own: EdgeOutage pages.',
          }),
        );
      }
      if (Stack.of(this).region === 'us-east-1') {
        // CloudFront publishes its metrics in us-east-1 only, and an alarm watches its own region.
        const distributionId = targets.edge.distribution.distributionId;
        const cf = (metricName: string) =>
          new cloudwatch.Metric({
            namespace: 'AWS/CloudFront',
            metricName,
            dimensionsMap: { DistributionId: distributionId, Region: 'Global' },
            statistic: 'Average',
            period: Duration.minutes(5),
          });
        edgeMembers.push(
          new cloudwatch.Alarm(this, 'Edge5xxRate', {
            alarmName: `${settings.namePrefix}-Edge-5xxErrorRate`,
            metric: cf('5xxErrorRate'),
            threshold: settings.serverErrorRatePercent,
            comparisonOperator: GTE,
            evaluationPeriods: 3,
            datapointsToAlarm: 2,
            treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
            alarmDescription: `CloudFront answered 5xx to ${settings.serverErrorRatePercent}% or more of the viewer requests in 2 of the last three 5-minute periods: the origin (the API custom domain, its certificate) is unreachable or failing. No action of its own: EdgeOutage pages.`,
          }),
        );
      }
    }

    // One page for a storage outage: any member (table throttles, callbacks buffered, unreadable due index).
    const members = facade.createdAlarmsWithTag(STORAGE_OUTAGE_TAG).map((a) => a.alarm);
    this.storageOutage = new cloudwatch.CompositeAlarm(this, 'StorageOutage', {
      compositeAlarmName: `${settings.namePrefix}-StorageOutage`,
      alarmRule: cloudwatch.AlarmRule.anyOf(
        ...members.map((alarm) => cloudwatch.AlarmRule.fromAlarm(alarm, cloudwatch.AlarmState.ALARM)),
      ),
      alarmDescription:
        'The relay table is failing (callbacks acked from the ingress buffer because the table could not be written, read or write throttling, or the poller cannot read the due index, each in 2 of the last 3 minutes). Callbacks go to the ingress buffer and are acked; the poller and the management API fail meanwhile. Check the AWS Health Dashboard and the table metrics; nothing to replay afterwards (the buffer drains itself). One page for what used to be up to eight.',
    });
    this.routeTo(this.storageOutage, settings.pageTopic);

    // One page for a degraded service; none while the storage outage (their usual cause) already paged.
    const degraded = facade.createdAlarmsWithTag(SERVICE_DEGRADED_TAG).map((a) => a.alarm);
    this.serviceDegraded = new cloudwatch.CompositeAlarm(this, 'ServiceDegraded', {
      compositeAlarmName: `${settings.namePrefix}-ServiceDegraded`,
      alarmRule: cloudwatch.AlarmRule.anyOf(
        ...degraded.map((alarm) => cloudwatch.AlarmRule.fromAlarm(alarm, cloudwatch.AlarmState.ALARM)),
      ),
      actionsSuppressor: this.storageOutage,
      // The storage members alarm within 2-3 minutes, the latency ones in 3-5: wait for the suppressor.
      actionsSuppressorWaitPeriod: Duration.minutes(3),
      actionsSuppressorExtensionPeriod: Duration.minutes(10),
      alarmDescription:
        "The relay is failing to serve: a member alarm (its name and description are in this alarm's history) is in ALARM: the 5xx rate, a callback or decision function failing, throttled, slow or near its reserved concurrency, acks too slow for a provider, the poller without a completed cycle, or the ingress buffer not draining. Suppressed while StorageOutage is in ALARM (they are its symptoms). One page, whatever the number of members.",
    });
    this.routeTo(this.serviceDegraded, settings.pageTopic);

    this.edgeOutage = edgeMembers.length
      ? new cloudwatch.CompositeAlarm(this, 'EdgeOutage', {
          compositeAlarmName: `${settings.namePrefix}-EdgeOutage`,
          alarmRule: cloudwatch.AlarmRule.anyOf(
            ...edgeMembers.map((alarm) => cloudwatch.AlarmRule.fromAlarm(alarm, cloudwatch.AlarmState.ALARM)),
          ),
          alarmDescription:
            'Provider callbacks cannot get through the CloudFront edge: CloudFront answers 5xx, or the origin check refuses what CloudFront sends. Check the distribution, the API custom domain and its certificate, the origin-verify secret (docs/deploy.md, "The public edge"). One page for the edge.',
        })
      : undefined;
    if (this.edgeOutage) this.routeTo(this.edgeOutage, settings.pageTopic);
    for (const member of edgeMembers) this.own.push(member as cloudwatch.AlarmBase);
  }

  /** ALARM and OK to one topic; kept in `alarms`. */
  private routeTo(alarm: cloudwatch.AlarmBase, topic: sns.ITopic): void {
    alarm.addAlarmAction(new SnsAction(topic));
    alarm.addOkAction(new SnsAction(topic));
    this.own.push(alarm);
  }

  /** Every alarm created (the library's, then the composite). */
  get alarms(): cloudwatch.AlarmBase[] {
    return [...this.facade.createdAlarms().map((a) => a.alarm), ...this.own];
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

/** Functions whose failures page (the callback path and the partner-facing API); the others ticket. */
const PAGED_FUNCTIONS = new Set(['Callback', 'Management']);

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

/**
 * The relay's metrics namespace unless `metricsNamespace` is set: `<base>/<stack name>/<construct
 * path in the stack>`, so two relays in one account (or one stack) never feed each other's alarms.
 * CloudWatch allows letters, digits and `.-_/#:` (at most 255 characters).
 */
export function defaultRelayNamespace(scope: Construct, base: string): string {
  const stack = Stack.of(scope);
  const path = scope.node.path.slice(stack.node.path.length).replace(/^\//, '');
  return `${base}/${stack.stackName}/${path}`.replace(/[^A-Za-z0-9._/#:-]/g, '-').slice(0, 255);
}

/**
 * Per provider with an account to watch: the shortest silence period among its accounts (an account set
 * to false is not watched; a provider whose accounts are all false gets no alarm) and the accounts.
 */
export function silencePeriodsByProvider(
  accounts: ReadonlyArray<{ readonly provider: string; readonly account: string }>,
  periodOf: (provider: string, account: string) => Duration | false,
): Array<{ provider: string; period: Duration; accounts: string[] }> {
  const found = new Map<string, { provider: string; period: Duration; accounts: string[] }>();
  for (const { provider, account } of accounts) {
    const period = periodOf(provider, account);
    if (period === false) continue;
    const entry = found.get(provider);
    if (!entry) found.set(provider, { provider, period, accounts: [account] });
    else {
      entry.accounts.push(account);
      if (period.toSeconds() < entry.period.toSeconds()) entry.period = period;
    }
  }
  return [...found.values()];
}

/** What the ticket says: the provider, its watched accounts (cut short past 1,024 characters), the causes. */
function silenceDescription(
  provider: string,
  period: Duration,
  accounts: readonly string[],
  words: typeof providerWords,
): string {
  const head = `No callback for ${period.toHumanString()} from any account of ${provider}: the provider may have stopped calling back (${['callback URLs', 'path secrets', ...words.urlRegistrations()].join(', ')}) or nobody paid. An account silent while its siblings call back is named by SilentAccounts (its transactions waiting) and the poller's log. Tune or turn off with callbackSilencePeriod / callbackSilencePeriods (the shortest of the provider's accounts is used). Accounts: `;
  const list = accounts.join(', ');
  const room = 1024 - head.length;
  return head + (list.length <= room ? list : `${list.slice(0, Math.max(0, room - 2))}…`);
}
