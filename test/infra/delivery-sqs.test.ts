import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Aspects, Stack } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/bundling';
import { arnChunks, destinationProblems } from '../../infra/relay/delivery';
import { destinationSchema, type RelayConfig } from '../../shared/config/schema';
import { cfnLint, cfnLintSkipReason } from './cfn-lint';
import { exampleConfig, ofType, synthOnce, synthRelay } from './relay-synth';

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
  const { resources, annotations, nagErrors } = synthRelay('SqsDelivering', () => ({}), sqsConfig);
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

  it('lets EventBridge put on each destination queue only from that destination’s own rule (aws:SourceArn)', () => {
    const rules = ofType(resources, 'AWS::Events::Rule').filter(([id]) =>
      /^RelayDelivery(shop|erp)/.test(id),
    );
    expect(rules.length).toBeGreaterThanOrEqual(2);
    const fromEvents = ofType(resources, 'AWS::SQS::QueuePolicy').flatMap(([, p]) =>
      (p.Properties.PolicyDocument.Statement as (Statement & Record<string, any>)[]).filter(
        (st) => st.Principal?.Service === 'events.amazonaws.com',
      ),
    );
    for (const [ruleId] of rules)
      expect(fromEvents).toContainEqual(
        expect.objectContaining({
          Effect: 'Allow',
          Action: ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'],
          Condition: { ArnEquals: { 'aws:SourceArn': { 'Fn::GetAtt': [ruleId, 'Arn'] } } },
        }),
      );
    // Never a statement for EventBridge without the rule's condition, but the delivery DLQ's: the rules of
    // the relay bus in this account (a list of every rule would pass SQS's 8,192 bytes of policy).
    const [dlq, ...others] = fromEvents.filter((st) => !st.Condition?.ArnEquals?.['aws:SourceArn']);
    expect(others).toEqual([]);
    expect(dlq).toMatchObject({
      Sid: 'AllowDeliveryRules',
      Resource: { 'Fn::GetAtt': [expect.stringMatching(/^RelayDeliveryDlq/), 'Arn'] },
    });
    expect(dlq!.Condition).toEqual({
      ArnLike: {
        'aws:SourceArn': {
          'Fn::Join': [
            '',
            [
              'arn:',
              { Ref: 'AWS::Partition' },
              ':events:eu-west-1:123456789012:rule/',
              { Ref: expect.stringMatching(/^RelayBus/) },
              '/*',
            ],
          ],
        },
      },
      StringEquals: { 'aws:SourceAccount': '123456789012' },
    });
  });

  it('is cdk-nag clean: no error and no warning', () => {
    const nagWarnings = annotations
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

describe('partner role and signing secret grants within IAM limits', () => {
  it('refuses destinations whose grants need more managed policies than the delivery role may have', () => {
    // Prepare: 40 destinations, each signing with a secret by a long ARN (two grants each, ~1 KB).
    const long = 'x'.repeat(480);
    const config = {
      events: { source: 'mobile-money.relay', busName: 'default' },
      destinations: Object.fromEntries(
        Array.from({ length: 40 }, (_, i) => [
          `d${i}`,
          destinationSchema.parse({
            url: `https://hooks.example.com/${i}`,
            signingSecretId: `arn:aws:secretsmanager:eu-west-1:123456789012:secret:${long}${i}`,
          }),
        ]),
      ),
    } as RelayConfig;
    // Act
    const problems = destinationProblems(config, 'mobile-money-relay/');
    // Assess: named with both counts; half as many destinations fit.
    expect(problems).toContainEqual(
      expect.stringMatching(
        /^destinations: the delivery function's grants need \d+ managed policies \(0 of partner roles, roleArn; \d+ of signing secrets\), more than 8: split/,
      ),
    );
    expect(
      destinationProblems(
        { ...config, destinations: Object.fromEntries(Object.entries(config.destinations).slice(0, 20)) },
        'mobile-money-relay/',
      ),
    ).toEqual([]);
  });

  it('splits many role ARNs into managed policies that each fit 6,144 characters', () => {
    const arns = Array.from(
      { length: 300 },
      (_, i) => `arn:aws:iam::${String(100000000000 + i)}:role/partners/relay-deliveries-${i}`,
    );
    const chunks = arnChunks(arns);
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

/**
 * The partner's side lives in their account, so no relay template holds it and only a deployment proves it
 * works end to end (test/integration/delivery-sqs-endpoint.test.ts plays STS and SQS locally). What can be
 * proven here is the policies docs/webhooks.md#sqs-destinations tells the partner to create: read from the
 * page itself, checked for least privilege, and deployed as a partner stack that cdk-nag and cfn-lint pass.
 */
describe('the partner account side of an sqs destination, as docs/webhooks.md gives it', () => {
  const page = readFileSync(join(PROJECT_ROOT, 'docs/webhooks.md'), 'utf8');
  const section = page.slice(page.indexOf('## SQS destinations'), page.indexOf('**Locally** (`npm start`)'));
  const [example, trust, permissions, queuePolicy] = [...section.matchAll(/```json\n([\s\S]*?)```/g)].map(
    (m) => JSON.parse(m[1]!),
  );
  const erp = example.destinations.erp;
  const RELAY_ACCOUNT = '111122223333';
  const DELIVERY_ROLE = `arn:aws:iam::${RELAY_ACCOUNT}:role/relay-RelayDeliveryRole-1A2B3C`;
  const QUEUE_KEY = 'arn:aws:kms:af-south-1:210987654321:key/1234abcd-12ab-34cd-56ef-1234567890ab';
  const concrete = (document: unknown) =>
    JSON.parse(
      JSON.stringify(document)
        .replace(`arn:aws:iam::${RELAY_ACCOUNT}:role/<the delivery function's role>`, DELIVERY_ROLE)
        .replace(/arn:aws:kms:[^"]*<their queue's key>/, QUEUE_KEY),
    );

  it("trusts only the relay account's delivery role, with the partner's external id", () => {
    expect(trust.Statement).toEqual([
      {
        Effect: 'Allow',
        Principal: { AWS: `arn:aws:iam::${RELAY_ACCOUNT}:root` },
        Action: 'sts:AssumeRole',
        Condition: {
          StringEquals: { 'sts:ExternalId': erp.externalId },
          ArnEquals: {
            'aws:PrincipalArn': `arn:aws:iam::${RELAY_ACCOUNT}:role/<the delivery function's role>`,
          },
        },
      },
    ]);
  });

  it('lets the role send to the one queue and nothing else; the queue takes sends from that role alone', () => {
    expect(permissions.Statement).toEqual([
      { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: erp.queue },
      {
        Effect: 'Allow',
        Action: ['kms:GenerateDataKey', 'kms:Decrypt'],
        Resource: expect.stringMatching(/^arn:aws:kms:af-south-1:210987654321:key\//),
      },
    ]);
    const statements = queuePolicy.Statement as Record<string, any>[];
    expect(statements.filter((st) => st.Effect === 'Allow')).toEqual([
      { Effect: 'Allow', Principal: { AWS: erp.roleArn }, Action: 'sqs:SendMessage', Resource: erp.queue },
    ]);
    // No wildcard in what is allowed: every action and resource is named (the TLS deny is for everyone).
    expect(
      JSON.stringify([trust, permissions, statements.filter((st) => st.Effect === 'Allow')]),
    ).not.toMatch(/"\*"|:\*"/);
    expect(statements.filter((st) => st.Effect === 'Deny')).toEqual([
      expect.objectContaining({ Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    ]);
  });

  it('deploys in the partner account as written: cdk-nag and cfn-lint clean', () => {
    const app = new App();
    const stack = new Stack(app, 'PartnerQueue', { env: { account: '210987654321', region: 'af-south-1' } });
    const dlq = new sqs.CfnQueue(stack, 'EventsDlq', {
      queueName: 'momo-events-dlq.fifo',
      fifoQueue: true,
      kmsMasterKeyId: QUEUE_KEY,
    });
    const queue = new sqs.CfnQueue(stack, 'Events', {
      queueName: 'momo-events.fifo',
      fifoQueue: true,
      kmsMasterKeyId: QUEUE_KEY,
      redrivePolicy: { deadLetterTargetArn: dlq.attrArn, maxReceiveCount: 5 },
    });
    new sqs.CfnQueuePolicy(stack, 'EventsPolicy', { queues: [queue.ref], policyDocument: queuePolicy });
    new sqs.CfnQueuePolicy(stack, 'EventsDlqPolicy', {
      queues: [dlq.ref],
      policyDocument: {
        Version: '2012-10-17',
        Statement: [queuePolicy.Statement.find((st: { Effect: string }) => st.Effect === 'Deny')],
      },
    });
    new iam.CfnRole(stack, 'RelayDeliveries', {
      roleName: 'momo-relay-deliveries',
      assumeRolePolicyDocument: concrete(trust),
      policies: [{ policyName: 'send-momo-events', policyDocument: concrete(permissions) }],
    });
    Aspects.of(stack).add(new AwsSolutionsChecks({ verbose: true }));
    const { annotations, template: synthesized } = synthOnce(stack);
    const template = synthesized.toJSON();
    const nag = (found: ReturnType<typeof annotations.findError>) =>
      found.map((m) => `${m.id}: ${String(m.entry.data).split('\n')[0]}`);
    const pattern = Match.stringLikeRegexp('AwsSolutions-.*');
    expect(nag(annotations.findError('*', pattern))).toEqual([]);
    expect(nag(annotations.findWarning('*', pattern))).toEqual([]);
    if (cfnLintSkipReason()) return;
    expect(cfnLint({ PartnerQueue: template }).errors).toEqual([]);
  }, 120_000);
});
