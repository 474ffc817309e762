import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import { PULL_AGE_METRIC } from '../../shared/config/metric-names';
import { providerRecordTimings, type RelayConfig } from '../../shared/config/schema';
import { PROVIDER_INFRA } from '../../shared/providers/registry';
import { monitoringNamePrefix, PAGE_TAG, TICKET_TAG } from '../monitoring';

/** Providers whose accounts may pull their own record of money moved (their infra declares a `pullApi`). */
const PULL_PROVIDERS = PROVIDER_INFRA.flatMap((d) =>
  d.pullApi ? [{ id: d.id, name: d.name, pullApi: d.pullApi }] : [],
);

/**
 * The pull's alarms (docs/pull-and-balances.md): per provider with a pull API (never per account, so the
 * template does not grow with the accounts), a **ticket** when the oldest last good pull of its accounts
 * is older than `providerRecords.pullTicketAfterSeconds` (default 12 h) and a **page** when it is older
 * than `pullPageAfterSeconds` (default 36 h): the pull API reaches back only so far (its declared
 * `lookBackSeconds`), so past that the payments of the gap can no longer be pulled. With per-account
 * overrides the provider's alarm uses the smallest of its accounts' thresholds (the earliest warning).
 * The poller writes the age every tick for every account it pulls once it is half the ticket threshold
 * (StatementPullAgeSeconds{provider}, the maximum over its accounts, no roll-up); a failure answered
 * HTTP 200 does not reset it. One Metrics Insights query takes the maximum
 * over the provider's accounts; the poller's log line "pull failed" names the account. An account that
 * never pulls writes no age (missing data is not breaching; the poller's own heartbeat pages when the
 * poller stops).
 */
export function pullAlarms(
  scope: Construct,
  parts: { config: RelayConfig; metricsNamespace: string; pageTopic: sns.ITopic; ticketTopic: sns.ITopic },
): cloudwatch.Alarm[] {
  const prefix = monitoringNamePrefix(scope);
  const alarms: cloudwatch.Alarm[] = [];
  for (const provider of PULL_PROVIDERS) {
    const accounts = [...parts.config.accounts.values()].filter((a) => a.provider === provider.id);
    if (!accounts.length) continue;
    const timings = accounts.map((a) =>
      providerRecordTimings(parts.config.providerRecords, a.provider, a.id),
    );
    const metric = new cloudwatch.MathExpression({
      expression: `SELECT MAX(${PULL_AGE_METRIC}) FROM SCHEMA("${parts.metricsNamespace}", provider) WHERE provider = '${provider.id}'`,
      usingMetrics: {},
      period: Duration.minutes(15),
      label: `${provider.id}: oldest last good pull (s)`,
    });
    const hours = (seconds: number) => `${Math.round((seconds / 3600) * 10) / 10} h`;
    const make = (kind: 'Ticket' | 'Page', seconds: number, topic: sns.ITopic, tag: string, what: string) => {
      const alarm = new cloudwatch.Alarm(scope, `PullAge${kind}${provider.id}`, {
        alarmName: `${prefix}-PullAge-${provider.id}-${kind}`,
        alarmDescription: `[${tag}] ${provider.id}: an account's last good pull of the provider's records is over ${hours(seconds)} old. ${what} The poller's "pull failed" log lines name the account (a failure answered HTTP 200 counts as a failure); check its Pull API access (docs/pull-and-balances.md).`,
        metric,
        threshold: seconds,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        actionsEnabled: true,
      });
      // OK goes where ALARM went (docs/monitoring.md).
      alarm.addAlarmAction(new SnsAction(topic));
      alarm.addOkAction(new SnsAction(topic));
      alarms.push(alarm);
    };
    make(
      'Ticket',
      Math.min(...timings.map((t) => t.pullTicketAfterSeconds)),
      parts.ticketTopic,
      TICKET_TAG,
      'Payments whose callback never came are not found meanwhile.',
    );
    make(
      'Page',
      Math.min(...timings.map((t) => t.pullPageAfterSeconds)),
      parts.pageTopic,
      PAGE_TAG,
      `The ${provider.pullApi.name} reaches back ${hours(provider.pullApi.lookBackSeconds)} only: the oldest payments of the gap are about to be out of reach.`,
    );
  }
  return alarms;
}
