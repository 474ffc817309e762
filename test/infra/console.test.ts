import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Aspects, Stack } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { MobileMoneyRelay } from '../../infra';
import { PROJECT_ROOT } from '../../infra/bundling';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as route53 from 'aws-cdk-lib/aws-route53';
import { MANAGEMENT_ROUTE_TABLE } from '../../shared/config/management-routes';
import { CONSOLE_ROUTES, consoleDomainPrefix, domainPrefixProblem } from '../../infra/relay/console';
import { synthOnce } from './relay-synth';

const exampleConfig = JSON.parse(readFileSync(join(PROJECT_ROOT, 'infra/example-config.json'), 'utf8'));

/** The relay with its console, as another CDK app would add it, cdk-nag applied; no function bundling. */
function synth(console: Record<string, unknown> | ((stack: Stack) => Record<string, unknown>) | undefined) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'ConsoleStack', { env: { account: '123456789012', region: 'eu-west-1' } });
  const relay = new MobileMoneyRelay(stack, 'Relay', {
    config: exampleConfig,
    alarmEmail: 'oncall@example.org',
    ...(console ? { console: (typeof console === 'function' ? console(stack) : console) as never } : {}),
  });
  Aspects.of(stack).add(new AwsSolutionsChecks({ verbose: true }));
  return { stack, relay, ...synthOnce(stack) };
}

const ofType = (resources: Record<string, any>, type: string) =>
  Object.entries(resources).filter(([, r]) => r.Type === type);

describe('the operator console in the CDK construct', () => {
  let withConsole: ReturnType<typeof synth>;
  beforeAll(() => {
    withConsole = synth({ domainPrefix: 'relay-console-test' });
  });

  it('is absent unless asked for', () => {
    const { relay, resources } = synth(undefined);
    expect(relay.console).toBeUndefined();
    expect(ofType(resources, 'AWS::Cognito::UserPool')).toHaveLength(0);
  });

  it('creates a user pool for operators: invited only, MFA required, strong passwords, Plus threat protection', () => {
    withConsole.template.hasResourceProperties('AWS::Cognito::UserPool', {
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
      MfaConfiguration: 'ON',
      Policies: { PasswordPolicy: Match.objectLike({ MinimumLength: 12, RequireSymbols: true }) },
      UserPoolTier: 'PLUS',
    });
    withConsole.template.hasResourceProperties('AWS::Cognito::UserPoolDomain', {
      Domain: 'relay-console-test',
    });
  });

  it('creates the role groups a user is put in: viewer, operator and admin', () => {
    const groups = ofType(withConsole.resources, 'AWS::Cognito::UserPoolGroup').map(
      ([, r]) => r.Properties.GroupName,
    );
    expect(groups.sort()).toEqual(['admin', 'operator', 'viewer']);
  });

  it('signs in with the hosted UI: a public client, authorization code flow only, back to the console URL', () => {
    withConsole.template.hasResourceProperties('AWS::Cognito::UserPoolClient', {
      GenerateSecret: false,
      AllowedOAuthFlows: ['code'],
      AllowedOAuthFlowsUserPoolClient: true,
      AllowedOAuthScopes: ['openid', 'email'],
      SupportedIdentityProviders: ['COGNITO'],
      CallbackURLs: [Match.objectLike({ 'Fn::Join': Match.anyValue() })],
    });
  });

  it('puts a Cognito JWT authorizer on every console route, each to the management function', () => {
    const { resources } = withConsole;
    const authorizers = ofType(resources, 'AWS::ApiGatewayV2::Authorizer').filter(
      ([, r]) => r.Properties.AuthorizerType === 'JWT',
    );
    expect(authorizers).toHaveLength(1);
    const [authorizerId, authorizer] = authorizers[0]!;
    const consoleApiId = authorizer.Properties.ApiId.Ref;
    const routes = ofType(resources, 'AWS::ApiGatewayV2::Route').filter(
      ([, r]) => r.Properties.ApiId.Ref === consoleApiId,
    );
    expect(routes.map(([, r]) => r.Properties.RouteKey).sort()).toEqual(
      CONSOLE_ROUTES.map((r) => `${r.method} ${r.path}`).sort(),
    );
    // Derived from the one route table: each route marked for the console, the statement days it reads too.
    expect(CONSOLE_ROUTES.map((r) => `${r.method} ${r.path}`)).toEqual(
      MANAGEMENT_ROUTE_TABLE.filter((r) => r.console).map((r) => `${r.method} ${r.path}`),
    );
    expect(routes.map(([, r]) => r.Properties.RouteKey)).toContain(
      'GET /v1/statements/{provider}/{account}/days/{day}',
    );
    for (const [, route] of routes) {
      expect(route.Properties.AuthorizationType).toBe('JWT');
      expect(route.Properties.AuthorizerId).toEqual({ Ref: authorizerId });
    }
    // Registration stays an IAM-only route of the partner API.
    expect(routes.map(([, r]) => r.Properties.RouteKey)).not.toContain('POST /v1/transactions');
    const integrations = ofType(resources, 'AWS::ApiGatewayV2::Integration').filter(
      ([, r]) => r.Properties.ApiId.Ref === consoleApiId,
    );
    expect(integrations).toHaveLength(1);
    expect(JSON.stringify(integrations[0]![1].Properties.IntegrationUri)).toContain('ManagementFunction');
    // The page calls it on its own origin (CloudFront /v1/* → the console API): no CORS to get wrong.
    expect(resources[consoleApiId].Properties.CorsConfiguration).toBeUndefined();
  });

  it('serves the built console from a private bucket behind CloudFront, with its config and no token in it', () => {
    const { resources, template } = withConsole;
    template.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: Match.objectLike({
        BlockPublicAcls: true,
        RestrictPublicBuckets: true,
      }),
    });
    template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        DefaultRootObject: 'index.html',
        DefaultCacheBehavior: Match.objectLike({ ViewerProtocolPolicy: 'redirect-to-https' }),
        CacheBehaviors: [
          Match.objectLike({
            PathPattern: '/v1/*',
            ViewerProtocolPolicy: 'https-only',
            AllowedMethods: Match.arrayWith(['GET', 'POST']),
          }),
        ],
      }),
    });
    template.hasResourceProperties('AWS::CloudFront::ResponseHeadersPolicy', {
      ResponseHeadersPolicyConfig: Match.objectLike({
        SecurityHeadersConfig: Match.objectLike({
          ContentSecurityPolicy: Match.objectLike({ ContentSecurityPolicy: Match.anyValue() }),
        }),
      }),
    });
    const deployments = ofType(resources, 'Custom::CDKBucketDeployment');
    expect(deployments).toHaveLength(1);
    // config.json is an asset whose deploy-time values (the app client's id) are markers filled in.
    const properties = deployments[0]![1].Properties;
    expect(properties.SourceObjectKeys).toHaveLength(2);
    expect(JSON.stringify(properties.SourceMarkers)).toContain('ConsoleClient');
    expect(JSON.stringify(properties)).not.toMatch(/bearer|demo-admin-token/i);
  });

  it('is cdk-nag clean (AwsSolutions: no unsuppressed errors)', () => {
    const errors = withConsole.annotations
      .findError('*', Match.stringLikeRegexp('AwsSolutions-.*'))
      .map((m) => `${m.id}: ${String(m.entry.data).split('\n')[0]}`);
    expect(errors).toEqual([]);
  });
});

describe('the console’s Cognito domain prefix', () => {
  const stackIn = (account: string | undefined, region: string | undefined, name = 'MobileMoneyRelay') =>
    new Stack(new App(), name, account && region ? { env: { account, region } } : {});

  it('differs between two stacks of the default name in two accounts or two regions, within Cognito’s rules', () => {
    // Act
    const prefixes = [
      consoleDomainPrefix(stackIn('111111111111', 'eu-west-1')),
      consoleDomainPrefix(stackIn('222222222222', 'eu-west-1')),
      consoleDomainPrefix(stackIn('111111111111', 'af-south-1')),
    ];

    // Assess
    expect(new Set(prefixes).size).toBe(3);
    for (const prefix of prefixes) {
      expect(prefix).toMatch(/^mobilemoneyrelay-console-[0-9a-f]{8}$/);
      expect(domainPrefixProblem(prefix)).toBeUndefined();
    }
    // The same stack synthesizes the same prefix every time: a redeploy keeps the hosted UI's address.
    expect(consoleDomainPrefix(stackIn('111111111111', 'eu-west-1'))).toBe(prefixes[0]);
  });

  it('keeps reserved words and invalid characters out, and stays within 63 characters', () => {
    // Act
    const prefix = consoleDomainPrefix(
      stackIn('111111111111', 'eu-west-1', `AWS-Amazon-CognitoPayments-${'x'.repeat(90)}`),
    );

    // Assess
    expect(domainPrefixProblem(prefix)).toBeUndefined();
    expect(prefix.length).toBeLessThanOrEqual(63);
    expect(prefix).toMatch(/^payments-x+-console-[0-9a-f]{8}$/);
  });

  it('takes an environment-agnostic stack’s uniqueness from its CloudFormation stack id', () => {
    // Prepare
    const stack = stackIn(undefined, undefined);

    // Act
    const resolved = JSON.stringify(stack.resolve(consoleDomainPrefix(stack)));

    // Assess
    expect(resolved).toContain('"Ref":"AWS::StackId"');
    expect(resolved).toContain('mobilemoneyrelay-console-');
  });

  it('refuses a prefix Cognito would refuse, naming the rule', () => {
    // Assess
    expect(domainPrefixProblem('acme-relay-console')).toBeUndefined();
    expect(domainPrefixProblem('acme-aws-relay')).toContain('"aws"');
    expect(domainPrefixProblem('Acme_Relay')).toContain('lowercase');
    expect(() => synth({ domainPrefix: 'payments-cognito' })).toThrow(/console\.domainPrefix.*"cognito"/);
  });
});

describe('the console on its own domain', () => {
  const CERT = 'arn:aws:acm:us-east-1:123456789012:certificate/11111111-2222-3333-4444-555555555555';
  let onDomain: ReturnType<typeof synth>;
  beforeAll(() => {
    onDomain = synth((stack) => ({
      domain: {
        domainName: 'console.payments.example.org',
        certificate: acm.Certificate.fromCertificateArn(stack, 'ConsoleCertificate', CERT),
        hostedZone: route53.HostedZone.fromHostedZoneAttributes(stack, 'Zone', {
          hostedZoneId: 'Z0123456789ABCDEFGHIJ',
          zoneName: 'payments.example.org',
        }),
      },
    }));
  });

  it('serves on the domain with TLS 1.2 as the minimum, and signs in back to it', () => {
    // Assess
    onDomain.template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        Aliases: ['console.payments.example.org'],
        ViewerCertificate: Match.objectLike({
          AcmCertificateArn: CERT,
          MinimumProtocolVersion: 'TLSv1.2_2021',
          SslSupportMethod: 'sni-only',
        }),
      }),
    });
    expect(onDomain.relay.console!.url).toBe('https://console.payments.example.org/');
    onDomain.template.hasResourceProperties('AWS::Cognito::UserPoolClient', {
      CallbackURLs: ['https://console.payments.example.org/'],
    });
    expect(
      ofType(onDomain.resources, 'AWS::Route53::RecordSet')
        .map(([, r]) => r.Properties.Type)
        .sort(),
    ).toEqual(['A', 'AAAA']);
  });

  it('gets a hosted UI prefix of its own when none is given, and is cdk-nag clean without the TLS suppression', () => {
    // Assess
    onDomain.template.hasResourceProperties('AWS::Cognito::UserPoolDomain', {
      Domain: consoleDomainPrefix(onDomain.stack),
    });
    expect(consoleDomainPrefix(onDomain.stack)).toMatch(/^consolestack-console-[0-9a-f]{8}$/);
    const errors = onDomain.annotations
      .findError('*', Match.stringLikeRegexp('AwsSolutions-.*'))
      .map((m) => `${m.id}: ${String(m.entry.data).split('\n')[0]}`);
    expect(errors).toEqual([]);
    const [, distribution] = ofType(onDomain.resources, 'AWS::CloudFront::Distribution')[0]!;
    expect(JSON.stringify(distribution.Metadata ?? {})).not.toContain('AwsSolutions-CFR4');
  });

  it('refuses a certificate outside us-east-1', () => {
    // Assess
    expect(() =>
      synth((stack) => ({
        domain: {
          domainName: 'console.payments.example.org',
          certificate: acm.Certificate.fromCertificateArn(
            stack,
            'Cert',
            CERT.replace('us-east-1', 'eu-west-1'),
          ),
        },
      })),
    ).toThrow(/console\.domain\.certificate: CloudFront takes certificates from us-east-1 only/);
  });
});
