import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { marshall } from '@aws-sdk/util-dynamodb';
import { App, Aspects } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, RELAY_FUNCTIONS } from '../../infra/bundling';
import { OUTBOX_FILTER_PATTERN, TABLE_DATA_ACTIONS } from '../../infra/relay-construct';
import { RelayStack } from '../../infra/relay-stack';
import { TABLE_KEYS } from '../../shared/adapters/dynamodb/table';
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
        AttributeDefinitions: [
          { AttributeName: TABLE_KEYS.partitionKey, AttributeType: 'S' },
          { AttributeName: TABLE_KEYS.sortKey, AttributeType: 'S' },
        ],
        BillingMode: 'PAY_PER_REQUEST',
        TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
        StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        SSESpecification: { SSEEnabled: true },
        DeletionProtectionEnabled: true,
      },
    });
  });
});

describe('relay stack: functions', () => {
  it('deploys the three handlers on Node.js 22, ARM64, with active tracing and source maps', () => {
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
    template.resourcePropertiesCountIs('AWS::Lambda::Function', { Runtime: 'nodejs22.x' }, 3);
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
    for (const key of ['POST /v1/transactions', 'GET /v1/transactions/{provider}/{account}/{reference}']) {
      const route = routeByKey(key);
      expect(route.AuthorizationType, key).toBe('AWS_IAM');
      expect(integratedFunction(route), key).toBe(management);
    }
  });

  it('sends everything else ($default) to the callback function without an authorizer', () => {
    const route = routeByKey('$default');
    expect(route.AuthorizationType ?? 'NONE').toBe('NONE');
    expect(integratedFunction(route)).toBe(functionId('relay-callback'));
    template.resourceCountIs('AWS::ApiGatewayV2::Route', 3);
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

  it('gives the HTTP functions item reads and writes on the table only, never Scan or a wildcard', () => {
    for (const serviceName of ['relay-callback', 'relay-management']) {
      const statements = statementsOfFunction(functionId(serviceName));
      const actions = statements.flatMap(actionsOf);
      expect(actions).not.toContain('dynamodb:Scan');
      expect(actions.filter((a) => a.includes('*') && a !== 'xray:*')).toEqual([]);
      const table = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('dynamodb:')));
      expect(table).toHaveLength(1);
      expect(new Set(actionsOf(table[0]!))).toEqual(new Set(TABLE_DATA_ACTIONS));
      expect(table[0]!.Resource).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/Table/), 'Arn'] });
      expect(actions.some((a) => a.startsWith('events:') || a.startsWith('sqs:'))).toBe(false);
    }
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
    expect(alarmOn('Errors', 'AWS/Lambda')).toHaveLength(3);
    expect(alarmOn('5xx', 'AWS/ApiGateway')).toHaveLength(1);
    expect(alarmOn('ApproximateNumberOfMessagesVisible', 'AWS/SQS')).toHaveLength(1);
    expect(alarmOn('IteratorAge', 'AWS/Lambda')).toHaveLength(1);
    expect(alarmOn('Throttles', 'AWS/Lambda')).toHaveLength(3);
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

  it('outputs the API URL, the bus name and the table name', () => {
    template.hasOutput('ApiUrl', {});
    template.hasOutput('EventBusName', { Value: { Ref: Match.stringLikeRegexp('Bus') } });
    template.hasOutput('TableName', { Value: { Ref: Match.stringLikeRegexp('Table') } });
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
      synthesized.resourcePropertiesCountIs('AWS::Lambda::Function', { Runtime: 'nodejs22.x' }, 3);
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
