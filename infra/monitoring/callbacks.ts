import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import {
  BUFFERED_APPLIED_METRIC,
  BUFFERED_FAILED_METRIC,
  CALLBACKS_BUFFERED_METRIC,
  CALLBACKS_REJECTED_METRIC,
  INGRESS_BUFFER_OFF_METRIC,
  PREVIOUS_PATH_SECRET_METRIC,
  REFUSALS_NOT_STORED_METRIC,
  STAGE_THROTTLED_METRIC,
} from '../../shared/config/metric-names';
import { inParentheses, providerAckLimits, providerWords } from '../relay/providers';
import { DEGRADED_NOTE, type MonitoringKit } from './kit';
import type { RelayMonitoringTargets } from './types';

/** Below this many requests in 5 minutes, the 429 rate is not judged (one 429 in 3 is not an outage). */
const RATE_MIN_REQUESTS = 20;
const RATE_PERIOD = Duration.minutes(5);

/**
 * The public edge of the callbacks: the API's 5xx (every failed, timed-out or throttled invocation of
 * the functions behind it is one, so one alarm instead of a fault and a throttle alarm per function) and
 * the stage's 429 rate.
 */
export function monitorApi(kit: MonitoringKit, targets: RelayMonitoringTargets): void {
  const { facade, settings } = kit;
  facade.addLargeHeader('Mobile-money relay: provider callbacks');
  facade.monitorApiGatewayV2HttpApi({
    api: targets.api,
    apiStage: '$default',
    humanReadableName: 'HTTP API',
    alarmFriendlyName: 'Api',
    add5xxCountAlarm: {
      Critical: {
        maxErrorCount: 0,
        datapointsToAlarm: 2,
        evaluationPeriods: 3,
        ...kit.routing('degraded'),
        alarmDescriptionOverride: `The HTTP API answered 5xx in 2 of the last 3 minutes: a function behind it failed, timed out or was throttled (callback, C2B validation, management), or a callback was neither stored nor buffered (503). The Functions graphs name the function (errors, throttles, concurrency against its reservation); IngressBufferOff says whether the buffer is off.${providerWords.retrySentence()} Lost callbacks are reconciled by the poller.${DEGRADED_NOTE}`,
      },
    },
  });
  const requests = targets.api.metricCount({ period: RATE_PERIOD, statistic: 'Sum' });
  // The stage's 429s: HTTP APIs publish no throttle metric, the access log has the status.
  new logs.MetricFilter(kit.scope, 'StageThrottledFilter', {
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
      period: RATE_PERIOD,
      label,
    });
  kit.graphs('Stage', 'Stage 429 and 5xx rates (% of requests, 5 minutes)', [
    {
      title: '429 and 5xx rates (%)',
      metrics: [
        {
          name: 'Stage429Rate',
          metric: rate(
            'throttled',
            kit.relayMetric(STAGE_THROTTLED_METRIC, 'Sum', RATE_PERIOD),
            '429 rate (%)',
          ),
          threshold: settings.throttledRatePercent,
          route: 'page',
          description: `The stage throttled ${settings.throttledRatePercent}% or more of the requests in 5 minutes (at least ${RATE_MIN_REQUESTS} requests): providers get 429${providerWords.nonRetrying() ? ' and some never retry' : ''}${inParentheses(providerWords.nonRetrying())}. A provider's route throttle (providerThrottles) or the stage's is too low for its traffic, or a flood; see the access logs (status 429, routeKey) and the WAF metrics.`,
        },
        rate(
          'serverErrors',
          targets.api.metricServerError({ period: RATE_PERIOD, statistic: 'Sum' }),
          '5xx rate (%)',
        ),
      ],
    },
  ]);
}

/**
 * The Logs Insights query of the per-provider ack time: the callback function's "callback handled" lines
 * carry the provider and `ackedInMs` (shared/app/callbacks/receive-callback.ts). Run when the dashboard is
 * viewed (Logs Insights bills the bytes scanned, $0.005 per GB, in the free 5 GB for a small relay), where
 * a metric series per provider billed $0.30 a month each whether anyone looked or not.
 */
const ACK_BY_PROVIDER_QUERY = [
  'filter message = "callback handled" and ispresent(ackedInMs)',
  'stats pct(ackedInMs, 50) as p50, pct(ackedInMs, 99) as p99, count(*) as callbacks by provider, bin(5m)',
];

/**
 * How fast callbacks are acked: one alarm on the callback function's own Duration p99 (AWS's free Lambda
 * metric: the whole handler, the ack included) at the tightest budget a provider declares. Slow acks come
 * from the table, cold starts or a full reservation, which every provider shares; the per-provider p50 and
 * p99 are a Logs Insights query on the dashboard (ACK_BY_PROVIDER_QUERY).
 */
export function monitorAcks(kit: MonitoringKit, targets: RelayMonitoringTargets): void {
  const { settings } = kit;
  const declared = settings.ackLatencyAlarms.map((a) => a.ms);
  const threshold = Math.min(...declared, settings.callbackLatencyThreshold.toMilliseconds());
  const tightest = settings.ackLatencyAlarms.find((a) => a.ms === threshold);
  const budget = tightest?.limit
    ? `close to ${tightest.limit} budget, past which the provider counts the callback as failed${tightest.retries === false ? ' (it may not retry)' : ''}`
    : `close to ${ackLimitsPhrase()}`;
  const duration = (statistic: string) =>
    targets.callbackFunction.metricDuration({
      statistic,
      period: Duration.minutes(1),
      label: `Callback function duration (${statistic})`,
    });
  kit.graphs('AckLatency', "Ack time (the callback function's duration)", [
    {
      title: 'Callback function duration p50 / p99 (ms)',
      metrics: [
        duration('p50'),
        {
          name: 'P99',
          metric: duration('p99'),
          threshold,
          comparison: '>',
          persist: [3, 5],
          route: 'degraded',
          description: `The callback function's duration p99 (the time to ack, every provider) was above ${threshold} ms in 3 of the last 5 minutes: ${budget}. The dashboard's "Ack time per provider" query says whose. Look at DynamoDB latency (StorageOutage), cold starts, the callback function's concurrency against its reservation.`,
        },
      ],
      lines: providerAckLimits().map(({ ms, label }) => ({ value: ms, label })),
    },
  ]);
  // The function's own log group (the relay gives each function one); an imported function has none here.
  const fn = targets.callbackFunction;
  const logGroup = fn instanceof lambda.Function ? fn.logGroup : undefined;
  if (!kit.dashboard || !logGroup) return;
  kit.facade.addWidget(
    new cloudwatch.LogQueryWidget({
      title: 'Ack time per provider (ms; Logs Insights over the callback function logs)',
      logGroupNames: [logGroup.logGroupName],
      queryLines: ACK_BY_PROVIDER_QUERY,
      view: cloudwatch.LogQueryVisualizationType.TABLE,
      width: 24,
      height: 6,
    }),
  );
}

/** Callbacks in: received, rejected, buffered, the buffer off, refusals counted instead of stored. */
export function monitorIngress(kit: MonitoringKit, targets: RelayMonitoringTargets): void {
  const { settings } = kit;
  kit.graphs('Relay', 'Callbacks in', [
    {
      title: 'Ingress',
      metrics: [
        // The callback function's own invocations (free): no custom series on every callback (issue 28).
        // Per provider: the dashboard's "Ack time per provider" query counts the "callback handled" lines.
        targets.callbackFunction.metricInvocations({
          statistic: 'Sum',
          period: Duration.minutes(1),
          label: 'Callback function invocations (Sum)',
        }),
        kit.relayMetric(CALLBACKS_BUFFERED_METRIC, 'Sum'),
        kit.relayMetric(BUFFERED_APPLIED_METRIC, 'Sum'),
        kit.relayMetric(BUFFERED_FAILED_METRIC, 'Sum'),
        kit.relayMetric(PREVIOUS_PATH_SECRET_METRIC, 'Sum'),
        {
          name: INGRESS_BUFFER_OFF_METRIC,
          metric: kit.relayMetric(INGRESS_BUFFER_OFF_METRIC, 'Sum'),
          threshold: 1,
          route: 'page',
          description: `A callback function runs without its ingress buffer (INGRESS_BUFFER_QUEUE_URL missing, or the seal key unreadable at cold start): while DynamoDB fails, callbacks are answered 503 instead of buffered${providerWords.doesNotRetry() ? `, and ${providerWords.doesNotRetry()}` : ''}. See the callback logs ("ingress buffer off"); a new cold start (redeploy, or update the function configuration) retries the key.`,
        },
        {
          name: CALLBACKS_REJECTED_METRIC,
          metric: kit.relayMetric(CALLBACKS_REJECTED_METRIC, 'Sum', Duration.minutes(5)),
          threshold: settings.rejectedCallbacksThreshold,
          route: 'ticket',
          description: `${settings.rejectedCallbacksThreshold} or more callbacks were rejected (authentication or format) in 5 minutes: usually a scanner probing the public URL, sometimes a misconfigured provider account (${['path secret', ...providerWords.misconfigurations()].join(', ')}). See the CallbackRejected events and the quarantine.`,
        },
      ],
    },
    {
      // Not alarmed: the CallbacksRejected ticket is on the spike itself (docs/routes.md).
      title: 'RefusalsNotStored (sum per minute)',
      metrics: [kit.relayMetric(REFUSALS_NOT_STORED_METRIC, 'Sum')],
    },
  ]);
}

/** The providers' ack limits for a description: the longest one first, then the others. */
function ackLimitsPhrase(): string {
  const [longest, ...others] = providerAckLimits().sort((a, b) => b.ms - a.ms);
  return `${longest!.phrase}${others.length ? ` and far past ${others.map((limit) => limit.phrase).join(', ')}` : ''}`;
}
