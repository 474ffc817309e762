import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as eventTargets from 'aws-cdk-lib/aws-events-targets';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { MobileMoneyRelay } from '../../infra';
import { MAX_DESTINATIONS } from '../../infra/relay/delivery';
import { checkAwsLimits, lambdaResourcePolicies, type LimitsReport, resolveIntrinsics } from './aws-limits';
import { cfnLint, cfnLintSkipReason, describeFindings, errorsWithVersion } from './cfn-lint';
import { exampleConfig } from './relay-synth';

/** The partner sizes a relay must deploy at: a single till up to an aggregator's hundreds. */
const SIZES = [1, 25, 100, 500] as const;
/** The sizes cfn-lint reads (with the largest relay). */
const LINTED_SIZES = [1, 25] as const;
const PROVIDERS = ['momo', 'airtel', 'daraja'] as const;
const API_BASE_URLS = {
  momo: 'https://sandbox.momodeveloper.mtn.com',
  airtel: 'https://openapiuat.airtel.africa',
  daraja: 'https://sandbox.safaricom.co.ke',
};

/**
 * `n` accounts spread over the three providers, each like the example config's account of its provider,
 * with both secrets (named by the convention) and a status API.
 */
function configOf(n: number) {
  const accounts: Record<string, Record<string, unknown>> = {};
  for (let i = 0; i < n; i++) {
    const provider = PROVIDERS[i % PROVIDERS.length]!;
    const id = `till${String(i).padStart(3, '0')}`;
    accounts[provider] = {
      ...accounts[provider],
      [id]: {
        ...structuredClone(exampleConfig.accounts[provider].demo),
        ...(provider === 'daraja' ? { shortCode: String(600_000 + i) } : {}),
        callbackSecretId: `mobile-money-relay/${provider}/${id}/callback`,
        apiSecretId: `mobile-money-relay/${provider}/${id}/api`,
        api: { baseUrl: API_BASE_URLS[provider] },
      },
    };
  }
  return { ...exampleConfig, accounts };
}

/**
 * `n` destinations with the longest names the config takes (64 characters), half https, half sqs in a
 * partner's account by role: each adds a queue, a rule and grants.
 */
function destinationsOf(n: number) {
  return Object.fromEntries(
    Array.from({ length: n }, (_, i) => {
      const name = `partner${String(i).padStart(3, '0')}`.padEnd(64, 'x');
      const signingSecretId = `mobile-money-relay/webhooks/${name}`;
      return [
        name,
        i % 2
          ? { url: `https://hooks.example.com/${name}`, signingSecretId }
          : {
              type: 'sqs',
              queue: `https://sqs.af-south-1.amazonaws.com/210987654321/q${i}`,
              roleArn: `arn:aws:iam::210987654321:role/relay-deliveries-${i}`,
              externalId: 'relay-7f3a9c',
              signingSecretId,
            },
      ];
    }),
  );
}

/** The longest stack name CloudFormation takes; with LONG_ID the metrics namespace reaches its 255. */
const LONG_STACK = `Relay${'S'.repeat(123)}`;
const LONG_ID = `Relay${'R'.repeat(95)}`;

/**
 * The largest relay: 1,000 accounts, the most destinations, every option on (the console, the CloudFront
 * edge, a custom domain, customer-managed keys, ten subscribers), the longest stack name and construct id.
 */
function largestRelay(destinations: number) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, LONG_STACK, { env: { account: '123456789012', region: 'eu-west-1' } });
  const config = {
    ...configOf(1000),
    publicBaseUrl: 'https://d111111abcdef8.cloudfront.net',
    edge: { mode: 'cloudfront', originVerifySecretId: 'mobile-money-relay/edge/origin' },
    destinations: destinationsOf(destinations),
  };
  const relay = new MobileMoneyRelay(stack, LONG_ID, {
    config,
    alarmEmail: 'oncall@example.org',
    ticketEmail: 'payments-team@example.org',
    tableEncryptionKey: new kms.Key(stack, 'TableKey', { enableKeyRotation: true }),
    secretsEncryptionKey: new kms.Key(stack, 'SecretsKey', { enableKeyRotation: true }),
    console: {},
    customDomain: {
      domainName: 'relay.payments.example.org',
      certificate: acm.Certificate.fromCertificateArn(
        stack,
        'Certificate',
        'arn:aws:acm:eu-west-1:123456789012:certificate/11111111-2222-3333-4444-555555555555',
      ),
    },
    cloudFront: {
      webAclArn:
        'arn:aws:wafv2:us-east-1:123456789012:global/webacl/relay-edge/11111111-2222-3333-4444-555555555555',
    },
  });
  for (let i = 0; i < 10; i++)
    relay.addSubscriber(`Subscriber${i}`, {
      detailTypes: ['TransactionSucceeded', 'TransactionFailed'],
      target: new eventTargets.SqsQueue(new sqs.Queue(stack, `SubscriberQueue${i}`, { enforceSSL: true })),
    });
  return Template.fromStack(stack).toJSON();
}

type Built = { template: Record<string, any>; limits: LimitsReport };

/** Each size synthesized once (bundling off: the template is under test). */
const built = new Map<number, Built>();
beforeAll(() => {
  for (const n of SIZES) {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new Stack(app, `Relay${n}Accounts`, {
      env: { account: '123456789012', region: 'eu-west-1' },
    });
    new MobileMoneyRelay(stack, 'Relay', {
      config: configOf(n),
      alarmEmail: 'oncall@example.org',
      ticketEmail: 'payments-team@example.org',
    });
    const template = Template.fromStack(stack).toJSON();
    built.set(n, { template, limits: checkAwsLimits(template) });
  }
  const template = largestRelay(MAX_DESTINATIONS);
  built.set(LARGEST, { template, limits: checkAwsLimits(template) });
});
/** The key of the largest relay in `built`. */
const LARGEST = -1;

describe('every size deploys (1, 25, 100 and 500 accounts, each with both secrets and a status API)', () => {
  it.each(SIZES)('%i accounts: inside every AWS limit that applies at deploy', (n) => {
    // Act
    const { limits } = built.get(n)!;
    console.info(`${n} accounts: ${JSON.stringify(limits.sizes)}`);
    // Assess
    expect(limits.problems).toEqual([]);
  });

  it('grants the secrets with policies that do not grow with the accounts', () => {
    const sizes = SIZES.map((n) => built.get(n)!.limits.sizes);
    // From 25 accounts on, every provider (and so every function) is there: the policies are the same.
    expect(sizes[3]!.maxRoleInlinePolicyChars).toBe(sizes[1]!.maxRoleInlinePolicyChars);
    expect(sizes[3]!.maxManagedPolicyChars).toBe(0);
  });

  it('watches callback silence with one alarm per provider at 500 accounts, no metric per account', () => {
    // Prepare
    const resources = built.get(500)!.template.Resources as Record<string, any>;

    // Act
    const silence = Object.values(resources).filter(
      (r) =>
        r.Type === 'AWS::CloudWatch::Alarm' &&
        JSON.stringify(r.Properties.Metrics ?? r.Properties.MetricName ?? '').includes('SilentProviders'),
    );

    // Assess: three providers, three alarms, each on SilentProviders{provider}, a ticket inside 1,024 characters.
    expect(silence).toHaveLength(3);
    for (const alarm of silence) {
      const stats = (alarm.Properties.Metrics ?? []).filter((m: any) => m.MetricStat);
      expect(stats).toHaveLength(1);
      expect(stats[0].MetricStat.Metric.Dimensions.map((d: any) => d.Name)).toEqual(['provider']);
      expect(JSON.stringify(alarm.Properties.AlarmActions)).toMatch(/TicketTopic/);
      expect(String(alarm.Properties.AlarmDescription).length).toBeLessThanOrEqual(1024);
      // The poller writes it only while the provider is silent: no data is no silence.
      expect(alarm.Properties.TreatMissingData).toBe('notBreaching');
    }
  });

  const skip = cfnLintSkipReason();
  it.skipIf(skip !== undefined)(
    `passes cfn-lint with 0 errors at 1 and 25 accounts and on the largest relay (1,000)${skip ? ` (skipped: ${skip})` : ''}`,
    { timeout: 900_000 },
    () => {
      // Act
      const { errors, warnings } = cfnLint(
        // 100 and 500 accounts differ from 25 only in the config layer's asset (nothing grows per
        // account: the tests above), and the largest relay has 1,000: linting them again costs CPU only.
        Object.fromEntries([
          ...LINTED_SIZES.map((n) => [`${n}-accounts`, built.get(n)!.template]),
          ['largest', built.get(LARGEST)!.template],
        ]),
      );
      // Assess (warnings are reported, not failed)
      if (warnings.length) console.info(`cfn-lint warnings:\n${describeFindings(warnings).join('\n')}`);
      expect(errorsWithVersion(errors)).toEqual([]);
    },
  );
});

describe('the largest relay deploys: 1,000 accounts, the most destinations, every option, the longest names', () => {
  it('takes 49 destinations (IAM policy size, then 500 resources), each with its queue and rule', () => {
    const resources = Object.keys(built.get(LARGEST)!.template.Resources as Record<string, any>);
    expect(MAX_DESTINATIONS).toBe(49);
    expect(resources.filter((id) => /Deliverypartner\d+x+Queue[0-9A-F]{8}$/.test(id))).toHaveLength(49);
    expect(resources.filter((id) => /Deliverypartner\d+x+Rule[0-9A-F]{8}$/.test(id))).toHaveLength(49);
  });

  it('is inside every AWS limit that applies at deploy', () => {
    const { limits } = built.get(LARGEST)!;
    console.info(`largest relay: ${JSON.stringify(limits.sizes)}`);
    expect(limits.problems).toEqual([]);
  });

  it('lets API Gateway invoke the management function with one statement per API, whatever its routes', () => {
    // Prepare: the relay API's and the console API's routes all reach the management function.
    const resources = built.get(LARGEST)!.template.Resources as Record<string, any>;
    const management = Object.keys(resources).find(
      (id) => resources[id].Type === 'AWS::Lambda::Function' && /ManagementFunction/.test(id),
    )!;

    // Act
    const statements = Object.values(resources).filter(
      (r) =>
        r.Type === 'AWS::Lambda::Permission' && r.Properties.FunctionName['Fn::GetAtt']?.[0] === management,
    );

    // Assess: two APIs, two statements (one per route was 60, 52 KB against Lambda's 20 KB).
    expect(statements.map((r) => r.Properties.Principal)).toEqual([
      'apigateway.amazonaws.com',
      'apigateway.amazonaws.com',
    ]);
    expect(lambdaResourcePolicies(resources).get(management)).toBeLessThan(20_480);
  });

  it('lets every destination rule dead-letter into the delivery DLQ through one statement of a fixed size', () => {
    const resources = built.get(LARGEST)!.template.Resources as Record<string, any>;
    const [policy] = Object.entries(resources).filter(
      ([id, r]) => r.Type === 'AWS::SQS::QueuePolicy' && /DeliveryDlqPolicy/.test(id),
    );
    const statements = policy![1].Properties.PolicyDocument.Statement as any[];
    const fromRules = statements.filter((s) => s.Principal?.Service === 'events.amazonaws.com');
    expect(fromRules).toHaveLength(1);
    // The relay bus's rules in this account, by pattern: no list of rule ARNs (259 bytes each; 8,192 in all).
    expect(resolveIntrinsics(fromRules[0].Condition.ArnLike['aws:SourceArn'])).toMatch(
      /^arn:[\w-]+:events:eu-west-1:123456789012:rule\/r+\/\*$/,
    );
    expect(fromRules[0].Condition.StringEquals).toEqual({ 'aws:SourceAccount': '123456789012' });
    expect(Object.keys(fromRules[0].Condition).sort()).toEqual(['ArnLike', 'StringEquals']);
  });

  it('lets the delivery function consume every destination queue through one statement', () => {
    const resources = built.get(LARGEST)!.template.Resources as Record<string, any>;
    const statements = Object.values(resources)
      .filter((r) => /Policy$/.test(r.Type) && JSON.stringify(r).includes('sqs:ReceiveMessage'))
      .flatMap((r) => r.Properties.PolicyDocument.Statement as any[])
      .filter((s) => [s.Action].flat().includes('sqs:ReceiveMessage'))
      .filter((s) => JSON.stringify(s.Resource).includes('Deliverypartner'));
    expect(statements).toHaveLength(1);
    expect(statements[0].Resource).toHaveLength(49);
  });

  it('keeps the management function environment the same size whatever the destinations', () => {
    // Prepare: the largest relay's management function against the 500-account relay's (no destination).
    const environmentOf = (template: Record<string, any>) =>
      Object.entries(template.Resources as Record<string, any>).find(
        ([id, r]) => r.Type === 'AWS::Lambda::Function' && /ManagementFunction/.test(id),
      )![1].Properties.Environment.Variables as Record<string, unknown>;
    const largest = environmentOf(built.get(LARGEST)!.template);
    // Act
    const added = Object.keys(largest).filter((k) => !(k in environmentOf(built.get(500)!.template)));
    // Assess: the DLQ's ARN only (the destination queues are found from it at run time), no queue list.
    expect(added).toEqual(['DELIVERY_DLQ_ARN']);
    expect(JSON.stringify(largest)).not.toMatch(/Deliverypartner/);
  });

  it(`refuses more than ${MAX_DESTINATIONS} destinations at synth, naming the limit and the maximum`, () => {
    expect(() => largestRelay(MAX_DESTINATIONS + 1)).toThrow(
      new RegExp(
        `destinations: ${MAX_DESTINATIONS + 1} destinations, more than ${MAX_DESTINATIONS}: the management function's grant on the destination queues would pass IAM's 6,144 characters of a managed policy, and the stack CloudFormation's 500 resources`,
      ),
    );
  });
});
