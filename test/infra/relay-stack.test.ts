import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { marshall } from '@aws-sdk/util-dynamodb';
import { App, Aspects, Duration } from 'aws-cdk-lib';
import { type Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, RELAY_FUNCTIONS } from '../../infra/bundling';
import { MANAGEMENT_ROUTES } from '../../infra/relay/api';
import { FUNCTION_FAILURES_COVERED_BY } from '../../infra/monitoring/functions';
import {
  ALARMED_RELAY_METRICS,
  SILENT_PROVIDERS_METRIC,
  PROVIDER_ACK_LIMIT,
  SILENT_ACCOUNTS_METRIC,
} from '../../infra/monitoring';
import {
  CALLBACK_FUNCTION_TIMEOUT,
  CALLBACK_INTEGRATION_TIMEOUT,
  DEFAULT_CALLBACK_RESERVED_CONCURRENCY,
  OUTBOX_FILTER_PATTERN,
  POLLER_TABLE_ACTIONS,
  TABLE_DATA_ACTIONS,
} from '../../infra/relay-construct';
import { SILENCE_ALARMS_ENV } from '../../shared/config/silence-alarms';
import { C2B_DEADLINE_CAP_MS } from '../../shared/providers/daraja/schema';
import { RelayStack } from '../../infra/relay-stack';
import { DAY_INDEX, DUE_INDEX, TABLE_KEYS } from '../../shared/adapters/dynamodb/table';
import { buildEvent } from '../../shared/domain/events';
import { matchesFilterPattern } from './filter-pattern';
import { withEsbuildWithoutNpx } from './esbuild-direct';
import { ofType, synthOnce, synthRelay } from './relay-synth';

const run = promisify(execFile);
const exampleConfig = JSON.parse(readFileSync(join(PROJECT_ROOT, 'infra/example-config.json'), 'utf8'));

type Resource = { Type: string; Properties: Record<string, any>; DeletionPolicy?: string };

/** The default metrics namespace of the relay under test: one per stack and relay (issue 20). */
const RELAY_NAMESPACE = 'MobileMoneyRelay/RelayUnderTest/Relay';

let app: App;
let stack: RelayStack;
let template: Template;
let annotations: Annotations;
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
  withEsbuildWithoutNpx(() => {
    stack = new RelayStack(app, 'RelayUnderTest', {
      relay: { config: exampleConfig, alarmEmail: 'oncall@example.com' },
    });
    Aspects.of(stack).add(new AwsSolutionsChecks({ verbose: true }));
    ({ annotations, template } = synthOnce(stack));
  });
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
      {
        IndexName: 'byAccountDay',
        KeySchema: [
          { AttributeName: 'accountDay', KeyType: 'HASH' },
          { AttributeName: 'dayAt', KeyType: 'RANGE' },
        ],
        Projection: {
          ProjectionType: 'INCLUDE',
          NonKeyAttributes: ['status', 'amount', 'providerTransactionId'],
        },
      },
    ]);
    // The construct and the local table setup read the same names.
    expect([DUE_INDEX.name, DUE_INDEX.partitionKey, DUE_INDEX.sortKey]).toEqual(['due', 'dueShard', 'dueAt']);
    expect([DAY_INDEX.name, DAY_INDEX.partitionKey, DAY_INDEX.sortKey]).toEqual([
      'byDay',
      'dayShard',
      'createdAt',
    ]);
    for (const name of ['dueShard', 'dueAt', 'dayShard', 'createdAt', 'accountDay', 'dayAt'])
      expect(table.AttributeDefinitions).toContainEqual({ AttributeName: name, AttributeType: 'S' });
    expect(table.AttributeDefinitions).toHaveLength(8);
  });
});

/** The functions of the example config's stack: the delivery function comes only with `destinations` (test/infra/delivery.test.ts). */
const EXAMPLE_FUNCTIONS = Object.fromEntries(
  Object.entries(RELAY_FUNCTIONS).filter(([id]) => id !== 'delivery'),
) as Omit<typeof RELAY_FUNCTIONS, 'delivery'>;

describe('relay stack: functions', () => {
  it('deploys every handler on Node.js 22, ARM64, with source maps, tracing only off the hot path', () => {
    expect(Object.keys(RELAY_FUNCTIONS).sort()).toEqual(
      [
        'callback',
        'management',
        'outbox-publisher',
        'poller',
        'transaction-initiated',
        'buffer-consumer',
        'statements',
        'delivery',
      ].sort(),
    );
    // Lambda samples an actively traced function itself (most callbacks at low volume): only the
    // poller, the buffer consumer and the statements function are traced by default (docs/deploy.md#cost-notes).
    const traced = ['relay-poller', 'relay-buffer-consumer', 'relay-statements'];
    for (const { serviceName } of Object.values(EXAMPLE_FUNCTIONS)) {
      const fn = resources[functionId(serviceName)]!.Properties;
      expect(fn).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        TracingConfig: { Mode: traced.includes(serviceName) ? 'Active' : 'PassThrough' },
      });
      expect(fn.Environment.Variables.POWERTOOLS_TRACE_ENABLED).toBe(
        traced.includes(serviceName) ? undefined : 'false',
      );
      expect(fn.Environment.Variables.NODE_OPTIONS).toBe('--enable-source-maps');
      expect(fn.LoggingConfig.LogGroup).toBeDefined();
      // Tracer: the shared tracing layer, never a handler response in a trace (personal data). Every
      // function but the publisher also has the config layer (its config file).
      expect(fn.Layers).toEqual([
        { Ref: expect.stringMatching(/TracingLayer/) },
        ...(serviceName === 'relay-outbox-publisher' ? [] : [{ Ref: expect.stringMatching(/ConfigLayer/) }]),
      ]);
      expect(fn.Environment.Variables.POWERTOOLS_TRACER_CAPTURE_RESPONSE).toBe('false');
      expect(fn.Environment.Variables.POWERTOOLS_METRICS_NAMESPACE).toBe(RELAY_NAMESPACE);
    }
    // The seven relay functions of the example (no destinations: no delivery function) and C2B
    // validation (the callback code on its own concurrency).
    template.resourcePropertiesCountIs('AWS::Lambda::Function', { Runtime: 'nodejs22.x' }, 8);
    template.resourcePropertiesCountIs(
      'AWS::Lambda::LayerVersion',
      { CompatibleRuntimes: ['nodejs22.x'], CompatibleArchitectures: ['arm64'] },
      2,
    );
  });

  it('gives the poller the table, the config and the metrics namespace, a 60 s timeout, no retries', () => {
    const poller = resources[functionId('relay-poller')]!.Properties;
    expect(poller.Timeout).toBe(60);
    const env = poller.Environment.Variables;
    expect(env.TABLE_NAME).toEqual({ Ref: expect.stringMatching(/Table/) });
    expect(env.POWERTOOLS_METRICS_NAMESPACE).toBe(RELAY_NAMESPACE);
    expect(env.RELAY_CONFIG).toBe('/opt/relay/config.json');
    expect(env.RELAY_CONFIG_JSON).toBeUndefined();
    expect(env.EVENT_BUS_NAME).toBeUndefined();
    // "Check now" on the management API emits the same metrics.
    expect(
      resources[functionId('relay-management')]!.Properties.Environment.Variables
        .POWERTOOLS_METRICS_NAMESPACE,
    ).toBe(RELAY_NAMESPACE);
    // A failed cycle is not retried by Lambda: the next scheduled one starts within a minute.
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: functionId('relay-poller') },
      MaximumRetryAttempts: 0,
      MaximumEventAgeInSeconds: 60,
    });
  });

  it('gives the HTTP functions the table, the config file of the config layer (no local-only settings), the bus and the source', () => {
    for (const serviceName of ['relay-callback', 'relay-management']) {
      const env = resources[functionId(serviceName)]!.Properties.Environment.Variables;
      expect(env.TABLE_NAME).toEqual({ Ref: expect.stringMatching(/Table/) });
      expect(env.EVENT_BUS_NAME).toEqual({ Ref: expect.stringMatching(/Bus/) });
      expect(env.EVENT_SOURCE).toBe('mobile-money.relay');
      expect(env.RELAY_CONFIG).toBe('/opt/relay/config.json');
    }
    // The layer's asset holds the config as written, minus what only npm start uses.
    const [layer] = Object.values(resources).filter(
      (r) => r.Type === 'AWS::Lambda::LayerVersion' && /relay config/.test(r.Properties.Description),
    );
    const hash = String(layer!.Properties.Content.S3Key).replace(/\.zip$/, '');
    const file = join(app.synth().directory, `asset.${hash}`, 'relay', 'config.json');
    const deployed = JSON.parse(readFileSync(file, 'utf8'));
    expect(deployed.management).toEqual({ auth: 'iam' });
    expect(deployed.local).toBeUndefined();
    expect(deployed.accounts.momo.demo).toEqual(exampleConfig.accounts.momo.demo);
    const publisherEnv = resources[functionId('relay-outbox-publisher')]!.Properties.Environment.Variables;
    expect(publisherEnv.EVENT_BUS_NAME).toEqual({ Ref: expect.stringMatching(/Bus/) });
    // The publisher never sees the config.
    expect(publisherEnv.RELAY_CONFIG).toBeUndefined();
  });

  it('builds bundles that load in a fresh Node.js process with the deployed environment', async () => {
    const assembly = app.synth();
    const configWithSecretsWrittenIn = join(mkdtempSync(join(tmpdir(), 'relay-config-')), 'config.json');
    const written = structuredClone(exampleConfig);
    for (const account of [
      written.accounts.momo.demo,
      written.accounts.daraja.demo,
      written.accounts.airtel.demo,
    ]) {
      delete account.callbackSecretId;
      account.pathSecret = 'bundle-test-path-secret-0123';
    }
    written.accounts.airtel.demo.callbackKey = 'bundle-test-airtel-callback-key';
    writeFileSync(configWithSecretsWrittenIn, JSON.stringify(written));
    const loads = Object.values(EXAMPLE_FUNCTIONS).map(async ({ serviceName }) => {
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
        // The seal key is read from Secrets Manager at cold start (no AWS here; covered by unit tests).
        if (name === 'INGRESS_BUFFER_SEAL_SECRET_ID') continue;
        env[name] = typeof value === 'string' ? value : `dummy-${name.toLowerCase()}`;
      }
      // /opt/relay/config.json (the config layer) does not exist here, and its secrets would be read
      // from Secrets Manager: the same config with the secrets written in stands in.
      if (env.RELAY_CONFIG) env.RELAY_CONFIG = configWithSecretsWrittenIn;
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
      // The console's reads, for IAM callers (the console itself calls them through its own API).
      'GET /v1/transactions',
      'GET /v1/transactions/counts',
      'GET /v1/transactions/search',
      'GET /v1/transactions/{provider}/{account}/{reference}/receipts/{receiptId}',
      'GET /v1/quarantine',
      'GET /v1/report',
      'GET /v1/callback-health',
      'GET /v1/badges',
      'GET /v1/me',
      'GET /v1/approvals',
      'POST /v1/approvals/{id}/approve',
      'POST /v1/approvals/{id}/reject',
      'GET /v1/audit',
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
    // The management routes, $default, one per provider (its throttle), C2B validation with and without a path secret.
    template.resourceCountIs('AWS::ApiGatewayV2::Route', MANAGEMENT_ROUTES.length + 6);
  });

  it('logs access to CloudWatch without the path (it can carry a path secret) and throttles the stage', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 10, ThrottlingBurstLimit: 10 },
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
  it('maps the table stream to the publisher with bisect, partial batch failures, retries until 12 h old, a DLQ and the outbox filter', () => {
    // The stream's only: the ingress buffer is drained on a schedule.
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', 1);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: functionId('relay-outbox-publisher') },
      EventSourceArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('Table'), 'StreamArn'] },
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: 100,
      BisectBatchOnFunctionError: true,
      // Until the record is 12 h old, however many retries (an EventBridge outage of minutes loses nothing).
      MaximumRetryAttempts: -1,
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
    // The poll schedule, the day-close schedule (test/infra/statement-files.test.ts) and the buffer drain.
    template.resourceCountIs('AWS::Scheduler::Schedule', 3);
    const schedule = Object.entries(resources).find(
      ([id, r]) => r.Type === 'AWS::Scheduler::Schedule' && id.includes('PollSchedule'),
    )![1].Properties;
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
      Metrics: Match.arrayWith([
        Match.objectLike({
          MetricStat: Match.objectLike({
            Metric: { Namespace: 'Payments/Relay', MetricName: 'TransactionsExpired' },
          }),
        }),
      ]),
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
    for (const serviceName of [
      'relay-callback',
      'relay-management',
      'relay-transaction-initiated',
      'relay-buffer-consumer',
      'relay-statements',
    ]) {
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
      if (serviceName === 'relay-management' || serviceName === 'relay-statements') {
        // The reconciliation report (byDay) and the account-day reader of a daily close and a statement
        // import (byDay and byAccountDay): Query, nothing else. The statements function imports files
        // from S3 and runs the scheduled close.
        expect(onIndexes.map((s) => [actionsOf(s), s.Resource])).toEqual([
          [['dynamodb:Query'], [indexArn('byDay'), indexArn('byAccountDay')]],
        ]);
      } else {
        expect(onIndexes, serviceName).toEqual([]);
      }
      expect(actions.some((a) => a.startsWith('events:'))).toBe(false);
      const sqs = actions.filter((a) => a.startsWith('sqs:'));
      // The TransactionInitiated function sends to its own DLQ, the callback function to the ingress
      // buffer (SendMessage only); the management function to no queue.
      if (serviceName === 'relay-management') expect(sqs, serviceName).toEqual([]);
      if (serviceName === 'relay-callback') expect(sqs, serviceName).toEqual(['sqs:SendMessage']);
    }
  });

  it('gives the poller Get/BatchGet/Put/Update/Query/DescribeTable on the table and its two indexes, no Scan, nothing else', () => {
    const statements = statementsOfFunction(functionId('relay-poller'));
    const table = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('dynamodb:')));
    expect(table).toHaveLength(1);
    expect(new Set(actionsOf(table[0]!))).toEqual(
      new Set([
        'dynamodb:GetItem',
        'dynamodb:BatchGetItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'dynamodb:Query',
        'dynamodb:DescribeTable',
      ]),
    );
    expect(table[0]!.Resource).toEqual([
      tableArn,
      indexArn('due'),
      indexArn('byDay'),
      indexArn('byAccountDay'),
    ]);
    const actions = statements.flatMap(actionsOf);
    expect(actions).not.toContain('dynamodb:Scan');
    expect(actions.filter((a) => a.includes('*'))).toEqual([]);
    expect(actions.some((a) => /^(events|sqs|sns|lambda):/.test(a))).toBe(false);
    // The example config names only callback secrets (the poller builds callback URLs with the path
    // secret): reading them is its only Secrets Manager access.
    expect(actions.filter((a) => a.startsWith('secretsmanager:'))).toEqual(['secretsmanager:GetSecretValue']);
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

describe('relay stack: ingress buffer', () => {
  const queue = (pattern: RegExp) => {
    const found = Object.entries(resources).filter(
      ([id, r]) => r.Type === 'AWS::SQS::Queue' && pattern.test(id),
    );
    expect(found, String(pattern)).toHaveLength(1);
    return { id: found[0]![0], props: found[0]![1].Properties };
  };

  /** The functions told where the seal key is, and the roles granted to read `resource`. */
  const sealReaders = (all: Record<string, Resource>, resource: string) => ({
    readers: Object.entries(all)
      .filter(([, r]) => r.Type === 'AWS::Lambda::Function')
      .filter(([, r]) => r.Properties.Environment?.Variables?.INGRESS_BUFFER_SEAL_SECRET_ID)
      .map(([id]) => id.replace(/Function[0-9A-F]{8}$/, ''))
      .sort(),
    granted: Object.values(all)
      .filter((r) => r.Type === 'AWS::IAM::Policy')
      .filter((r) =>
        r.Properties.PolicyDocument.Statement.some((st: any) =>
          JSON.stringify(st.Resource).includes(resource),
        ),
      )
      .map((r) => JSON.stringify(r.Properties.Roles))
      .join(' '),
  });

  it('seals buffered messages with the member of a callback secret the example config names: no secret of its own', () => {
    // Assess: no generated secret; the callback functions and the consumer get the keyed reference.
    expect(exampleConfig.ingressBuffer.sealSecretId).toBe(
      'mobile-money-relay/accounts/callback#ingress-buffer/seal',
    );
    expect(ofType(resources, 'AWS::SecretsManager::Secret')).toEqual([]);
    const env = (name: string) =>
      resources[functionId(name)]!.Properties.Environment.Variables.INGRESS_BUFFER_SEAL_SECRET_ID;
    expect(env('relay-callback')).toBe(exampleConfig.ingressBuffer.sealSecretId);
    expect(env('relay-buffer-consumer')).toBe(exampleConfig.ingressBuffer.sealSecretId);
    const { readers, granted } = sealReaders(resources, 'secret:mobile-money-relay/accounts/callback-??????');
    // C2B validation runs the callback code on the callback role, with its own concurrency.
    expect(readers).toEqual(['RelayBufferConsumer', 'RelayC2bValidation', 'RelayCallback']);
    expect(granted).toMatch(/CallbackRole/);
    expect(granted).toMatch(/BufferConsumerRole/);
  });

  it('generates a seal key only the callback and buffer-consumer functions can read when the config names none', () => {
    // Prepare
    const { ingressBuffer: _named, ...config } = exampleConfig;

    // Act
    const { resources: own } = synthRelay('RelayOwnSealKey', () => ({}), config);

    // Assess
    const keys = ofType(own, 'AWS::SecretsManager::Secret').filter(([id]) => /IngressBufferSealKey/.test(id));
    expect(keys).toHaveLength(1);
    const [keyId, key] = keys[0]!;
    expect(key.Properties.GenerateSecretString).toMatchObject({
      PasswordLength: 64,
      ExcludePunctuation: true,
    });
    const { readers, granted } = sealReaders(own, keyId);
    expect(readers).toEqual(['RelayBufferConsumer', 'RelayC2bValidation', 'RelayCallback']);
    expect(granted.split(' ')).toHaveLength(2);
    expect(granted).toMatch(/CallbackRole/);
    expect(granted).toMatch(/BufferConsumerRole/);
  }, 300_000);

  it('creates the IngressBuffer queue (SSE-SQS, 4 days, visibility 6× the consumer timeout) with a DLQ after 340 receives (14 days), both retained', () => {
    const buffer = queue(/^RelayIngressBuffer[0-9A-F]{8}$/);
    const dlq = queue(/^RelayIngressBufferDlq/);
    const consumer = resources[functionId('relay-buffer-consumer')]!.Properties;
    expect(buffer.props).toMatchObject({
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 4 * 24 * 3600,
      VisibilityTimeout: 6 * consumer.Timeout,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [dlq.id, 'Arn'] }, maxReceiveCount: 340 },
    });
    for (const { id } of [buffer, dlq]) expect(resources[id]!.DeletionPolicy).toBe('Retain');
    expect(dlq.props).toMatchObject({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 24 * 3600 });
    for (const { id } of [buffer, dlq]) {
      const policy = Object.values(resources).find(
        (r) => r.Type === 'AWS::SQS::QueuePolicy' && r.Properties.Queues.some((q: any) => q.Ref === id),
      )!;
      expect(policy.Properties.PolicyDocument.Statement).toContainEqual(
        expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      );
    }
  });

  it('gives the callback function the queue URL and sqs:SendMessage on that queue only', () => {
    const buffer = queue(/^RelayIngressBuffer[0-9A-F]{8}$/);
    const env = resources[functionId('relay-callback')]!.Properties.Environment.Variables;
    expect(env.INGRESS_BUFFER_QUEUE_URL).toEqual({ Ref: buffer.id });
    const sqsStatements = statementsOfFunction(functionId('relay-callback')).filter((s) =>
      actionsOf(s).some((a) => a.startsWith('sqs:')),
    );
    expect(sqsStatements.map((s) => [actionsOf(s), s.Resource])).toEqual([
      [['sqs:SendMessage'], { 'Fn::GetAtt': [buffer.id, 'Arn'] }],
    ]);
  });

  it('drains the buffer with the consumer every minute from EventBridge Scheduler: no event source mapping polling the queue', () => {
    const buffer = queue(/^RelayIngressBuffer[0-9A-F]{8}$/);
    const consumerId = functionId('relay-buffer-consumer');
    const mappings = ofType(resources, 'AWS::Lambda::EventSourceMapping');
    expect(mappings.map(([, m]) => JSON.stringify(m.Properties.EventSourceArn))).not.toContainEqual(
      expect.stringContaining(buffer.id),
    );
    const drain = ofType(resources, 'AWS::Scheduler::Schedule').find(([id]) => id.includes('BufferDrain'))!;
    expect(drain[1].Properties).toMatchObject({
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      FlexibleTimeWindow: { Mode: 'OFF' },
      Target: {
        Arn: { 'Fn::GetAtt': [consumerId, 'Arn'] },
        RetryPolicy: { MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 60 },
      },
    });
    const env = resources[consumerId]!.Properties.Environment.Variables;
    expect(Object.keys(env).sort()).toEqual(
      [
        'TABLE_NAME',
        'RELAY_CONFIG',
        'LOG_LEVEL',
        'INGRESS_BUFFER_SEAL_SECRET_ID',
        // The queue it drains (and backs off on: ChangeMessageVisibility), with this many batches at once.
        'INGRESS_BUFFER_QUEUE_URL',
        'INGRESS_BUFFER_DRAIN_LANES',
        'POWERTOOLS_METRICS_NAMESPACE',
        'POWERTOOLS_SERVICE_NAME',
        'POWERTOOLS_TRACER_CAPTURE_RESPONSE',
        'NODE_OPTIONS',
      ].sort(),
    );
    const statements = statementsOfFunction(consumerId);
    const table = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('dynamodb:')));
    expect(table).toHaveLength(1);
    expect(new Set(actionsOf(table[0]!))).toEqual(new Set(TABLE_DATA_ACTIONS));
    expect(table[0]!.Resource).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/Table/), 'Arn'] });
    const sqsActions = statements.flatMap(actionsOf).filter((a) => a.startsWith('sqs:'));
    expect(sqsActions).not.toContain('sqs:SendMessage');
    expect(sqsActions).toContain('sqs:DeleteMessage');
    expect(sqsActions).toContain('sqs:ReceiveMessage');
    expect(sqsActions).toContain('sqs:GetQueueAttributes');
    expect(env.INGRESS_BUFFER_DRAIN_LANES).toBe('5');
  });

  it('outputs the buffer and DLQ URLs and ARNs (the redrive command needs the ARNs)', () => {
    for (const [name, pattern] of [
      ['IngressBufferQueueUrl', /^RelayIngressBuffer[0-9A-F]{8}$/],
      ['IngressBufferDlqUrl', /^RelayIngressBufferDlq/],
    ] as const) {
      template.hasOutput(name, { Value: { Ref: queue(pattern).id } });
    }
    template.hasOutput('IngressBufferQueueArn', {
      Value: { 'Fn::GetAtt': [queue(/^RelayIngressBuffer[0-9A-F]{8}$/).id, 'Arn'] },
    });
    template.hasOutput('IngressBufferDlqArn', {
      Value: { 'Fn::GetAtt': [queue(/^RelayIngressBufferDlq/).id, 'Arn'] },
    });
  });
});

describe('relay stack: public edge', () => {
  it("answers provider callbacks inside Daraja's 8 s: integration timeout 7.5 s, function timeout 8 s", () => {
    const callbackId = functionId('relay-callback');
    const integration = Object.values(resources).find(
      (r) =>
        r.Type === 'AWS::ApiGatewayV2::Integration' &&
        r.Properties.IntegrationUri['Fn::GetAtt']?.[0] === callbackId,
    )!;
    expect(integration.Properties.TimeoutInMillis).toBe(CALLBACK_INTEGRATION_TIMEOUT.toMilliseconds());
    expect(CALLBACK_INTEGRATION_TIMEOUT.toMilliseconds()).toBeLessThan(8000);
    // The longest C2B deadline the config accepts fits in it.
    expect(C2B_DEADLINE_CAP_MS).toBeLessThanOrEqual(CALLBACK_INTEGRATION_TIMEOUT.toMilliseconds());
    expect(resources[callbackId]!.Properties.Timeout).toBe(CALLBACK_FUNCTION_TIMEOUT.toSeconds());
  });

  it('reserves concurrency for the callback and C2B validation functions by default, and for no other function', () => {
    expect(resources[functionId('relay-callback')]!.Properties.ReservedConcurrentExecutions).toBe(
      DEFAULT_CALLBACK_RESERVED_CONCURRENCY,
    );
    // 5 rps × 7.5 s (the C2B deadline cap): its own pool, so slow decisions never hold the callbacks'.
    expect(resources[functionId('relay-c2b-validation')]!.Properties.ReservedConcurrentExecutions).toBe(38);
    for (const { serviceName } of Object.values(EXAMPLE_FUNCTIONS).filter(
      (f) => f.serviceName !== 'relay-callback',
    ))
      expect(
        resources[functionId(serviceName)]!.Properties.ReservedConcurrentExecutions,
        serviceName,
      ).toBeUndefined();
  });

  it('throttles each management route, each provider route and C2B validation on its own, after the routes exist', () => {
    const [stageId, stage] = Object.entries(resources).find(
      ([, r]) => r.Type === 'AWS::ApiGatewayV2::Stage',
    )!;
    expect(stage.Properties.DefaultRouteSettings).toEqual({
      ThrottlingRateLimit: 10,
      ThrottlingBurstLimit: 10,
    });
    const routeKeys = Object.values(resources)
      .filter((r) => r.Type === 'AWS::ApiGatewayV2::Route' && r.Properties.RouteKey !== '$default')
      .map((r) => r.Properties.RouteKey as string);
    expect(Object.keys(stage.Properties.RouteSettings).sort()).toEqual(routeKeys.sort());
    for (const [key, settings] of Object.entries(stage.Properties.RouteSettings))
      expect(settings, key).toEqual(
        key.includes('/c2b/validation')
          ? { ThrottlingRateLimit: 5, ThrottlingBurstLimit: 10 }
          : key.endsWith('{proxy+}')
            ? { ThrottlingRateLimit: 20, ThrottlingBurstLimit: 20 }
            : { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 },
      );
    const routeIds = Object.entries(resources)
      .filter(([, r]) => r.Type === 'AWS::ApiGatewayV2::Route' && r.Properties.RouteKey !== '$default')
      .map(([id]) => id);
    const dependsOn = (template.toJSON().Resources[stageId].DependsOn ?? []) as string[];
    for (const id of routeIds) expect(dependsOn).toContain(id);
  });
});

describe('relay stack: alarms and dashboard', () => {
  /** `outbox-publisher` → `OutboxPublisher` (the name a function's alarms carry). */
  const pascal = (id: string) => id.replace(/(^|-)([a-z])/g, (_, __, c: string) => c.toUpperCase());
  type Alarm = { id: string; props: Record<string, any> };
  const alarms = (): Alarm[] =>
    Object.entries(resources)
      .filter(([, r]) => r.Type === 'AWS::CloudWatch::Alarm')
      .map(([id, r]) => ({ id, props: r.Properties }));
  /** The metrics (MetricStat) an alarm's math reads. */
  const statsOf = (alarm: Alarm) =>
    (alarm.props.Metrics ?? []).filter((m: any) => m.MetricStat).map((m: any) => m.MetricStat);
  const alarmsOn = (metricName: string, namespace: string) =>
    alarms().filter((a) =>
      statsOf(a).some((s: any) => s.Metric.MetricName === metricName && s.Metric.Namespace === namespace),
    );
  const dimension = (alarm: Alarm, name: string) =>
    statsOf(alarm)[0].Metric.Dimensions?.find((d: any) => d.Name === name)?.Value;

  it('sends every alarm to the page or the ticket topic on ALARM and on OK, with a description saying why', () => {
    expect(alarms().length).toBeGreaterThanOrEqual(20);
    for (const alarm of alarms()) {
      // The members of a composite (storage, service, edge) have no action: it pages (test/infra/alarms.test.ts).
      if (/No action of its own/.test(String(alarm.props.AlarmDescription))) continue;
      expect(alarm.props.AlarmActions, alarm.id).toEqual([
        { Ref: expect.stringMatching(/AlarmTopic|TicketTopic/) },
      ]);
      expect(alarm.props.OKActions, alarm.id).toEqual(alarm.props.AlarmActions);
      expect(alarm.props.ActionsEnabled, alarm.id).toBe(true);
      expect(String(alarm.props.AlarmDescription).length, alarm.id).toBeGreaterThan(60);
      expect(alarm.props.AlarmName, alarm.id).toMatch(/^RelayUnderTest-Relay-/);
    }
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'oncall@example.com',
    });
    // Alarm mail holds no payment data: no customer key ($1 a month) on the topics (docs/monitoring.md).
    template.resourceCountIs('AWS::KMS::Key', 0);
    template.hasOutput('AlarmTopicArn', { Value: { Ref: Match.stringLikeRegexp('AlarmTopic') } });
    template.hasOutput('TicketTopicArn', { Value: { Ref: Match.stringLikeRegexp('TicketTopic') } });
  });

  it('alarms on the errors of a function only where no other alarm covers them, when they persist (2 of 3 minutes)', () => {
    // Prepare: the functions whose failures page through another alarm (the API 5xx, a DLQ, the heartbeat).
    const covered = new Set(Object.keys(FUNCTION_FAILURES_COVERED_BY));
    const names = [
      ...Object.entries(EXAMPLE_FUNCTIONS).map(([id, f]) => [id, f.serviceName]),
      ['C2bValidation', 'relay-c2b-validation'],
    ];
    // The heartbeat reads the poller's errors through math: not a fault alarm.
    const faults = alarmsOn('Errors', 'AWS/Lambda').filter(
      (a) => !a.props.Metrics?.some((m: any) => m.Expression),
    );

    // Assess: a fault ticket for each function nothing else covers (Statements), none for the others, and
    // no throttle alarm at all (a throttled callback, C2B validation or management call is an API 5xx).
    const expected = names
      .filter(([id]) => !covered.has(pascal(id!)))
      .map(([, service]) => functionId(service!));
    expect(faults.map((a) => dimension(a, 'FunctionName').Ref).sort()).toEqual(expected.sort());
    expect(expected.length).toBeGreaterThanOrEqual(1);
    for (const alarm of faults)
      expect(alarm.props).toMatchObject({
        ComparisonOperator: 'GreaterThanThreshold',
        Threshold: 0,
        EvaluationPeriods: 3,
        DatapointsToAlarm: 2,
      });
    expect(alarmsOn('Throttles', 'AWS/Lambda')).toEqual([]);
  });

  it('alarms on API 5xx (2 of 3 minutes) and on the relay-wide ack p99, not on function durations', () => {
    // The count alarm (the dashboard's 5xx rate reads the same metric through math).
    const api5xx = alarmsOn('5xx', 'AWS/ApiGateway').filter(
      (a) => !a.props.Metrics.some((m: any) => m.Expression),
    );
    expect(api5xx).toHaveLength(1);
    expect(dimension(api5xx[0]!, 'Stage')).toBe('$default');
    expect(api5xx[0]!.props).toMatchObject({ Threshold: 0, EvaluationPeriods: 3, DatapointsToAlarm: 2 });
    // Acks are timed by the callback function's own duration (free), every provider at once, at the
    // tightest budget; no other function's duration is alarmed.
    const acks = alarmsOn('Duration', 'AWS/Lambda');
    expect(acks).toHaveLength(1);
    expect(statsOf(acks[0]!)[0]).toMatchObject({ Stat: 'p99', Period: 60 });
    expect(JSON.stringify(dimension(acks[0]!, 'FunctionName'))).toMatch(/CallbackFunction/);
    expect(acks[0]!.props).toMatchObject({ Threshold: 1800, EvaluationPeriods: 5, DatapointsToAlarm: 3 });
    expect(acks[0]!.props.Threshold).toBeLessThan(PROVIDER_ACK_LIMIT.toMilliseconds());
  });

  it('pages on ONE message in every DLQ, and on an ingress buffer that does not drain', () => {
    const dlqAlarms = alarmsOn('ApproximateNumberOfMessagesVisible', 'AWS/SQS');
    const queues = dlqAlarms.map((a) => dimension(a, 'QueueName')['Fn::GetAtt'][0] as string).sort();
    const allDlqs = Object.keys(resources)
      .filter((id) => resources[id]!.Type === 'AWS::SQS::Queue' && /Dlq/.test(id))
      .sort();
    expect(allDlqs).toHaveLength(4);
    // The poll schedule's DLQ holds cycles that never started: the poller heartbeat pages for those.
    expect(queues).toEqual(allDlqs.filter((id) => !/PollScheduleDlq/.test(id)));
    for (const alarm of dlqAlarms)
      expect(alarm.props).toMatchObject({
        ComparisonOperator: 'GreaterThanThreshold',
        Threshold: 0,
        EvaluationPeriods: 1,
        TreatMissingData: 'notBreaching',
      });
    const age = alarmsOn('ApproximateAgeOfOldestMessage', 'AWS/SQS');
    expect(age).toHaveLength(1);
    expect(dimension(age[0]!, 'QueueName')['Fn::GetAtt'][0]).toMatch(/^RelayIngressBuffer[0-9A-F]{8}$/);
    expect(age[0]!.props.Threshold).toBe(900);
  });

  it("alarms on stream lag, and on the table through the relay's own view only", () => {
    const lag = alarmsOn('IteratorAge', 'AWS/Lambda');
    expect(lag).toHaveLength(1);
    expect(dimension(lag[0]!, 'FunctionName')).toEqual({ Ref: functionId('relay-outbox-publisher') });
    expect(lag[0]!.props).toMatchObject({ Threshold: 120_000, EvaluationPeriods: 3, DatapointsToAlarm: 3 });
    // DynamoDB's metrics are graphed: StorageOutage reads the relay's own view of a failing table
    // (callbacks buffered, due-index reads failed, minute after minute; test/infra/alarms.test.ts).
    expect(
      alarms().filter((a) => statsOf(a).some((m: any) => m.Metric.Namespace === 'AWS/DynamoDB')),
    ).toEqual([]);
  });

  it('alarms on the relay metrics (roll-ups without dimensions): one event pages, rejections on a spike', () => {
    // Threshold and period (seconds) where not one event in a minute.
    const expected: Record<string, { threshold: number; period: number }> = {
      CallbacksRejected: { threshold: 20, period: 300 },
      RegistrationEventsRefused: { threshold: 1, period: 300 },
    };
    expect(ALARMED_RELAY_METRICS).toContain('RegistrationEventsRefused');
    for (const metricName of ALARMED_RELAY_METRICS) {
      // CallbacksBuffered is also read, persisting, by a StorageOutage member (no action of its own).
      const found = alarmsOn(metricName, RELAY_NAMESPACE).filter(
        (a) => !/No action of its own/.test(String(a.props.AlarmDescription)),
      );
      expect(found, metricName).toHaveLength(1);
      const stat = statsOf(found[0]!)[0];
      expect(stat.Metric.Dimensions ?? [], metricName).toEqual([]);
      expect(stat.Stat).toBe('Sum');
      expect(found[0]!.props).toMatchObject({
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        TreatMissingData: 'notBreaching',
        Threshold: expected[metricName]?.threshold ?? 1,
      });
      expect(stat.Period, metricName).toBe(expected[metricName]?.period ?? 60);
    }
  });

  it('alarms when a shop’s badge API keeps failing (BadgeReadFailures in 3 of 5 minutes), only with badge shops', () => {
    // Prepare
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const config = {
      ...exampleConfig,
      badges: { shops: { corner: { baseUrl: 'https://badges.example.org' } } },
    };
    const synthesized = Template.fromStack(new RelayStack(app, 'WithShops', { relay: { config } }));
    const withShops = Object.entries(synthesized.toJSON().Resources as Record<string, any>)
      .filter(([, r]) => r.Type === 'AWS::CloudWatch::Alarm')
      .map(([id, r]) => ({ id, props: r.Properties }));

    // Act
    const found = withShops.filter((a) =>
      statsOf(a).some((m: any) => m.Metric.MetricName === 'BadgeReadFailures'),
    );

    // Assess: none in the example relay (no shop), one with a shop.
    expect(alarmsOn('BadgeReadFailures', RELAY_NAMESPACE)).toEqual([]);
    expect(found).toHaveLength(1);
    expect(found[0]!.props).toMatchObject({ Threshold: 1, EvaluationPeriods: 5, DatapointsToAlarm: 3 });
    expect(statsOf(found[0]!)[0].Metric.Dimensions ?? []).toEqual([]);
  });

  it('alarms while an account is callback-silent (SilentAccounts max ≥ 1 over 5 minutes), OK when data stops', () => {
    const found = alarmsOn(SILENT_ACCOUNTS_METRIC, RELAY_NAMESPACE);

    expect(found).toHaveLength(1);
    expect(statsOf(found[0]!)[0]).toMatchObject({ Stat: 'Maximum', Period: 300 });
    expect(statsOf(found[0]!)[0].Metric.Dimensions ?? []).toEqual([]);
    expect(found[0]!.props).toMatchObject({
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Threshold: 1,
      TreatMissingData: 'notBreaching',
    });
  });

  it('tickets when no account of a provider sends a callback for 6 hours (SilentProviders{provider}, the poller told the period), one alarm per provider', () => {
    // Act
    const silence = alarmsOn(SILENT_PROVIDERS_METRIC, RELAY_NAMESPACE);
    const providers = silence
      .map((a) =>
        statsOf(a)[0]
          .Metric.Dimensions.map((d: any) => `${d.Name}=${d.Value}`)
          .join(','),
      )
      .sort();
    const poller = Object.values(template.findResources('AWS::Lambda::Function')).find(
      (f: any) => f.Properties.Environment?.Variables?.POWERTOOLS_SERVICE_NAME === 'relay-poller',
    ) as any;

    // Assess: per provider, never per account: no series or alarm metric grows with the accounts.
    expect(providers).toEqual(['provider=airtel', 'provider=daraja', 'provider=momo']);
    for (const alarm of silence) {
      // Written by the poller each cycle while the provider is silent: no data is no silence.
      expect(statsOf(alarm)[0]).toMatchObject({ Stat: 'Maximum', Period: 300 });
      expect(alarm.props).toMatchObject({
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        Threshold: 1,
        EvaluationPeriods: 1,
        TreatMissingData: 'notBreaching',
      });
      expect(String(alarm.props.AlarmDescription)).toMatch(/No callback for 6 hours from any account of/);
      expect(String(alarm.props.AlarmDescription)).toMatch(/Accounts: demo$/);
    }
    // The poller that writes the metric knows each ticket's period.
    expect(JSON.parse(poller.Properties.Environment.Variables[SILENCE_ALARMS_ENV])).toEqual({
      momo: 6 * 3600,
      airtel: 6 * 3600,
      daraja: 6 * 3600,
    });
  });

  it('creates a dashboard and outputs its name', () => {
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    template.hasOutput('DashboardName', {});
  });
});

describe('relay stack: warnings and outputs', () => {
  it('warns when publicBaseUrl is still a placeholder', () => {
    annotations.hasWarning('/RelayUnderTest/Relay', Match.stringLikeRegexp('publicBaseUrl .* placeholder'));
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
    const errors = annotations.findError('*', Match.stringLikeRegexp('AwsSolutions-.*'));
    expect(errors.map((e) => `${e.id}: ${String(e.entry.data).split('\n')[0]}`)).toEqual([]);
  });

  it('has no unsuppressed warnings', () => {
    const warnings = annotations.findWarning('*', Match.stringLikeRegexp('AwsSolutions-.*'));
    expect(warnings.map((w) => `${w.id}: ${String(w.entry.data).split('\n')[0]}`)).toEqual([]);
  });

  it('gives every suppression a specific reason', () => {
    const suppressions = Object.values(template.toJSON().Resources as Record<string, any>).flatMap(
      (r) => r.Metadata?.cdk_nag?.rules_to_suppress ?? [],
    ) as Array<{ id: string; reason: string }>;
    expect(suppressions.length).toBeGreaterThan(0);
    for (const { id, reason } of suppressions) expect(reason.length, id).toBeGreaterThan(80);
    expect(new Set(suppressions.map((s) => s.id))).toEqual(
      new Set([
        'AwsSolutions-APIG4',
        'AwsSolutions-L1',
        'AwsSolutions-IAM4',
        'AwsSolutions-IAM5',
        'AwsSolutions-S1',
        'AwsSolutions-SQS3',
        // No SMG4: the example keeps the buffer's seal key in its callback secret (none generated).
        // The alarm topics: no customer key (alarm mail holds no payment data; docs/deploy.md#cdk-nag).
        'AwsSolutions-SNS2',
      ]),
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

  it('synthesizes hundreds of accounts: the config is not in the Lambda environment', () => {
    const accounts: Record<string, unknown> = {};
    for (let i = 0; i < 300; i++)
      accounts[`country-${i}`] = {
        targetEnvironment: `mtn-country-${i}`,
        currency: 'EUR',
        callbackSecretId: `mobile-money-relay/momo/country-${i}/callback`,
      };
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const relayStack = new RelayStack(app, 'Many', {
      relay: { config: { ...exampleConfig, accounts: { momo: accounts } } },
    });
    const fns = Object.values(Template.fromStack(relayStack).findResources('AWS::Lambda::Function'));
    for (const fn of fns) expect(JSON.stringify(fn.Properties.Environment ?? {}).length).toBeLessThan(2048);
  });

  describe('accounts of providers whose callbacks carry no other authentication (MoMo, Daraja)', () => {
    const withoutSecret = (provider: 'momo' | 'daraja', extra: Record<string, unknown> = {}) => {
      const config = structuredClone(exampleConfig);
      delete config.accounts[provider].demo.callbackSecretId;
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
      delete config.accounts.daraja.demo.callbackSecretId;
      config.accounts.daraja.demo.allowNoPathSecret = 'Safaricom source IPs enforced by our edge proxy';
      const synthesized = synthesizes(config);
      // The seven relay functions and C2B validation (a Daraja account).
      synthesized.resourcePropertiesCountIs('AWS::Lambda::Function', { Runtime: 'nodejs22.x' }, 8);
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

  it('makes `cdk synth` (the app) exit non-zero with the bad key in the message, no stack trace', async () => {
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
    expect(failure?.stderr).toMatch(/^Cannot synthesize the relay: [\s\S]*publicBaseUrl/m);
    // What the user acts on, not a stack trace (cdk --debug keeps it).
    expect(failure?.stderr).not.toMatch(/^\s+at /m);
  }, 60_000);
});
