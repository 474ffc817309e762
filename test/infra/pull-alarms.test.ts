/**
 * Issue 29 item 9 (the pull's part): per provider with a pull API (never per account: the template must not
 * grow with the accounts), a ticket when an account's last good pull is older than 12 h and a page before
 * Daraja's 48 h look-back closes (36 h); a per-account override lowers its provider's threshold.
 */
import { describe, expect, it } from 'vitest';
import { PULL_AGE_METRIC } from '../../shared/app/provider-records/pull-cycle';
import { exampleConfig, ofType, synthRelay } from './relay-synth';

const config = {
  ...exampleConfig,
  providerRecords: { accounts: { 'daraja/demo': { pullTicketAfterSeconds: 6 * 3600 } } },
};
const relay = synthRelay('PullAlarms', () => ({}), config);
const pullAlarms = ofType(relay.resources, 'AWS::CloudWatch::Alarm').filter(([, r]) =>
  JSON.stringify(r.Properties.Metrics ?? '').includes(PULL_AGE_METRIC),
);
const topicOf = (r: { Properties: Record<string, any> }) => {
  const ref = String(r.Properties.AlarmActions?.[0]?.Ref ?? '');
  return /TicketTopic/.test(ref) ? 'ticket' : /AlarmTopic/.test(ref) ? 'page' : ref;
};

describe('the pull age alarms', () => {
  it('tickets and pages on the oldest last good pull of the provider accounts, at the lowest threshold', () => {
    const byTopic = Object.fromEntries(pullAlarms.map(([, r]) => [topicOf(r), r.Properties]));
    expect(pullAlarms).toHaveLength(2);
    expect(byTopic.ticket).toMatchObject({
      Threshold: 6 * 3600,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
    const query = JSON.stringify(byTopic.ticket!.Metrics);
    expect(query).toContain(`SELECT MAX(${PULL_AGE_METRIC})`);
    expect(query).toContain("WHERE provider = 'daraja'");
    // OK goes where ALARM went.
    expect(byTopic.ticket!.OKActions).toEqual(byTopic.ticket!.AlarmActions);
    expect(byTopic.page).toMatchObject({ Threshold: 36 * 3600 });
    expect(byTopic.page!.AlarmDescription).toContain('48 h');
  });

  it('is among the relay alarms and keeps cdk-nag clean', () => {
    expect(relay.relay.alarms.filter((a) => /PullAge/.test(a.node.id))).toHaveLength(2);
    expect(relay.nagErrors).toEqual([]);
  });
});
