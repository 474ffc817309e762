import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Duration, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { MobileMoneyRelay } from '../../infra';
import { PROJECT_ROOT } from '../../infra/bundling';
import { RelayEdgeWebAcl } from '../../infra/edge-web-acl';
import {
  INGRESS_BUFFER_OFF_METRIC,
  PAGE_TAG,
  POLL_CYCLES_COMPLETED_EXPRESSION,
  SERVICE_DEGRADED_TAG,
  STATUS_CREDENTIAL_FAILURES_METRIC,
  TICKET_TAG,
} from '../../infra/monitoring';
import { FUNCTION_FAILURES_COVERED_BY } from '../../infra/monitoring/functions';
import { DEFAULT_CALLBACK_RESERVED_CONCURRENCY } from '../../infra/relay/limits';
import { exampleConfig, ofType, type Resource, SHARED_STACK, sharedRelay, synthRelay } from './relay-synth';

const relay = sharedRelay();
const { resources } = relay;
const alarms = ofType(resources, 'AWS::CloudWatch::Alarm');
const topicOf = (r: Resource) => {
  const ref = r.Properties.AlarmActions?.[0]?.Ref as string | undefined;
  const ok = r.Properties.OKActions?.[0]?.Ref as string | undefined;
  // ALARM and OK always go to the same place (an OK mail only where the ALARM was sent).
  expect(ok, String(r.Properties.AlarmName)).toBe(ref);
  return ref === undefined
    ? 'none'
    : /TicketTopic/.test(ref)
      ? 'ticket'
      : /AlarmTopic|EdgePageTopic/.test(ref)
        ? 'page'
        : ref;
};
const compositesOf = (resources: Record<string, Resource>) =>
  ofType(resources, 'AWS::CloudWatch::CompositeAlarm').map(([, r]) => r.Properties);
const composite = (resources: Record<string, Resource>, suffix: string) => {
  const found = compositesOf(resources).filter((c) => String(c.AlarmName).endsWith(`-${suffix}`));
  expect(found, suffix).toHaveLength(1);
  return found[0]!;
};
/** Names of the alarms a composite's rule reads (`ALARM(<ARN>)`, the ARN an Fn::GetAtt of the alarm). */
const membersOf = (rule: unknown, all: Record<string, Resource> = resources) =>
  [...JSON.stringify(rule).matchAll(/"Fn::GetAtt":\["([A-Za-z0-9]+)","Arn"\]/g)].map((m) =>
    String(all[m[1]!]!.Properties.AlarmName),
  );
/** The alarm whose name ends with `suffix` (cdk-monitoring-constructs names: <prefix>-<friendly>-<kind>). */
const alarm = (pattern: RegExp) => {
  const found = alarms.filter(([, r]) => pattern.test(String(r.Properties.AlarmName)));
  expect(found, String(pattern)).toHaveLength(1);
  return found[0]![1];
};
const metricsOf = (r: Resource) =>
  (r.Properties.Metrics ?? []).filter((m: any) => m.MetricStat).map((m: any) => m.MetricStat);

describe('paging that means something', () => {
  it('creates a page topic and a ticket topic, each subscribed', () => {
    const topics = ofType(resources, 'AWS::SNS::Topic').map(([id]) => id);
    expect(topics.some((id) => /AlarmTopic/.test(id))).toBe(true);
    expect(topics.some((id) => /TicketTopic/.test(id))).toBe(true);
    relay.template.hasResourceProperties('AWS::SNS::Subscription', { Endpoint: 'payments-team@example.org' });
    relay.template.hasResourceProperties('AWS::SNS::Subscription', { Endpoint: 'oncall@example.org' });
    expect(relay.relay.ticketTopic).not.toBe(relay.relay.alarmTopic);
  });

  it("pages once for a storage outage, from one alarm on the relay's own view of the table", () => {
    // Prepare
    const storage = alarm(/-StorageOutage-Critical$/);

    // Assess: callbacks buffered or due-index reads failed, the larger, in 2 of 3 minutes; it pages.
    expect(topicOf(storage)).toBe('page');
    expect(
      metricsOf(storage)
        .map((m: any) => m.Metric.MetricName)
        .sort(),
    ).toEqual(['CallbacksBuffered', 'PollCycleFailures']);
    expect(storage.Properties).toMatchObject({ Threshold: 1, EvaluationPeriods: 3, DatapointsToAlarm: 2 });
    // DynamoDB's own metrics are graphed, never alarmed (SystemErrors alone would bill 9 metrics).
    expect(
      alarms.filter(([, r]) => metricsOf(r).some((s: any) => s.Metric.Namespace === 'AWS/DynamoDB')),
    ).toEqual([]);
    expect(relay.relay.monitoring.createdAlarmsWithTag('storage-outage')).toEqual([]);
  });

  it('sends expiries, escalations, silences, scanner-driven rejections and refused registration events to tickets', () => {
    for (const name of [
      /TransactionsExpired/,
      /-Relay-RegistrationEventsRefused-Critical$/,
      /AmbiguousEscalated/,
      /SilentAccounts/,
      /CallbackSilence-Silence-momo-/,
      /CallbacksRejected/,
    ])
      expect(topicOf(alarm(name)), String(name)).toBe('ticket');
    // One buffered callback is handled by design (StorageOutage pages for an outage), and a NOT_FOUND
    // conflict escalates its transaction (the AmbiguousEscalated ticket): graphed, not alarmed.
    for (const name of [/Relay-CallbacksBuffered-/, /StatusNotFoundConflicts/])
      expect(
        alarms.filter(([, r]) => name.test(String(r.Properties.AlarmName))),
        String(name),
      ).toEqual([]);
  });

  it('pages once for a degraded service, through one composite that stays quiet during a storage outage', () => {
    // Prepare
    const members = relay.relay.monitoring.createdAlarmsWithTag(SERVICE_DEGRADED_TAG).map((a) => a.alarmName);
    const degraded = composite(resources, 'ServiceDegraded');

    // Assess: the members have no action of their own (no ALARM mail, no OK mail), the composite pages,
    // and its actions are suppressed while StorageOutage (their usual cause) is in ALARM.
    expect(membersOf(degraded.AlarmRule).sort()).toEqual([...members].sort());
    for (const name of members) expect(topicOf(alarm(new RegExp(`^${name}$`))), name).toBe('none');
    for (const name of [
      /-Api-Fault-Count-/,
      /-AckLatency-P99-/,
      /PollerHeartbeat/,
      /IngressBuffer-Queue-Message-Age/,
    ])
      expect(
        members.some((m) => name.test(m)),
        String(name),
      ).toBe(true);
    expect(JSON.stringify(degraded.AlarmActions)).toMatch(/AlarmTopic/);
    expect(JSON.stringify(degraded.ActionsSuppressor)).toMatch(/StorageOutageAlarm/);
    expect(degraded.ActionsSuppressorWaitPeriod).toBe(180);
    expect(degraded.ActionsSuppressorExtensionPeriod).toBe(600);
  });

  it('pages on any persisting API 5xx, so C2B validation, callback and management failures page without alarms of their own', () => {
    // Prepare
    const api = alarm(/-Api-Fault-Count-Critical$/);
    // Every relay function, by the name its alarms carry (`relay-outbox-publisher` → `OutboxPublisher`).
    const names = ofType(resources, 'AWS::Lambda::Function')
      .map(([, r]) => String(r.Properties.Environment?.Variables?.POWERTOOLS_SERVICE_NAME ?? ''))
      .filter((service) => service.startsWith('relay-'))
      .map((service) =>
        service.slice('relay-'.length).replace(/(^|-)([a-z])/g, (_, __, c: string) => c.toUpperCase()),
      );
    expect(names).toContain('C2bValidation');

    // Assess: the API's 5xx count (2 of 3 minutes) is a ServiceDegraded member; a function either has
    // what covers its failures written down or a fault ticket of its own.
    expect(metricsOf(api)[0]?.Metric.MetricName ?? api.Properties.MetricName).toBe('5xx');
    expect(topicOf(api)).toBe('none');
    for (const name of ['Callback', 'C2bValidation', 'Management'])
      expect(FUNCTION_FAILURES_COVERED_BY[name], name).toMatch(/API 5xx/);
    for (const name of names) {
      const faults = alarms.filter(([, r]) =>
        String(r.Properties.AlarmName).endsWith(`-${name}-Fault-Count-Critical`),
      );
      expect(faults.length, name).toBe(FUNCTION_FAILURES_COVERED_BY[name] ? 0 : 1);
      for (const [, r] of faults) expect(topicOf(r), name).toBe('ticket');
    }
    expect(topicOf(alarm(/-Statements-Fault-Count-Critical$/))).toBe('ticket');
  });

  it('pages on slow acks once, at the tightest budget a provider declares, not per function', () => {
    // Prepare
    const acks = alarm(/-AckLatency-P99-Critical$/);

    // Assess: the callback function's own Duration p99 (AWS's free Lambda metric, every provider) above
    // MoMo's 1.8 s in 3 of 5 minutes: the function the alarm names, no custom series.
    expect(topicOf(acks)).toBe('none');
    expect(acks.Properties.Threshold).toBe(1800);
    expect(metricsOf(acks)[0]).toMatchObject({
      Stat: 'p99',
      Metric: { MetricName: 'Duration', Namespace: 'AWS/Lambda' },
    });
    expect(JSON.stringify(metricsOf(acks)[0].Metric.Dimensions)).toMatch(/CallbackFunction/);
    expect(String(acks.Properties.AlarmDescription)).toContain("close to MoMo's 2 s budget");
    expect(String(acks.Properties.AlarmDescription)).toContain('(it may not retry)');
    expect(
      alarms.filter(([, r]) =>
        /Latency-P99|AckLatency-(momo|airtel|daraja)/.test(String(r.Properties.AlarmName)),
      ),
    ).toHaveLength(1);
  });

  it('pages once for a provider outage, one alarm whatever the number of accounts and providers', () => {
    const r = alarm(/-ProviderOutage$/);
    expect(topicOf(r)).toBe('page');
    const query = r.Properties.Metrics.find((m: any) => m.Expression).Expression as string;
    expect(query).toBe(`SELECT SUM(StatusCallErrors) FROM "MobileMoneyRelay/${SHARED_STACK}/Relay"`);
    expect(alarms.filter(([, r]) => /ProviderOutage/.test(String(r.Properties.AlarmName)))).toHaveLength(1);
  });

  it('pages on the stage 429 rate (math over the requests, judged from 20 requests up)', () => {
    const throttled = alarm(/Stage429Rate/);
    expect(topicOf(throttled)).toBe('page');
    expect(throttled.Properties.Metrics.find((m: any) => m.Expression).Expression).toMatch(
      /^IF\(requests >= 20/,
    );
    expect(throttled.Properties.Threshold).toBe(1);
    // The 5xx rate is graphed: every persisting 5xx already pages (Api-Fault-Count, ServiceDegraded).
    expect(alarms.filter(([, r]) => /Stage5xxRate/.test(String(r.Properties.AlarmName)))).toEqual([]);
    // 429s come from the access logs (HTTP APIs publish no throttle metric).
    relay.template.hasResourceProperties('AWS::Logs::MetricFilter', {
      FilterPattern: '{ $.status = "429" }',
    });
  });

  it('pages on status-API credential failures, a poller without a completed cycle, and the buffer off', () => {
    const credentials = alarm(new RegExp(STATUS_CREDENTIAL_FAILURES_METRIC));
    expect(topicOf(credentials)).toBe('page');
    const heartbeat = alarm(/PollerHeartbeat/);
    expect(topicOf(heartbeat)).toBe('none'); // through ServiceDegraded
    expect(heartbeat.Properties).toMatchObject({
      ComparisonOperator: 'LessThanThreshold',
      Threshold: 1,
      TreatMissingData: 'breaching',
    });
    // On the poller's own Lambda metrics (no custom series): invocations that did not fail.
    expect(heartbeat.Properties.Metrics.find((m: any) => m.Expression)?.Expression).toBe(
      POLL_CYCLES_COMPLETED_EXPRESSION,
    );
    expect(metricsOf(heartbeat).map((m: any) => [m.Metric.Namespace, m.Metric.MetricName, m.Period])).toEqual(
      [
        ['AWS/Lambda', 'Invocations', Duration.minutes(10).toSeconds()],
        ['AWS/Lambda', 'Errors', Duration.minutes(10).toSeconds()],
      ],
    );
    for (const m of metricsOf(heartbeat)) expect(JSON.stringify(m.Metric.Dimensions)).toMatch(/Poller/);
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

  it('graphs the reserved functions against 80 % of their reservation, without an alarm of its own', () => {
    // A throttle is an API 5xx (ServiceDegraded); slow acks and traffic past the throttles page first.
    expect(alarms.filter(([, r]) => /Concurrency/.test(String(r.Properties.AlarmName)))).toEqual([]);
    const [, dashboard] = ofType(resources, 'AWS::CloudWatch::Dashboard')[0]!;
    const body = JSON.stringify(dashboard.Properties.DashboardBody);
    expect(body).toContain(`Callback: 80 % of ${DEFAULT_CALLBACK_RESERVED_CONCURRENCY}`);
    expect(body).toContain('ConcurrentExecutions');
  });

  it('tags every library alarm with its topic, and routes it there', () => {
    for (const created of relay.relay.monitoring.createdAlarms()) {
      const [, r] = alarms.find(([, a]) => a.Properties.AlarmName === created.alarmName)!;
      const tags = created.customTags ?? [];
      const expected = tags.includes(PAGE_TAG)
        ? 'page'
        : tags.includes(TICKET_TAG)
          ? 'ticket'
          : tags.includes(SERVICE_DEGRADED_TAG)
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

/** A relay behind the CloudFront edge in us-east-1 (where CloudFront's metrics are), with a subscriber. */
function synthEdgeRelay() {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'PagingEdge', { env: { account: '123456789012', region: 'us-east-1' } });
  const relay = new MobileMoneyRelay(stack, 'Relay', {
    config: {
      ...exampleConfig,
      publicBaseUrl: 'https://relay.payments.example.org',
      // A badge shop: its read-failure ticket is in the documented table too.
      badges: { shops: { corner: { baseUrl: 'https://badges.example.org' } } },
      edge: { mode: 'cloudfront', originVerifySecretId: 'relay/edge-origin' },
    },
    alarmEmail: 'oncall@example.org',
    ticketEmail: 'payments-team@example.org',
    cloudFront: {
      webAclArn:
        'arn:aws:wafv2:us-east-1:123456789012:global/webacl/relay-edge/11111111-2222-3333-4444-555555555555',
    },
    customDomain: {
      domainName: 'relay.payments.example.org',
      certificate: acm.Certificate.fromCertificateArn(
        stack,
        'Certificate',
        'arn:aws:acm:us-east-1:123456789012:certificate/11111111-2222-3333-4444-555555555555',
      ),
    },
  });
  relay.addSubscriber('Ledger', {
    detailTypes: ['TransactionSucceeded'],
    target: new targets.SqsQueue(new sqs.Queue(stack, 'PartnerInbox', { enforceSSL: true })),
  });
  return { relay, resources: Template.fromStack(stack).toJSON().Resources as Record<string, Resource> };
}

/** The web ACL stack with its page topic (us-east-1). */
function synthWebAcl() {
  const stack = new Stack(new App(), 'EdgeWaf', { env: { region: 'us-east-1' } });
  new RelayEdgeWebAcl(stack, 'Acl', {
    alarmTopic: new sns.Topic(stack, 'EdgePageTopic'),
    alarmNamePrefix: 'EdgeWaf',
  });
  return Template.fromStack(stack).toJSON().Resources as Record<string, Resource>;
}

const edge = synthEdgeRelay();
const waf = synthWebAcl();
/** A relay with a webhook destination: the delivery path's alarms exist only then. */
const delivering = synthRelay('Delivering', () => ({}), {
  ...exampleConfig,
  destinations: {
    shop: { url: 'https://shop.example.com/hooks', signingSecretId: 'mobile-money-relay/webhooks/shop' },
  },
});

describe('one page per edge outage', () => {
  it('pages once for the edge: the synthetic check, origin-verify refusals and CloudFront 5xx have no action of their own', () => {
    // Prepare
    const outage = composite(edge.resources, 'EdgeOutage');
    const edgeAlarms = ofType(edge.resources, 'AWS::CloudWatch::Alarm').filter(([, r]) =>
      /-Edge-/.test(String(r.Properties.AlarmName)),
    );

    // Assess
    expect(
      edgeAlarms.map(([, r]) => String(r.Properties.AlarmName).replace(/^PagingEdge-Relay-/, '')).sort(),
    ).toEqual(['Edge-5xxErrorRate', 'Edge-OriginVerifyRefusals', 'Edge-SyntheticCheck']);
    for (const [, r] of edgeAlarms) expect(topicOf(r)).toBe('none');
    expect(membersOf(outage.AlarmRule, edge.resources).sort()).toEqual(
      edgeAlarms.map(([, r]) => String(r.Properties.AlarmName)).sort(),
    );
    expect(JSON.stringify(outage.AlarmActions)).toMatch(/AlarmTopic/);
  });

  it('treats a synthetic check that stopped reporting as failing, and reads CloudFront in its own region', () => {
    const [, probe] = ofType(edge.resources, 'AWS::CloudWatch::Alarm').find(([, r]) =>
      /Edge-SyntheticCheck$/.test(String(r.Properties.AlarmName)),
    )!;
    expect(probe.Properties).toMatchObject({
      TreatMissingData: 'breaching',
      EvaluationPeriods: 2,
      DatapointsToAlarm: 2,
    });
    expect(metricsOf(probe)[0]).toMatchObject({ Metric: { MetricName: 'EdgeProbeFailures' }, Period: 300 });
    const [, cf] = ofType(edge.resources, 'AWS::CloudWatch::Alarm').find(([, r]) =>
      /Edge-5xxErrorRate$/.test(String(r.Properties.AlarmName)),
    )!;
    expect(cf.Properties).toMatchObject({ Namespace: 'AWS/CloudFront', MetricName: '5xxErrorRate' });
    expect(cf.Properties.Dimensions).toContainEqual({ Name: 'Region', Value: 'Global' });
    // Outside us-east-1 there is no CloudFront alarm (an alarm cannot read another region's metrics).
    expect(
      ofType(resources, 'AWS::CloudWatch::Alarm').some(([, r]) => /Edge-/.test(r.Properties.AlarmName)),
    ).toBe(false);
  });

  it("pages when the WAF blocks a request from a provider's declared sources (a label counted first)", () => {
    const [, blocked] = ofType(waf, 'AWS::CloudWatch::Alarm').find(([, r]) =>
      /daraja/.test(String(r.Properties.AlarmName)),
    )!;
    expect(topicOf(blocked)).toBe('page');
    expect(blocked.Properties).toMatchObject({
      Namespace: 'AWS/WAFV2',
      MetricName: 'BlockedRequests',
      Threshold: 1,
    });
    expect(JSON.stringify(blocked.Properties.Dimensions)).toContain('relay:provider-source');
    const [, acl] = ofType(waf, 'AWS::WAFv2::WebACL')[0]!;
    const first = acl.Properties.Rules.find((r: any) => r.Priority === 0);
    expect(first.Name).toBe('darajaSourcesLabel');
    expect(first.Action).toEqual({ Count: {} });
    expect(first.RuleLabels).toEqual([{ Name: 'relay:provider-source:daraja' }]);
  });
});

/** The "Every alarm" table of docs/monitoring.md: each row's name patterns and topic. */
function documentedAlarms(): Array<{ patterns: RegExp[]; topic: string; row: string }> {
  const doc = readFileSync(join(PROJECT_ROOT, 'docs/monitoring.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Every alarm'), doc.indexOf('### Tuning'));
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const [names, topic] = line.split(' | ');
      // The names come before any remark in parentheses.
      const patterns = [...names!.split(' (')[0]!.matchAll(/`([^`]+)`/g)].map(
        ([, name]) =>
          new RegExp(
            `^${name!
              .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
              .replace(/<provider>/g, '[a-z0-9-]+')
              .replace(/<account>/g, '[A-Za-z0-9_-]+')
              .replace(/<id>/g, '[A-Za-z0-9]+')
              .replace(/<n>/g, '[0-9]+')}$`,
          ),
      );
      return { patterns, topic: topic!.split(' ')[0]!, row: names!.slice(0, 60) };
    });
}

describe('docs/monitoring.md matches the template', () => {
  /** Name suffix and topic of every alarm (metric and composite) of the synthesized relays and web ACL. */
  const synthesized = [
    { prefix: `${SHARED_STACK}-Relay-`, resources },
    { prefix: 'PagingEdge-Relay-', resources: edge.resources },
    { prefix: 'EdgeWaf-', resources: waf },
    { prefix: 'Delivering-Relay-', resources: delivering.resources },
  ].flatMap(({ prefix, resources: all }) =>
    Object.entries(all)
      .filter(([, r]) => ['AWS::CloudWatch::Alarm', 'AWS::CloudWatch::CompositeAlarm'].includes(r.Type))
      .map(([id, r]) => ({
        // CloudFormation-named alarms (a subscriber's DLQ) by their logical id.
        name:
          r.Properties.AlarmName === undefined
            ? id.replace(/^Relay/, '').replace(/[0-9A-F]{8}$/, '')
            : String(r.Properties.AlarmName).replace(prefix, ''),
        topic: topicOf(r),
      })),
  );
  const table = documentedAlarms();

  it('documents every alarm of the template, with the topic its actions go to', () => {
    expect(table.length).toBeGreaterThan(20);
    const problems = synthesized.flatMap(({ name, topic }) => {
      const rows = table.filter((row) => row.patterns.some((p) => p.test(name)));
      if (!rows.length) return [`${name}: not in docs/monitoring.md`];
      return rows
        .filter((row) => row.topic !== topic)
        .map((row) => `${name}: the template sends it to ${topic}, the doc says ${row.topic} (${row.row})`);
    });
    expect(problems).toEqual([]);
  });

  it('lists no alarm the template does not have', () => {
    const stale = table.flatMap((row) =>
      row.patterns
        .filter((p) => !synthesized.some(({ name }) => p.test(name)))
        .map((p) => `${p.source} (${row.row})`),
    );
    expect(stale).toEqual([]);
  });
});
