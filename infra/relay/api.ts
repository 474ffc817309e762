import type { RemovalPolicy } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpIamAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as route53 from 'aws-cdk-lib/aws-route53';
import * as route53Targets from 'aws-cdk-lib/aws-route53-targets';
import type { Construct } from 'constructs';
import type { RelayDecisionFunction } from './functions';
import {
  CALLBACK_INTEGRATION_TIMEOUT,
  DEFAULT_CALLBACK_THROTTLE,
  DEFAULT_MANAGEMENT_THROTTLE,
  providerThrottles,
} from './limits';
import type { MobileMoneyRelayProps, RelayCustomDomain } from './props';
import { MANAGEMENT_ROUTE_TABLE } from '../../shared/config/management-routes';

/**
 * The management routes on the partner API, each behind IAM: every route of the table
 * (shared/config/management-routes.ts). `operator: false`: in the partner grant too (register, read).
 */
export const MANAGEMENT_ROUTES: ReadonlyArray<{ method: 'GET' | 'POST'; path: string; operator: boolean }> =
  MANAGEMENT_ROUTE_TABLE.map((route) => ({
    method: route.method,
    path: route.path,
    operator: !route.partner,
  }));

export interface RelayHttpApi {
  readonly api: apigwv2.HttpApi;
  readonly stage: apigwv2.HttpStage;
  readonly domainName: apigwv2.DomainName | undefined;
  readonly accessLogs: logs.LogGroup;
  /** The provider and decision routes (public, like `$default`). */
  readonly publicRoutes: apigwv2.HttpRoute[];
}

/** Route keys of a provider's callback routes and of its decision routes (with and without a path secret). */
function providerRouteKeys(provider: string): string {
  return `ANY /v1/${provider}/{proxy+}`;
}
function decisionRouteKeys(route: Pick<RelayDecisionFunction, 'method' | 'provider' | 'path'>): string[] {
  return [
    `${route.method} /v1/${route.provider}/{account}/${route.path}`,
    `${route.method} /v1/${route.provider}/{account}/{secret}/${route.path}`,
  ];
}

type Throttle = { rateLimit: number; burstLimit: number };
/** Route keys that share one throttle. */
type ThrottledRoutes = { keys: string[]; throttle: Throttle };

/**
 * The HTTP API: provider callbacks (public: providers cannot sign requests, so the handler
 * authenticates them) on one route per provider, each with its own throttle, and each decision route
 * (e.g. C2B validation) on its own function and throttle; `$default` (the stage throttle) for
 * any other path; the management routes behind IAM with their own throttling, access logs without
 * paths, and the optional custom domain. With `disableExecuteApiEndpoint` (CloudFront in front and a
 * custom domain) only the custom domain reaches the API.
 */
export function createHttpApi(
  scope: Construct,
  fns: {
    callback: lambda.IFunction;
    management: lambda.IFunction;
    decisions?: ReadonlyArray<RelayDecisionFunction>;
  },
  props: Pick<
    MobileMoneyRelayProps,
    'customDomain' | 'throttle' | 'managementThrottle' | 'providerThrottles'
  > & {
    disableExecuteApiEndpoint?: boolean;
    providers: readonly string[];
    /** The origin check in front of every public route (infra/relay/edge.ts); management keeps IAM. */
    originAuthorizer?: apigwv2.IHttpRouteAuthorizer;
  },
  logging: { retention: logs.RetentionDays; removalPolicy: RemovalPolicy },
): RelayHttpApi {
  const accessLogs = new logs.LogGroup(scope, 'ApiAccessLogs', {
    retention: logging.retention,
    removalPolicy: logging.removalPolicy,
  });
  const callbackIntegration = new HttpLambdaIntegration('CallbackIntegration', fns.callback, {
    timeout: CALLBACK_INTEGRATION_TIMEOUT,
  });
  const api = new apigwv2.HttpApi(scope, 'Api', {
    description: 'Mobile-money callback relay: provider callbacks ($default) and the management API (IAM)',
    createDefaultStage: false,
    // Everything that is not the management API is a provider callback; providers cannot sign
    // requests, so the handler authenticates them (each provider module's own checks).
    defaultIntegration: callbackIntegration,
    ...(props.disableExecuteApiEndpoint ? { disableExecuteApiEndpoint: true } : {}),
    // Every route without its own authorizer ($default, the provider and decision routes).
    ...(props.originAuthorizer ? { defaultAuthorizer: props.originAuthorizer } : {}),
  });
  const providers = addProviderRoutes(api, callbackIntegration, props);
  const decisions = addDecisionRoutes(api, fns.decisions ?? []);
  // One permission for the API, not one per route: Lambda keeps a function's resource-based policy
  // under 20 KB, and a statement per management route (about 600 bytes each) passes it with the console's.
  // API Gateway invokes the function only from the routes integrated with it.
  const management = new HttpLambdaIntegration('ManagementIntegration', fns.management, {
    scopePermissionToRoute: false,
  });
  const iamAuthorizer = new HttpIamAuthorizer();
  const managementRoutes = MANAGEMENT_ROUTES.flatMap((route) =>
    api.addRoutes({
      path: route.path,
      methods: [route.method as apigwv2.HttpMethod],
      integration: management,
      authorizer: iamAuthorizer,
    }),
  );
  const domainName = props.customDomain
    ? new apigwv2.DomainName(scope, 'CustomDomain', {
        domainName: props.customDomain.domainName,
        certificate: props.customDomain.certificate,
        securityPolicy: apigwv2.SecurityPolicy.TLS_1_2,
      })
    : undefined;
  const stage = addDefaultStage(api, accessLogs, domainName, props.throttle ?? DEFAULT_CALLBACK_THROTTLE);
  const publicRoutes = [...providers.routes, ...decisions.routes];
  throttleRoutes(
    stage,
    props.managementThrottle ?? DEFAULT_MANAGEMENT_THROTTLE,
    [...providers.throttled, ...decisions.throttled],
    [...managementRoutes, ...publicRoutes],
  );
  return { api, stage, domainName, accessLogs, publicRoutes };
}

/** Routes, and the throttles their keys get (route settings). */
type ThrottledRouteGroup = { routes: apigwv2.HttpRoute[]; throttled: ThrottledRoutes[] };

/**
 * One route per provider, so each gets its own throttle (route settings) and one provider's flood
 * cannot use another's share of the callback function's concurrency.
 */
function addProviderRoutes(
  api: apigwv2.HttpApi,
  callbackIntegration: HttpLambdaIntegration,
  props: Pick<MobileMoneyRelayProps, 'providerThrottles'> & { providers: readonly string[] },
): ThrottledRouteGroup {
  const throttled: ThrottledRoutes[] = [];
  const routes = providerThrottles(props.providerThrottles, props.providers).flatMap(
    ({ provider, throttle }) => {
      throttled.push({ keys: [providerRouteKeys(provider)], throttle });
      return api.addRoutes({
        path: `/v1/${provider}/{proxy+}`,
        methods: [apigwv2.HttpMethod.ANY],
        integration: callbackIntegration,
      });
    },
  );
  return { routes, throttled };
}

/** Each decision route (with and without a path secret) on its own function, with its own throttle. */
function addDecisionRoutes(
  api: apigwv2.HttpApi,
  decisions: ReadonlyArray<RelayDecisionFunction>,
): ThrottledRouteGroup {
  const throttled: ThrottledRoutes[] = [];
  const routes = decisions.flatMap((decision) => {
    const integration = new HttpLambdaIntegration(`${decision.id}Integration`, decision.fn, {
      timeout: CALLBACK_INTEGRATION_TIMEOUT,
    });
    const keys = decisionRouteKeys(decision);
    throttled.push({ keys, throttle: decision.throttle });
    return keys.flatMap((key) =>
      api.addRoutes({
        path: key.slice(key.indexOf(' ') + 1),
        methods: [decision.method as apigwv2.HttpMethod],
        integration,
      }),
    );
  });
  return { routes, throttled };
}

/**
 * What an access log line holds. No $context.path: callback paths can carry a per-account path secret.
 * A line per callback is billed by the byte: what an operator reads (who, which route, what answer, how
 * long, what failed) and no more: the time is the log event's own, the protocol and response length tell
 * nothing, and responseLatency holds the integration's time (integrationStatus says whether the function
 * failed).
 */
const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  sourceIp: '$context.identity.sourceIp',
  userAgent: '$context.identity.userAgent',
  caller: '$context.identity.userArn',
  method: '$context.httpMethod',
  routeKey: '$context.routeKey',
  status: '$context.status',
  responseLatency: '$context.responseLatency',
  integrationStatus: '$context.integrationStatus',
  integrationError: '$context.integrationErrorMessage',
  authorizerError: '$context.authorizer.error',
  error: '$context.error.message',
};

/** The `$default` stage: the stage throttle, the access logs, and the custom domain's mapping. */
function addDefaultStage(
  api: apigwv2.HttpApi,
  accessLogs: logs.LogGroup,
  domainName: apigwv2.DomainName | undefined,
  throttle: Throttle,
): apigwv2.HttpStage {
  return api.addStage('DefaultStage', {
    stageName: '$default',
    autoDeploy: true,
    throttle,
    domainMapping: domainName ? { domainName } : undefined,
    accessLogSettings: {
      destination: new apigwv2.LogGroupLogDestination(accessLogs),
      format: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
    },
  });
}

/**
 * Per-route throttling: the management routes get their own (lower) limits; `$default` keeps the
 * stage default. Route settings name route keys, so the stage waits for the routes.
 */
function throttleRoutes(
  stage: apigwv2.HttpStage,
  managementThrottle: Throttle,
  throttled: ThrottledRoutes[],
  routes: apigwv2.HttpRoute[],
): void {
  const cfnStage = stage.node.defaultChild as apigwv2.CfnStage;
  const settings = (throttle: Throttle) => ({
    // RouteSettings is free-form JSON in CloudFormation's own (PascalCase) spelling.
    ThrottlingRateLimit: throttle.rateLimit,
    ThrottlingBurstLimit: throttle.burstLimit,
  });
  cfnStage.routeSettings = Object.fromEntries([
    ...MANAGEMENT_ROUTES.map((route) => [`${route.method} ${route.path}`, settings(managementThrottle)]),
    ...throttled.flatMap(({ keys, throttle }) => keys.map((key) => [key, settings(throttle)])),
  ]);
  for (const route of routes) cfnStage.node.addDependency(route);
}

/** A and AAAA alias records for the custom domain, when a hosted zone is given. */
export function addCustomDomainRecords(
  scope: Construct,
  customDomain: RelayCustomDomain | undefined,
  domainName: apigwv2.DomainName | undefined,
): void {
  if (!customDomain?.hostedZone || !domainName) return;
  const target = route53.RecordTarget.fromAlias(
    new route53Targets.ApiGatewayv2DomainProperties(
      domainName.regionalDomainName,
      domainName.regionalHostedZoneId,
    ),
  );
  const zone = customDomain.hostedZone;
  new route53.ARecord(scope, 'CustomDomainAlias', { zone, recordName: customDomain.domainName, target });
  new route53.AaaaRecord(scope, 'CustomDomainAliasIpv6', {
    zone,
    recordName: customDomain.domainName,
    target,
  });
}

/** `execute-api:Invoke` on the management routes (`operator: false`: without the operator routes). */
export function grantManagementRoutes(
  api: apigwv2.HttpApi,
  grantee: iam.IGrantable,
  options: { operator?: boolean },
): iam.Grant {
  const routes = MANAGEMENT_ROUTES.filter((route) => (options.operator ?? true) || !route.operator);
  return iam.Grant.addToPrincipal({
    grantee,
    actions: ['execute-api:Invoke'],
    resourceArns: routes.map((route) =>
      api.arnForExecuteApi(route.method, route.path.replace(/\{[^}]+\}/g, '*'), '$default'),
    ),
  });
}
