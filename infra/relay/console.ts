import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { App, Aws, CfnOutput, Duration, Fn, type RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import type * as acm from 'aws-cdk-lib/aws-certificatemanager';
import { HttpUserPoolAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as cloudfrontOrigins from 'aws-cdk-lib/aws-cloudfront-origins';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as route53 from 'aws-cdk-lib/aws-route53';
import * as route53Targets from 'aws-cdk-lib/aws-route53-targets';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3deploy from 'aws-cdk-lib/aws-s3-deployment';
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';
import { buildConsoleInto } from '../../scripts/build-console';
import { PREBUILT_ASSETS_DIR } from '../bundling';
import { MANAGEMENT_ROUTE_TABLE } from '../../shared/config/management-routes';

/**
 * The built console: the packed library's prebuilt copy (dist/assets/console) when there is one, else
 * built now from console/ by the project's esbuild into the app's output directory.
 */
function consoleFiles(scope: Construct): string {
  const prebuilt = join(PREBUILT_ASSETS_DIR, 'console');
  if (existsSync(join(prebuilt, 'index.html'))) return prebuilt;
  const outdir = App.of(scope)?.outdir;
  if (!outdir) throw new Error('the relay console needs its construct inside a CDK App');
  return buildConsoleInto(join(outdir, 'relay-console-build'));
}

/**
 * The operator console in AWS (`console` prop). Off by default: it adds a Cognito user pool, a second
 * HTTP API and a CloudFront distribution.
 */
export interface RelayConsoleOptions {
  /**
   * The Cognito hosted UI's domain prefix: `https://<prefix>.auth.<region>.amazoncognito.com`. Unique in
   * the region across all AWS accounts; lowercase letters, digits and hyphens, at most 63 characters,
   * without `aws`, `amazon` or `cognito`. @default `<stack name>-console-<8 hex>`: the hex from the stack's
   * account, region and name (or, for an environment-agnostic stack, from its CloudFormation stack id), so
   * two stacks of the same name never collide (`consoleDomainPrefix`)
   */
  readonly domainPrefix?: string;
  /**
   * The console's own domain on its CloudFront distribution, with TLS 1.2 as the minimum
   * (`TLSv1.2_2021`). Without it the distribution answers on `*.cloudfront.net` with CloudFront's default
   * certificate, for which CloudFront fixes the minimum at TLS 1.0 (modern browsers still negotiate 1.2+,
   * but an old client may use 1.0): a domain is the only way to refuse TLS 1.0 and 1.1.
   * @default none: `https://<distribution>.cloudfront.net/`
   */
  readonly domain?: RelayConsoleDomain;
  /** More URLs the hosted UI may send the browser back to (the console's own custom domain). */
  readonly callbackUrls?: string[];
  /**
   * Identity providers the app client offers beside the pool's own users: federation to the partner's
   * IdP (SAML or OIDC), configured on `RelayConsole.userPool` by the caller (docs/console.md).
   * @default Cognito users only
   */
  readonly identityProviders?: cognito.UserPoolClientIdentityProvider[];
  /** An AWS WAF web ACL (CLOUDFRONT scope, us-east-1) for the console's distribution. */
  readonly webAclArn?: string;
  /** Requests per second of the console API. @default 20 (burst 40) */
  readonly rateLimit?: number;
}

/** The console's own domain (`console.domain`). */
export interface RelayConsoleDomain {
  /** e.g. `console.payments.example.org`: where operators open the console. */
  readonly domainName: string;
  /** An ACM certificate for `domainName` in **us-east-1** (CloudFront's region for certificates). */
  readonly certificate: acm.ICertificate;
  /** The Route 53 zone for the alias records (A and AAAA). @default none: point a CNAME at the distribution */
  readonly hostedZone?: route53.IHostedZone;
}

/** Cognito's words no domain prefix may contain. */
const RESERVED_PREFIX_WORDS = ['aws', 'amazon', 'cognito'];

/** What is wrong with a Cognito hosted UI domain prefix, or undefined when nothing is. */
export function domainPrefixProblem(prefix: string): string | undefined {
  if (!/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(prefix))
    return 'lowercase letters, digits and hyphens, 1 to 63 characters, not starting or ending with a hyphen';
  const word = RESERVED_PREFIX_WORDS.find((w) => prefix.includes(w));
  return word ? `must not contain "${word}" (Cognito reserves aws, amazon and cognito)` : undefined;
}

/** The stack name as a prefix part: lowercase, only [a-z0-9-], no reserved word, at most `max` characters. */
function prefixPart(name: string, max: number): string {
  let part = name.toLowerCase().replace(/[^a-z0-9-]+/g, '-');
  // Removing one word can make another ("aawsws"): until none is left.
  for (let before = ''; before !== part;) {
    before = part;
    for (const word of RESERVED_PREFIX_WORDS) part = part.replaceAll(word, '');
  }
  part = part
    .replace(/-+/g, '-')
    .slice(0, max)
    .replace(/^-+|-+$/g, '');
  return part || 'relay';
}

/**
 * The default Cognito domain prefix: `<stack name>-console-<8 hex>`. The hex is the start of the SHA-256
 * of the stack's account, region and name when synth knows them; for an environment-agnostic stack it is
 * the first group of the stack id's UUID, which CloudFormation makes unique per stack. Either way two
 * stacks with the default name, in two accounts or two regions, get different prefixes.
 */
export function consoleDomainPrefix(stack: Stack): string {
  const suffix = '-console-';
  const name = prefixPart(
    Token.isUnresolved(stack.stackName) ? 'relay' : stack.stackName,
    63 - suffix.length - 8,
  );
  if (!Token.isUnresolved(stack.account) && !Token.isUnresolved(stack.region)) {
    const hash = createHash('sha256')
      .update(`${stack.account}/${stack.region}/${stack.stackName}`)
      .digest('hex');
    return `${name}${suffix}${hash.slice(0, 8)}`;
  }
  // arn:aws:cloudformation:<region>:<account>:stack/<name>/<uuid>: the UUID's first group (8 hex).
  const uuid = Fn.select(2, Fn.split('/', Aws.STACK_ID));
  return Fn.join('', [name, suffix, Fn.select(0, Fn.split('-', uuid))]);
}

export interface RelayConsole {
  readonly userPool: cognito.UserPool;
  readonly userPoolClient: cognito.UserPoolClient;
  readonly userPoolDomain: cognito.UserPoolDomain;
  /** The console API: the management function behind a Cognito JWT authorizer. */
  readonly api: apigwv2.HttpApi;
  readonly bucket: s3.Bucket;
  readonly distribution: cloudfront.Distribution;
  /** `https://<distribution>/`: where operators open the console. */
  readonly url: string;
}

/**
 * The routes the console calls (`console: true` in shared/config/management-routes.ts): the management
 * function's reads and the operator's actions, never registration (partners register over IAM).
 */
export const CONSOLE_ROUTES: ReadonlyArray<{ method: 'GET' | 'POST'; path: string }> =
  MANAGEMENT_ROUTE_TABLE.filter((route) => route.console).map((route) => ({
    method: route.method,
    path: route.path,
  }));

/** The Cognito groups the relay reads as roles (shared/domain/actor.ts ROLES), least to most. */
const CONSOLE_GROUPS = [
  ['viewer', 'Reads transactions, reports and the quarantine'],
  ['operator', 'Also checks now, resolves up to the account limit and decides quarantined callbacks'],
  ['admin', 'Also approves resolutions above the limit and reads the audit log'],
] as const;

/**
 * Static files on S3 behind CloudFront (origin access control), signed in with a Cognito user pool
 * (hosted UI, authorization code flow with PKCE, a public client without a secret), calling a second
 * HTTP API whose every route has a Cognito JWT authorizer and leads to the same management function;
 * CloudFront serves that API under /v1/* on the console's own origin.
 * The management function's IAM routes are unchanged; the browser holds only a Cognito access token
 * (one hour), never a shared secret.
 */
export function createConsole(
  scope: Construct,
  management: lambda.IFunction,
  options: RelayConsoleOptions,
  settings: { removalPolicy: RemovalPolicy; logRetention: logs.RetentionDays },
): RelayConsole {
  const region = Stack.of(scope).region;
  const domainPrefix = checkedDomainPrefix(scope, options);
  const { userPool, userPoolDomain } = createConsoleUserPool(scope, domainPrefix, settings.removalPolicy);
  const bucket = new s3.Bucket(scope, 'ConsoleBucket', {
    blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
    encryption: s3.BucketEncryption.S3_MANAGED,
    enforceSSL: true,
    removalPolicy: settings.removalPolicy,
    autoDeleteObjects: false,
  });

  // The API and the hosted UI the page talks to, known before the distribution's headers are.
  const apiLogs = new logs.LogGroup(scope, 'ConsoleApiAccessLogs', {
    retention: settings.logRetention,
    removalPolicy: settings.removalPolicy,
  });
  const api = new apigwv2.HttpApi(scope, 'ConsoleApi', {
    description:
      'Mobile-money relay operator console: the management function behind a Cognito JWT authorizer',
    createDefaultStage: false,
  });
  const cognitoOrigin = `https://${domainPrefix}.auth.${region}.amazoncognito.com`;
  const apiDomain = `${api.apiId}.execute-api.${region}.${Stack.of(scope).urlSuffix}`;
  const distribution = createConsoleDistribution(scope, { bucket, apiDomain, cognitoOrigin, options });
  const url = `https://${options.domain?.domainName ?? distribution.distributionDomainName}/`;
  pointConsoleDomain(scope, distribution, options.domain);

  const userPoolClient = createConsoleClient(userPool, url, options);
  addConsoleStage(api, apiLogs, options.rateLimit ?? 20);
  addConsoleRoutes(api, { userPool, userPoolClient, management });
  deployConsoleFiles(scope, { bucket, distribution, cognitoOrigin, userPoolClient, url });

  new CfnOutput(scope, 'ConsoleUrl', { value: url, description: 'The operator console (Cognito sign-in)' });
  new CfnOutput(scope, 'ConsoleUserPoolId', {
    value: userPool.userPoolId,
    description:
      'Invite operators: aws cognito-idp admin-create-user --user-pool-id <this> --username <email>',
  });
  suppressConsoleFindings(scope, { bucket, distribution, options });
  return { userPool, userPoolClient, userPoolDomain, api, bucket, distribution, url };
}

/**
 * The Cognito domain prefix (given, else the default), refused at synth when Cognito would refuse it;
 * and a console domain's certificate, refused unless it is in us-east-1.
 */
function checkedDomainPrefix(scope: Construct, options: RelayConsoleOptions): string {
  const domainPrefix = options.domainPrefix ?? consoleDomainPrefix(Stack.of(scope));
  const prefixProblem = Token.isUnresolved(domainPrefix) ? undefined : domainPrefixProblem(domainPrefix);
  if (prefixProblem) throw new Error(`console.domainPrefix "${domainPrefix}": ${prefixProblem}`);
  const certificateArn = options.domain?.certificate.certificateArn;
  if (certificateArn && !Token.isUnresolved(certificateArn) && certificateArn.split(':')[3] !== 'us-east-1')
    throw new Error(
      `console.domain.certificate: CloudFront takes certificates from us-east-1 only (got ${certificateArn})`,
    );
  return domainPrefix;
}

/** The operators' user pool: invited users only, MFA required, a group per role, the hosted UI's domain. */
function createConsoleUserPool(
  scope: Construct,
  domainPrefix: string,
  removalPolicy: RemovalPolicy,
): { userPool: cognito.UserPool; userPoolDomain: cognito.UserPoolDomain } {
  const userPool = new cognito.UserPool(scope, 'ConsoleUserPool', {
    // Operators are invited by an administrator (docs/console.md), never signing themselves up.
    selfSignUpEnabled: false,
    signInAliases: { email: true },
    autoVerify: { email: true },
    mfa: cognito.Mfa.REQUIRED,
    mfaSecondFactor: { otp: true, sms: false },
    passwordPolicy: {
      minLength: 12,
      requireDigits: true,
      requireLowercase: true,
      requireUppercase: true,
      requireSymbols: true,
      tempPasswordValidity: Duration.days(3),
    },
    accountRecovery: cognito.AccountRecovery.EMAIL_ONLY,
    featurePlan: cognito.FeaturePlan.PLUS,
    standardThreatProtectionMode: cognito.StandardThreatProtectionMode.FULL_FUNCTION,
    removalPolicy,
  });
  // The roles (docs/roles-and-audit.md): a user's highest group is their role; in none, a viewer.
  for (const [role, description] of CONSOLE_GROUPS)
    new cognito.CfnUserPoolGroup(scope, `ConsoleGroup${role[0]!.toUpperCase()}${role.slice(1)}`, {
      userPoolId: userPool.userPoolId,
      groupName: role,
      description,
    });
  const userPoolDomain = userPool.addDomain('ConsoleUserPoolDomain', {
    cognitoDomain: { domainPrefix },
  });
  return { userPool, userPoolDomain };
}

/**
 * The console's CloudFront distribution: the bucket's files, and the console API under /v1/* on the same
 * origin, both with headers that let the page talk to its API and the hosted UI only.
 */
function createConsoleDistribution(
  scope: Construct,
  parts: { bucket: s3.Bucket; apiDomain: string; cognitoOrigin: string; options: RelayConsoleOptions },
): cloudfront.Distribution {
  const { cognitoOrigin, options } = parts;
  const headers = new cloudfront.ResponseHeadersPolicy(scope, 'ConsoleHeaders', {
    comment: 'Relay console: the page may talk to its API and the Cognito hosted UI only',
    securityHeadersBehavior: {
      contentSecurityPolicy: {
        contentSecurityPolicy: [
          "default-src 'none'",
          "script-src 'self'",
          "style-src 'self'",
          "img-src 'self' data:",
          `connect-src 'self' ${cognitoOrigin}`,
          `form-action 'self' ${cognitoOrigin}`,
          "frame-ancestors 'none'",
          "base-uri 'none'",
        ].join('; '),
        override: true,
      },
      contentTypeOptions: { override: true },
      frameOptions: { frameOption: cloudfront.HeadersFrameOption.DENY, override: true },
      referrerPolicy: { referrerPolicy: cloudfront.HeadersReferrerPolicy.NO_REFERRER, override: true },
      strictTransportSecurity: {
        accessControlMaxAge: Duration.days(365),
        includeSubdomains: true,
        override: true,
      },
    },
  });
  return new cloudfront.Distribution(scope, 'ConsoleDistribution', {
    comment: 'Mobile-money relay operator console',
    defaultRootObject: 'index.html',
    defaultBehavior: {
      origin: cloudfrontOrigins.S3BucketOrigin.withOriginAccessControl(parts.bucket),
      viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      responseHeadersPolicy: headers,
      cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
    },
    // The console API on the page's own origin: no CORS, and the web ACL (if any) in front of it too.
    additionalBehaviors: {
      '/v1/*': {
        origin: new cloudfrontOrigins.HttpOrigin(parts.apiDomain, {
          protocolPolicy: cloudfront.OriginProtocolPolicy.HTTPS_ONLY,
          originSslProtocols: [cloudfront.OriginSslPolicy.TLS_V1_2],
        }),
        viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
        allowedMethods: cloudfront.AllowedMethods.ALLOW_ALL,
        cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
        // Authorization and the query string reach the API; API Gateway refuses a foreign Host.
        originRequestPolicy: cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
        responseHeadersPolicy: headers,
      },
    },
    ...(options.webAclArn ? { webAclId: options.webAclArn } : {}),
    ...(options.domain
      ? {
          domainNames: [options.domain.domainName],
          certificate: options.domain.certificate,
          minimumProtocolVersion: cloudfront.SecurityPolicyProtocol.TLS_V1_2_2021,
        }
      : {}),
  });
}

/** The console's own domain: alias records in its hosted zone, else an output naming the CNAME target. */
function pointConsoleDomain(
  scope: Construct,
  distribution: cloudfront.Distribution,
  domain: RelayConsoleDomain | undefined,
): void {
  if (domain?.hostedZone) {
    const target = route53.RecordTarget.fromAlias(new route53Targets.CloudFrontTarget(distribution));
    const record = { zone: domain.hostedZone, recordName: domain.domainName, target };
    new route53.ARecord(scope, 'ConsoleDomainAlias', record);
    new route53.AaaaRecord(scope, 'ConsoleDomainAliasIpv6', record);
  } else if (domain) {
    new CfnOutput(scope, 'ConsoleDomainTarget', {
      value: distribution.distributionDomainName,
      description: `Point ${domain.domainName} here (a CNAME)`,
    });
  }
}

/** The page's app client: a public client (no secret), authorization code with PKCE, one-hour tokens. */
function createConsoleClient(
  userPool: cognito.UserPool,
  url: string,
  options: RelayConsoleOptions,
): cognito.UserPoolClient {
  return userPool.addClient('ConsoleClient', {
    generateSecret: false,
    preventUserExistenceErrors: true,
    authFlows: {},
    oAuth: {
      flows: { authorizationCodeGrant: true },
      scopes: [cognito.OAuthScope.OPENID, cognito.OAuthScope.EMAIL],
      callbackUrls: [url, ...(options.callbackUrls ?? [])],
      logoutUrls: [url, ...(options.callbackUrls ?? [])],
    },
    supportedIdentityProviders: [
      cognito.UserPoolClientIdentityProvider.COGNITO,
      ...(options.identityProviders ?? []),
    ],
    accessTokenValidity: Duration.hours(1),
    idTokenValidity: Duration.hours(1),
    refreshTokenValidity: Duration.hours(8),
    enableTokenRevocation: true,
  });
}

/** The console API's `$default` stage: its throttle (burst twice the rate) and an access log naming the user. */
function addConsoleStage(api: apigwv2.HttpApi, apiLogs: logs.LogGroup, rateLimit: number): void {
  api.addStage('ConsoleStage', {
    stageName: '$default',
    autoDeploy: true,
    throttle: { rateLimit, burstLimit: rateLimit * 2 },
    accessLogSettings: {
      destination: new apigwv2.LogGroupLogDestination(apiLogs),
      format: AccessLogFormat.custom(
        JSON.stringify({
          requestId: '$context.requestId',
          requestTime: '$context.requestTime',
          sourceIp: '$context.identity.sourceIp',
          // Who did it: the Cognito user (a resolve names its operator here and in its note).
          user: '$context.authorizer.claims.sub',
          routeKey: '$context.routeKey',
          status: '$context.status',
          responseLatency: '$context.responseLatency',
          authorizerError: '$context.authorizer.error',
          error: '$context.error.message',
        }),
      ),
    },
  });
}

/** Every console route to the management function, each behind the user pool's JWT authorizer. */
function addConsoleRoutes(
  api: apigwv2.HttpApi,
  parts: { userPool: cognito.UserPool; userPoolClient: cognito.UserPoolClient; management: lambda.IFunction },
): void {
  const authorizer = new HttpUserPoolAuthorizer('ConsoleAuthorizer', parts.userPool, {
    userPoolClients: [parts.userPoolClient],
  });
  // One permission for the console API (not one per route): the management function's resource-based
  // policy stays under Lambda's 20 KB (infra/relay/api.ts, ManagementIntegration).
  const integration = new HttpLambdaIntegration('ConsoleIntegration', parts.management, {
    scopePermissionToRoute: false,
  });
  for (const route of CONSOLE_ROUTES)
    api.addRoutes({
      path: route.path,
      methods: [route.method as apigwv2.HttpMethod],
      integration,
      authorizer,
    });
}

/** The built page and its config.json (the hosted UI, the client) into the bucket, then the cache cleared. */
function deployConsoleFiles(
  scope: Construct,
  parts: {
    bucket: s3.Bucket;
    distribution: cloudfront.Distribution;
    cognitoOrigin: string;
    userPoolClient: cognito.UserPoolClient;
    url: string;
  },
): void {
  new s3deploy.BucketDeployment(scope, 'ConsoleDeployment', {
    destinationBucket: parts.bucket,
    sources: [
      // Built at synth time by the project's esbuild (scripts/build-console.ts).
      s3deploy.Source.asset(consoleFiles(scope)),
      s3deploy.Source.jsonData('config.json', {
        mode: 'cognito',
        // Same origin: CloudFront sends /v1/* to the console API.
        apiUrl: '',
        cognitoDomain: parts.cognitoOrigin,
        clientId: parts.userPoolClient.userPoolClientId,
        redirectUri: parts.url,
        scopes: ['openid', 'email'],
      }),
    ],
    distribution: parts.distribution,
    distributionPaths: ['/*'],
    memoryLimit: 256,
  });
}

function suppressConsoleFindings(
  scope: Construct,
  parts: { bucket: s3.Bucket; distribution: cloudfront.Distribution; options: RelayConsoleOptions },
): void {
  NagSuppressions.addResourceSuppressions(parts.bucket, [
    {
      id: 'AwsSolutions-S1',
      reason:
        'The console bucket holds three static files written only by the deployment; CloudFront reads it through origin access control and its own logs say who fetched what. Server access logs would record only CloudFront.',
    },
  ]);
  NagSuppressions.addResourceSuppressions(parts.distribution, [
    {
      id: 'AwsSolutions-CFR1',
      reason:
        'Operators sign in from wherever they are on call; access is decided by the Cognito sign-in, not geography.',
    },
    ...(parts.options.webAclArn
      ? []
      : [
          {
            id: 'AwsSolutions-CFR2',
            reason:
              'The console is three static files; every request that does something goes to the console API, where a Cognito JWT authorizer and throttling apply. Pass console.webAclArn to attach a web ACL.',
          },
        ]),
    {
      id: 'AwsSolutions-CFR3',
      reason:
        'Static files only; the actions are logged by the console API access log with the Cognito user, and by the management function.',
    },
    ...(parts.options.domain
      ? []
      : [
          {
            id: 'AwsSolutions-CFR4',
            reason:
              'No console.domain: the default *.cloudfront.net certificate, for which CloudFront fixes the minimum at TLSv1 (modern browsers negotiate TLS 1.2+). Pass console.domain (a us-east-1 certificate) for a TLSv1.2_2021 minimum.',
          },
        ]),
  ]);
  // The BucketDeployment's provider function and its role are a singleton at stack level.
  for (const child of Stack.of(scope).node.children)
    if (child.node.id.startsWith('Custom::CDKBucketDeployment'))
      NagSuppressions.addResourceSuppressions(
        child,
        [
          {
            id: 'AwsSolutions-IAM4',
            reason: 'CDK’s BucketDeployment provider uses AWSLambdaBasicExecutionRole for its own logs.',
            appliesTo: [
              'Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole',
            ],
          },
          {
            id: 'AwsSolutions-IAM5',
            reason:
              'CDK’s BucketDeployment provider reads the CDK asset bucket and writes the console bucket (its objects: a wildcard by nature) and invalidates the distribution.',
          },
          {
            id: 'AwsSolutions-L1',
            reason: 'The runtime of CDK’s own BucketDeployment provider is chosen by aws-cdk-lib.',
          },
        ],
        true,
      );
}
