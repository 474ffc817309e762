import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { exampleConfig, ofType, synthRelay } from './relay-synth';
import {
  DELIVERIES_DEAD_LETTERED_METRIC,
  DESTINATIONS_DISABLED_METRIC,
} from '../../shared/config/metric-names';

/** The example config with two webhook destinations, secrets by reference (docs/webhooks.md#in-aws). */
export const deliveringConfig = {
  ...exampleConfig,
  destinations: {
    shop: {
      url: 'https://shop.example.com/hooks',
      signingSecretId: 'mobile-money-relay/webhooks/shop',
      filter: {
        eventTypes: ['TransactionSucceeded', 'TransactionFailed'],
        providers: ['momo'],
        accounts: [],
      },
      concurrency: 1,
    },
    erp: {
      url: 'https://erp.example.org/momo',
      signingSecretId: 'mobile-money-relay/webhooks/erp',
      concurrency: 6,
    },
  },
};

describe('relay stack: webhook deliveries in AWS', () => {
  const { template, resources, nagErrors } = synthRelay('Delivering', () => ({}), deliveringConfig);
  const rules = ofType(resources, 'AWS::Events::Rule').filter(([id]) =>
    /^RelayDelivery(shop|erp)Rule/.test(id),
  );
  const rule = (name: string) => rules.find(([id]) => id.startsWith(`RelayDelivery${name}Rule`))![1];

  it('turns each destination filter into its own rule on the relay bus, operator events left out', () => {
    expect(rules).toHaveLength(2);
    expect(rule('shop').Properties.EventPattern).toEqual({
      source: ['mobile-money.relay'],
      'detail-type': ['TransactionSucceeded', 'TransactionFailed'],
      detail: { data: { provider: ['momo'] } },
    });
    expect(rule('erp').Properties.EventPattern).toEqual({
      source: ['mobile-money.relay'],
      'detail-type': [{ 'anything-but': ['DestinationDisabled'] }],
    });
    // The queue message names the destination and carries the event (detail) for attempt 0.
    const target = rule('shop').Properties.Targets[0];
    expect(target.InputTransformer.InputTemplate).toBe(
      '{"destination":"shop","attempt":0,"event":<detail-detail>}'.replace('<detail-detail>', '<detail>'),
    );
    expect(target.DeadLetterConfig.Arn).toEqual({
      'Fn::GetAtt': [expect.stringMatching(/^RelayDeliveryDlq/), 'Arn'],
    });
  });

  it('gives each destination its own encrypted, SSL-only queue with the shared delivery DLQ', () => {
    const queues = ofType(resources, 'AWS::SQS::Queue').filter(([id]) =>
      /^RelayDelivery(shop|erp)Queue/.test(id),
    );
    expect(queues).toHaveLength(2);
    for (const [, queue] of queues) {
      expect(queue.Properties).toMatchObject({
        SqsManagedSseEnabled: true,
        MessageRetentionPeriod: 14 * 86_400,
        VisibilityTimeout: 6 * 180,
        RedrivePolicy: {
          deadLetterTargetArn: { 'Fn::GetAtt': [expect.stringMatching(/^RelayDeliveryDlq/), 'Arn'] },
          maxReceiveCount: 10,
        },
      });
    }
    const policies = ofType(resources, 'AWS::SQS::QueuePolicy').map(([, p]) => JSON.stringify(p.Properties));
    for (const [id] of queues)
      expect(policies.some((p) => p.includes(id) && p.includes('aws:SecureTransport'))).toBe(true);
  });

  it('consumes every queue with partial batch failures and the destination concurrency (at least 2)', () => {
    const mappings = ofType(resources, 'AWS::Lambda::EventSourceMapping').filter(([id]) =>
      id.startsWith('RelayDeliveryFunction'),
    );
    expect(mappings).toHaveLength(2);
    const byQueue = Object.fromEntries(
      mappings.map(([, m]) => [
        String(m.Properties.EventSourceArn['Fn::GetAtt'][0]).replace(/Queue.*$/, ''),
        m.Properties,
      ]),
    );
    expect(byQueue.RelayDeliveryshop).toMatchObject({
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BatchSize: 10,
      ScalingConfig: { MaximumConcurrency: 2 },
    });
    expect(byQueue.RelayDeliveryerp).toMatchObject({
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 6 },
    });
  });

  /** The delivery role's signing-secret grants: managed policies of their own (sized to IAM's limit). */
  const secretPolicies = () =>
    ofType(resources, 'AWS::IAM::ManagedPolicy').filter(([id]) => /^RelayDeliverySigningSecrets/.test(id));
  const joined = (pattern: string) =>
    Match.objectLike({ 'Fn::Join': ['', Match.arrayWith([Match.stringLikeRegexp(pattern)])] });

  it('lets the delivery function read only the named signing secrets, never their values in the template', () => {
    const json = JSON.stringify(template.toJSON());
    expect(json).not.toMatch(/whsec_/);
    expect(secretPolicies()).toHaveLength(1);
    template.hasResourceProperties('AWS::IAM::ManagedPolicy', {
      PolicyDocument: {
        Statement: [
          Match.objectLike({
            Action: 'secretsmanager:GetSecretValue',
            Resource: Match.arrayWith([joined('webhooks/shop-\\?{6}$'), joined('webhooks/erp-\\?{6}$')]),
          }),
        ],
      },
      Roles: [{ Ref: Match.stringLikeRegexp('^RelayDeliveryRole') }],
    });
    // None in the role's inline policies.
    const inline = ofType(resources, 'AWS::IAM::Policy').filter(([id]) => /^RelayDeliveryRole/.test(id));
    expect(JSON.stringify(inline)).not.toMatch(/secretsmanager:GetSecretValue/);
  });

  it('lets the delivery function read rotated-in secrets only under each destination’s own name', () => {
    const [, policy] = secretPolicies()[0]!;
    const [statement] = policy.Properties.PolicyDocument.Statement;
    expect(statement.Resource).toHaveLength(4);
    expect(statement.Resource).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          'Fn::Join': [
            '',
            expect.arrayContaining([expect.stringMatching(/:mobile-money-relay\/webhooks\/shop\/\*$/)]),
          ],
        }),
        expect.objectContaining({
          'Fn::Join': [
            '',
            expect.arrayContaining([expect.stringMatching(/:mobile-money-relay\/webhooks\/erp\/\*$/)]),
          ],
        }),
      ]),
    );
  });

  it('lets the management API find the destination queues from the DLQ and their tags, and put replays on them', () => {
    const queueArn = (name: string) => ({
      'Fn::GetAtt': [Match.stringLikeRegexp(`^RelayDelivery${name}Queue`), 'Arn'],
    });
    const dlqArn = { 'Fn::GetAtt': [Match.stringLikeRegexp('^RelayDeliveryDlq'), 'Arn'] };
    // The DLQ's sources, then each one's tags: these queues and this DLQ only. The replay grant grows with
    // the destinations: a managed policy of its own, out of the role's inline policy (IAM's 10,240 characters).
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Action: 'sqs:ListDeadLetterSourceQueues', Resource: dlqArn }),
        ]),
      },
      Roles: [{ Ref: Match.stringLikeRegexp('^RelayManagement') }],
    });
    template.hasResourceProperties('AWS::IAM::ManagedPolicy', {
      PolicyDocument: {
        Statement: [
          Match.objectLike({
            Action: ['sqs:SendMessage', 'sqs:ListQueueTags'],
            Resource: [queueArn('shop'), queueArn('erp')],
          }),
        ],
      },
      Roles: [{ Ref: Match.stringLikeRegexp('^RelayManagement') }],
    });
    expect(JSON.stringify(ofType(resources, 'AWS::IAM::Policy'))).not.toContain('sqs:ListQueueTags');
    for (const name of ['shop', 'erp']) {
      const [, queue] = ofType(resources, 'AWS::SQS::Queue').find(([id]) =>
        id.startsWith(`RelayDelivery${name}Queue`),
      )!;
      expect(queue.Properties.Tags).toContainEqual({ Key: 'mobile-money-relay:destination', Value: name });
    }
    // The environment names the DLQ alone: its size does not grow with the destinations (Lambda's 4 KB).
    const [id, management] = ofType(resources, 'AWS::Lambda::Function').find(
      ([, f]) => f.Properties.Environment?.Variables?.DELIVERY_DLQ_ARN,
    )!;
    expect(id).toMatch(/^RelayManagement/);
    expect(management.Properties.Environment.Variables.DELIVERY_DLQ_ARN).toEqual({
      'Fn::GetAtt': [expect.stringMatching(/^RelayDeliveryDlq/), 'Arn'],
    });
    expect(JSON.stringify(management.Properties.Environment)).not.toMatch(/RelayDelivery(shop|erp)Queue/);
  });

  it('alarms on a disabled destination (page), a dead letter (ticket) and the delivery DLQ (page)', () => {
    const alarms = ofType(resources, 'AWS::CloudWatch::Alarm').filter(([, a]) =>
      String(a.Properties.AlarmName).startsWith('Delivering-Relay-Delivery-'),
    );
    const byName = Object.fromEntries(alarms.map(([, a]) => [a.Properties.AlarmName, a.Properties]));
    expect(byName['Delivering-Relay-Delivery-DestinationsDisabled']).toMatchObject({
      MetricName: DESTINATIONS_DISABLED_METRIC,
      AlarmActions: [{ Ref: expect.stringMatching(/^RelayAlarmTopic/) }],
    });
    expect(byName['Delivering-Relay-Delivery-DeadLettered']).toMatchObject({
      MetricName: DELIVERIES_DEAD_LETTERED_METRIC,
      AlarmActions: [{ Ref: expect.stringMatching(/^RelayTicketTopic/) }],
    });
    expect(byName['Delivering-Relay-Delivery-Dlq']).toMatchObject({
      MetricName: 'ApproximateNumberOfMessagesVisible',
      AlarmActions: [{ Ref: expect.stringMatching(/^RelayAlarmTopic/) }],
    });
  });

  it('is cdk-nag clean', () => {
    expect(nagErrors).toEqual([]);
  });

  it('refuses http, the local-only flag and a signing secret outside the prefix at synth', () => {
    expect(() =>
      synthRelay('BadDestinations', () => ({}), {
        ...exampleConfig,
        destinations: {
          shop: {
            url: 'http://shop.example.com/hooks',
            signingSecretId: 'other/shop',
            allowPrivateAddresses: true,
          },
        },
      }),
    ).toThrow(/https is required in AWS[\s\S]*allowPrivateAddresses[\s\S]*outside secretNamePrefix/);
  });
});
