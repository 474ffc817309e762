import { Duration } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import {
  INGRESS_BUFFER_OFF_METRIC,
  PAGE_TAG,
  POLL_CYCLES_COMPLETED_METRIC,
  STATUS_CREDENTIAL_FAILURES_METRIC,
  STORAGE_OUTAGE_TAG,
  TICKET_TAG,
} from '../../infra/monitoring';
import { DEFAULT_CALLBACK_RESERVED_CONCURRENCY } from '../../infra/relay/limits';
import { ofType, type Resource, SHARED_STACK, sharedRelay, synthRelay } from './relay-synth';

const relay = sharedRelay();
const { resources } = relay;
const alarms = ofType(resources, 'AWS::CloudWatch::Alarm');
const topicOf = (r: Resource) => {
  const ref = r.Properties.AlarmActions?.[0]?.Ref as string | undefined;
  return ref === undefined
    ? 'none'
    : /TicketTopic/.test(ref)
      ? 'ticket'
      : /AlarmTopic/.test(ref)
        ? 'page'
        : ref;
};
/** The alarm whose name ends with `suffix` (cdk-monitoring-constructs names: <prefix>-<friendly>-<kind>). */
const alarm = (pattern: RegExp) => {
  const found = alarms.filter(([, r]) => pattern.test(String(r.Properties.AlarmName)));
  expect(found, String(pattern)).toHaveLength(1);
  return found[0]![1];
};
const metricsOf = (r: Resource) =>
  (r.Properties.Metrics ?? []).filter((m: any) => m.MetricStat).map((m: any) => m.MetricStat);

describe('paging that means something', () => {
  it('creates a page topic and a ticket topic, each encrypted and subscribed', () => {
    const topics = ofType(resources, 'AWS::SNS::Topic').map(([id]) => id);
    expect(topics.some((id) => /AlarmTopic/.test(id))).toBe(true);
    expect(topics.some((id) => /TicketTopic/.test(id))).toBe(true);
    relay.template.hasResourceProperties('AWS::SNS::Subscription', { Endpoint: 'payments-team@example.org' });
    relay.template.hasResourceProperties('AWS::SNS::Subscription', { Endpoint: 'oncall@example.org' });
    expect(relay.relay.ticketTopic).not.toBe(relay.relay.alarmTopic);
  });

  it('pages once for a storage outage: the DynamoDB alarms have no action, their composite pages', () => {
    const members = relay.relay.monitoring.createdAlarmsWithTag(STORAGE_OUTAGE_TAG);
    expect(members.length).toBeGreaterThanOrEqual(4);
    for (const member of members) {
      const [, r] = alarms.find(([, a]) => a.Properties.AlarmName === member.alarmName)!;
      expect(r.Properties.AlarmActions ?? [], member.alarmName).toEqual([]);
    }
    const composites = ofType(resources, 'AWS::CloudWatch::CompositeAlarm');
    expect(composites).toHaveLength(1);
    const composite = composites[0]![1].Properties;
    expect(composite.AlarmName).toMatch(/StorageOutage$/);
    expect(JSON.stringify(composite.AlarmActions)).toMatch(/AlarmTopic/);
    expect(JSON.stringify(composite.AlarmRule).match(/ALARM\(/g)).toHaveLength(members.length);
    // The DynamoDB alarms are among the members.
    const dynamo = alarms.filter(([, r]) =>
      metricsOf(r).some((s: any) => s.Metric.Namespace === 'AWS/DynamoDB'),
    );
    expect(dynamo.length).toBeGreaterThanOrEqual(3);
    for (const [, r] of dynamo) expect(topicOf(r)).toBe('none');
  });

  it('sends expiries, escalations, silences, one buffered callback and scanner-driven rejections to tickets', () => {
    for (const name of [
      /TransactionsExpired/,
      /AmbiguousEscalated/,
      /SilentAccounts/,
      /Silence-momo-1/,
      /CallbacksBuffered/,
      /CallbacksRejected/,
    ])
      expect(topicOf(alarm(name)), String(name)).toBe('ticket');
  });

  it('pages on MoMo and Airtel ack p99 above 1.8 s, not on Daraja (its limit is 8 s)', () => {
    for (const provider of ['momo', 'airtel']) {
      const r = alarm(new RegExp(`AckLatency-${provider}`));
      expect(topicOf(r)).toBe('page');
      expect(r.Properties.Threshold).toBe(1800);
      expect(metricsOf(r)[0]).toMatchObject({
        Stat: 'p99',
        Metric: { MetricName: 'AckLatency', Dimensions: [{ Name: 'provider', Value: provider }] },
      });
    }
    expect(alarms.filter(([, r]) => /AckLatency-daraja/.test(r.Properties.AlarmName))).toEqual([]);
  });

  it("describes each provider's ack latency alarm with that provider's own limit and retry behaviour", () => {
    // Act
    const momo = String(alarm(/AckLatency-momo/).Properties.AlarmDescription);
    const airtel = String(alarm(/AckLatency-airtel/).Properties.AlarmDescription);

    // Assess
    expect(momo).toContain("close to MoMo's 2 s budget");
    expect(momo).toContain('(it may not retry)');
    expect(airtel).toContain('the yardstick where a provider documents no answer limit');
    expect(airtel).not.toMatch(/momo|may not retry/i);
  });

  it('pages on the stage 429 and 5xx rates (math over the requests, judged from 20 requests up)', () => {
    const throttled = alarm(/Stage429Rate/);
    const errors = alarm(/Stage5xxRate/);
    for (const r of [throttled, errors]) {
      expect(topicOf(r)).toBe('page');
      expect(r.Properties.Metrics.find((m: any) => m.Expression).Expression).toMatch(/^IF\(requests >= 20/);
    }
    expect(throttled.Properties.Threshold).toBe(1);
    expect(errors.Properties.Threshold).toBe(5);
    // 429s come from the access logs (HTTP APIs publish no throttle metric).
    relay.template.hasResourceProperties('AWS::Logs::MetricFilter', {
      FilterPattern: '{ $.status = "429" }',
    });
  });

  it('pages on status-API credential failures, a poller without a completed cycle, and the buffer off', () => {
    const credentials = alarm(new RegExp(STATUS_CREDENTIAL_FAILURES_METRIC));
    expect(topicOf(credentials)).toBe('page');
    const heartbeat = alarm(/PollerHeartbeat/);
    expect(topicOf(heartbeat)).toBe('page');
    expect(heartbeat.Properties).toMatchObject({
      ComparisonOperator: 'LessThanThreshold',
      Threshold: 1,
      TreatMissingData: 'breaching',
    });
    expect(metricsOf(heartbeat)[0]).toMatchObject({
      Period: Duration.minutes(10).toSeconds(),
      Metric: { MetricName: POLL_CYCLES_COMPLETED_METRIC },
    });
    expect(topicOf(alarm(new RegExp(INGRESS_BUFFER_OFF_METRIC)))).toBe('page');
  });

  it('pages nothing about the poller when polling is switched off (pollingEnabled: false)', () => {
    // Prepare
    const off = synthRelay('PagingPollingOff', () => ({ pollingEnabled: false }));

    // Act
    const names = ofType(off.resources, 'AWS::CloudWatch::Alarm').map(([, r]) =>
      String(r.Properties.AlarmName),
    );

    // Assess: the heartbeat alarm is gone; the default relay has it.
    expect(names.some((n) => /PollerHeartbeat/.test(n))).toBe(false);
    expect(alarms.some(([, r]) => /PollerHeartbeat/.test(String(r.Properties.AlarmName)))).toBe(true);
  });

  it('pages when the callback functions near their reserved concurrency (80 %)', () => {
    const callback = alarm(/-CallbackConcurrency/);
    expect(topicOf(callback)).toBe('page');
    expect(callback.Properties.Threshold).toBe(Math.floor(DEFAULT_CALLBACK_RESERVED_CONCURRENCY * 0.8));
    expect(metricsOf(callback)[0].Metric.MetricName).toBe('ConcurrentExecutions');
    expect(alarm(/C2bValidationConcurrency/).Properties.Threshold).toBe(Math.floor(38 * 0.8));
  });

  it('tags every library alarm with its topic, and routes it there', () => {
    for (const created of relay.relay.monitoring.createdAlarms()) {
      const [, r] = alarms.find(([, a]) => a.Properties.AlarmName === created.alarmName)!;
      const tags = created.customTags ?? [];
      const expected = tags.includes(PAGE_TAG)
        ? 'page'
        : tags.includes(TICKET_TAG)
          ? 'ticket'
          : tags.includes(STORAGE_OUTAGE_TAG)
            ? 'none'
            : 'page';
      expect(topicOf(r), created.alarmName).toBe(expected);
    }
  });

  it('gives two relays in one account distinct metric namespaces (unless told otherwise)', () => {
    const other = synthRelay('PagingTwo');
    expect(relay.relay.metricsNamespace).toBe(`MobileMoneyRelay/${SHARED_STACK}/Relay`);
    expect(other.relay.metricsNamespace).toBe('MobileMoneyRelay/PagingTwo/Relay');
    const named = synthRelay('PagingNamed', () => ({ metricsNamespace: 'Payments/Relay' }));
    expect(named.relay.metricsNamespace).toBe('Payments/Relay');
  });

  it('stays cdk-nag clean', () => {
    expect(relay.nagErrors).toEqual([]);
  });
});
