import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { App, Stack } from 'aws-cdk-lib';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import { Template } from 'aws-cdk-lib/assertions';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PROJECT_ROOT } from '../../infra/bundling';
import { EDGE_PROBE_SOURCE, ORIGIN_AUTHORIZER_SOURCE } from '../../infra/relay/edge';
import { UnknownAccountError } from '../../shared/domain/errors';
import { errorResponse } from '../../shared/http/error-mapping';
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

  it('refuses every public route before any callback or decision function runs: the origin check authorizes first', () => {
    // Prepare
    const routes = ofType(fronted.resources, 'AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties);
    const [authorizerId, authorizer] = ofType(fronted.resources, 'AWS::ApiGatewayV2::Authorizer')[0]!;
    const [callbackId] = functionNamed(fronted.resources, 'relay-callback');
    const [c2bId] = functionNamed(fronted.resources, 'relay-c2b-validation');
    const [checkId, check] = ofType(fronted.resources, 'AWS::Lambda::Function').find(
      ([, r]) => r.Properties.Environment?.Variables?.ORIGIN_VERIFY_SECRET_ID,
    )!;

    // Assess: every route but the IAM management routes, $default included, goes through the authorizer.
    const publicRoutes = routes.filter((r) => r.AuthorizationType !== 'AWS_IAM');
    expect(publicRoutes.map((r) => r.RouteKey)).toEqual(
      expect.arrayContaining([
        '$default',
        'ANY /v1/momo/{proxy+}',
        'POST /v1/daraja/{account}/c2b/validation',
      ]),
    );
    for (const route of publicRoutes) {
      expect(route.AuthorizationType, route.RouteKey).toBe('CUSTOM');
      expect(route.AuthorizerId, route.RouteKey).toEqual({ Ref: authorizerId });
    }
    expect(routes.filter((r) => r.AuthorizationType === 'AWS_IAM').length).toBeGreaterThan(10);
    // A request without the header never invokes anything; answers are cached per header value.
    expect(authorizer.Properties).toMatchObject({
      AuthorizerType: 'REQUEST',
      IdentitySource: ['$request.header.x-relay-origin-verify'],
      EnableSimpleResponses: true,
      AuthorizerResultTtlInSeconds: 300,
    });
    const uri = JSON.stringify(authorizer.Properties.AuthorizerUri);
    expect(uri).toContain(checkId);
    expect(uri).not.toContain(callbackId);
    expect(uri).not.toContain(c2bId);
    // A tiny function (inline code within CloudFormation's 4 KB) that reads the origin secret and nothing else.
    expect(check.Properties.MemorySize).toBe(128);
    expect(check.Properties.Code.ZipFile.length).toBeLessThanOrEqual(4096);
    expect(check.Properties.Environment.Variables.ORIGIN_VERIFY_SECRET_ID).toBe('relay/edge-origin');
    const [, policy] = ofType(fronted.resources, 'AWS::IAM::Policy').find(([, r]) =>
      r.Properties.Roles.some((role: any) => /OriginAuthorizerRole/.test(role.Ref)),
    )!;
    const reads = policy.Properties.PolicyDocument.Statement.filter((st: any) =>
      String(st.Action).includes('secretsmanager'),
    );
    expect(reads).toHaveLength(1);
    expect(JSON.stringify(reads[0].Resource)).toMatch(/secret:relay\/edge-origin-\?{6}/);
    expect(JSON.stringify(policy.Properties.PolicyDocument)).not.toMatch(/dynamodb|sqs:/);
  });

  it('adds neither the origin check nor the synthetic check without the edge', () => {
    expect(ofType(plain.resources, 'AWS::ApiGatewayV2::Authorizer')).toEqual([]);
    expect(
      ofType(plain.resources, 'AWS::Lambda::Function').filter(
        ([, r]) => r.Properties.Environment?.Variables?.PUBLIC_URL,
      ),
    ).toEqual([]);
  });

  it('runs the synthetic check every 5 minutes against every provider route of the public URL', () => {
    const [probeId, probe] = ofType(fronted.resources, 'AWS::Lambda::Function').find(
      ([, r]) => r.Properties.Environment?.Variables?.PUBLIC_URL,
    )!;
    expect(probe.Properties.Environment.Variables).toMatchObject({
      PROVIDERS: 'momo,airtel,daraja',
      METRICS_NAMESPACE: 'MobileMoneyRelay/IsolationFronted/Relay',
    });
    const [, rule] = ofType(fronted.resources, 'AWS::Events::Rule').find(([, r]) =>
      JSON.stringify(r.Properties.Targets).includes(probeId),
    )!;
    expect(rule.Properties.ScheduleExpression).toBe('rate(5 minutes)');
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
    expect(rule.Action).toEqual({
      Block: {
        CustomResponse: {
          ResponseCode: 403,
          // How the synthetic check tells the WAF's refusal from the origin check's.
          ResponseHeaders: [{ Name: 'relay-edge', Value: 'source-refused' }],
        },
      },
    });
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

/** Loads inline function code as Lambda would (CommonJS), with the project's node_modules for the AWS SDK. */
function loadInline(source: string): Record<string, (...args: any[]) => Promise<any>> {
  const exports: Record<string, any> = {};
  new Function('require', 'exports', source)(createRequire(`${PROJECT_ROOT}package.json`), exports);
  return exports;
}

/** A local HTTP server; `answer` decides each response. */
async function serve(
  answer: (req: { method?: string; url?: string; headers: Record<string, any>; body: string }) => {
    status: number;
    headers?: Record<string, string>;
    body: string;
  },
): Promise<{
  url: string;
  server: Server;
  seen: Array<{ url?: string; headers: Record<string, any>; body: string }>;
}> {
  const seen: Array<{ url?: string; headers: Record<string, any>; body: string }> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const request = { method: req.method, url: req.url, headers: req.headers, body };
      seen.push(request);
      const out = answer(request);
      res.writeHead(out.status, { 'content-type': 'application/json', ...out.headers });
      res.end(out.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server, seen };
}

const servers: Server[] = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

describe('the origin check, run as API Gateway runs it', () => {
  const CURRENT = 'origin-verify-current-0123456789abcdefghijklmnop';
  const PREVIOUS = 'origin-verify-previous-0123456789abcdefghijklmno';
  const sha = (value: string) => createHash('sha256').update(value).digest('hex');
  const request = (value?: string) => ({
    type: 'REQUEST',
    routeKey: 'ANY /v1/momo/{proxy+}',
    headers: value === undefined ? {} : { 'x-relay-origin-verify': value },
  });

  it('authorizes the current and the previous secret only, and counts each refusal', async () => {
    // Prepare
    vi.stubEnv('ORIGIN_VERIFY_SHA256', `${sha(CURRENT)},${sha(PREVIOUS)}`);
    vi.stubEnv('METRICS_NAMESPACE', 'Relay/Test');
    const logged = vi.spyOn(console, 'log').mockImplementation(() => {});
    const { handler } = loadInline(ORIGIN_AUTHORIZER_SOURCE);

    // Act
    const answers = await Promise.all(
      [CURRENT, PREVIOUS, `${CURRENT}x`, '', undefined].map((value) => handler!(request(value))),
    );

    // Assess
    expect(answers).toEqual([
      { isAuthorized: true },
      { isAuthorized: true },
      { isAuthorized: false },
      { isAuthorized: false },
      { isAuthorized: false },
    ]);
    const metrics = logged.mock.calls.map(([line]) => JSON.parse(String(line)));
    expect(metrics).toHaveLength(3);
    for (const line of metrics) {
      expect(line.OriginVerifyRefusals).toBe(1);
      expect(line._aws.CloudWatchMetrics[0]).toMatchObject({ Namespace: 'Relay/Test', Dimensions: [[]] });
      expect(JSON.stringify(line)).not.toContain(CURRENT.slice(0, 20));
    }
  });

  it('reads the accepted values from the Secrets Manager secret with the real SDK, and keeps them through a failed read', async () => {
    // Prepare: a local Secrets Manager endpoint (the SDK's JSON protocol).
    let failing = false;
    const secretsManager = await serve(({ headers }) =>
      failing
        ? { status: 500, body: JSON.stringify({ __type: 'InternalServiceError', message: 'down' }) }
        : headers['x-amz-target'] === 'secretsmanager.GetSecretValue'
          ? {
              status: 200,
              body: JSON.stringify({
                Name: 'relay/edge-origin',
                SecretString: JSON.stringify({
                  originVerifySecret: CURRENT,
                  previousOriginVerifySecret: PREVIOUS,
                }),
              }),
            }
          : { status: 400, body: '{}' },
    );
    servers.push(secretsManager.server);
    vi.stubEnv('AWS_ENDPOINT_URL_SECRETS_MANAGER', secretsManager.url);
    vi.stubEnv('AWS_REGION', 'eu-west-1');
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDEXAMPLE');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'secret-example');
    vi.stubEnv('ORIGIN_VERIFY_SECRET_ID', 'relay/edge-origin');
    vi.stubEnv('ORIGIN_VERIFY_SHA256', '');
    vi.spyOn(console, 'log').mockImplementation(() => {});
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    let now = 1_000_000;
    vi.spyOn(Date, 'now').mockImplementation(() => now);
    const { handler } = loadInline(ORIGIN_AUTHORIZER_SOURCE);

    // Act: two answers from one read, then a refresh (5 minutes later) while Secrets Manager fails.
    const first = await handler!(request(PREVIOUS));
    const wrong = await handler!(request('made-up'));
    const readsBeforeRefresh = secretsManager.seen.length;
    failing = true;
    now += 300_000;
    const duringFailure = await handler!(request(CURRENT));

    // Assess
    expect([first, wrong, duringFailure]).toEqual([
      { isAuthorized: true },
      { isAuthorized: false },
      { isAuthorized: true },
    ]);
    expect(readsBeforeRefresh).toBe(1);
    expect(secretsManager.seen.length).toBeGreaterThan(readsBeforeRefresh);
    expect(JSON.parse(secretsManager.seen[0]!.body)).toEqual({ SecretId: 'relay/edge-origin' });
    expect(secretsManager.seen[0]!.headers['x-amz-target']).toBe('secretsmanager.GetSecretValue');
    expect(String(errors.mock.calls[0]![0])).toContain('origin secret unreadable');
  });
});

describe('the synthetic check, run against the answers it can get', () => {
  it("passes on the relay's own refusal or the WAF's source-range refusal, fails on anything else", async () => {
    // Prepare: momo answered by the relay, airtel by a failing CloudFront, daraja by the WAF's source rule,
    // and "other" by the origin check (API Gateway's 403): the request never reached the relay.
    const edge = await serve(({ url }) => {
      const provider = url!.split('/')[2];
      if (provider === 'momo') {
        const answer = errorResponse(
          new UnknownAccountError('No MTN MoMo account "relay-synthetic-probe" is configured'),
        );
        return { status: answer.statusCode, body: JSON.stringify(answer.body) };
      }
      if (provider === 'airtel') return { status: 502, body: '<html>Bad Gateway</html>' };
      if (provider === 'daraja')
        return { status: 403, headers: { 'x-amzn-waf-relay-edge': 'source-refused' }, body: '' };
      return { status: 403, body: JSON.stringify({ message: 'Forbidden' }) };
    });
    servers.push(edge.server);
    vi.stubEnv('PUBLIC_URL', edge.url);
    vi.stubEnv('PROVIDERS', 'momo,airtel,daraja,other');
    vi.stubEnv('METRICS_NAMESPACE', 'Relay/Test');
    const logged = vi.spyOn(console, 'log').mockImplementation(() => {});
    const { handler } = loadInline(EDGE_PROBE_SOURCE);

    // Act
    const run = await handler!();

    // Assess
    expect(run.results.map((r: any) => [r.provider, r.status, r.ok])).toEqual([
      ['momo', 404, true],
      ['airtel', 502, false],
      ['daraja', 403, true],
      ['other', 403, false],
    ]);
    expect(edge.seen.map((r) => r.url)).toEqual(
      expect.arrayContaining([
        '/v1/momo/relay-synthetic-probe/probe',
        '/v1/daraja/relay-synthetic-probe/probe',
      ]),
    );
    expect(edge.seen.every((r) => r.body === '{}')).toBe(true);
    const line = JSON.parse(String(logged.mock.calls[0]![0]));
    expect(line.EdgeProbeFailures).toBe(2);
    expect(line._aws.CloudWatchMetrics[0].Metrics).toEqual([{ Name: 'EdgeProbeFailures', Unit: 'Count' }]);
  });
});
