import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { marshall } from '@aws-sdk/util-dynamodb';
import { App, Aspects, Duration, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, RELAY_FUNCTIONS } from '../../infra/bundling';
import * as kms from 'aws-cdk-lib/aws-kms';
import {
  ALARMED_RELAY_METRICS,
  OUTBOX_FILTER_PATTERN,
  POLLER_TABLE_ACTIONS,
  TABLE_DATA_ACTIONS,
} from '../../infra/relay-construct';
import { RelayStack } from '../../infra/relay-stack';
import { DAY_INDEX, DUE_INDEX, TABLE_KEYS } from '../../shared/adapters/dynamodb/table';
import { buildEvent } from '../../shared/domain/events';
import { matchesFilterPattern } from './filter-pattern';

const run = promisify(execFile);
const exampleConfig = JSON.parse(readFileSync(join(PROJECT_ROOT, 'infra/example-config.json'), 'utf8'));

type Resource = { Type: string; Properties: Record<string, any>; DeletionPolicy?: string };

let app: App;
let stack: RelayStack;
let template: Template;
let resources: Record<string, Resource>;

/** Logical id of the function whose POWERTOOLS_SERVICE_NAME is `serviceName`. */
function functionId(serviceName: string): string {
  const found = Object.entries(resources).filter(
    ([, r]) =>
      r.Type === 'AWS::Lambda::Function' &&
      r.Properties.Environment?.Variables?.POWERTOOLS_SERVICE_NAME === serviceName,
  );
  expect(found).toHaveLength(1);
  return found[0]![0];
}

/** Every IAM statement attached (inline or through AWS::IAM::Policy) to the role of a function. */
function statementsOfFunction(
  fnId: string,
): Array<{ Action: string | string[]; Resource: unknown; Effect: string }> {
  const roleRef = resources[fnId]!.Properties.Role['Fn::GetAtt'][0] as string;
  const statements: Array<{ Action: string | string[]; Resource: unknown; Effect: string }> = [];
  for (const resource of Object.values(resources)) {
    if (
      resource.Type === 'AWS::IAM::Policy' &&
      resource.Properties.Roles.some((r: any) => r.Ref === roleRef)
    ) {
      statements.push(...resource.Properties.PolicyDocument.Statement);
    }
  }
  for (const policy of resources[roleRef]!.Properties.Policies ?? [])
    statements.push(...policy.PolicyDocument.Statement);
  expect(resources[roleRef]!.Properties.ManagedPolicyArns ?? []).toEqual([]);
  return statements;
}

const actionsOf = (s: { Action: string | string[] }) => (Array.isArray(s.Action) ? s.Action : [s.Action]);

beforeAll(() => {
  // Prepare: ONE real synth (esbuild bundles of the three handlers + cdk-nag), shared by every test.
  app = new App({ outdir: mkdtempSync(join(tmpdir(), 'relay-cdk-')) });
  stack = new RelayStack(app, 'RelayUnderTest', {
    relay: { config: exampleConfig, alarmEmail: 'oncall@example.com' },
  });
  Aspects.of(stack).add(new AwsSolutionsChecks({ verbose: true }));
  template = Template.fromStack(stack);
  resources = template.toJSON().Resources;
}, 180_000);

describe('relay stack: storage', () => {
  it('creates the table with the store module keys, TTL, stream, PITR and encryption, retained', () => {
    template.resourceCountIs('AWS::DynamoDB::Table', 1);
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: {
        KeySchema: [
          { AttributeName: TABLE_KEYS.partitionKey, KeyType: 'HASH' },
          { AttributeName: TABLE_KEYS.sortKey, KeyType: 'RANGE' },
        ],
        AttributeDefinitions: Match.arrayWith([
          { AttributeName: TABLE_KEYS.partitionKey, AttributeType: 'S' },
          { AttributeName: TABLE_KEYS.sortKey, AttributeType: 'S' },
        ]),
        BillingMode: 'PAY_PER_REQUEST',
        TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
        StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        SSESpecification: { SSEEnabled: true },
        DeletionProtectionEnabled: true,
      },
    });
  });

  it('adds the sparse due index and the byDay index, keys only, with the store module names', () => {
    const table = Object.values(resources).find((r) => r.Type === 'AWS::DynamoDB::Table')!.Properties;
    expect(table.GlobalSecondaryIndexes).toEqual([
      {
        IndexName: 'due',
        KeySchema: [
          { AttributeName: 'dueShard', KeyType: 'HASH' },
          { AttributeName: 'dueAt', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'KEYS_ONLY' },
      },
      {
        IndexName: 'byDay',
        KeySchema: [
          { AttributeName: 'dayShard', KeyType: 'HASH' },
          { AttributeName: 'createdAt', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'KEYS_ONLY' },
      },
    ]);
    // The construct and the local table setup read the same names.
    expect([DUE_INDEX.name, DUE_INDEX.partitionKey, DUE_INDEX.sortKey]).toEqual(['due', 'dueShard', 'dueAt']);
    expect([DAY_INDEX.name, DAY_INDEX.partitionKey, DAY_INDEX.sortKey]).toEqual([
      'byDay',
      'dayShard',
      'createdAt',
    ]);
    for (const name of ['dueShard', 'dueAt', 'dayShard', 'createdAt'])
      expect(table.AttributeDefinitions).toContainEqual({ AttributeName: name, AttributeType: 'S' });
    expect(table.AttributeDefinitions).toHaveLength(6);
  });
});

describe('relay stack: functions', () => {
  it('deploys every handler on Node.js 22, ARM64, with active tracing and source maps', () => {
    expect(Object.keys(RELAY_FUNCTIONS).sort()).toEqual([
      'callback',
      'management',
      'outbox-publisher',
      'poller',
      'transaction-initiated',
    ]);
    for (const { serviceName } of Object.values(RELAY_FUNCTIONS)) {
      const fn = resources[functionId(serviceName)]!.Properties;
      expect(fn).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        TracingConfig: { Mode: 'Active' },
      });
      expect(fn.Environment.Variables.NODE_OPTIONS).toBe('--enable-source-maps');
      expect(fn.LoggingConfig.LogGroup).toBeDefined();
    }
    template.resourcePropertiesCountIs('AWS::Lambda::Function', { Runtime: 'nodejs22.x' }, 5);
  });

  it('gives the poller the table, the config and the metrics namespace, a 60 s timeout, no retries', () => {
    const poller = resources[functionId('relay-poller')]!.Properties;
    expect(poller.Timeout).toBe(60);
    const env = poller.Environment.Variables;
    expect(env.TABLE_NAME).toEqual({ Ref: expect.stringMatching(/Table/) });
    expect(env.POWERTOOLS_METRICS_NAMESPACE).toBe('MobileMoneyRelay');
    expect(JSON.parse(env.RELAY_CONFIG_JSON).accounts.momo.demo).toEqual(exampleConfig.accounts.momo.demo);
    expect(env.EVENT_BUS_NAME).toBeUndefined();
    // "Check now" on the management API emits the same metrics.
    expect(
      resources[functionId('relay-management')]!.Properties.Environment.Variables
        .POWERTOOLS_METRICS_NAMESPACE,
    ).toBe('MobileMoneyRelay');
    // A failed cycle is not retried by Lambda: the next scheduled one starts within a minute.
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: functionId('relay-poller') },
      MaximumRetryAttempts: 0,
      MaximumEventAgeInSeconds: 60,
    });
  });

  it('gives the HTTP functions the table, the inline config (no local-only secrets), the bus and the source', () => {
    for (const serviceName of ['relay-callback', 'relay-management']) {
      const env = resources[functionId(serviceName)]!.Properties.Environment.Variables;
      expect(env.TABLE_NAME).toEqual({ Ref: expect.stringMatching(/Table/) });
      expect(env.EVENT_BUS_NAME).toEqual({ Ref: expect.stringMatching(/Bus/) });
      expect(env.EVENT_SOURCE).toBe('mobile-money.relay');
      const inline = JSON.parse(env.RELAY_CONFIG_JSON);
      expect(inline.management).toEqual({ auth: 'iam' });
      expect(inline.local).toBeUndefined();
      expect(inline.accounts.momo.demo).toEqual(exampleConfig.accounts.momo.demo);
    }
    const publisherEnv = resources[functionId('relay-outbox-publisher')]!.Properties.Environment.Variables;
    expect(publisherEnv.EVENT_BUS_NAME).toEqual({ Ref: expect.stringMatching(/Bus/) });
    // The publisher never sees the config (and its secrets).
    expect(publisherEnv.RELAY_CONFIG_JSON).toBeUndefined();
  });

  it('builds bundles that load in a fresh Node.js process with the deployed environment', async () => {
    const assembly = app.synth();
    const loads = Object.values(RELAY_FUNCTIONS).map(async ({ serviceName }) => {
      const fn = resources[functionId(serviceName)]!.Properties;
      const hash = String(fn.Code.S3Key).replace(/\.zip$/, '');
      const bundle = join(assembly.directory, `asset.${hash}`, 'index.mjs');
      expect(existsSync(bundle)).toBe(true);
      expect(existsSync(`${bundle}.map`)).toBe(true);
      // Nothing is left external: the asset directory holds the whole program.
      expect(readdirSync(join(assembly.directory, `asset.${hash}`)).sort()).toEqual([
        'index.mjs',
        'index.mjs.map',
      ]);
      const env: Record<string, string> = {};
      for (const [name, value] of Object.entries(fn.Environment.Variables as Record<string, unknown>)) {
        env[name] = typeof value === 'string' ? value : `dummy-${name.toLowerCase()}`;
      }
      const { stdout } = await run(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          'const m = await import(process.argv[1]); console.log(typeof m.handler);',
          bundle,
        ],
        { env: { PATH: process.env.PATH, AWS_REGION: 'eu-west-1', ...env }, cwd: tmpdir(), timeout: 30_000 },
      );
      return { serviceName, handler: stdout.trim(), bytes: statSync(bundle).size };
    });
    const results = await Promise.all(loads);
    for (const result of results) expect(result, result.serviceName).toMatchObject({ handler: 'function' });
  }, 60_000);
});

describe('relay stack: HTTP API', () => {
  function routeByKey(routeKey: string) {
    const routes = Object.values(resources).filter(
      (r) => r.Type === 'AWS::ApiGatewayV2::Route' && r.Properties.RouteKey === routeKey,
    );
    expect(routes, routeKey).toHaveLength(1);
    return routes[0]!.Properties;
  }
  function integratedFunction(route: Record<string, any>): string {
    const integrationId = route.Target['Fn::Join'][1][1].Ref as string;
    return resources[integrationId]!.Properties.IntegrationUri['Fn::GetAtt'][0] as string;
  }

  it('puts the management routes behind IAM authorization, on the management function', () => {
    const management = functionId('relay-management');
    for (const key of [
      'POST /v1/transactions',
      'GET /v1/transactions/{provider}/{account}/{reference}',
      'POST /v1/transactions/{provider}/{account}/{reference}/check',
      'POST /v1/transactions/{provider}/{account}/{reference}/resolve',
      'GET /v1/reconciliation/report',
    ]) {
      const route = routeByKey(key);
      expect(route.AuthorizationType, key).toBe('AWS_IAM');
      expect(integratedFunction(route), key).toBe(management);
    }
  });

  it('sends everything else ($default) to the callback function without an authorizer', () => {
    const route = routeByKey('$default');
    expect(route.AuthorizationType ?? 'NONE').toBe('NONE');
    expect(integratedFunction(route)).toBe(functionId('relay-callback'));
    template.resourceCountIs('AWS::ApiGatewayV2::Route', 6);
  });

  it('logs access to CloudWatch without the path (it can carry a path secret) and throttles the stage', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 500, ThrottlingBurstLimit: 1000 },
      AccessLogSettings: {
        DestinationArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('ApiAccessLogs'), 'Arn'] },
      },
    });
    const stage = Object.values(resources).find((r) => r.Type === 'AWS::ApiGatewayV2::Stage')!;
    const format = JSON.parse(stage.Properties.AccessLogSettings.Format);
    expect(format.caller).toBe('$context.identity.userArn');
    expect(JSON.stringify(format)).not.toMatch(/\$context\.path/);
  });
});

describe('relay stack: outbox', () => {
  it('maps the table stream to the publisher with bisect, partial batch failures, retries, a DLQ and the outbox filter', () => {
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', 1);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: functionId('relay-outbox-publisher') },
      EventSourceArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('Table'), 'StreamArn'] },
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: 100,
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 10,
      MaximumRecordAgeInSeconds: 12 * 3600,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      DestinationConfig: {
        OnFailure: { Destination: { 'Fn::GetAtt': [Match.stringLikeRegexp('OutboxDlq'), 'Arn'] } },
      },
      FilterCriteria: { Filters: [{ Pattern: JSON.stringify(OUTBOX_FILTER_PATTERN) }] },
    });
  });

  it('encrypts the DLQ and refuses non-TLS access to it', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 14 * 24 * 3600,
    });
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  it('lets through exactly the stream records whose new image carries outbox events', () => {
    // Prepare: items as the DocumentClient writes them (relay-store marshall options).
    const options = { removeUndefinedValues: true, convertClassInstanceToMap: false };
    const event = buildEvent(
      'TransactionSucceeded',
      'momo:demo:ref',
      'SUCCEEDED',
      'callback',
      '2025-01-01T00:00:00Z',
      {
        provider: 'momo',
      },
    );
    const record = (item: Record<string, unknown>) => ({ dynamodb: { NewImage: marshall(item, options) } });
    const base = { pk: 'TX#momo#demo#ref', sk: 'TX', revision: 2 };
    // Act + Assess
    expect(matchesFilterPattern(OUTBOX_FILTER_PATTERN, record({ ...base, outbox: [event] }))).toBe(true);
    expect(matchesFilterPattern(OUTBOX_FILTER_PATTERN, record({ ...base, outbox: [] }))).toBe(false);
    expect(matchesFilterPattern(OUTBOX_FILTER_PATTERN, record({ ...base, sk: 'RCPT#abc', body: '{}' }))).toBe(
      false,
    );
    expect(matchesFilterPattern(OUTBOX_FILTER_PATTERN, { dynamodb: {} })).toBe(false);
  });
});

describe('relay stack: reconciliation schedule', () => {
  it('starts a poll cycle every minute with EventBridge Scheduler, on the poller, no retries, a DLQ', () => {
    template.resourceCountIs('AWS::Scheduler::Schedule', 1);
    const schedule = Object.values(resources).find((r) => r.Type === 'AWS::Scheduler::Schedule')!.Properties;
    expect(schedule).toMatchObject({
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      FlexibleTimeWindow: { Mode: 'OFF' },
      Target: {
        Arn: { 'Fn::GetAtt': [functionId('relay-poller'), 'Arn'] },
        RoleArn: { 'Fn::GetAtt': [expect.stringMatching(/PollScheduleRole/), 'Arn'] },
        RetryPolicy: { MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 60 },
        DeadLetterConfig: { Arn: { 'Fn::GetAtt': [expect.stringMatching(/PollScheduleDlq/), 'Arn'] } },
      },
    });
  });
});

describe('relay stack: TransactionInitiated events', () => {
  const rule = () =>
    Object.values(resources).find(
      (r) => r.Type === 'AWS::Events::Rule' && r.Properties.EventPattern?.['detail-type'],
    )!.Properties;

  it('routes TransactionInitiated from any source but the relay itself, on the relay bus, to its function', () => {
    expect(rule()).toMatchObject({
      EventBusName: { Ref: expect.stringMatching(/Bus/) },
      EventPattern: {
        'detail-type': ['TransactionInitiated'],
        source: [{ 'anything-but': ['mobile-money.relay'] }],
      },
      Targets: [
        {
          Arn: { 'Fn::GetAtt': [functionId('relay-transaction-initiated'), 'Arn'] },
          RetryPolicy: { MaximumRetryAttempts: 185, MaximumEventAgeInSeconds: 86_400 },
          DeadLetterConfig: {
            Arn: { 'Fn::GetAtt': [expect.stringMatching(/TransactionInitiatedDlq/), 'Arn'] },
          },
        },
      ],
    });
  });

  it('dead-letters what the function could not register after Lambda retries into the same encrypted, TLS-only DLQ', () => {
    const fn = resources[functionId('relay-transaction-initiated')]!.Properties;
    expect(fn.DeadLetterConfig).toEqual({
      TargetArn: { 'Fn::GetAtt': [expect.stringMatching(/TransactionInitiatedDlq/), 'Arn'] },
    });
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: functionId('relay-transaction-initiated') },
      MaximumRetryAttempts: 2,
      MaximumEventAgeInSeconds: 6 * 3600,
    });
    const [queueId, queue] = Object.entries(resources).find(
      ([id, r]) => r.Type === 'AWS::SQS::Queue' && /TransactionInitiatedDlq/.test(id),
    )!;
    expect(queue.Properties).toMatchObject({
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 14 * 24 * 3600,
    });
    const policy = Object.values(resources).find(
      (r) => r.Type === 'AWS::SQS::QueuePolicy' && r.Properties.Queues.some((q: any) => q.Ref === queueId),
    )!.Properties.PolicyDocument.Statement as Array<Record<string, any>>;
    expect(policy).toContainEqual(
      expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    );
    // EventBridge may send to it for this rule only.
    expect(policy).toContainEqual(
      expect.objectContaining({
        Effect: 'Allow',
        Principal: { Service: 'events.amazonaws.com' },
        Action: 'sqs:SendMessage',
        Condition: {
          ArnEquals: {
            'aws:SourceArn': { 'Fn::GetAtt': [expect.stringMatching(/TransactionInitiatedRule/), 'Arn'] },
          },
        },
      }),
    );
  });
});

describe('relay stack: construct options', () => {
  const unbundled = (relay: Record<string, unknown>, config: unknown = exampleConfig) => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const relayStack = new RelayStack(app, 'Options', { relay: { config, ...relay } });
    return { relayStack, synthesized: Template.fromStack(relayStack) };
  };

  it('takes the poll interval, a flexible window, polling off, the sources and the metrics namespace', () => {
    const { synthesized } = unbundled({
      pollInterval: Duration.minutes(5),
      pollFlexibleWindow: Duration.minutes(2),
      pollingEnabled: false,
      transactionInitiatedSources: ['shop.checkout'],
      metricsNamespace: 'Payments/Relay',
    });
    synthesized.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(5 minutes)',
      State: 'DISABLED',
      FlexibleTimeWindow: { Mode: 'FLEXIBLE', MaximumWindowInMinutes: 2 },
    });
    synthesized.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: { 'detail-type': ['TransactionInitiated'], source: ['shop.checkout'] },
    });
    synthesized.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'Payments/Relay',
      MetricName: 'TransactionsExpired',
    });
    synthesized.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ POWERTOOLS_METRICS_NAMESPACE: 'Payments/Relay' }) },
    });
  });

  it("refuses a poll interval under a minute or not in whole minutes, and the relay's own source", () => {
    for (const pollInterval of [Duration.seconds(30), Duration.seconds(90)])
      expect(() => unbundled({ pollInterval })).toThrow(/pollInterval: whole minutes/);
    expect(() => unbundled({ transactionInitiatedSources: ['mobile-money.relay'] })).toThrow(
      /transactionInitiatedSources: .*relay's own source/,
    );
  });

  describe('accounts with secretId', () => {
    const MOMO_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:relay/momo-demo-AbCdEf';
    const secretConfig = () => {
      const config = structuredClone(exampleConfig);
      // The path secret and the Airtel callback key live in Secrets Manager.
      config.accounts.momo.demo = { targetEnvironment: 'sandbox', currency: 'EUR', secretId: MOMO_ARN };
      config.accounts.airtel.demo = {
        secretId: 'relay/airtel-demo',
        hashMode: 'enforce',
        country: 'UG',
        currency: 'UGX',
      };
      return config;
    };
    const grants = (synthesized: Template, fnIdPattern: RegExp) => {
      const all = synthesized.toJSON().Resources as Record<string, Resource>;
      const fnId = Object.keys(all).find(
        (id) => all[id]!.Type === 'AWS::Lambda::Function' && fnIdPattern.test(id),
      )!;
      const roleRef = all[fnId]!.Properties.Role['Fn::GetAtt'][0];
      return Object.values(all)
        .filter(
          (r) => r.Type === 'AWS::IAM::Policy' && r.Properties.Roles.some((x: any) => x.Ref === roleRef),
        )
        .flatMap(
          (r) =>
            r.Properties.PolicyDocument.Statement as Array<{
              Action: string | string[];
              Resource: any;
              Condition?: any;
            }>,
        );
    };

    it('synthesizes when the path secret and required keys live in the secret (secretId counts as a path secret)', () => {
      expect(() => unbundled({}, secretConfig())).not.toThrow();
    });

    it('grants GetSecretValue on exactly the configured secrets to the functions that load the config', () => {
      const { synthesized } = unbundled({}, secretConfig());
      const expected = [
        MOMO_ARN,
        `${MOMO_ARN}-??????`,
        {
          'Fn::Join': [
            '',
            [
              'arn:',
              { Ref: 'AWS::Partition' },
              ':secretsmanager:',
              { Ref: 'AWS::Region' },
              ':',
              { Ref: 'AWS::AccountId' },
              ':secret:relay/airtel-demo-??????',
            ],
          ],
        },
      ];
      for (const fn of [
        /CallbackFunction/,
        /ManagementFunction/,
        /PollerFunction/,
        /TransactionInitiatedFunction/,
      ]) {
        const secretStatements = grants(synthesized, fn).filter((s) =>
          actionsOf(s).some((a) => a.startsWith('secretsmanager:')),
        );
        expect(secretStatements, String(fn)).toHaveLength(1);
        expect(actionsOf(secretStatements[0]!)).toEqual(['secretsmanager:GetSecretValue']);
        expect(secretStatements[0]!.Resource).toEqual(expected);
        // No customer key given: no KMS grant.
        expect(grants(synthesized, fn).some((s) => actionsOf(s).some((a) => a.startsWith('kms:')))).toBe(
          false,
        );
      }
      const publisher = grants(synthesized, /OutboxPublisherFunction/).flatMap(actionsOf);
      expect(publisher.some((a) => a.startsWith('secretsmanager:') || a.startsWith('kms:'))).toBe(false);
    });

    it('grants kms:Decrypt through Secrets Manager only when the secrets use a customer key', () => {
      const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
      const keyStack = new Stack(app, 'Keys');
      const key = new kms.Key(keyStack, 'SecretsKey');
      const relayStack = new RelayStack(app, 'WithKey', {
        relay: { config: secretConfig(), secretsEncryptionKey: key },
      });
      const statements = grants(Template.fromStack(relayStack), /PollerFunction/);
      const decrypt = statements.filter((s) => actionsOf(s).includes('kms:Decrypt'));
      expect(decrypt).toHaveLength(1);
      expect(actionsOf(decrypt[0]!)).toEqual(['kms:Decrypt']);
      expect(decrypt[0]!.Condition).toEqual({
        StringEquals: {
          'kms:ViaService': {
            'Fn::Join': ['', ['secretsmanager.', { Ref: 'AWS::Region' }, '.', { Ref: 'AWS::URLSuffix' }]],
          },
        },
      });
    });

    it('keeps cdk-nag clean with secrets configured', () => {
      const { relayStack } = unbundled({}, secretConfig());
      Aspects.of(relayStack).add(new AwsSolutionsChecks({ verbose: true }));
      const errors = Annotations.fromStack(relayStack).findError(
        '*',
        Match.stringLikeRegexp('AwsSolutions-.*'),
      );
      expect(errors.map((e) => `${e.id}: ${String(e.entry.data).split('\n')[0]}`)).toEqual([]);
    });
  });
});

describe('relay stack: least privilege', () => {
  it('lets the publisher put events on the relay bus only, and nothing on the table but the stream', () => {
    const statements = statementsOfFunction(functionId('relay-outbox-publisher'));
    const putEvents = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('events:')));
    expect(putEvents).toHaveLength(1);
    expect(actionsOf(putEvents[0]!)).toEqual(['events:PutEvents']);
    expect(putEvents[0]!.Resource).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/Bus/), 'Arn'] });
    const tableActions = statements.flatMap(actionsOf).filter((a) => a.startsWith('dynamodb:'));
    expect(new Set(tableActions)).toEqual(
      new Set([
        'dynamodb:ListStreams',
        'dynamodb:DescribeStream',
        'dynamodb:GetRecords',
        'dynamodb:GetShardIterator',
      ]),
    );
  });

  const tableArn = { 'Fn::GetAtt': [expect.stringMatching(/Table/), 'Arn'] };
  const indexArn = (name: string) => ({
    'Fn::Join': ['', [{ 'Fn::GetAtt': [expect.stringMatching(/Table/), 'Arn'] }, `/index/${name}`]],
  });

  it('gives the HTTP and TransactionInitiated functions item reads and writes on the table only, never Scan or a wildcard', () => {
    for (const serviceName of ['relay-callback', 'relay-management', 'relay-transaction-initiated']) {
      const statements = statementsOfFunction(functionId(serviceName));
      const actions = statements.flatMap(actionsOf);
      expect(actions).not.toContain('dynamodb:Scan');
      expect(actions.filter((a) => a.includes('*') && a !== 'xray:*')).toEqual([]);
      const table = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('dynamodb:')));
      const onTable = table.filter(
        (s) => !Array.isArray(s.Resource) && 'Fn::GetAtt' in (s.Resource as object),
      );
      expect(onTable, serviceName).toHaveLength(1);
      expect(new Set(actionsOf(onTable[0]!))).toEqual(new Set(TABLE_DATA_ACTIONS));
      expect(onTable[0]!.Resource).toEqual(tableArn);
      const onIndexes = table.filter((s) => s !== onTable[0]);
      if (serviceName === 'relay-management') {
        // The reconciliation report: Query on byDay, nothing else on any index.
        expect(onIndexes.map((s) => [actionsOf(s), s.Resource])).toEqual([
          [['dynamodb:Query'], indexArn('byDay')],
        ]);
      } else {
        expect(onIndexes, serviceName).toEqual([]);
      }
      expect(actions.some((a) => a.startsWith('events:'))).toBe(false);
      const sqs = actions.filter((a) => a.startsWith('sqs:'));
      // Only the TransactionInitiated function sends to a queue: its own DLQ.
      if (serviceName !== 'relay-transaction-initiated') expect(sqs, serviceName).toEqual([]);
    }
  });

  it('gives the poller Get/Put/Update/Query/DescribeTable on the table and its two indexes, no Scan, nothing else', () => {
    const statements = statementsOfFunction(functionId('relay-poller'));
    const table = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('dynamodb:')));
    expect(table).toHaveLength(1);
    expect(new Set(actionsOf(table[0]!))).toEqual(
      new Set([
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'dynamodb:Query',
        'dynamodb:DescribeTable',
      ]),
    );
    expect(table[0]!.Resource).toEqual([tableArn, indexArn('due'), indexArn('byDay')]);
    const actions = statements.flatMap(actionsOf);
    expect(actions).not.toContain('dynamodb:Scan');
    expect(actions.filter((a) => a.includes('*'))).toEqual([]);
    expect(actions.some((a) => /^(events|sqs|sns|lambda):/.test(a))).toBe(false);
    // No account in the example config names a secret: no Secrets Manager access at all.
    expect(actions.some((a) => a.startsWith('secretsmanager:'))).toBe(false);
  });

  it('lets only the poll schedule invoke the poller, and only the rule invoke the TransactionInitiated function', () => {
    const permissions = Object.values(resources).filter((r) => r.Type === 'AWS::Lambda::Permission');
    const of = (serviceName: string) =>
      permissions.filter((p) => JSON.stringify(p.Properties.FunctionName).includes(functionId(serviceName)));
    // Scheduler assumes a role (no resource policy); the rule invokes through a resource policy.
    expect(of('relay-poller')).toEqual([]);
    expect(of('relay-transaction-initiated').map((p) => p.Properties.Principal)).toEqual([
      'events.amazonaws.com',
    ]);
    const scheduleRole = Object.entries(resources).find(
      ([id, r]) => r.Type === 'AWS::IAM::Role' && /PollScheduleRole/.test(id),
    )!;
    expect(scheduleRole[1].Properties.AssumeRolePolicyDocument.Statement).toEqual([
      expect.objectContaining({
        Principal: { Service: 'scheduler.amazonaws.com' },
        Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
      }),
    ]);
    const policy = Object.values(resources).find(
      (r) => r.Type === 'AWS::IAM::Policy' && r.Properties.Roles.some((x: any) => x.Ref === scheduleRole[0]),
    )!;
    const statements = policy.Properties.PolicyDocument.Statement as Array<{ Action: string | string[] }>;
    expect(statements.flatMap(actionsOf).sort()).toEqual(['lambda:InvokeFunction', 'sqs:SendMessage']);
  });

  it('grants every DynamoDB command the store adapters send (and the store sends no Scan)', () => {
    const dir = join(PROJECT_ROOT, 'shared/adapters/dynamodb');
    const toAction: Record<string, string> = {
      Get: 'GetItem',
      Put: 'PutItem',
      Update: 'UpdateItem',
      Delete: 'DeleteItem',
      Query: 'Query',
      Scan: 'Scan',
      BatchGet: 'BatchGetItem',
      BatchWrite: 'BatchWriteItem',
      TransactGet: 'GetItem',
      TransactWrite: 'ConditionCheckItem',
    };
    const used = new Set<string>();
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts') && f !== 'setup.ts')) {
      for (const match of readFileSync(join(dir, file), 'utf8').matchAll(/new (\w+?)(?:Item)?Command\(/g)) {
        used.add(`dynamodb:${toAction[match[1]!] ?? match[1]}`);
      }
    }
    expect(used.size).toBeGreaterThan(0);
    for (const action of used) expect(TABLE_DATA_ACTIONS as readonly string[], action).toContain(action);
    // The poller runs the same store: everything it sends but transactional writes.
    for (const action of used) {
      if (action !== 'dynamodb:ConditionCheckItem')
        expect(POLLER_TABLE_ACTIONS as readonly string[], action).toContain(action);
    }
  });
});

describe('relay stack: alarms and outputs', () => {
  const alarmOn = (metricName: string, namespace: string) =>
    Object.values(resources).filter(
      (r) =>
        r.Type === 'AWS::CloudWatch::Alarm' &&
        r.Properties.MetricName === metricName &&
        r.Properties.Namespace === namespace,
    );

  it('alarms on function errors, API 5xx, DLQ depth, stream lag and throttles, to the alarm topic', () => {
    expect(alarmOn('Errors', 'AWS/Lambda')).toHaveLength(4);
    expect(alarmOn('5xx', 'AWS/ApiGateway')).toHaveLength(1);
    expect(alarmOn('ApproximateNumberOfMessagesVisible', 'AWS/SQS')).toHaveLength(3);
    expect(alarmOn('IteratorAge', 'AWS/Lambda')).toHaveLength(1);
    expect(alarmOn('Throttles', 'AWS/Lambda')).toHaveLength(5);
    const callbackErrors = alarmOn('Errors', 'AWS/Lambda').find(
      (a) => a.Properties.Dimensions[0].Value.Ref === functionId('relay-callback'),
    );
    expect(callbackErrors?.Properties).toMatchObject({
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    for (const alarm of Object.values(resources).filter((r) => r.Type === 'AWS::CloudWatch::Alarm')) {
      expect(alarm.Properties.AlarmActions).toEqual([{ Ref: expect.stringMatching(/AlarmTopic/) }]);
    }
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'oncall@example.com',
    });
    template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: Match.anyValue() });
  });

  it('alarms when a transaction expires, a check contradicts a success, or an ambiguous one is escalated', () => {
    expect(ALARMED_RELAY_METRICS).toEqual([
      'TransactionsExpired',
      'VerificationDisagreements',
      'AmbiguousEscalated',
    ]);
    for (const metricName of ALARMED_RELAY_METRICS) {
      const alarms = alarmOn(metricName, 'MobileMoneyRelay');
      expect(alarms, metricName).toHaveLength(1);
      // The roll-up PowertoolsRelayMetrics publishes without dimensions: any provider, any account.
      expect(alarms[0]!.Properties, metricName).toMatchObject({
        Statistic: 'Sum',
        Period: 60,
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        TreatMissingData: 'notBreaching',
      });
      expect(alarms[0]!.Properties.Dimensions ?? []).toEqual([]);
    }
  });

  it('alarms on poll cycles failing in 2 of 3 minutes and on the poll schedule and TransactionInitiated DLQs', () => {
    const pollerErrors = alarmOn('Errors', 'AWS/Lambda').find(
      (a) => a.Properties.Dimensions[0].Value.Ref === functionId('relay-poller'),
    );
    expect(pollerErrors?.Properties).toMatchObject({
      Threshold: 1,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 2,
    });
    const dlqAlarms = alarmOn('ApproximateNumberOfMessagesVisible', 'AWS/SQS').map(
      (a) => a.Properties.Dimensions[0].Value['Fn::GetAtt'][0] as string,
    );
    expect(dlqAlarms).toHaveLength(3);
    for (const queue of [/OutboxDlq/, /PollScheduleDlq/, /TransactionInitiatedDlq/])
      expect(
        dlqAlarms.filter((id) => queue.test(id)),
        String(queue),
      ).toHaveLength(1);
  });

  it('warns when publicBaseUrl is still a placeholder', () => {
    Annotations.fromStack(stack).hasWarning(
      '/RelayUnderTest/Relay',
      Match.stringLikeRegexp('publicBaseUrl .* placeholder'),
    );
  });

  it('warns when a path secret is still the placeholder of the example config', () => {
    for (const provider of ['momo', 'daraja']) {
      Annotations.fromStack(stack).hasWarning(
        '/RelayUnderTest/Relay',
        Match.stringLikeRegexp(`accounts\\.${provider}\\.demo\\.pathSecret is still a placeholder`),
      );
    }
  });

  it('outputs the API URL, the bus name, the table name, the TransactionInitiated DLQ and the schedule', () => {
    template.hasOutput('ApiUrl', {});
    template.hasOutput('EventBusName', { Value: { Ref: Match.stringLikeRegexp('Bus') } });
    template.hasOutput('TableName', { Value: { Ref: Match.stringLikeRegexp('Table') } });
    template.hasOutput('TransactionInitiatedDlqUrl', {
      Value: { Ref: Match.stringLikeRegexp('TransactionInitiatedDlq') },
    });
    template.hasOutput('PollScheduleName', { Value: { Ref: Match.stringLikeRegexp('PollSchedule') } });
  });

  it('archives the relay events for replay', () => {
    template.hasResourceProperties('AWS::Events::Archive', {
      EventPattern: { source: ['mobile-money.relay'] },
      RetentionDays: 30,
    });
  });
});

describe('relay stack: cdk-nag AwsSolutions', () => {
  it('has no unsuppressed errors', () => {
    const errors = Annotations.fromStack(stack).findError('*', Match.stringLikeRegexp('AwsSolutions-.*'));
    expect(errors.map((e) => `${e.id}: ${String(e.entry.data).split('\n')[0]}`)).toEqual([]);
  });

  it('has no unsuppressed warnings', () => {
    const warnings = Annotations.fromStack(stack).findWarning('*', Match.stringLikeRegexp('AwsSolutions-.*'));
    expect(warnings.map((w) => `${w.id}: ${String(w.entry.data).split('\n')[0]}`)).toEqual([]);
  });

  it('gives every suppression a specific reason', () => {
    const suppressions = Object.values(template.toJSON().Resources as Record<string, any>).flatMap(
      (r) => r.Metadata?.cdk_nag?.rules_to_suppress ?? [],
    ) as Array<{ id: string; reason: string }>;
    expect(suppressions.length).toBeGreaterThan(0);
    for (const { id, reason } of suppressions) expect(reason.length, id).toBeGreaterThan(80);
    expect(new Set(suppressions.map((s) => s.id))).toEqual(
      new Set(['AwsSolutions-APIG4', 'AwsSolutions-L1', 'AwsSolutions-IAM5', 'AwsSolutions-SQS3']),
    );
  });
});

describe('relay stack: config validation at synth time', () => {
  const synthError = (config: unknown): string => {
    try {
      new RelayStack(new App(), 'Bad', { relay: { config } });
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error('expected synth to fail');
  };

  it('fails with the dotted key of a bad account setting', () => {
    const config = structuredClone(exampleConfig);
    config.accounts.momo.demo.currency = 'EURO';
    expect(synthError(config)).toMatch(/accounts\.momo\.demo\.currency/);
  });

  it('fails on an unknown provider, naming it', () => {
    expect(synthError({ ...exampleConfig, accounts: { mpesa: { demo: {} } } })).toMatch(
      /accounts\.mpesa: unknown provider/,
    );
  });

  it('refuses bearer auth for the management API in the cloud', () => {
    expect(
      synthError({ ...exampleConfig, management: { auth: 'bearer', bearerToken: 'a-long-token' } }),
    ).toMatch(/management\.auth: must be "iam"/);
  });

  it('refuses a config too large for the Lambda environment, saying why', () => {
    const accounts: Record<string, unknown> = {};
    for (let i = 0; i < 60; i++)
      accounts[`country-${i}`] = { targetEnvironment: `mtn-country-${i}`, currency: 'EUR' };
    expect(synthError({ ...exampleConfig, accounts: { momo: accounts } })).toMatch(
      /RELAY_CONFIG_JSON .*4 KB/,
    );
  });

  describe('accounts of providers whose callbacks carry no other authentication (MoMo, Daraja)', () => {
    const withoutSecret = (provider: 'momo' | 'daraja', extra: Record<string, unknown> = {}) => {
      const config = structuredClone(exampleConfig);
      delete config.accounts[provider].demo.pathSecret;
      Object.assign(config.accounts[provider].demo, extra);
      return config;
    };
    /** Builds the stack without bundling the functions (the config check is what is under test). */
    const synthesizes = (config: unknown) => {
      const unbundled = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
      const relayStack = new RelayStack(unbundled, 'OptOut', { relay: { config } });
      return Template.fromStack(relayStack);
    };

    it('fails synth without a path secret, naming accounts.<provider>.<id>.pathSecret', () => {
      for (const provider of ['momo', 'daraja'] as const) {
        const message = synthError(withoutSecret(provider));
        expect(message, provider).toContain(`accounts.${provider}.demo.pathSecret: required in the cloud`);
        expect(message, provider).toContain(`accounts.${provider}.demo.allowNoPathSecret`);
      }
    });

    it('synthesizes with an explicit opt-out that gives a reason', () => {
      const config = withoutSecret('momo', {
        allowNoPathSecret: 'reachable only through our private API link',
      });
      delete config.accounts.daraja.demo.pathSecret;
      config.accounts.daraja.demo.allowNoPathSecret = 'Safaricom source IPs enforced by our edge proxy';
      const synthesized = synthesizes(config);
      synthesized.resourcePropertiesCountIs('AWS::Lambda::Function', { Runtime: 'nodejs22.x' }, 5);
    });

    it('refuses an opt-out without a reason', () => {
      expect(synthError(withoutSecret('momo', { allowNoPathSecret: 'no' }))).toMatch(
        /accounts\.momo\.demo\.allowNoPathSecret/,
      );
    });

    it('does not ask Airtel accounts (hash-verified callbacks) for a path secret', () => {
      expect(exampleConfig.accounts.airtel.demo.pathSecret).toBeUndefined();
      expect(() => synthesizes(exampleConfig)).not.toThrow();
    });
  });

  it('makes `cdk synth` (the app) exit non-zero with the bad key in the message', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'relay-bad-config-'));
    const path = join(dir, 'config.json');
    writeFileSync(path, JSON.stringify({ ...exampleConfig, publicBaseUrl: 'not a url' }));
    const failure = await run(process.execPath, ['--import', 'tsx', 'infra/app.ts'], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, RELAY_CONFIG: path, CDK_OUTDIR: join(dir, 'out') },
      timeout: 60_000,
    }).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure?.code).not.toBe(0);
    expect(failure?.stderr).toMatch(/publicBaseUrl/);
  }, 60_000);
});
