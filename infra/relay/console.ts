import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { App, CfnOutput, Duration, type RemovalPolicy, Stack } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpUserPoolAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as cloudfrontOrigins from 'aws-cdk-lib/aws-cloudfront-origins';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3deploy from 'aws-cdk-lib/aws-s3-deployment';
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';
import { buildConsoleInto } from '../../scripts/build-console';
import { PREBUILT_ASSETS_DIR } from '../bundling';

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
   * the region.
   */
  readonly domainPrefix: string;
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
 * The routes the console calls: the management function's reads and the operator's actions, never
 * registration (partners register over IAM).
 */
export const CONSOLE_ROUTES = [
  { method: 'GET', path: '/v1/transactions' },
  { method: 'GET', path: '/v1/transactions/{proxy+}' },
  { method: 'POST', path: '/v1/transactions/{provider}/{account}/{reference}/check' },
  { method: 'POST', path: '/v1/transactions/{provider}/{account}/{reference}/resolve' },
  { method: 'GET', path: '/v1/reconciliation/report' },
  { method: 'GET', path: '/v1/report' },
  { method: 'GET', path: '/v1/quarantine' },
  { method: 'GET', path: '/v1/callback-health' },
  { method: 'GET', path: '/v1/badges' },
  { method: 'GET', path: '/v1/me' },
  { method: 'GET', path: '/v1/approvals' },
  { method: 'POST', path: '/v1/approvals/{id}/approve' },
  { method: 'POST', path: '/v1/approvals/{id}/reject' },
  { method: 'GET', path: '/v1/audit' },
] as const;

/** The Cognito groups the relay reads as roles (shared/domain/actor.ts ROLES), least to most. */
export const CONSOLE_GROUPS = [
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
    removalPolicy: settings.removalPolicy,
  });
  // The roles (docs/roles-and-audit.md): a user's highest group is their role; in none, a viewer.
  for (const [role, description] of CONSOLE_GROUPS)
    new cognito.CfnUserPoolGroup(scope, `ConsoleGroup${role[0]!.toUpperCase()}${role.slice(1)}`, {
      userPoolId: userPool.userPoolId,
      groupName: role,
      description,
    });
  const userPoolDomain = userPool.addDomain('ConsoleUserPoolDomain', {
    cognitoDomain: { domainPrefix: options.domainPrefix },
  });

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
  const cognitoOrigin = `https://${options.domainPrefix}.auth.${region}.amazoncognito.com`;
  const apiDomain = `${api.apiId}.execute-api.${region}.${Stack.of(scope).urlSuffix}`;

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
  const distribution = new cloudfront.Distribution(scope, 'ConsoleDistribution', {
    comment: 'Mobile-money relay operator console',
    defaultRootObject: 'index.html',
    defaultBehavior: {
      origin: cloudfrontOrigins.S3BucketOrigin.withOriginAccessControl(bucket),
      viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      responseHeadersPolicy: headers,
      cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
    },
    // The console API on the page's own origin: no CORS, and the web ACL (if any) in front of it too.
    additionalBehaviors: {
      '/v1/*': {
        origin: new cloudfrontOrigins.HttpOrigin(apiDomain, {
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
  });
  const url = `https://${distribution.distributionDomainName}/`;

  const userPoolClient = userPool.addClient('ConsoleClient', {
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

  api.addStage('ConsoleStage', {
    stageName: '$default',
    autoDeploy: true,
    throttle: { rateLimit: options.rateLimit ?? 20, burstLimit: (options.rateLimit ?? 20) * 2 },
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
  const authorizer = new HttpUserPoolAuthorizer('ConsoleAuthorizer', userPool, {
    userPoolClients: [userPoolClient],
  });
  const integration = new HttpLambdaIntegration('ConsoleIntegration', management);
  for (const route of CONSOLE_ROUTES)
    api.addRoutes({
      path: route.path,
      methods: [route.method as apigwv2.HttpMethod],
      integration,
      authorizer,
    });

  new s3deploy.BucketDeployment(scope, 'ConsoleDeployment', {
    destinationBucket: bucket,
    sources: [
      // Built at synth time by the project's esbuild (scripts/build-console.ts).
      s3deploy.Source.asset(consoleFiles(scope)),
      s3deploy.Source.jsonData('config.json', {
        mode: 'cognito',
        // Same origin: CloudFront sends /v1/* to the console API.
        apiUrl: '',
        cognitoDomain: cognitoOrigin,
        clientId: userPoolClient.userPoolClientId,
        redirectUri: url,
        scopes: ['openid', 'email'],
      }),
    ],
    distribution,
    distributionPaths: ['/*'],
    memoryLimit: 256,
  });

  new CfnOutput(scope, 'ConsoleUrl', { value: url, description: 'The operator console (Cognito sign-in)' });
  new CfnOutput(scope, 'ConsoleUserPoolId', {
    value: userPool.userPoolId,
    description:
      'Invite operators: aws cognito-idp admin-create-user --user-pool-id <this> --username <email>',
  });
  suppressConsoleFindings(scope, { bucket, distribution, options });
  return { userPool, userPoolClient, userPoolDomain, api, bucket, distribution, url };
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
    {
      id: 'AwsSolutions-CFR4',
      reason:
        'The default *.cloudfront.net certificate: CloudFront then negotiates TLS 1.2+ with every modern browser but reports TLSv1 as the minimum. A custom domain with its own certificate lifts this.',
    },
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
