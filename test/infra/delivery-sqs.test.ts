import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { roleArnChunks } from '../../infra/relay/delivery';
import { exampleConfig, ofType, synthRelay } from './relay-synth';

const SHOP_ROLE = 'arn:aws:iam::210987654321:role/relay-deliveries';
const ERP_ROLE = 'arn:aws:iam::345678901234:role/partners/momo-relay';

/** Two sqs destinations in partners' accounts (one role named twice) beside an https one. */
const sqsConfig = {
  ...exampleConfig,
  destinations: {
    shop: {
      type: 'sqs',
      queue: 'https://sqs.af-south-1.amazonaws.com/210987654321/momo-events',
      roleArn: SHOP_ROLE,
      externalId: 'relay-7f3a9c',
      signingSecretId: 'mobile-money-relay/webhooks/shop',
    },
    shopFifo: {
      type: 'sqs',
      queue: 'arn:aws:sqs:af-south-1:210987654321:momo-events.fifo',
      roleArn: SHOP_ROLE,
      signingSecretId: 'mobile-money-relay/webhooks/shopFifo',
    },
    erp: {
      type: 'sqs',
      queue: 'arn:aws:sqs:eu-west-1:345678901234:relay-in',
      roleArn: ERP_ROLE,
      signingSecretId: 'mobile-money-relay/webhooks/erp',
    },
    hooks: { url: 'https://hooks.example.com/momo', signingSecretId: 'mobile-money-relay/webhooks/hooks' },
  },
};

type Statement = { Effect: string; Action: string | string[]; Resource: unknown };

describe('relay stack: sqs destinations in partners accounts', () => {
  const { stack, resources, nagErrors } = synthRelay('SqsDelivering', () => ({}), sqsConfig);
  const statements = (type: string) =>
    ofType(resources, type).flatMap(([, r]) => (r.Properties.PolicyDocument.Statement as Statement[]) ?? []);
  const assumes = (s: Statement) => [s.Action].flat().includes('sts:AssumeRole');

  it('lets the delivery function assume exactly the configured partner roles, in a managed policy of its own', () => {
    const policies = ofType(resources, 'AWS::IAM::ManagedPolicy').filter(([id]) =>
      id.startsWith('RelayDeliveryAssumePartnerRoles'),
    );
    expect(policies).toHaveLength(1);
    const [, policy] = policies[0]!;
    expect(policy.Properties.PolicyDocument.Statement).toEqual([
      { Effect: 'Allow', Action: 'sts:AssumeRole', Resource: [SHOP_ROLE, ERP_ROLE] },
    ]);
    expect(policy.Properties.Roles).toEqual([{ Ref: expect.stringMatching(/^RelayDeliveryRole/) }]);
    // No other policy grants sts:AssumeRole (the Lambda's own trust aside).
    expect(statements('AWS::IAM::Policy').filter(assumes)).toEqual([]);
  });

  it('is cdk-nag clean: no error and no warning', () => {
    const nagWarnings = Annotations.fromStack(stack)
      .findWarning('*', Match.stringLikeRegexp('AwsSolutions-.*'))
      .map((m) => `${m.id}: ${String(m.entry.data).split('\n')[0]}`);
    expect(nagErrors).toEqual([]);
    expect(nagWarnings).toEqual([]);
  });

  // cfn-lint reads the delivery path in test/infra/configurations.test.ts (deliveringToPartners): one
  // cfn-lint run for every template, since starting it costs 20-60 s.

  it('refuses an emulator endpoint at synth, naming the destination and field', () => {
    expect(() =>
      synthRelay('SqsEmulatorInAws', () => ({}), {
        ...exampleConfig,
        destinations: {
          shop: { ...sqsConfig.destinations.shop, endpointUrl: 'http://127.0.0.1:9324' },
        },
      }),
    ).toThrow(/destinations\.shop\.endpointUrl: an emulator's URL, for npm start only; refused in AWS/);
  });
});

describe('partner role grants within IAM limits', () => {
  it('splits many role ARNs into managed policies that each fit 6,144 characters', () => {
    const arns = Array.from(
      { length: 300 },
      (_, i) => `arn:aws:iam::${String(100000000000 + i)}:role/partners/relay-deliveries-${i}`,
    );
    const chunks = roleArnChunks(arns);
    expect(chunks.flat()).toEqual(arns);
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) {
      const policy = JSON.stringify({
        Version: '2012-10-17',
        Statement: [{ Effect: 'Allow', Action: 'sts:AssumeRole', Resource: chunk }],
      });
      expect(policy.length).toBeLessThanOrEqual(6144);
    }
  });
});
