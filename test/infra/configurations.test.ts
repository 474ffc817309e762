import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Aspects, Duration, Stack } from 'aws-cdk-lib';
import { type Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as events from 'aws-cdk-lib/aws-events';
import * as eventTargets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as route53 from 'aws-cdk-lib/aws-route53';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks, NagSuppressions } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
// Imported like a consumer would: the library entry point, not the files behind it.
import {
  DEFAULT_EDGE_RATE_LIMIT,
  MANAGEMENT_ROUTES,
  MobileMoneyRelay,
  type MobileMoneyRelayProps,
  RelayEdgeWebAclStack,
  SUBSCRIBER_RULE_ACTIONS,
  TABLE_KEY_ACTIONS,
} from '../../infra';
import { PROJECT_ROOT } from '../../infra/bundling';
import { MANAGEMENT_ROUTE_TABLE } from '../../shared/config/management-routes';
import { SILENCE_ALARMS_ENV } from '../../shared/config/silence-alarms';
import { checkAwsLimits } from './aws-limits';
import { cfnLint, cfnLintSkipReason, describeFindings, errorsWithVersion } from './cfn-lint';
import { synthOnce } from './relay-synth';

const exampleConfig = JSON.parse(readFileSync(join(PROJECT_ROOT, 'infra/example-config.json'), 'utf8'));

/**
 * One configuration: a fresh App and Stack using the construct like another CDK app would, without
 * bundling (what is under test is the template and cdk-nag, not the bundles: test/infra/relay-stack.test.ts
 * builds and loads those), cdk-nag applied.
 */
function configuration(
  name: string,
  relayProps: (stack: Stack) => Partial<MobileMoneyRelayProps>,
  config: unknown = exampleConfig,
) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, name);
  const relay = new MobileMoneyRelay(stack, 'Relay', { config, ...relayProps(stack) });
  Aspects.of(stack).add(new AwsSolutionsChecks({ verbose: true }));
  const synthesized = synthOnce(stack);
  templates.set(name, synthesized.template.toJSON());
  return { stack, relay, ...synthesized };
}

/** Every template this file synthesizes, by stack name: the limits check and cfn-lint read them all (last describe). */
const templates = new Map<string, Record<string, any>>();

/** cdk-nag's findings in a stack's annotations (synthOnce: the synth its template came from). */
function nagFindings(annotations: Annotations) {
  const format = (m: { id: string; entry: { data?: unknown } }) =>
    `${m.id}: ${String(m.entry.data).split('\n')[0]}`;
  return {
    errors: annotations.findError('*', Match.stringLikeRegexp('AwsSolutions-.*')).map(format),
    warnings: annotations.findWarning('*', Match.stringLikeRegexp('AwsSolutions-.*')).map(format),
  };
}

const warningsOf = (annotations: Annotations) =>
  annotations.findWarning('*', Match.anyValue()).map((w) => String(w.entry.data));

const CERT_ARN = 'arn:aws:acm:eu-west-1:123456789012:certificate/11111111-2222-3333-4444-555555555555';
const domainConfig = { ...exampleConfig, publicBaseUrl: 'https://relay.payments.example.org' };
const EDGE_SECRET = 'edge-origin-secret-0123456789abcdefghijkl';
/** The Secrets Manager secret holding {"originVerifySecret": …}: what the config names instead of the value. */
const EDGE_SECRET_ID = 'relay/edge-origin';
const WEB_ACL_ARN =
  'arn:aws:wafv2:us-east-1:123456789012:global/webacl/relay-edge/11111111-2222-3333-4444-555555555555';
const edgeConfig = {
  ...exampleConfig,
  publicBaseUrl: 'https://d111111abcdef8.cloudfront.net',
  edge: { mode: 'cloudfront', originVerifySecretId: EDGE_SECRET_ID },
};

/** Secret values a configuration below is given: none may reach a template. */
const DEV_PATH_SECRET = 'dev-inline-path-secret-0123456789';
const DEV_CALLBACK_KEY = 'dev-inline-airtel-callback-key-0123';
const TEST_SECRETS = [EDGE_SECRET, DEV_PATH_SECRET, DEV_CALLBACK_KEY];
/** A throwaway development stack: secrets written in the config (allowInlineSecrets), edge secret too. */
const devConfig = (() => {
  const config = structuredClone(exampleConfig);
  for (const provider of ['momo', 'daraja', 'airtel']) delete config.accounts[provider].demo.callbackSecretId;
  config.accounts.momo.demo.pathSecret = DEV_PATH_SECRET;
  config.accounts.daraja.demo.pathSecret = DEV_PATH_SECRET;
  config.accounts.airtel.demo.callbackKey = DEV_CALLBACK_KEY;
  return { ...config, edge: { mode: 'cloudfront-or-direct', originVerifySecrets: [EDGE_SECRET] } };
})();

/** Webhook and cross-account SQS destinations (docs/webhooks.md): the delivery path in the templates linted below. */
const deliveringConfig = {
  ...exampleConfig,
  destinations: {
    hooks: { url: 'https://hooks.example.com/momo', signingSecretId: 'mobile-money-relay/webhooks/hooks' },
    shop: {
      type: 'sqs',
      queue: 'https://sqs.af-south-1.amazonaws.com/210987654321/momo-events',
      roleArn: 'arn:aws:iam::210987654321:role/relay-deliveries',
      externalId: 'relay-7f3a9c',
      signingSecretId: 'mobile-money-relay/webhooks/shop',
    },
  },
};

// Every supported configuration, synthesized once.
const configurations = {
  default: () => configuration('Default', () => ({ alarmEmail: 'oncall@example.org' })),
  customerManagedTableKey: () =>
    configuration('TableKey', (stack) => ({
      alarmEmail: 'oncall@example.org',
      tableEncryptionKey: new kms.Key(stack, 'TableKey', { enableKeyRotation: true }),
    })),
  importedBus: () =>
    configuration('ImportedBus', (stack) => ({
      alarmEmail: 'oncall@example.org',
      eventBus: events.EventBus.fromEventBusName(stack, 'DefaultBus', 'default'),
    })),
  passedAlarmTopic: () =>
    configuration('PassedTopic', (stack) => ({
      alarmTopic: sns.Topic.fromTopicArn(stack, 'OnCall', 'arn:aws:sns:eu-west-1:123456789012:on-call'),
    })),
  customDomain: () =>
    configuration(
      'CustomDomain',
      (stack) => ({
        alarmEmail: 'oncall@example.org',
        customDomain: {
          domainName: 'relay.payments.example.org',
          certificate: acm.Certificate.fromCertificateArn(stack, 'Certificate', CERT_ARN),
          hostedZone: route53.HostedZone.fromHostedZoneAttributes(stack, 'Zone', {
            hostedZoneId: 'Z0123456789ABCDEFGHIJ',
            zoneName: 'payments.example.org',
          }),
        },
      }),
      domainConfig,
    ),
  cloudFrontEdge: () =>
    configuration(
      'CloudFrontEdge',
      () => ({ alarmEmail: 'oncall@example.org', cloudFront: { webAclArn: WEB_ACL_ARN } }),
      edgeConfig,
    ),
  cloudFrontEdgeOwnDomain: () =>
    configuration(
      'CloudFrontEdgeOwnDomain',
      (stack) => ({
        alarmEmail: 'oncall@example.org',
        cloudFront: {
          webAclArn: WEB_ACL_ARN,
          domainNames: ['pay.example.org'],
          certificate: acm.Certificate.fromCertificateArn(
            stack,
            'EdgeCertificate',
            'arn:aws:acm:us-east-1:123456789012:certificate/11111111-2222-3333-4444-555555555555',
          ),
          priceClass: cloudfront.PriceClass.PRICE_CLASS_ALL,
        },
      }),
      { ...edgeConfig, publicBaseUrl: 'https://pay.example.org' },
    ),
  inlineSecretsForDevelopment: () =>
    configuration(
      'InlineSecretsDev',
      () => ({ alarmEmail: 'oncall@example.org', allowInlineSecrets: 'development' }),
      devConfig,
    ), // The delivery path (issue 31): an https destination and an sqs one in a partner's account, by role.
  deliveringToPartners: () =>
    configuration('DeliveringToPartners', () => ({ alarmEmail: 'oncall@example.org' }), deliveringConfig),
};
const synthesized = new Map<string, ReturnType<typeof configuration>>();
const get = (name: keyof typeof configurations) => {
  if (!synthesized.has(name)) synthesized.set(name, configurations[name]());
  return synthesized.get(name)!;
};

describe('every supported configuration is cdk-nag clean', () => {
  for (const name of Object.keys(configurations) as Array<keyof typeof configurations>) {
    it(`${name}: zero unsuppressed AwsSolutions errors and warnings`, () => {
      expect(nagFindings(get(name).annotations)).toEqual({ errors: [], warnings: [] });
    }, 180_000);
  }

  it('names a resource and gives a reason in every suppression', () => {
    for (const name of Object.keys(configurations) as Array<keyof typeof configurations>) {
      for (const [id, resource] of Object.entries(get(name).resources)) {
        for (const rule of resource.Metadata?.cdk_nag?.rules_to_suppress ?? []) {
          expect(String(rule.reason).length, `${name} ${id} ${rule.id}`).toBeGreaterThan(80);
        }
      }
    }
  });
});

/** Every string of a JSON value (keys included). */
function stringsOf(value: unknown, into: string[] = []): string[] {
  if (typeof value === 'string') into.push(value);
  else if (Array.isArray(value)) for (const item of value) stringsOf(item, into);
  else if (value !== null && typeof value === 'object')
    for (const [key, item] of Object.entries(value)) {
      into.push(key);
      stringsOf(item, into);
    }
  return into;
}

describe('no secret value in any template', () => {
  for (const name of Object.keys(configurations) as Array<keyof typeof configurations>) {
    it(`${name}: no string of the template holds a test secret`, () => {
      // Act
      const strings = stringsOf(get(name).template.toJSON());

      // Assess
      expect(strings.length).toBeGreaterThan(100);
      for (const secret of TEST_SECRETS)
        expect(
          strings.filter((s) => s.includes(secret)),
          `${name}: ${secret}`,
        ).toEqual([]);
    }, 180_000);
  }

  it('keeps the config (with only secret ids) out of every function environment', () => {
    for (const name of Object.keys(configurations) as Array<keyof typeof configurations>) {
      for (const resource of Object.values(get(name).resources)) {
        if (resource.Type !== 'AWS::Lambda::Function') continue;
        const variables = resource.Properties.Environment?.Variables ?? {};
        expect(variables.RELAY_CONFIG_JSON, name).toBeUndefined();
        // A secret's id is a reference the function reads at run time, not config: the seal key's may
        // name the config's callback secret (`…/accounts/callback#ingress-buffer/seal`).
        const config = Object.fromEntries(
          Object.entries(variables).filter(([key]) => !key.endsWith('_SECRET_ID')),
        );
        expect(JSON.stringify(config), name).not.toMatch(/accounts|callbackSecretId/);
      }
    }
  });
});

describe('customer-managed table key', () => {
  it('grants the config readers explicit KMS actions on that key, through DynamoDB only (no wildcard actions)', () => {
    const { resources } = get('customerManagedTableKey');
    const keyStatements = Object.values(resources)
      .filter((r) => r.Type === 'AWS::IAM::Policy')
      .flatMap((r) => r.Properties.PolicyDocument.Statement)
      .filter((s: any) => [s.Action].flat().some((a: string) => a.startsWith('kms:')));
    const viaService = (s: any) => JSON.stringify(s.Condition?.StringEquals?.['kms:ViaService'] ?? '');
    const explicit = keyStatements.filter((s: any) => viaService(s).includes('dynamodb.'));
    // callback, management, poller, buffer consumer, transaction-initiated and statements.
    expect(explicit).toHaveLength(6);
    // The buffered callbacks are encrypted with the same key: the callback function sends through SQS.
    const bySqs = keyStatements.filter((s: any) => viaService(s).includes('sqs.'));
    expect(bySqs.map((s: any) => s.Action)).toEqual([['kms:GenerateDataKey', 'kms:Decrypt']]);
    for (const statement of explicit) {
      expect(statement.Action).toEqual([...TABLE_KEY_ACTIONS]);
      expect(statement.Resource).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/TableKey/), 'Arn'] });
    }
    for (const statement of keyStatements)
      expect([statement.Action].flat().filter((a: string) => a.includes('*'))).toEqual([]);
  });
});

describe('imported bus', () => {
  it('publishes to the given bus and creates none', () => {
    const { template } = get('importedBus');
    template.resourceCountIs('AWS::Events::EventBus', 0);
    template.hasResourceProperties('AWS::Events::Archive', {
      SourceArn: Match.objectLike({ 'Fn::Join': Match.anyValue() }),
    });
  });
});

describe('alarm topic', () => {
  it('uses a passed topic for every paging alarm, creates only the ticket topic, and does not warn about paging', () => {
    const { template, resources, annotations } = get('passedAlarmTopic');
    template.resourceCountIs('AWS::SNS::Topic', 1);
    const paging = Object.values(resources).filter(
      (r) => r.Type === 'AWS::CloudWatch::Alarm' && typeof r.Properties.AlarmActions?.[0] === 'string',
    );
    expect(paging.length).toBeGreaterThan(10);
    for (const alarm of paging)
      expect(alarm.Properties.AlarmActions).toEqual(['arn:aws:sns:eu-west-1:123456789012:on-call']);
    for (const alarm of Object.values(resources).filter(
      (r) => r.Type === 'AWS::CloudWatch::Alarm' && typeof r.Properties.AlarmActions?.[0] === 'object',
    ))
      expect(alarm.Properties.AlarmActions[0].Ref).toMatch(/TicketTopic/);
    expect(warningsOf(annotations).filter((w) => /Nobody is subscribed to the page topic/.test(w))).toEqual(
      [],
    );
  });

  it('always creates TLS-only page and ticket topics without a customer key when none is passed, and warns when nobody is subscribed', () => {
    const { template, annotations } = configuration('NoSubscriber', () => ({}));
    template.resourceCountIs('AWS::SNS::Topic', 2);
    for (const topic of Object.values(template.findResources('AWS::SNS::Topic')))
      expect(topic.Properties.KmsMasterKeyId).toBeUndefined();
    template.resourceCountIs('AWS::KMS::Key', 0);
    template.resourceCountIs('AWS::SNS::Subscription', 0);
    expect(
      warningsOf(annotations).filter((w) => /Nobody is subscribed to the page topic/.test(w)),
    ).toHaveLength(1);
    expect(
      warningsOf(annotations).filter((w) => /Nobody is subscribed to the ticket topic/.test(w)),
    ).toHaveLength(1);
    expect(nagFindings(annotations)).toEqual({ errors: [], warnings: [] });
  });
});

describe('custom domain', () => {
  it('maps the domain to the stage with TLS 1.2, creates A and AAAA aliases, and knows the public URL', () => {
    const { template, relay, annotations } = get('customDomain');
    template.hasResourceProperties('AWS::ApiGatewayV2::DomainName', {
      DomainName: 'relay.payments.example.org',
      DomainNameConfigurations: [
        Match.objectLike({ CertificateArn: CERT_ARN, EndpointType: 'REGIONAL', SecurityPolicy: 'TLS_1_2' }),
      ],
    });
    template.resourceCountIs('AWS::ApiGatewayV2::ApiMapping', 1);
    for (const type of ['A', 'AAAA'])
      template.hasResourceProperties('AWS::Route53::RecordSet', {
        Name: 'relay.payments.example.org.',
        Type: type,
        HostedZoneId: 'Z0123456789ABCDEFGHIJ',
      });
    expect(relay.publicUrl).toBe('https://relay.payments.example.org/');
    // publicBaseUrl matches the domain: no placeholder or mismatch warning.
    expect(warningsOf(annotations).filter((w) => /publicBaseUrl/.test(w))).toEqual([]);
  });

  it('warns when publicBaseUrl does not match the custom domain', () => {
    const { annotations } = configuration('DomainMismatch', (s) => ({
      customDomain: {
        domainName: 'relay.payments.example.org',
        certificate: acm.Certificate.fromCertificateArn(s, 'Certificate', CERT_ARN),
      },
    }));
    expect(
      warningsOf(annotations).filter((w) =>
        /does not match the custom domain relay\.payments\.example\.org/.test(w),
      ),
    ).toHaveLength(1);
  });
});

describe('the construct used from another CDK app', () => {
  const consumer = () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new Stack(app, 'PaymentsPlatform');
    const relay = new MobileMoneyRelay(stack, 'MobileMoney', {
      config: exampleConfig,
      alarmEmail: 'payments-oncall@example.org',
      subscriberAccounts: ['210987654321'],
      callbackSilencePeriods: { 'momo/demo': false, 'daraja/demo': Duration.hours(12) },
      reservedConcurrency: { callback: false },
    });
    const partner = new iam.Role(stack, 'PartnerService', { assumedBy: new iam.AccountRootPrincipal() });
    relay.grantManagementApi(partner, { operator: false });
    const operators = new iam.Role(stack, 'Operators', { assumedBy: new iam.AccountRootPrincipal() });
    relay.grantManagementApi(operators);
    for (const role of [partner, operators])
      NagSuppressions.addResourceSuppressions(
        role,
        [
          {
            id: 'AwsSolutions-IAM5',
            reason:
              'grantManagementApi grants execute-api:Invoke on the management routes only; the * stand for the path parameters {provider}/{account}/{reference} of those routes, not for other routes.',
            appliesTo: [{ regex: '/^Resource::arn:<AWS::Partition>:execute-api:.*\\*.*$/g' }],
          },
        ],
        true,
      );
    const orders = sqs.Queue.fromQueueArn(
      stack,
      'Orders',
      'arn:aws:sqs:eu-west-1:123456789012:orders-payments',
    );
    const rule = relay.addSubscriber('OrdersFinalOutcomes', {
      detailTypes: ['TransactionSucceeded', 'TransactionFailed'],
      providers: ['daraja'],
      target: new eventTargets.SqsQueue(orders),
    });
    Aspects.of(stack).add(new AwsSolutionsChecks({ verbose: true }));
    const { annotations, template } = synthOnce(stack);
    return {
      stack,
      relay,
      template,
      annotations,
      rule,
      resources: template.toJSON().Resources as Record<string, any>,
    };
  };
  const built = consumer();
  const policyOf = (roleIdPattern: RegExp) =>
    Object.values(built.resources).find(
      (r) => r.Type === 'AWS::IAM::Policy' && r.Properties.Roles.some((x: any) => roleIdPattern.test(x.Ref)),
    )!.Properties.PolicyDocument.Statement as Array<{ Action: string; Resource: any }>;
  const routesIn = (statement: { Resource: any }) =>
    [statement.Resource].flat().map((arn: any) => (arn['Fn::Join'][1] as unknown[]).at(-1) as string);

  it('exposes the resources as readonly members', () => {
    const { relay } = built;
    for (const member of [
      relay.table,
      relay.eventBus,
      relay.eventArchive,
      relay.api,
      relay.callbackFunction,
      relay.bufferConsumerFunction,
      relay.ingressBuffer,
      relay.ingressBufferDlq,
      relay.alarmTopic,
      relay.monitoring,
      relay.dashboard,
    ])
      expect(member).toBeDefined();
    expect(relay.alarms.length).toBeGreaterThan(20);
  });

  it('grantManagementApi: execute-api:Invoke on the management routes of $default only', () => {
    const operator = policyOf(/Operators/);
    expect(operator).toHaveLength(1);
    expect(operator[0]!.Action).toBe('execute-api:Invoke');
    expect(routesIn(operator[0]!).sort()).toEqual(
      [
        '/$default/POST/v1/transactions',
        '/$default/GET/v1/transactions/*/*/*',
        '/$default/POST/v1/transactions/*/*/*/check',
        '/$default/POST/v1/transactions/*/*/*/resolve',
        '/$default/GET/v1/reconciliation/report',
        // The console's reads, for operators calling over IAM.
        '/$default/GET/v1/transactions',
        '/$default/GET/v1/transactions/counts',
        '/$default/GET/v1/transactions/search',
        '/$default/GET/v1/transactions/*/*/*/receipts/*',
        '/$default/GET/v1/quarantine',
        '/$default/POST/v1/quarantine/*/accept',
        '/$default/POST/v1/quarantine/*/dismiss',
        '/$default/GET/v1/report',
        '/$default/GET/v1/callback-health',
        '/$default/GET/v1/badges',
        // The provider's own records (docs/statements.md).
        '/$default/POST/v1/statements/*/*/import',
        '/$default/GET/v1/statements/*/*/days',
        '/$default/GET/v1/statements/*/*/days/*',
        '/$default/POST/v1/statements/*/*/days/*/close',
        // Who am I, the approvals and the audit log (IAM callers are admins).
        '/$default/GET/v1/me',
        '/$default/GET/v1/approvals',
        '/$default/POST/v1/approvals/*/approve',
        '/$default/POST/v1/approvals/*/reject',
        '/$default/GET/v1/audit',
        // Webhook destinations (docs/management-api.md#webhook-destinations).
        '/$default/GET/v1/destinations',
        '/$default/GET/v1/destinations/*/deliveries',
        '/$default/POST/v1/destinations/*/pause',
        '/$default/POST/v1/destinations/*/replay',
        '/$default/POST/v1/destinations/*/resume',
        '/$default/POST/v1/destinations/*/rotate',
        '/$default/GET/v1/transactions/*/*/*/deliveries',
      ].sort(),
    );
    // Derived from the one route table: a route added there is an IAM route in the operator grant.
    expect(routesIn(operator[0]!).sort()).toEqual(
      MANAGEMENT_ROUTE_TABLE.map((r) => `/$default/${r.method}${r.path.replace(/\{[^}]+\}/g, '*')}`).sort(),
    );
    expect(MANAGEMENT_ROUTES.map((r) => `${r.method} ${r.path}`)).toEqual(
      MANAGEMENT_ROUTE_TABLE.map((r) => `${r.method} ${r.path}`),
    );
    expect(routesIn(policyOf(/PartnerService/)[0]!).sort()).toEqual(
      ['/$default/POST/v1/transactions', '/$default/GET/v1/transactions/*/*/*'].sort(),
    );
    expect(MANAGEMENT_ROUTE_TABLE.filter((r) => r.partner).map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /v1/transactions',
      'GET /v1/transactions/{provider}/{account}/{reference}',
    ]);
  });

  it('addSubscriber: a rule on the relay bus for the relay source, the detail types and providers', () => {
    built.template.hasResourceProperties('AWS::Events::Rule', {
      EventBusName: { Ref: Match.stringLikeRegexp('MobileMoneyBus') },
      EventPattern: {
        source: ['mobile-money.relay'],
        'detail-type': ['TransactionSucceeded', 'TransactionFailed'],
        detail: { data: { provider: ['daraja'] } },
      },
      Targets: [Match.objectLike({ Arn: 'arn:aws:sqs:eu-west-1:123456789012:orders-payments' })],
    });
    expect(() =>
      built.relay.addSubscriber('Nothing', {
        detailTypes: [],
        target: new eventTargets.SqsQueue(
          sqs.Queue.fromQueueArn(built.stack, 'X', 'arn:aws:sqs:eu-west-1:123456789012:x'),
        ),
      }),
    ).toThrow(/detailTypes: name at least one/);
  });

  it('subscriberAccounts: the documented policy letting each account manage the rules it created, on relay events', () => {
    built.template.hasResourceProperties('AWS::Events::EventBusPolicy', {
      EventBusName: { Ref: Match.stringLikeRegexp('MobileMoneyBus') },
      Statement: {
        Effect: 'Allow',
        Principal: {
          AWS: [Match.objectLike({ 'Fn::Join': ['', Match.arrayWith([':iam::210987654321:root'])] })],
        },
        Action: [...SUBSCRIBER_RULE_ACTIONS],
        Condition: {
          StringEqualsIfExists: {
            'events:creatorAccount': '${aws:PrincipalAccount}',
            'events:source': 'mobile-money.relay',
          },
        },
      },
    });
  });

  it('takes per-account silence periods (false turns one off) and reserved concurrency off', () => {
    const periods = Object.fromEntries(
      Object.values(built.resources)
        .filter((r) => r.Type === 'AWS::CloudWatch::Alarm')
        .flatMap((a) => (a.Properties.Metrics ?? []).filter((m: any) => m.MetricStat))
        .filter((m: any) => m.MetricStat.Metric.MetricName === 'SilentProviders')
        .map(({ MetricStat: stat }: any) => {
          const dim = (n: string) => stat.Metric.Dimensions.find((d: any) => d.Name === n).Value;
          return [dim('provider'), stat.Period];
        }),
    );
    const poller = Object.values(built.resources).find(
      (r) =>
        r.Type === 'AWS::Lambda::Function' &&
        r.Properties.Environment?.Variables?.POWERTOOLS_SERVICE_NAME === 'relay-poller',
    )!;
    // One alarm per provider (momo's only account is off: none), each told to the poller with its
    // accounts' shortest period: the poller writes SilentProviders{provider} past it.
    expect(Object.keys(periods).sort()).toEqual(['airtel', 'daraja']);
    expect(JSON.parse(poller.Properties.Environment.Variables[SILENCE_ALARMS_ENV])).toEqual({
      airtel: 6 * 3600,
      daraja: 12 * 3600,
    });
    for (const fn of Object.values(built.resources).filter((r) => r.Type === 'AWS::Lambda::Function'))
      expect(fn.Properties.ReservedConcurrentExecutions).toBeUndefined();
  });

  it('is cdk-nag clean with the subscriber rule, the bus policy and the grants', () => {
    expect(nagFindings(built.annotations)).toEqual({ errors: [], warnings: [] });
  });
});

describe('props validation', () => {
  const error = (props: Partial<MobileMoneyRelayProps>, config: unknown = exampleConfig) => {
    try {
      new MobileMoneyRelay(new Stack(new App()), 'Relay', { config, ...props });
    } catch (e) {
      return (e as Error).message;
    }
    throw new Error('expected the construct to refuse the props');
  };

  it('lists every bad prop at once, each named', () => {
    const message = error({
      reservedConcurrency: { callback: 0 },
      memorySize: 64,
      throttle: { rateLimit: 0, burstLimit: 10 },
      callbackSilencePeriod: Duration.minutes(1),
      callbackSilencePeriods: { 'mpesa/x': false },
      alarmEmail: 'not-an-address',
      bufferConsumerMaxConcurrency: 1,
    });
    expect(message).toMatch(/^Invalid MobileMoneyRelay props:/);
    for (const expected of [
      /reservedConcurrency\.callback: a whole number from 1/,
      /memorySize: a whole number from 128 to 10240/,
      /throttle\.rateLimit: more than 0/,
      /callbackSilencePeriod: whole minutes from 5 minutes to 24 hours, or false/,
      /callbackSilencePeriods\["mpesa\/x"\]: no such account/,
      /alarmEmail: not an e-mail address/,
      /bufferConsumerMaxConcurrency: a whole number from 2 to 1000/,
    ])
      expect(message).toMatch(expected);
  });

  it('refuses an ack budget and a C2B deadline API Gateway would cut, and takes a buffer consumer reserved below its batch concurrency (the drain is scheduled, not polled)', () => {
    const config = structuredClone(exampleConfig) as Record<string, unknown>;
    config.ackBudgets = { daraja: { storeMs: 5000, ackMs: 7400 } };
    // The C2B validation's deadline at the timeout itself: API Gateway would answer 504 first.
    (config.accounts as { daraja: { demo: { c2b: Record<string, unknown> } } }).daraja.demo.c2b.deadlineMs =
      7500;

    const message = error(
      { reservedConcurrency: { 'buffer-consumer': 2 }, bufferConsumerMaxConcurrency: 5 },
      config,
    );

    expect(message).toMatch(
      /ackBudgets\.daraja\.ackMs: 7400 ms leaves no room inside the callback integration timeout/,
    );
    expect(message).toMatch(
      /accounts\.daraja\.demo\.c2b\.deadlineMs: 7500 ms leaves no room inside the callback integration timeout \(7500 ms; at most 7000 in AWS/,
    );
    expect(message).not.toMatch(/buffer-consumer/);
  });

  it('refuses subscriber accounts on an imported bus and account ids that are not 12 digits', () => {
    const stack = new Stack(new App());
    const message = (() => {
      try {
        new MobileMoneyRelay(stack, 'Relay', {
          config: exampleConfig,
          eventBus: events.EventBus.fromEventBusName(stack, 'Bus', 'default'),
          subscriberAccounts: ['1234'],
        });
      } catch (e) {
        return (e as Error).message;
      }
      return '';
    })();
    expect(message).toMatch(/subscriberAccounts: only for the bus the relay creates/);
    expect(message).toMatch(/"1234" is not a 12-digit AWS account id/);
  });

  it('refuses a custom domain that is not a domain name', () => {
    const stack = new Stack(new App());
    expect(
      () =>
        new MobileMoneyRelay(stack, 'Relay', {
          config: exampleConfig,
          customDomain: {
            domainName: 'https://relay.example.org',
            certificate: acm.Certificate.fromCertificateArn(stack, 'C', CERT_ARN),
          },
        }),
    ).toThrow(/customDomain\.domainName: not a domain name/);
  });

  it('turns every silence alarm off with callbackSilencePeriod: false', () => {
    const { resources } = configuration('NoSilence', () => ({
      callbackSilencePeriod: false,
      dashboard: false,
    }));
    const alarms = Object.values(resources).filter((r) => r.Type === 'AWS::CloudWatch::Alarm');
    expect(alarms.some((a) => JSON.stringify(a).includes('SilentProviders'))).toBe(false);
    // Nor is the poller asked to write the metric.
    expect(JSON.stringify(resources)).not.toContain(SILENCE_ALARMS_ENV);
    expect(Object.values(resources).some((r) => r.Type === 'AWS::CloudWatch::Dashboard')).toBe(false);
  });
});

describe('CloudFront edge', () => {
  const distributionConfig = (resources: Record<string, any>) =>
    Object.values(resources).find((r) => r.Type === 'AWS::CloudFront::Distribution')!.Properties
      .DistributionConfig;

  it('puts the HTTP API behind CloudFront over HTTPS only, with the origin secret header and the web ACL', () => {
    // Act
    const { resources, template } = get('cloudFrontEdge');

    // Assess
    template.resourceCountIs('AWS::CloudFront::Distribution', 1);
    const config = distributionConfig(resources);
    expect(config.WebACLId).toBe(WEB_ACL_ARN);
    expect(config.PriceClass).toBe('PriceClass_200');
    expect(config.Logging).toBeUndefined();
    expect(config.Origins).toHaveLength(1);
    const [origin] = config.Origins;
    expect(JSON.stringify(origin.DomainName)).toMatch(/execute-api/);
    expect(origin.CustomOriginConfig).toMatchObject({
      OriginProtocolPolicy: 'https-only',
      OriginSSLProtocols: ['TLSv1.2'],
    });
    // The current secret is what CloudFront sends, resolved by CloudFormation from Secrets Manager at
    // deploy time: the template holds only the reference.
    expect(origin.OriginCustomHeaders).toHaveLength(1);
    expect(origin.OriginCustomHeaders[0].HeaderName).toBe('x-relay-origin-verify');
    expect(JSON.stringify(origin.OriginCustomHeaders[0].HeaderValue)).toContain(
      `{{resolve:secretsmanager:${EDGE_SECRET_ID}:SecretString:originVerifySecret::}}`,
    );
  });

  it('caches nothing, allows every method and forwards every viewer header but Host plus CloudFront-Viewer-Address', () => {
    // Act
    const behavior = distributionConfig(get('cloudFrontEdge').resources).DefaultCacheBehavior;

    // Assess
    expect(behavior).toMatchObject({
      ViewerProtocolPolicy: 'https-only',
      AllowedMethods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'],
      // Managed CachingDisabled and AllViewerExceptHostHeader (all viewer headers except Host, every
      // query string and cookie, and CloudFront's headers, CloudFront-Viewer-Address among them).
      CachePolicyId: cloudfront.CachePolicy.CACHING_DISABLED.cachePolicyId,
      OriginRequestPolicyId:
        cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER.originRequestPolicyId,
    });
    expect(cloudfront.CachePolicy.CACHING_DISABLED.cachePolicyId).toBe(
      '4135ea2d-6df8-44a3-9df3-4b5a84be39ad',
    );
    expect(cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER.originRequestPolicyId).toBe(
      'b689b0a8-53d0-40ab-baf2-68738e2966ac',
    );
  });

  it('knows its public URL, and does not warn when publicBaseUrl is the distribution and edge.mode is cloudfront', () => {
    // Act
    const { relay, stack, annotations } = get('cloudFrontEdge');

    // Assess
    expect(relay.distribution).toBeDefined();
    expect(stack.resolve(relay.publicUrl)).toEqual({
      'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [expect.stringMatching(/Edge/), 'DomainName'] }, '/']],
    });
    // No bypass warning: without a customDomain the execute-api endpoint stays on (CloudFront's origin),
    // but the origin check refuses what goes around before any callback runs (edge-isolation.test.ts).
    expect(warningsOf(annotations).filter((w) => /edge|publicBaseUrl|webAclArn/i.test(w))).toEqual([]);
  });

  it('with its own domain: TLS 1.2 for viewers, the domain as the public URL', () => {
    // Act
    const { relay, resources, annotations } = get('cloudFrontEdgeOwnDomain');

    // Assess
    const config = distributionConfig(resources);
    expect(config.Aliases).toEqual(['pay.example.org']);
    expect(config.ViewerCertificate).toMatchObject({
      MinimumProtocolVersion: 'TLSv1.2_2021',
      SslSupportMethod: 'sni-only',
    });
    expect(relay.publicUrl).toBe('https://pay.example.org/');
    expect(warningsOf(annotations).filter((w) => /publicBaseUrl/.test(w))).toEqual([]);
  });

  it('warns when edge.mode is not cloudfront, publicBaseUrl goes around the distribution, or there is no web ACL', () => {
    // Act
    const { annotations, template } = configuration(
      'EdgeMisconfigured',
      () => ({ alarmEmail: 'oncall@example.org', cloudFront: {} }),
      {
        ...exampleConfig,
        publicBaseUrl: 'https://relay.payments.example.org',
        edge: { originVerifySecretId: EDGE_SECRET_ID },
      },
    );

    // Assess
    const warnings = warningsOf(annotations);
    expect(warnings.filter((w) => /edge\.mode is "direct"/.test(w))).toHaveLength(1);
    expect(warnings.filter((w) => /does not point at the CloudFront distribution/.test(w))).toHaveLength(1);
    expect(warnings.filter((w) => /cloudFront has no webAclArn/.test(w))).toHaveLength(1);
    template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({ WebACLId: Match.absent() }),
    });
    expect(nagFindings(annotations)).toEqual({ errors: [], warnings: [] });
  });

  it('refuses an origin secret the relay would not accept, a web ACL ARN of the wrong scope, a domain without a certificate', () => {
    // Prepare
    const stack = new Stack(new App());

    // Act
    const message = (() => {
      try {
        new MobileMoneyRelay(stack, 'Relay', {
          config: edgeConfig,
          cloudFront: {
            originVerifySecret: 'not-in-the-config-0123456789abcdefghijkl',
            webAclArn: 'arn:aws:wafv2:eu-west-1:123456789012:regional/webacl/x/1',
            domainNames: ['pay.example.org'],
          },
        });
      } catch (e) {
        return (e as Error).message;
      }
      return '';
    })();

    // Assess
    // A plain string would be written into the template.
    expect(message).toMatch(
      /cloudFront\.originVerifySecret: a plain string would be written into the template/,
    );
    expect(message).not.toContain('not-in-the-config-0123456789abcdefghijkl');
    expect(message).toMatch(/cloudFront\.webAclArn: not the ARN of a CLOUDFRONT-scope web ACL/);
    expect(message).toMatch(/cloudFront\.domainNames, cloudFront\.certificate: give both/);
  });

  it('refuses edge.mode cloudfront without a secret, naming the dotted key', () => {
    expect(
      () =>
        new MobileMoneyRelay(new Stack(new App()), 'Relay', {
          config: { ...exampleConfig, edge: { mode: 'cloudfront' } },
        }),
    ).toThrow(/edge\.originVerifySecrets: required unless mode is "direct"/);
  });
});

describe('the edge web ACL stack (us-east-1)', () => {
  const webAclStack = (props: ConstructorParameters<typeof RelayEdgeWebAclStack>[2] = {}) => {
    const app = new App();
    const stack = new RelayEdgeWebAclStack(app, 'EdgeWebAcl', props);
    Aspects.of(stack).add(new AwsSolutionsChecks({ verbose: true }));
    const { annotations, template } = synthOnce(stack);
    templates.set(`EdgeWebAcl${templates.size}`, template.toJSON());
    return { stack, template, annotations, resources: template.toJSON().Resources as Record<string, any> };
  };
  const ruleNamed = (resources: Record<string, any>, name: string) =>
    Object.values(resources)
      .find((r) => r.Type === 'AWS::WAFv2::WebACL')!
      .Properties.Rules.find((r: any) => r.Name === name);

  it('creates a CLOUDFRONT-scope web ACL in us-east-1 with a rate rule per source IP, blocking with 429', () => {
    // Act
    const { stack, template, resources } = webAclStack();

    // Assess
    expect(stack.region).toBe('us-east-1');
    template.hasResourceProperties('AWS::WAFv2::WebACL', {
      Scope: 'CLOUDFRONT',
      DefaultAction: { Allow: {} },
      VisibilityConfig: {
        CloudWatchMetricsEnabled: true,
        SampledRequestsEnabled: true,
        MetricName: 'RelayEdgeWebAcl',
      },
    });
    const rate = ruleNamed(resources, 'RatePerSourceIp');
    expect(rate.Statement.RateBasedStatement).toMatchObject({
      Limit: DEFAULT_EDGE_RATE_LIMIT,
      AggregateKeyType: 'IP',
      EvaluationWindowSec: 300,
    });
    // The providers' declared sources (Daraja's) are never counted, even with no exemptCidrs.
    expect(rate.Statement.RateBasedStatement.ScopeDownStatement.NotStatement).toBeDefined();
    expect(rate.Action).toEqual({ Block: { CustomResponse: { ResponseCode: 429 } } });
    expect(rate.VisibilityConfig).toMatchObject({
      CloudWatchMetricsEnabled: true,
      SampledRequestsEnabled: true,
    });
    template.hasOutput('WebAclArn', {});
  });

  it('runs the AWS managed rule groups in count mode only', () => {
    // Act
    const { resources } = webAclStack();

    // Assess
    for (const name of ['AWSManagedRulesCommonRuleSet', 'AWSManagedRulesAmazonIpReputationList']) {
      const rule = ruleNamed(resources, name);
      expect(rule.OverrideAction).toEqual({ Count: {} });
      expect(rule.Statement.ManagedRuleGroupStatement).toEqual({ VendorName: 'AWS', Name: name });
    }
  });

  it("spares the providers' source CIDRs from the rate rule (IPv4 and IPv6 IP sets in a NOT scope-down)", () => {
    // Act
    const { resources, template } = webAclStack({
      webAcl: {
        rateLimit: 10_000,
        exemptCidrs: ['196.201.214.200/32', '196.201.214.206', '2001:db8::/32'],
        rateLimitAction: 'count',
        managedRulesInCountMode: false,
      },
    });

    // Assess
    template.hasResourceProperties('AWS::WAFv2::IPSet', {
      Scope: 'CLOUDFRONT',
      IPAddressVersion: 'IPV4',
      // With Daraja's declared sources (these two among them), once each.
      Addresses: Match.arrayWith(['196.201.214.200/32', '196.201.214.206/32']),
    });
    template.hasResourceProperties('AWS::WAFv2::IPSet', {
      IPAddressVersion: 'IPV6',
      Addresses: ['2001:db8::/32'],
    });
    const rate = ruleNamed(resources, 'RatePerSourceIp');
    expect(rate.Statement.RateBasedStatement.Limit).toBe(10_000);
    expect(
      rate.Statement.RateBasedStatement.ScopeDownStatement.NotStatement.Statement.OrStatement.Statements,
    ).toHaveLength(2);
    expect(rate.Action).toEqual({ Count: {} });
    expect(ruleNamed(resources, 'AWSManagedRulesCommonRuleSet')).toBeUndefined();
  });

  it('is cdk-nag clean', () => {
    expect(nagFindings(webAclStack({ webAcl: { exemptCidrs: ['196.201.214.200/32'] } }).annotations)).toEqual(
      {
        errors: [],
        warnings: [],
      },
    );
  });

  it('pages an ALARM_EMAIL through a topic of its own region when a provider source is blocked', () => {
    // Act
    const { annotations, template, resources } = webAclStack({
      alarmEmail: 'on-call@example.com',
      webAcl: { exemptCidrs: ['196.201.214.200/32'] },
    });

    // Assess: CloudWatch notifies same-region topics only, so the relay's page topic cannot serve here.
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'on-call@example.com',
    });
    const topicId = Object.keys(resources).find((id) => resources[id].Type === 'AWS::SNS::Topic')!;
    const alarms = Object.values(resources).filter((r) => r.Type === 'AWS::CloudWatch::Alarm');
    expect(alarms.length).toBeGreaterThan(0);
    for (const alarm of alarms) expect(alarm.Properties.AlarmActions).toEqual([{ Ref: topicId }]);
    expect(nagFindings(annotations)).toEqual({ errors: [], warnings: [] });
  });

  it('refuses another region, a bad rate limit or window, and a CIDR that is not one', () => {
    expect(() => webAclStack({ env: { region: 'eu-west-1' } })).toThrow(/only in us-east-1/);
    expect(() =>
      webAclStack({
        webAcl: { rateLimit: 5, evaluationWindow: Duration.minutes(3), exemptCidrs: ['10.0.0.0/33'] },
      }),
    ).toThrow(
      /rateLimit: a whole number from 10[\s\S]*evaluationWindow: 1, 2, 5 or 10 minutes[\s\S]*"10\.0\.0\.0\/33"/,
    );
  });
});

describe('every configuration above deploys: AWS limits and the CloudFormation schemas (cfn-lint)', () => {
  // Prepare: the supported configurations (synthesized once), and the web ACL enforcing Daraja's ranges.
  const all = () => {
    for (const name of Object.keys(configurations) as Array<keyof typeof configurations>) get(name);
    const app = new App();
    const acl = new RelayEdgeWebAclStack(app, 'EdgeWebAclEnforced', {
      webAcl: { enforceSourceRanges: ['daraja'], exemptCidrs: ['196.201.214.200/32'] },
    });
    templates.set('EdgeWebAclEnforced', Template.fromStack(acl).toJSON());
    return templates;
  };

  it('keeps every template inside the AWS limits that apply at deploy', () => {
    for (const [name, template] of all()) expect(checkAwsLimits(template).problems, name).toEqual([]);
  });

  const skip = cfnLintSkipReason();
  it.skipIf(skip !== undefined)(
    `passes cfn-lint with 0 errors on every template${skip ? ` (skipped: ${skip})` : ''}`,
    { timeout: 900_000 },
    () => {
      const { errors, warnings } = cfnLint(Object.fromEntries(all()));
      if (warnings.length) console.info(`cfn-lint warnings:\n${describeFindings(warnings).join('\n')}`);
      expect(errorsWithVersion(errors)).toEqual([]);
    },
  );
});
