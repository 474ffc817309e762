import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { type MonitoringKit, SERVICE_DEGRADED_TAG } from './kit';

const anyOf = (alarms: readonly cloudwatch.IAlarm[]) =>
  cloudwatch.AlarmRule.anyOf(
    ...alarms.map((alarm) => cloudwatch.AlarmRule.fromAlarm(alarm, cloudwatch.AlarmState.ALARM)),
  );

/**
 * One page for a degraded service, and none while the storage outage (their usual cause) already paged:
 * the members (tagged SERVICE_DEGRADED_TAG, or made outside the facade) have no action of their own.
 */
export function serviceDegraded(
  kit: MonitoringKit,
  storageOutage: cloudwatch.IAlarm,
): cloudwatch.CompositeAlarm {
  const members = [
    ...kit.facade.createdAlarmsWithTag(SERVICE_DEGRADED_TAG).map((a) => a.alarm),
    ...kit.degraded,
  ];
  const composite = new cloudwatch.CompositeAlarm(kit.scope, 'ServiceDegraded', {
    compositeAlarmName: `${kit.settings.namePrefix}-ServiceDegraded`,
    alarmRule: anyOf(members),
    actionsSuppressor: storageOutage,
    // StorageOutage alarms within 2-3 minutes, the latency member in 3-5: wait for the suppressor.
    actionsSuppressorWaitPeriod: Duration.minutes(3),
    actionsSuppressorExtensionPeriod: Duration.minutes(10),
    alarmDescription:
      "The relay is failing to serve: a member alarm (its name and description are in this alarm's history) is in ALARM: the API's 5xx (a callback, decision or management function failing, timing out or throttled), acks too slow for a provider, the poller without a completed cycle, or the ingress buffer not draining. Suppressed while StorageOutage is in ALARM (they are its symptoms). One page, whatever the number of members.",
  });
  kit.routeTo(composite, kit.settings.pageTopic);
  return composite;
}

/** One page for the CloudFront edge, whichever of its members fired. */
export function edgeOutage(
  kit: MonitoringKit,
  members: readonly cloudwatch.IAlarm[],
): cloudwatch.CompositeAlarm {
  const composite = new cloudwatch.CompositeAlarm(kit.scope, 'EdgeOutage', {
    compositeAlarmName: `${kit.settings.namePrefix}-EdgeOutage`,
    alarmRule: anyOf(members),
    alarmDescription:
      'Provider callbacks cannot get through the CloudFront edge: CloudFront answers 5xx, or the origin check refuses what CloudFront sends. Check the distribution, the API custom domain and its certificate, the origin-verify secret (docs/deploy.md, "The public edge"). One page for the edge.',
  });
  kit.routeTo(composite, kit.settings.pageTopic);
  return composite;
}
