/**
 * Issue 29 item 9 (the pull's part): per Daraja account, a ticket when the last good pull is older than
 * 12 h and a page before Daraja's 48 h look-back closes (36 h), both configurable per account.
 */
import { describe, expect, it } from 'vitest';
import { PULL_AGE_METRIC } from '../../shared/app/provider-records/pull-cycle';
import { exampleConfig, ofType, synthRelay } from './relay-synth';

const config = {
  ...exampleConfig,
  providerRecords: { accounts: { 'daraja/demo': { pullTicketAfterSeconds: 6 * 3600 } } },
};
const relay = synthRelay('PullAlarms', () => ({}), config);
const pullAlarms = ofType(relay.resources, 'AWS::CloudWatch::Alarm').filter(
  ([, r]) => r.Properties.MetricName === PULL_AGE_METRIC,
);
const topicOf = (r: { Properties: Record<string, any> }) => {
  const ref = String(r.Properties.AlarmActions?.[0]?.Ref ?? '');
  return /TicketTopic/.test(ref) ? 'ticket' : /AlarmTopic/.test(ref) ? 'page' : ref;
};

describe('the pull age alarms', () => {
  it('tickets and pages on the age of the account last good pull, at its own thresholds', () => {
    const byTopic = Object.fromEntries(pullAlarms.map(([, r]) => [topicOf(r), r.Properties]));
    expect(pullAlarms).toHaveLength(2);
    expect(byTopic.ticket).toMatchObject({
      Threshold: 6 * 3600,
      Statistic: 'Maximum',
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
      Dimensions: expect.arrayContaining([{ Name: 'account', Value: 'demo' }]),
    });
    expect(byTopic.page).toMatchObject({ Threshold: 36 * 3600 });
    expect(byTopic.page!.AlarmDescription).toContain('48 h');
  });

  it('is among the relay alarms and keeps cdk-nag clean', () => {
    expect(relay.relay.alarms.filter((a) => /PullAge/.test(a.node.id))).toHaveLength(2);
    expect(relay.nagErrors).toEqual([]);
  });
});
