import { Duration, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { EDGE_PROBE_FAILURES_METRIC, ORIGIN_VERIFY_REFUSALS_METRIC } from '../../shared/config/metric-names';
import type { MonitoringKit } from './kit';
import type { RelayMonitoringTargets } from './types';

const EDGE_NOTE = ' No action of its own: EdgeOutage pages.';

/**
 * The CloudFront edge's evidence (no action of its own; EdgeOutage pages once): origin-verify refusals,
 * the synthetic check, and CloudFront's 5xx rate in a stack in us-east-1 (CloudFront publishes its
 * metrics there only, and an alarm watches its own region).
 */
export function edgeAlarms(
  kit: MonitoringKit,
  edge: NonNullable<RelayMonitoringTargets['edge']>,
): cloudwatch.Alarm[] {
  const { settings } = kit;
  const fiveMinutes = Duration.minutes(5);
  const member = (
    id: string,
    props: Omit<cloudwatch.AlarmProps, 'alarmName' | 'comparisonOperator'> & { name: string },
  ) => {
    const { name, alarmDescription, ...rest } = props;
    return new cloudwatch.Alarm(kit.scope, id, {
      alarmName: `${settings.namePrefix}-${name}`,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      alarmDescription: `${alarmDescription ?? ''}${EDGE_NOTE}`,
      ...rest,
    });
  };
  const members = [
    member('OriginVerifyRefusals', {
      name: 'Edge-OriginVerifyRefusals',
      metric: kit.relayMetric(ORIGIN_VERIFY_REFUSALS_METRIC, 'Sum', fiveMinutes),
      threshold: 5,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      alarmDescription:
        'Five or more requests in 2 of the last three 5-minute periods carried a wrong origin-verify header: CloudFront sends a secret the relay does not accept (a rotation half done: docs/deploy.md), or someone probes the API around the edge.',
    }),
  ];
  if (edge.probe)
    members.push(
      member('EdgeProbe', {
        name: 'Edge-SyntheticCheck',
        metric: kit.relayMetric(EDGE_PROBE_FAILURES_METRIC, 'Maximum', fiveMinutes),
        threshold: 1,
        // Two runs in a row: one lost request is not an outage.
        evaluationPeriods: 2,
        datapointsToAlarm: 2,
        // A check that stopped reporting proves nothing: that is a failure too.
        treatMissingData: cloudwatch.TreatMissingData.BREACHING,
        alarmDescription:
          'The synthetic check (every 5 minutes, one harmless request per provider route through the public URL) failed twice in a row for at least one provider, or stopped reporting: providers cannot reach the relay through the edge. Its log (EdgeProbe function) names the provider and the status.',
      }),
    );
  if (Stack.of(kit.scope).region === 'us-east-1')
    members.push(
      member('Edge5xxRate', {
        name: 'Edge-5xxErrorRate',
        metric: new cloudwatch.Metric({
          namespace: 'AWS/CloudFront',
          metricName: '5xxErrorRate',
          dimensionsMap: { DistributionId: edge.distribution.distributionId, Region: 'Global' },
          statistic: 'Average',
          period: fiveMinutes,
        }),
        threshold: settings.serverErrorRatePercent,
        evaluationPeriods: 3,
        datapointsToAlarm: 2,
        alarmDescription: `CloudFront answered 5xx to ${settings.serverErrorRatePercent}% or more of the viewer requests in 2 of the last three 5-minute periods: the origin (the API custom domain, its certificate) is unreachable or failing.`,
      }),
    );
  kit.own.push(...members);
  return members;
}
