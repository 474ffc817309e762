import { createHash } from 'node:crypto';
import { Duration, type RemovalPolicy, SecretValue, Stack } from 'aws-cdk-lib';
import type * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaAuthorizer, HttpLambdaResponseType } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as cloudfrontOrigins from 'aws-cdk-lib/aws-cloudfront-origins';
import * as events from 'aws-cdk-lib/aws-events';
import * as eventsTargets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';
import { EDGE_PROBE_FAILURES_METRIC, ORIGIN_VERIFY_REFUSALS_METRIC } from '../../shared/config/metric-names';
import { ORIGIN_VERIFY_HEADER, type RelayConfig } from '../../shared/config/schema';
import type { RelayCloudFrontEdge } from './props';
import { secretArns } from './secrets';

/**
 * The CloudFront edge: the HTTP API as its only origin (HTTPS, TLS 1.2), every method, nothing cached,
 * every viewer header but Host forwarded plus CloudFront's own (CloudFront-Viewer-Address among them:
 * the managed AllViewerExceptHostHeader policy, API Gateway refuses a foreign Host), the query string,
 * the body, and the origin secret in `x-relay-origin-verify` (CloudFront overwrites a viewer's header
 * of that name).
 *
 * The origin secret is never plain text in the template: with `edge.originVerifySecretId` (or a
 * `SecretValue` prop) the header value is a CloudFormation dynamic reference to Secrets Manager,
 * resolved at deploy time, the same secret the callback function reads. A plain string (the prop, or
 * `edge.originVerifySecrets[0]`) is refused by synth unless the config's development flag allows
 * inline secrets (infra/relay/validate.ts). Why a reference and not a secret generated here: the
 * function and the distribution must agree on one value, and rotation (docs/deploy.md) is a
 * Secrets Manager update plus a deploy, with the previous value accepted meanwhile.
 *
 * `originDomainName`: the API's custom domain when there is one, so the execute-api endpoint can be
 * turned off (then CloudFront and the management API use the custom domain).
 */
export function createDistribution(
  scope: Construct,
  api: apigwv2.IHttpApi,
  edge: RelayCloudFrontEdge,
  config: RelayConfig,
  originDomainName?: string,
): cloudfront.Distribution {
  const stack = Stack.of(scope);
  const secretId = (config.edge as { originVerifySecretId?: string }).originVerifySecretId;
  const secret =
    edge.originVerifySecret !== undefined
      ? typeof edge.originVerifySecret === 'string'
        ? edge.originVerifySecret
        : // A token: the template holds {{resolve:secretsmanager:…}}, never the value.
          edge.originVerifySecret.unsafeUnwrap()
      : secretId !== undefined
        ? SecretValue.secretsManager(secretId, { jsonField: 'originVerifySecret' }).unsafeUnwrap()
        : config.edge.originVerifySecrets[0]!;
  const origin = new cloudfrontOrigins.HttpOrigin(
    originDomainName ?? `${api.apiId}.execute-api.${stack.region}.${stack.urlSuffix}`,
    {
      protocolPolicy: cloudfront.OriginProtocolPolicy.HTTPS_ONLY,
      originSslProtocols: [cloudfront.OriginSslPolicy.TLS_V1_2],
      customHeaders: { [ORIGIN_VERIFY_HEADER]: secret },
    },
  );
  return new cloudfront.Distribution(scope, 'Edge', {
    comment: 'Mobile-money relay: provider callbacks through AWS WAF',
    defaultBehavior: {
      origin,
      viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
      allowedMethods: cloudfront.AllowedMethods.ALLOW_ALL,
      cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
      originRequestPolicy: cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
      compress: false,
    },
    priceClass: edge.priceClass ?? cloudfront.PriceClass.PRICE_CLASS_200,
    webAclId: edge.webAclArn,
    domainNames: edge.domainNames,
    certificate: edge.certificate,
    minimumProtocolVersion: edge.certificate ? cloudfront.SecurityPolicyProtocol.TLS_V1_2_2021 : undefined,
    enableLogging: false,
  });
}

/**
 * The origin check as an API Gateway Lambda authorizer, so a request that went around CloudFront (the
 * API's custom domain, the execute-api URL) is refused before any invocation of the callback or
 * decision functions. HTTP APIs cannot have a WAF or a resource policy, so this is the one place a
 * refusal can happen in front of the integration.
 *
 * - The identity source is the origin header: a request without it is refused by API Gateway (401)
 *   with no invocation at all.
 * - Answers are cached per header value (`ORIGIN_AUTHORIZER_CACHE`): CloudFront always sends the same
 *   value, so genuine callbacks reach the authorizer about once per cache period; a wrong value costs
 *   one invocation of this 128 MB function (no config, no table), then is cached too.
 * - The accepted values: the `originVerifySecret` and `previousOriginVerifySecret` of
 *   `edge.originVerifySecretId` (read with the function's own grant, refreshed every 5 minutes, the last
 *   good read kept when Secrets Manager fails), or, for inline development secrets, their SHA-256 hashes
 *   (never a value in the template or the environment). Compared as SHA-256 digests in constant time.
 * - A refusal it decides is counted (`OriginVerifyRefusals`, EMF, no dimensions): the EdgeOutage alarm.
 *
 * Inline code (CommonJS, only Node built-ins and the runtime's AWS SDK): nothing to bundle, so the
 * packed library needs no extra asset. The callback function keeps its own check (defence in depth, and
 * the only one in `cloudfront-or-direct` mode, which has no authorizer: direct callbacks are allowed there).
 */
export const ORIGIN_AUTHORIZER_SOURCE = `'use strict';
const { createHash, timingSafeEqual } = require('node:crypto');
const HEADER = '${ORIGIN_VERIFY_HEADER}';
const REFRESH_MS = 300000;
const digest = (value) => createHash('sha256').update(value, 'utf8').digest();
let known;
async function acceptedDigests(now) {
  const fixed = process.env.ORIGIN_VERIFY_SHA256;
  if (fixed) return fixed.split(',').map((hex) => Buffer.from(hex, 'hex'));
  if (known && now - known.at < REFRESH_MS) return known.digests;
  try {
    const { SecretsManagerClient, GetSecretValueCommand } = require('@aws-sdk/client-secrets-manager');
    const answer = await new SecretsManagerClient({}).send(
      new GetSecretValueCommand({ SecretId: process.env.ORIGIN_VERIFY_SECRET_ID }),
    );
    const secret = JSON.parse(answer.SecretString);
    const values = [secret.originVerifySecret, secret.previousOriginVerifySecret].filter(
      (value) => typeof value === 'string' && value.length > 0,
    );
    known = { at: now, digests: values.map(digest) };
  } catch (error) {
    // The last good read keeps serving; without one, API Gateway answers 500 (retried by the provider).
    console.error(JSON.stringify({ level: 'ERROR', message: 'origin secret unreadable', error: String(error && error.name) }));
    if (!known) throw new Error('origin secret unreadable');
  }
  return known.digests;
}
exports.handler = async (event) => {
  const given = event && event.headers ? event.headers[HEADER] : undefined;
  let matched = false;
  if (typeof given === 'string') {
    const candidate = digest(given);
    for (const accepted of await acceptedDigests(Date.now()))
      matched = (accepted.length === candidate.length && timingSafeEqual(accepted, candidate)) || matched;
  }
  if (!matched)
    console.log(JSON.stringify({
      _aws: { Timestamp: Date.now(), CloudWatchMetrics: [{ Namespace: process.env.METRICS_NAMESPACE, Dimensions: [[]], Metrics: [{ Name: '${ORIGIN_VERIFY_REFUSALS_METRIC}', Unit: 'Count' }] }] },
      ${ORIGIN_VERIFY_REFUSALS_METRIC}: 1,
      message: 'origin check refused a request: it did not come through CloudFront',
    }));
  return { isAuthorized: matched };
};
`;

/** How long API Gateway keeps an authorizer answer per origin-header value. */
const ORIGIN_AUTHORIZER_CACHE = Duration.minutes(5);

/**
 * The origin-check authorizer for the public routes (`edge.mode: "cloudfront"` only), its function
 * with its own log group and a role that may read the origin secret and nothing else.
 */
export function createOriginAuthorizer(
  scope: Construct,
  config: RelayConfig,
  options: {
    metricsNamespace: string;
    logRetention: logs.RetentionDays;
    removalPolicy: RemovalPolicy;
    secretsEncryptionKey?: kms.IKey;
  },
): { authorizer: HttpLambdaAuthorizer; fn: lambda.Function } {
  const stack = Stack.of(scope);
  const secretId = config.edge.originVerifySecretId;
  const logGroup = new logs.LogGroup(scope, 'OriginAuthorizerLogs', {
    retention: options.logRetention,
    removalPolicy: options.removalPolicy,
  });
  const role = new iam.Role(scope, 'OriginAuthorizerRole', {
    assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
    description: 'Execution role of the relay origin-check authorizer',
  });
  role.addToPolicy(
    new iam.PolicyStatement({
      actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
      resources: [logGroup.logGroupArn],
    }),
  );
  if (secretId !== undefined) {
    role.addToPolicy(
      new iam.PolicyStatement({
        actions: ['secretsmanager:GetSecretValue'],
        resources: secretArns(stack, secretId),
      }),
    );
    if (options.secretsEncryptionKey)
      role.addToPolicy(
        new iam.PolicyStatement({
          actions: ['kms:Decrypt'],
          resources: [options.secretsEncryptionKey.keyArn],
          conditions: {
            StringEquals: { 'kms:ViaService': `secretsmanager.${stack.region}.${stack.urlSuffix}` },
          },
        }),
      );
  }
  const fn = new lambda.Function(scope, 'OriginAuthorizerFunction', {
    runtime: lambda.Runtime.NODEJS_22_X,
    architecture: lambda.Architecture.ARM_64,
    handler: 'index.handler',
    code: lambda.Code.fromInline(ORIGIN_AUTHORIZER_SOURCE),
    description: 'Refuses provider-route requests that did not come through CloudFront (origin header)',
    memorySize: 128,
    timeout: Duration.seconds(5),
    role,
    logGroup,
    environment: {
      METRICS_NAMESPACE: options.metricsNamespace,
      ...(secretId !== undefined
        ? { ORIGIN_VERIFY_SECRET_ID: secretId }
        : {
            // Development inline secrets only (synth refuses them otherwise): their digests, not the values.
            ORIGIN_VERIFY_SHA256: config.edge.originVerifySecrets
              .map((value) => createHash('sha256').update(value, 'utf8').digest('hex'))
              .join(','),
          }),
    },
  });
  pinnedRuntime(fn);
  const authorizer = new HttpLambdaAuthorizer('OriginVerify', fn, {
    authorizerName: 'origin-verify',
    responseTypes: [HttpLambdaResponseType.SIMPLE],
    identitySource: [`$request.header.${ORIGIN_VERIFY_HEADER}`],
    resultsCacheTtl: ORIGIN_AUTHORIZER_CACHE,
  });
  return { authorizer, fn };
}

/** Where the synthetic check aims: an account no relay configures, so the relay itself answers 404. */
const EDGE_PROBE_ACCOUNT = 'relay-synthetic-probe';

/** The header AWS WAF adds to its source-range refusal (`x-amzn-waf-` + the rule's response header name). */
export const WAF_SOURCE_REFUSED_HEADER = { name: 'relay-edge', value: 'source-refused' } as const;

/** How often the synthetic check runs. */
const EDGE_PROBE_RATE = Duration.minutes(5);

/**
 * The synthetic check: every `EDGE_PROBE_RATE`, one harmless request per configured provider through the
 * public URL (CloudFront, the WAF, the origin check, the provider's own route and throttle, the callback
 * function), `POST /v1/<provider>/relay-synthetic-probe/probe` with `{}`. It passes when the relay itself
 * answers: 404 `UNKNOWN_ACCOUNT` (nothing is stored but the refusal's quarantine sample), or, for a
 * provider whose paths the WAF limits to its source ranges, the WAF's own refusal (403 with
 * `x-amzn-waf-relay-edge: source-refused`): the probe does not call from a provider's address.
 * Anything else (CloudFront 5xx, a 403 from the origin check, a timeout) is a failure. It writes
 * `EdgeProbeFailures` (providers failing this run, EMF, every run, 0 included).
 *
 * A Lambda function, not a CloudWatch Synthetics canary: a canary run costs about $0.0012 (about
 * $10 a month at this rate), the function's 8,640 short runs a month stay within cents.
 */
export const EDGE_PROBE_SOURCE = `'use strict';
const PROBE_ACCOUNT = '${EDGE_PROBE_ACCOUNT}';
const WAF_HEADER = 'x-amzn-waf-${WAF_SOURCE_REFUSED_HEADER.name}';
async function probe(base, provider) {
  const url = new URL('v1/' + provider + '/' + PROBE_ACCOUNT + '/probe', base);
  try {
    const answer = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'mobile-money-relay-synthetic-probe' },
      body: '{}',
      signal: AbortSignal.timeout(8000),
    });
    const text = await answer.text();
    if (answer.status === 403 && answer.headers.get(WAF_HEADER) === '${WAF_SOURCE_REFUSED_HEADER.value}')
      return { provider, status: 403, ok: true, answeredBy: 'waf' };
    let code;
    try { code = JSON.parse(text).error.code; } catch { code = undefined; }
    return { provider, status: answer.status, ok: answer.status === 404 && code === 'UNKNOWN_ACCOUNT', answeredBy: code ? 'relay' : 'other' };
  } catch (error) {
    return { provider, status: 0, ok: false, error: String(error && error.name) };
  }
}
exports.probe = probe;
exports.handler = async () => {
  const providers = (process.env.PROVIDERS || '').split(',').filter(Boolean);
  const results = await Promise.all(providers.map((provider) => probe(process.env.PUBLIC_URL, provider)));
  const failures = results.filter((r) => !r.ok).length;
  console.log(JSON.stringify({
    _aws: { Timestamp: Date.now(), CloudWatchMetrics: [{ Namespace: process.env.METRICS_NAMESPACE, Dimensions: [[]], Metrics: [{ Name: '${EDGE_PROBE_FAILURES_METRIC}', Unit: 'Count' }] }] },
    ${EDGE_PROBE_FAILURES_METRIC}: failures,
    level: failures ? 'ERROR' : 'INFO',
    message: 'synthetic check of the public URL',
    results,
  }));
  return { failures, results };
};
`;

/** The synthetic check's function and schedule (see EDGE_PROBE_SOURCE). Not per account: one request per provider. */
export function createEdgeProbe(
  scope: Construct,
  options: {
    publicUrl: string;
    providers: readonly string[];
    metricsNamespace: string;
    logRetention: logs.RetentionDays;
    removalPolicy: RemovalPolicy;
  },
): lambda.Function {
  const logGroup = new logs.LogGroup(scope, 'EdgeProbeLogs', {
    retention: options.logRetention,
    removalPolicy: options.removalPolicy,
  });
  const role = new iam.Role(scope, 'EdgeProbeRole', {
    assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
    description: 'Execution role of the relay synthetic check (logs only)',
  });
  role.addToPolicy(
    new iam.PolicyStatement({
      actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
      resources: [logGroup.logGroupArn],
    }),
  );
  const fn = new lambda.Function(scope, 'EdgeProbeFunction', {
    runtime: lambda.Runtime.NODEJS_22_X,
    architecture: lambda.Architecture.ARM_64,
    handler: 'index.handler',
    code: lambda.Code.fromInline(EDGE_PROBE_SOURCE),
    description: 'Synthetic check: one harmless request per provider route through the public URL',
    memorySize: 128,
    // Each request times out after 8 s; well inside the 5-minute rate, so runs never overlap.
    timeout: Duration.seconds(30),
    role,
    logGroup,
    environment: {
      PUBLIC_URL: options.publicUrl,
      PROVIDERS: options.providers.join(','),
      METRICS_NAMESPACE: options.metricsNamespace,
    },
  });
  pinnedRuntime(fn);
  new events.Rule(scope, 'EdgeProbeSchedule', {
    description: 'Runs the relay synthetic check',
    schedule: events.Schedule.rate(EDGE_PROBE_RATE),
    targets: [new eventsTargets.LambdaFunction(fn, { retryAttempts: 0 })],
  });
  return fn;
}

/** Node.js 22 like every relay function (the same AwsSolutions-L1 reason as infra/relay/nag-suppressions.ts). */
function pinnedRuntime(fn: lambda.Function): void {
  NagSuppressions.addResourceSuppressions(fn, [
    {
      id: 'AwsSolutions-L1',
      reason:
        'The runtime is pinned to Node.js 22 by the project contract (design.md: "Lambda runtime: Node.js 22, ARM64"), like every relay function; moving is a deliberate, tested upgrade.',
    },
  ]);
}
