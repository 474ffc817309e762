import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import { PULL_AGE_METRIC } from '../../shared/app/provider-records/pull-cycle';
import { providerRecordTimings, type RelayConfig } from '../../shared/config/schema';
import { PROVIDER_INFRA } from '../../shared/providers/registry';
import { monitoringNamePrefix, PAGE_TAG, TICKET_TAG } from '../monitoring';

/** Providers whose accounts may pull their own record of money moved (their infra declares a `pullApi`). */
const PULL_PROVIDERS = PROVIDER_INFRA.flatMap((d) =>
  'pullApi' in d ? [{ id: d.id, name: d.name, pullApi: d.pullApi }] : [],
);

/**
 * The pull's alarms (docs/pull-and-balances.md): per account of a provider with a pull API, a **ticket**
 * when its last good pull is older than `providerRecords.pullTicketAfterSeconds` (default 12 h) and a
 * **page** when it is older than `pullPageAfterSeconds` (default 36 h): the pull API reaches back only so
 * far (its declared `lookBackSeconds`), so past that the payments of the gap can no longer be pulled. The poller writes the age every tick for every account it
 * pulls (StatementPullAgeSeconds); a failure answered HTTP 200 does not reset it. Whether an account
 * pulls is in its API settings, which reach the relay from Secrets Manager at run time: every account
 * of such a provider gets the pair, and an account that never pulls writes no age (missing data is not breaching;
 * the poller's own heartbeat pages when the poller stops).
 */
export function pullAlarms(
  scope: Construct,
  parts: { config: RelayConfig; metricsNamespace: string; pageTopic: sns.ITopic; ticketTopic: sns.ITopic },
): cloudwatch.Alarm[] {
  const prefix = monitoringNamePrefix(scope);
  const alarms: cloudwatch.Alarm[] = [];
  for (const account of parts.config.accounts.values()) {
    const provider = PULL_PROVIDERS.find((p) => p.id === account.provider);
    if (!provider) continue;
    const timings = providerRecordTimings(parts.config.providerRecords, account.provider, account.id);
    const metric = new cloudwatch.Metric({
      namespace: parts.metricsNamespace,
      metricName: PULL_AGE_METRIC,
      dimensionsMap: { provider: account.provider, account: account.id },
      statistic: 'Maximum',
      period: Duration.minutes(15),
    });
    const id = `${account.provider}-${account.id}`.replace(/[^A-Za-z0-9]/g, '');
    const hours = (seconds: number) => `${Math.round((seconds / 3600) * 10) / 10} h`;
    const make = (kind: 'Ticket' | 'Page', seconds: number, topic: sns.ITopic, tag: string, what: string) => {
      const alarm = new cloudwatch.Alarm(scope, `PullAge${kind}${id}`, {
        alarmName: `${prefix}-PullAge-${account.provider}-${account.id}-${kind}`.slice(0, 255),
        alarmDescription: `[${tag}] ${account.provider}/${account.id}: no good pull of the provider's records for over ${hours(seconds)}. ${what} Check the poller's "pull failed" log lines (a failure answered HTTP 200 counts as a failure) and the account's Pull API access (docs/pull-and-balances.md).`,
        metric,
        threshold: seconds,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
      alarm.addAlarmAction(new SnsAction(topic));
      alarms.push(alarm);
    };
    make(
      'Ticket',
      timings.pullTicketAfterSeconds,
      parts.ticketTopic,
      TICKET_TAG,
      'Payments whose callback never came are not found meanwhile.',
    );
    make(
      'Page',
      timings.pullPageAfterSeconds,
      parts.pageTopic,
      PAGE_TAG,
      `The ${provider.pullApi.name} reaches back ${hours(provider.pullApi.lookBackSeconds)} only: the oldest payments of the gap are about to be out of reach.`,
    );
  }
  return alarms;
}
