import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as logs from 'aws-cdk-lib/aws-logs';
import {
  ACK_LATENCY_METRIC,
  BUFFERED_APPLIED_METRIC,
  BUFFERED_FAILED_METRIC,
  CALLBACKS_BUFFERED_METRIC,
  CALLBACKS_RECEIVED_METRIC,
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
 * How fast callbacks are acked: one alarm on the relay-wide p99 (AckLatency, inside the handler) at the
 * tightest budget a provider declares. Slow acks come from the table, cold starts or a full reservation,
 * which every provider shares; the per-provider p99 is graphed against each provider's limit.
 */
export function monitorAcks(kit: MonitoringKit): void {
  const { settings } = kit;
  const declared = settings.ackLatencyAlarms.map((a) => a.ms);
  const threshold = Math.min(...declared, settings.callbackLatencyThreshold.toMilliseconds());
  const tightest = settings.ackLatencyAlarms.find((a) => a.ms === threshold);
  const budget = tightest?.limit
    ? `close to ${tightest.limit} budget, past which the provider counts the callback as failed${tightest.retries === false ? ' (it may not retry)' : ''}`
    : `close to ${ackLimitsPhrase()}`;
  kit.graphs('AckLatency', 'Ack latency (inside the handler)', [
    {
      title: 'AckLatency p50 / p99 (ms)',
      metrics: [
        kit.relayMetric(ACK_LATENCY_METRIC, 'p50'),
        {
          name: 'P99',
          metric: kit.relayMetric(ACK_LATENCY_METRIC, 'p99'),
          threshold,
          comparison: '>',
          persist: [3, 5],
          route: 'degraded',
          description: `Callbacks' ack p99 (AckLatency, inside the handler, every provider) was above ${threshold} ms in 3 of the last 5 minutes: ${budget}. The per-provider graph says whose. Look at DynamoDB latency (StorageOutage), cold starts, the callback function's concurrency against its reservation.`,
        },
      ],
      lines: providerAckLimits().map(({ ms, label }) => ({ value: ms, label })),
    },
    ...(settings.ackLatencyAlarms.length
      ? [
          {
            title: 'AckLatency p99 per provider (ms)',
            metrics: settings.ackLatencyAlarms.map(({ provider }) =>
              kit.relayMetricBy(ACK_LATENCY_METRIC, { provider }, 'p99'),
            ),
            lines: settings.ackLatencyAlarms.map(({ provider, ms }) => ({ value: ms, label: provider })),
          },
        ]
      : []),
  ]);
}

/** Callbacks in: received, rejected, buffered, the buffer off, refusals counted instead of stored. */
export function monitorIngress(kit: MonitoringKit): void {
  const { settings } = kit;
  kit.graphs('Relay', 'Callbacks in', [
    {
      title: 'Ingress',
      metrics: [
        kit.relayMetric(CALLBACKS_RECEIVED_METRIC, 'Sum'),
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
