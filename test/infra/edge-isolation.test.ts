import { App, Stack } from 'aws-cdk-lib';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { RelayEdgeWebAcl } from '../../infra/edge-web-acl';
import { callbackBulkhead, concurrencyFor } from '../../infra/relay/limits';
import { DARAJA_DEFAULT_SOURCE_IPS } from '../../shared/providers/daraja/schema';
import { exampleConfig, ofType, sharedRelay, synthRelay } from './relay-synth';

const CERT_ARN = 'arn:aws:acm:eu-west-1:123456789012:certificate/11111111-2222-3333-4444-555555555555';
const WEB_ACL_ARN =
  'arn:aws:wafv2:us-east-1:123456789012:global/webacl/relay-edge/11111111-2222-3333-4444-555555555555';
const edgeConfig = {
  ...exampleConfig,
  publicBaseUrl: 'https://relay.payments.example.org',
  edge: { mode: 'cloudfront', originVerifySecretId: 'relay/edge-origin' },
};

const plain = sharedRelay();
const fronted = synthRelay(
  'IsolationFronted',
  (stack) => ({
    cloudFront: { webAclArn: WEB_ACL_ARN },
    customDomain: {
      domainName: 'relay.payments.example.org',
      certificate: acm.Certificate.fromCertificateArn(stack, 'Certificate', CERT_ARN),
    },
  }),
  edgeConfig,
);

const functionNamed = (resources: typeof plain.resources, service: string) => {
  const found = ofType(resources, 'AWS::Lambda::Function').filter(
    ([, r]) => r.Properties.Environment?.Variables?.POWERTOOLS_SERVICE_NAME === service,
  );
  expect(found, service).toHaveLength(1);
  return found[0]!;
};
const integrationOf = (resources: typeof plain.resources, routeKey: string) => {
  const [, route] = ofType(resources, 'AWS::ApiGatewayV2::Route').find(
    ([, r]) => r.Properties.RouteKey === routeKey,
  )!;
  const integrationId = route.Properties.Target['Fn::Join'][1][1].Ref as string;
  return JSON.stringify(resources[integrationId]!.Properties.IntegrationUri);
};

describe('an edge that isolates', () => {
  it('serves Daraja C2B validation (with and without a path secret) from its own function and concurrency', () => {
    const [c2bId, c2b] = functionNamed(plain.resources, 'relay-c2b-validation');
    const [callbackId, callback] = functionNamed(plain.resources, 'relay-callback');
    expect(c2b.Properties.ReservedConcurrentExecutions).toBe(
      concurrencyFor(5, { toMilliseconds: () => 7500 } as never),
    );
    expect(callback.Properties.ReservedConcurrentExecutions).toBe(callbackBulkhead({}).total);
    // The same code on the same role: the same grants, a separate pool of executions.
    expect(c2b.Properties.Role).toEqual(callback.Properties.Role);
    for (const key of [
      'POST /v1/daraja/{account}/c2b/validation',
      'POST /v1/daraja/{account}/{secret}/c2b/validation',
    ])
      expect(integrationOf(plain.resources, key), key).toContain(c2bId);
    expect(integrationOf(plain.resources, 'ANY /v1/daraja/{proxy+}')).toContain(callbackId);
  });

  it('throttles each provider on its own route (the bulkhead: test/infra/bulkhead.test.ts)', () => {
    const [, stage] = ofType(plain.resources, 'AWS::ApiGatewayV2::Stage')[0]!;
    for (const provider of ['momo', 'airtel', 'daraja'])
      expect(stage.Properties.RouteSettings[`ANY /v1/${provider}/{proxy+}`], provider).toEqual({
        ThrottlingRateLimit: 20,
        ThrottlingBurstLimit: 20,
      });
  });

  it('follows providerThrottles in both the route settings and the reserved concurrency', () => {
    const custom = synthRelay('IsolationCustom', () => ({
      providerThrottles: { momo: { rateLimit: 100, burstLimit: 200 } },
      decisionThrottles: { C2bValidation: { rateLimit: 2, burstLimit: 4 } },
    }));
    const [, stage] = ofType(custom.resources, 'AWS::ApiGatewayV2::Stage')[0]!;
    expect(stage.Properties.RouteSettings['ANY /v1/momo/{proxy+}']).toEqual({
      ThrottlingRateLimit: 100,
      ThrottlingBurstLimit: 200,
    });
    expect(functionNamed(custom.resources, 'relay-callback')[1].Properties.ReservedConcurrentExecutions).toBe(
      callbackBulkhead({ providerThrottles: { momo: { rateLimit: 100, burstLimit: 200 } } }).total,
    );
    expect(
      functionNamed(custom.resources, 'relay-c2b-validation')[1].Properties.ReservedConcurrentExecutions,
    ).toBe(15);
  });

  it('turns the execute-api endpoint off when CloudFront fronts the API on a custom domain', () => {
    const [, api] = ofType(fronted.resources, 'AWS::ApiGatewayV2::Api')[0]!;
    expect(api.Properties.DisableExecuteApiEndpoint).toBe(true);
    expect(fronted.relay.apiUrl).toBe('https://relay.payments.example.org/');
    const [, distribution] = ofType(fronted.resources, 'AWS::CloudFront::Distribution')[0]!;
    const origin = distribution.Properties.DistributionConfig.Origins[0];
    expect(origin.DomainName).toBe('relay.payments.example.org');
    const [, plainApi] = ofType(plain.resources, 'AWS::ApiGatewayV2::Api')[0]!;
    expect(plainApi.Properties.DisableExecuteApiEndpoint).toBeUndefined();
  });

  it('sends the origin secret as a Secrets Manager dynamic reference, never its value', () => {
    const [, distribution] = ofType(fronted.resources, 'AWS::CloudFront::Distribution')[0]!;
    const header = distribution.Properties.DistributionConfig.Origins[0].OriginCustomHeaders[0];
    expect(header.HeaderName).toBe('x-relay-origin-verify');
    expect(JSON.stringify(header.HeaderValue)).toMatch(
      /\{\{resolve:secretsmanager:.*relay\/edge-origin:SecretString:originVerifySecret::\}\}/,
    );
  });

  it('stays cdk-nag clean with the edge in front', () => {
    expect(plain.nagErrors).toEqual([]);
    expect(fronted.nagErrors).toEqual([]);
  });
});

describe('the edge web ACL', () => {
  const acl = (props: ConstructorParameters<typeof RelayEdgeWebAcl>[2]) => {
    const stack = new Stack(new App(), 'Waf', { env: { region: 'us-east-1' } });
    new RelayEdgeWebAcl(stack, 'Acl', props);
    return Template.fromStack(stack).toJSON().Resources as Record<string, any>;
  };
  const webAcl = (resources: Record<string, any>) =>
    Object.values(resources).find((r: any) => r.Type === 'AWS::WAFv2::WebACL')!.Properties;

  it("never rate-limits a provider's declared callback sources", () => {
    const resources = acl({});
    const rate = webAcl(resources).Rules.find((r: any) => r.Name === 'RatePerSourceIp');
    expect(rate.Statement.RateBasedStatement.ScopeDownStatement.NotStatement).toBeDefined();
    const sets = Object.values(resources).filter((r: any) => r.Type === 'AWS::WAFv2::IPSet') as any[];
    const addresses = sets.flatMap((s) => s.Properties.Addresses);
    for (const ip of DARAJA_DEFAULT_SOURCE_IPS) expect(addresses).toContain(ip);
  });

  it('can refuse Daraja paths from anywhere but its allow-list, at the edge', () => {
    const resources = acl({ enforceSourceRanges: ['daraja'] });
    const rule = webAcl(resources).Rules.find((r: any) => r.Name === 'darajaSourcesOnly');
    expect(rule.Action).toEqual({ Block: { CustomResponse: { ResponseCode: 403 } } });
    const [path, notFrom] = rule.Statement.AndStatement.Statements;
    expect(path.ByteMatchStatement).toMatchObject({
      SearchString: '/v1/daraja/',
      PositionalConstraint: 'STARTS_WITH',
    });
    expect(notFrom.NotStatement.Statement.IPSetReferenceStatement).toBeDefined();
    expect(webAcl(acl({})).Rules.some((r: any) => /SourcesOnly/.test(r.Name))).toBe(false);
  });

  it("gives every WAF resource a description AWS's resource schema accepts (no parentheses, 1 to 256)", () => {
    // The AWS::WAFv2::IPSet and ::WebACL schemas' Description pattern; CloudFormation refuses anything else
    // at deploy time, which a synth alone never shows.
    const pattern = /^[\w+=:#@/\-,.][\w+=:#@/\-,.\s]+[\w+=:#@/\-,.]$/;
    const resources = acl({ enforceSourceRanges: ['daraja'] });
    const described = Object.values(resources).filter((r: any) =>
      ['AWS::WAFv2::IPSet', 'AWS::WAFv2::WebACL'].includes(r.Type),
    ) as any[];
    expect(described.length).toBeGreaterThanOrEqual(3);
    for (const r of described) {
      expect(r.Properties.Description, r.Type).toMatch(pattern);
      expect(r.Properties.Description.length).toBeLessThanOrEqual(256);
    }
  });

  it('refuses to enforce a provider that declares no sources', () => {
    expect(() => acl({ enforceSourceRanges: ['momo'] })).toThrow(
      /enforceSourceRanges: "momo" has no sources/,
    );
  });
});
