import { App, Duration, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as eventTargets from 'aws-cdk-lib/aws-events-targets';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { MobileMoneyRelay } from '../../infra';
import { MAX_DESTINATIONS } from '../../infra/relay/delivery';
import { MAX_SUBSCRIBER_ACCOUNTS } from '../../infra/relay/events';
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

/** Account ids of the accounts configOf(n) makes, `<provider>/<id>` keys, in order. */
const accountKeys = (n: number) =>
  Array.from({ length: n }, (_, i) => `${PROVIDERS[i % PROVIDERS.length]}/till${String(i).padStart(3, '0')}`);

/**
 * Accounts a destination's or subscriber's filter names on the largest relay: 185 of 7 characters make a
 * pattern of about 1,980 characters, under EventBridge's 2,048 (FILTER_OVER makes it pass them).
 */
const FILTER_ACCOUNTS = 185;
const FILTER_OVER = 200;
/**
 * Secret ids outside the naming convention: 19 callback secrets by an ARN of 140 characters (with
 * edge.originVerifySecretId, the 20 the construct takes) and a badge shop's secret, together 5,762 of the
 * 6,000 characters the construct gives them.
 */
const EXPLICIT_ARN = (i: number) =>
  `arn:aws:secretsmanager:eu-west-1:123456789012:secret:partners/${String(i).padStart(2, '0')}/`.padEnd(
    140,
    'c',
  );
/** Other senders to the ingress buffer: the 9 the construct takes, role ARNs of 100 characters. */
const SENDER_ARNS = Array.from({ length: 9 }, (_, i) =>
  `arn:aws:iam::123456789012:role/buffer-redrive-${String(i).padStart(2, '0')}-`.padEnd(100, 'r'),
);

interface LargestOptions {
  destinations?: number;
  filterAccounts?: number;
  subscriberAccounts?: number;
  senders?: string[];
  /** Secret ids outside the convention (the callback secrets of the first accounts, by ARN). */
  explicitSecrets?: number;
}

/**
 * The largest relay: 1,000 accounts, the most destinations, every option on at its largest (the console,
 * the CloudFront edge, a custom domain, customer-managed keys, hot-path tracing, ten subscribers, 200
 * subscriber accounts, the ingress buffer's senders, secret ids outside the convention, a badge shop,
 * statement and pull settings per account, a destination and a subscriber filtering by account), the
 * longest stack name and construct id.
 */
function largestRelay(options: LargestOptions = {}) {
  const {
    destinations = MAX_DESTINATIONS,
    filterAccounts = FILTER_ACCOUNTS,
    subscriberAccounts = MAX_SUBSCRIBER_ACCOUNTS,
    senders = SENDER_ARNS,
    explicitSecrets = 19,
  } = options;
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, LONG_STACK, { env: { account: '123456789012', region: 'eu-west-1' } });
  const base = configOf(1000);
  const keys = accountKeys(1000);
  keys.slice(0, explicitSecrets).forEach((key, i) => {
    const [provider, id] = key.split('/') as [(typeof PROVIDERS)[number], string];
    (base.accounts[provider]![id] as Record<string, unknown>).callbackSecretId = EXPLICIT_ARN(i);
  });
  const filtered = keys.slice(0, filterAccounts).map((key) => key.split('/')[1]!);
  const targets: Record<string, Record<string, unknown>> = destinationsOf(destinations);
  const [first] = Object.keys(targets);
  if (first) targets[first] = { ...targets[first], filter: { accounts: filtered } };
  const config = {
    ...base,
    publicBaseUrl: 'https://d111111abcdef8.cloudfront.net',
    edge: { mode: 'cloudfront', originVerifySecretId: 'mobile-money-relay/edge/origin' },
    destinations: targets,
    badges: {
      shops: {
        shop0: {
          baseUrl: 'https://shop.example.org',
          auth: { type: 'bearer' },
          secretId: 'badge-shops/shop0',
        },
      },
    },
    statements: {
      accounts: Object.fromEntries(
        keys.map((key) => [key, { timeZone: 'Africa/Nairobi', slaSeconds: 7200 }]),
      ),
    },
    providerRecords: {
      accounts: Object.fromEntries(
        keys.filter((key) => key.startsWith('daraja/')).map((key) => [key, { pullIntervalSeconds: 600 }]),
      ),
    },
  };
  const relay = new MobileMoneyRelay(stack, LONG_ID, {
    config,
    alarmEmail: 'oncall@example.org',
    ticketEmail: 'payments-team@example.org',
    tableEncryptionKey: new kms.Key(stack, 'TableKey', { enableKeyRotation: true }),
    secretsEncryptionKey: new kms.Key(stack, 'SecretsKey', { enableKeyRotation: true }),
    hotPathTracing: true,
    subscriberAccounts: Array.from({ length: subscriberAccounts }, (_, i) => String(100_000_000_000 + i)),
    ingressBufferSenderArns: senders,
    callbackSilencePeriods: Object.fromEntries(keys.slice(0, 30).map((key) => [key, Duration.hours(1)])),
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
      ...(i === 0 ? { accounts: filtered } : {}),
      target: new eventTargets.SqsQueue(new sqs.Queue(stack, `SubscriberQueue${i}`, { enforceSSL: true })),
    });
  const template = Template.fromStack(stack).toJSON();
  // After the synth: a subscriber naming more accounts than a pattern holds is refused, naming the limit.
  let tooManyAccounts: unknown;
  try {
    relay.addSubscriber('TooManyAccounts', {
      detailTypes: ['TransactionSucceeded'],
      accounts: accountKeys(FILTER_OVER).map((key) => key.split('/')[1]!),
      target: new eventTargets.SqsQueue(new sqs.Queue(stack, 'TooManyAccountsQueue', { enforceSSL: true })),
    });
  } catch (error) {
    tooManyAccounts = error;
  }
  return { template, tooManyAccounts };
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
  const largest = largestRelay();
  built.set(LARGEST, { template: largest.template, limits: checkAwsLimits(largest.template) });
  subscriberRefusal = largest.tooManyAccounts;
});
/** What addSubscriber threw on the largest relay for a subscriber naming FILTER_OVER accounts. */
let subscriberRefusal: unknown;
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
  it('takes 48 destinations (500 resources), each with its queue and rule', () => {
    const resources = Object.keys(built.get(LARGEST)!.template.Resources as Record<string, any>);
    expect(MAX_DESTINATIONS).toBe(48);
    expect(resources.filter((id) => /Deliverypartner\d+x+Queue[0-9A-F]{8}$/.test(id))).toHaveLength(48);
    expect(resources.filter((id) => /Deliverypartner\d+x+Rule[0-9A-F]{8}$/.test(id))).toHaveLength(48);
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
    expect(statements[0].Resource).toHaveLength(48);
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
    expect(() => largestRelay({ destinations: MAX_DESTINATIONS + 1 })).toThrow(
      new RegExp(
        `destinations: ${MAX_DESTINATIONS + 1} destinations, more than ${MAX_DESTINATIONS}: the stack would pass CloudFormation's 500 resources`,
      ),
    );
  });

  it('refuses at synth, naming the limit, the lists that would pass a pattern or a resource policy', () => {
    // A destination or subscriber filtering by more accounts than an event pattern holds (2,048 characters).
    expect(() => largestRelay({ filterAccounts: FILTER_OVER })).toThrow(
      /destinations\.partner000x+\.filter: its EventBridge rule's event pattern would be 21\d\d characters, more than the 2048 EventBridge takes/,
    );
    expect(String(subscriberRefusal)).toMatch(
      /addSubscriber\(TooManyAccounts\): its EventBridge rule's event pattern would be 21\d\d characters, more than the 2048/,
    );
    // More subscriber accounts than the bus's one resource policy holds (10,240 characters).
    expect(() => largestRelay({ subscriberAccounts: MAX_SUBSCRIBER_ACCOUNTS + 1 })).toThrow(
      /subscriberAccounts: 201 accounts, more than 200: the bus's resource policy names each one and would pass EventBridge's 10,240 characters/,
    );
    // More senders than the ingress buffer's queue policy holds (SQS's 10 conditions).
    expect(() => largestRelay({ senders: [...SENDER_ARNS, SENDER_ARNS[0]!] })).toThrow(
      /ingressBufferSenderArns: 10 ARNs, more than 9: each is a value of a condition of the ingress buffer's queue policy, and SQS takes 10 conditions/,
    );
  });

  it('grants the secret ids outside the convention and the replays where IAM has room for them', () => {
    // Prepare: 19 secrets by ARN and 48 destination queues, both on the management role.
    const resources = built.get(LARGEST)!.template.Resources as Record<string, any>;
    const managed = Object.entries(resources).filter(
      ([id, r]) =>
        r.Type === 'AWS::IAM::ManagedPolicy' &&
        /DeliveryReplayQueues\d$/.test(id.replace(/[0-9A-F]{8}$/, '')),
    );
    // Assess: the replay grant in managed policies of 25 queues (IAM's 6,144 characters each), none of
    // it inline, where the secrets are (10,240 for all of the role's inline policies).
    expect(managed.map(([, r]) => r.Properties.PolicyDocument.Statement[0].Resource.length)).toEqual([
      25, 23,
    ]);
    const { sizes } = built.get(LARGEST)!.limits;
    expect(sizes.maxRoleInlinePolicyChars).toBeLessThanOrEqual(10_240);
    expect(sizes.maxBusPolicyChars).toBeLessThanOrEqual(10_240);
    expect(sizes.maxEventPatternChars).toBeGreaterThan(1_900);
  });
});
