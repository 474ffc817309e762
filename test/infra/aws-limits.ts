/**
 * The AWS limits a synthesized template must stay inside to deploy (CloudFormation, IAM, Lambda,
 * CloudWatch), checked on the template as `cdk synth` writes it. Every limit names its source; values
 * that CloudFormation resolves at deploy (Ref, Fn::GetAtt, Fn::Join, pseudo parameters) are replaced by
 * the longest value they can plausibly take, so a size counted here is an upper bound, not a guess low.
 */

/** Published limits, by what they apply to (docs/deploy.md#sizes-and-limits). */
export const AWS_LIMITS = {
  /** CloudFormation quotas: template body in S3 (CDK uploads it), resources, outputs, parameters, mappings. */
  templateBytes: 1_000_000,
  resources: 500,
  outputs: 200,
  parameters: 200,
  mappings: 200,
  logicalIdLength: 255,
  /** IAM: inline policies of one role together, whitespace excluded; one managed policy; managed policies per role. */
  roleInlinePolicyChars: 10_240,
  managedPolicyChars: 6_144,
  managedPoliciesPerRole: 10,
  /** Lambda: environment variables of one function (keys and values), layers per function. */
  lambdaEnvironmentBytes: 4_096,
  lambdaLayers: 5,
  /** CloudWatch: alarm description; metric and expression queries of a metric math alarm; composite rule. */
  alarmDescriptionChars: 1_024,
  alarmMetricStats: 10,
  alarmExpressions: 10,
  /**
   * A metric math expression (docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_MetricDataQuery.html):
   * 2,048 characters, in an alarm's queries (PutMetricAlarm) and in a dashboard graph, which the console
   * draws with GetMetricData's queries of the same type.
   */
  metricMathExpressionChars: 2_048,
  compositeAlarmRuleChars: 10_240,
  /** CloudWatch dashboards: widgets per dashboard, metrics per graph widget and per dashboard. */
  dashboardWidgets: 500,
  dashboardWidgetMetrics: 500,
  dashboardMetrics: 2_500,
  /**
   * Lambda (docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html): a function's resource-based
   * policy, 20 KB, not adjustable (every AWS::Lambda::Permission adds a statement: API Gateway, EventBridge,
   * S3); memory 128–10,240 MB; timeout 900 s; description 256; name 64; and the account's concurrency
   * (1,000 by default) of which 100 must stay unreserved: at most 900 reserved by one stack.
   */
  lambdaResourcePolicyBytes: 20_480,
  lambdaMemoryMb: [128, 10_240],
  lambdaTimeoutSeconds: 900,
  lambdaDescriptionChars: 256,
  lambdaReservedConcurrencyTotal: 900,
  /** SQS queue policy (docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/quotas-policies.html). */
  sqsPolicyBytes: 8_192,
  sqsPolicyStatements: 20,
  /** The same page: principals in one policy (every statement's together), actions in one statement. */
  sqsPolicyPrincipals: 50,
  sqsPolicyStatementActions: 7,
  /** EventBridge (docs.aws.amazon.com/eventbridge/latest/userguide/eb-quota.html): targets per rule, rules per bus, bus policy. */
  eventRuleTargets: 5,
  eventBusRules: 300,
  eventBusPolicyChars: 10_240,
  /** IAM (docs.aws.amazon.com/IAM/latest/UserGuide/reference_iam-quotas.html): a role's trust policy (default quota). */
  roleTrustPolicyChars: 2_048,
  /** HTTP API, per API (docs.aws.amazon.com/apigateway/latest/developerguide/http-api-quotas.html). */
  httpApiRoutes: 300,
  httpApiIntegrations: 300,
  httpApiAuthorizers: 10,
  httpApiStages: 10,
  /** CloudWatch alarms (PutMetricAlarm): name 255, 5 actions per state. */
  alarmNameChars: 255,
  alarmActionsPerState: 5,
  /** CloudWatch Logs: metric filters and subscription filters per log group. */
  logGroupMetricFilters: 100,
  logGroupSubscriptionFilters: 2,
  /** S3 bucket policy 20 KB; SNS topic policy 30 KB. */
  s3BucketPolicyBytes: 20_480,
  snsTopicPolicyBytes: 30_720,
  /**
   * CloudWatch alarms (PutMetricAlarm, docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_PutMetricAlarm.html):
   * a period of 10, 20, 30 s or a multiple of 60; period x evaluation periods at most 7 days, and at most
   * 1 day for a period under an hour. Composite alarms (API_PutCompositeAlarm.html): 100 underlying alarms
   * in one rule; one alarm in the rules of at most 150 composite alarms.
   */
  alarmEvaluationSeconds: 604_800,
  alarmShortPeriodEvaluationSeconds: 86_400,
  compositeAlarmUnderlying: 100,
  compositeAlarmsPerAlarm: 150,
  /** EventBridge (docs.aws.amazon.com/eventbridge/latest/userguide/eb-quota.html): event pattern size, characters (adjustable). */
  eventPatternChars: 2_048,
  /** KMS (PutKeyPolicy, docs.aws.amazon.com/kms/latest/APIReference/API_PutKeyPolicy.html): a key policy, 32 KiB, not adjustable. */
  kmsKeyPolicyBytes: 32_768,
  /**
   * AWS WAF (docs.aws.amazon.com/waf/latest/developerguide/limits.html): addresses in one IP set; IP sets
   * per account and region (default quota: one template's count is a lower bound); reference statements
   * (to IP sets, regex pattern sets, rule groups) per web ACL; rate-based rules per web ACL and their
   * limit; text transformations per statement; a string match's search string; custom response bodies
   * per web ACL (default quota), each 4 KB and 50 KB together; custom headers per custom response and
   * per web ACL (default quota). Fixed quotas unless noted.
   */
  wafIpSetAddresses: 10_000,
  wafIpSets: 100,
  wafReferenceStatements: 50,
  wafRateBasedRules: 10,
  wafRateLimit: [10, 2_000_000_000],
  wafTextTransformations: 10,
  wafSearchStringChars: 200,
  wafCustomResponseBodies: 50,
  wafCustomResponseBodyBytes: 4_096,
  wafCustomResponseBodiesBytes: 51_200,
  wafCustomResponseHeaders: 10,
  wafWebAclCustomResponseHeaders: 100,
  /**
   * A web ACL's capacity (docs.aws.amazon.com/waf/latest/developerguide/aws-waf-capacity-units.html):
   * 1,500 WCUs at the base price; up to 5,000 (not adjustable), each 500 over 1,500 billed per request.
   * The relay stays inside the base price. Rule names 128 characters, metric names 255 (AWS::WAFv2::WebACL).
   */
  wafWebAclWcus: 1_500,
  wafRuleNameChars: 128,
  wafMetricNameChars: 255,
  /**
   * A CloudWatch metric (docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_Metric.html and
   * API_Dimension.html), wherever a template names one (an alarm, a metric math alarm's queries, a
   * dashboard graph, a log metric filter): namespace and metric name 255 characters, at most 30
   * dimensions, a dimension's name 255 and value 1,024; a metric filter at most 3 dimensions
   * (AWS::Logs::MetricFilter MetricTransformation).
   */
  metricNamespaceChars: 255,
  metricNameChars: 255,
  metricDimensions: 30,
  dimensionNameChars: 255,
  dimensionValueChars: 1_024,
  metricFilterDimensions: 3,
} as const;

/**
 * Names a template sets explicitly (CloudFormation truncates the names it generates itself), by the
 * property that holds them: each service's maximum length.
 */
const NAME_LIMITS: Record<string, [property: string, max: number]> = {
  'AWS::IAM::Role': ['RoleName', 64],
  'AWS::IAM::ManagedPolicy': ['ManagedPolicyName', 128],
  'AWS::Lambda::Function': ['FunctionName', 64],
  'AWS::SQS::Queue': ['QueueName', 80],
  'AWS::SNS::Topic': ['TopicName', 256],
  'AWS::Events::Rule': ['Name', 64],
  'AWS::Events::EventBus': ['Name', 256],
  'AWS::Events::Archive': ['ArchiveName', 48],
  'AWS::Scheduler::Schedule': ['Name', 64],
  'AWS::Logs::LogGroup': ['LogGroupName', 512],
  'AWS::CloudWatch::Alarm': ['AlarmName', 255],
  'AWS::CloudWatch::CompositeAlarm': ['AlarmName', 255],
  'AWS::CloudWatch::Dashboard': ['DashboardName', 255],
  'AWS::S3::Bucket': ['BucketName', 63],
  'AWS::DynamoDB::Table': ['TableName', 255],
};

/** Lambda caps a permission's statement id at 100 characters; CloudFormation derives it from the stack name. */
const LAMBDA_STATEMENT_ID = 'S'.repeat(100);

type Template = {
  Resources?: Record<string, { Type: string; Properties?: Record<string, any> }>;
  Outputs?: Record<string, unknown>;
  Parameters?: Record<string, unknown>;
  Mappings?: Record<string, unknown>;
};

/** The longest value each pseudo parameter takes in any partition and region. */
const PSEUDO: Record<string, string> = {
  'AWS::Partition': 'aws-iso-b',
  'AWS::Region': 'ap-southeast-5',
  'AWS::AccountId': '123456789012',
  'AWS::URLSuffix': 'amazonaws.com.cn',
  'AWS::StackName': 'S'.repeat(128),
  'AWS::StackId': `arn:aws-iso-b:cloudformation:ap-southeast-5:123456789012:stack/${'S'.repeat(128)}/00000000-0000-0000-0000-000000000000`,
  'AWS::NoValue': '',
};

/**
 * A resource's Ref or attribute: an ARN or name CloudFormation generates from the stack name (up to
 * 128 characters) and the logical id, capped by what services allow (an ARN of 256 characters covers
 * the generated names of every resource type the relay uses).
 */
const RESOURCE_VALUE = 'r'.repeat(256);

/** The longest ARN prefix: partition, region and account at their longest. */
const ARN_PREFIX = (service: string) => `arn:aws-iso-b:${service}:ap-southeast-5:123456789012:`;
/**
 * Tighter bounds where the service caps the name: an SQS queue name is at most 80 characters, a Lambda
 * function name 64, an HTTP API id 10 (by resource type and attribute; `Ref` is ''). Every other Ref or
 * attribute takes RESOURCE_VALUE.
 */
const BOUNDED: Record<string, string> = {
  'AWS::SQS::Queue|Arn': ARN_PREFIX('sqs') + 'q'.repeat(80),
  'AWS::SQS::Queue|QueueName': 'q'.repeat(80),
  'AWS::SQS::Queue|': 'https://sqs.ap-southeast-5.amazonaws.com.cn/123456789012/' + 'q'.repeat(80),
  'AWS::Lambda::Function|Arn': ARN_PREFIX('lambda') + 'function:' + 'f'.repeat(64),
  'AWS::Lambda::Function|': 'f'.repeat(64),
  'AWS::ApiGatewayV2::Api|': 'a'.repeat(10),
};
/** The resource types of the template being checked, by logical id (checkAwsLimits sets them). */
let resourceTypes: Record<string, string> = {};
const valueOf = (id: unknown, attribute = '') =>
  BOUNDED[`${resourceTypes[String(id)]}|${attribute}`] ?? RESOURCE_VALUE;

/** The template value as deployed, every intrinsic replaced by its longest plausible value. */
export function resolveIntrinsics(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(resolveIntrinsics);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 1) {
    const [key, arg] = entries[0]!;
    if (key === 'Ref') return PSEUDO[arg as string] ?? valueOf(arg);
    if (key === 'Fn::GetAtt') {
      const [id, attribute] = (Array.isArray(arg) ? arg : String(arg).split('.')) as [string, string];
      return valueOf(id, attribute);
    }
    if (key === 'Fn::ImportValue') return RESOURCE_VALUE;
    if (key === 'Fn::Join') {
      const [sep, parts] = arg as [string, unknown[]];
      const resolved = resolveIntrinsics(parts);
      return (Array.isArray(resolved) ? resolved : [RESOURCE_VALUE]).map(String).join(sep);
    }
    if (key === 'Fn::Sub') {
      const [text, vars] = (Array.isArray(arg) ? arg : [arg, {}]) as [string, Record<string, unknown>];
      return text.replace(/\$\{([^}!]+)\}/g, (_, name: string) =>
        name in (vars ?? {})
          ? String(resolveIntrinsics(vars[name]))
          : (PSEUDO[name] ?? valueOf(...(name.split('.') as [string, string]))),
      );
    }
    if (key === 'Fn::Select') {
      const [index, list] = arg as [number, unknown];
      const resolved = resolveIntrinsics(list);
      return Array.isArray(resolved) ? resolved[Number(index)] : RESOURCE_VALUE;
    }
    if (key === 'Fn::If') {
      const [, a, b] = arg as [string, unknown, unknown];
      const [ra, rb] = [resolveIntrinsics(a), resolveIntrinsics(b)];
      return JSON.stringify(ra ?? '').length >= JSON.stringify(rb ?? '').length ? ra : rb;
    }
    if (key === 'Fn::Base64' || key === 'Fn::GetAZs' || key === 'Fn::Split' || key === 'Fn::FindInMap')
      return RESOURCE_VALUE;
  }
  return Object.fromEntries(entries.map(([k, v]) => [k, resolveIntrinsics(v)]));
}

/** IAM counts a policy's characters without whitespace. */
const policyChars = (document: unknown) =>
  JSON.stringify(resolveIntrinsics(document)).replace(/\s/g, '').length;

const refsOf = (list: unknown): string[] =>
  (Array.isArray(list) ? list : []).flatMap((r) => (r && typeof r === 'object' && 'Ref' in r ? [r.Ref] : []));

type Resources = NonNullable<Template['Resources']>;
type Over = (what: string, size: number, limit: number) => void;
const bytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(resolveIntrinsics(value)));
/** The logical id a Ref or Fn::GetAtt points at, else the value as text (an imported name or ARN). */
const targetOf = (value: unknown): string => {
  if (value && typeof value === 'object') {
    if ('Ref' in value) return String(value.Ref);
    if ('Fn::GetAtt' in value) return String((value['Fn::GetAtt'] as unknown[])[0]);
  }
  return JSON.stringify(value);
};
const countBy = (keys: string[]) =>
  keys.reduce((m, k) => m.set(k, (m.get(k) ?? 0) + 1), new Map<string, number>());

/**
 * Each function's resource-based policy as Lambda builds it from the template's AWS::Lambda::Permission
 * resources (one statement each, its id CloudFormation's 100-character maximum), in bytes.
 */
export function lambdaResourcePolicies(resources: Resources): Map<string, number> {
  const statements = new Map<string, unknown[]>();
  for (const r of Object.values(resources)) {
    if (r.Type !== 'AWS::Lambda::Permission') continue;
    const p = r.Properties ?? {};
    const condition: Record<string, unknown> = {};
    if (p.SourceArn) condition.ArnLike = { 'AWS:SourceArn': p.SourceArn };
    if (p.SourceAccount) condition.StringEquals = { 'AWS:SourceAccount': p.SourceAccount };
    const principal = String(p.Principal ?? '').endsWith('.amazonaws.com')
      ? { Service: p.Principal }
      : { AWS: p.Principal };
    const fn = targetOf(p.FunctionName);
    statements.set(fn, [
      ...(statements.get(fn) ?? []),
      {
        Sid: LAMBDA_STATEMENT_ID,
        Effect: 'Allow',
        Principal: principal,
        Action: p.Action,
        Resource: p.FunctionName,
        ...(Object.keys(condition).length ? { Condition: condition } : {}),
      },
    ]);
  }
  return new Map(
    [...statements].map(([fn, list]) => [
      fn,
      bytesOf({ Version: '2012-10-17', Id: 'default', Statement: list }),
    ]),
  );
}

/** Lambda: resource-based policies, memory, timeout, description, the stack's reserved concurrency. */
function checkLambda(resources: Resources, over: Over) {
  const L = AWS_LIMITS;
  const policies = lambdaResourcePolicies(resources);
  for (const [fn, bytes] of policies)
    over(`resource-based policy of ${fn} (bytes)`, bytes, L.lambdaResourcePolicyBytes);
  let reserved = 0;
  for (const [id, r] of Object.entries(resources)) {
    if (r.Type !== 'AWS::Lambda::Function') continue;
    const p = r.Properties ?? {};
    reserved += Number(p.ReservedConcurrentExecutions ?? 0);
    const memory = Number(p.MemorySize ?? 128);
    if (memory < L.lambdaMemoryMb[0]) over(`memory of ${id} below ${L.lambdaMemoryMb[0]} (MB)`, 1, 0);
    over(`memory of ${id} (MB)`, memory, L.lambdaMemoryMb[1]);
    over(`timeout of ${id} (s)`, Number(p.Timeout ?? 3), L.lambdaTimeoutSeconds);
    over(
      `description of ${id}`,
      String(resolveIntrinsics(p.Description ?? '')).length,
      L.lambdaDescriptionChars,
    );
  }
  over('reserved concurrency of the stack (executions)', reserved, L.lambdaReservedConcurrencyTotal);
  return { maxLambdaResourcePolicyBytes: Math.max(0, ...policies.values()), reservedConcurrency: reserved };
}

/** The principals a statement names: "*" one, else every AWS, Service or Federated entry. */
const principalsOf = (principal: unknown): number =>
  principal === undefined
    ? 0
    : typeof principal === 'string'
      ? 1
      : Object.values(principal as Record<string, unknown>).reduce<number>(
          (n, v) => n + [v].flat().length,
          0,
        );

/** Resource policies of queues, topics, buckets and the bus; role trust policies. */
function checkResourcePolicies(resources: Resources, over: Over) {
  const L = AWS_LIMITS;
  let maxSqsPolicyBytes = 0;
  let maxSqsPolicyStatements = 0;
  let maxTrustPolicyChars = 0;
  for (const [id, r] of Object.entries(resources)) {
    const p = r.Properties ?? {};
    if (r.Type === 'AWS::SQS::QueuePolicy') {
      const bytes = bytesOf(p.PolicyDocument);
      const statements = [p.PolicyDocument?.Statement ?? []].flat().length;
      maxSqsPolicyBytes = Math.max(maxSqsPolicyBytes, bytes);
      maxSqsPolicyStatements = Math.max(maxSqsPolicyStatements, statements);
      over(`queue policy ${id} (bytes)`, bytes, L.sqsPolicyBytes);
      over(`statements of queue policy ${id}`, statements, L.sqsPolicyStatements);
      const list = [p.PolicyDocument?.Statement ?? []].flat() as Array<Record<string, unknown>>;
      const principals = list.reduce((sum, st) => sum + principalsOf(st.Principal), 0);
      over(`principals of queue policy ${id}`, principals, L.sqsPolicyPrincipals);
      list.forEach((st, i) =>
        over(
          `actions of statement ${i} of queue policy ${id}`,
          [st.Action ?? []].flat().length,
          L.sqsPolicyStatementActions,
        ),
      );
    }
    if (r.Type === 'AWS::WAFv2::IPSet')
      over(`addresses of IP set ${id}`, (p.Addresses ?? []).length, L.wafIpSetAddresses);
    if (r.Type === 'AWS::S3::BucketPolicy')
      over(`bucket policy ${id} (bytes)`, bytesOf(p.PolicyDocument), L.s3BucketPolicyBytes);
    if (r.Type === 'AWS::SNS::TopicPolicy')
      over(`topic policy ${id} (bytes)`, bytesOf(p.PolicyDocument), L.snsTopicPolicyBytes);
    if (r.Type === 'AWS::IAM::Role') {
      const chars = policyChars(p.AssumeRolePolicyDocument);
      maxTrustPolicyChars = Math.max(maxTrustPolicyChars, chars);
      over(`trust policy of ${id} (characters)`, chars, L.roleTrustPolicyChars);
    }
  }
  return {
    maxSqsPolicyBytes,
    maxSqsPolicyStatements,
    maxTrustPolicyChars,
    ...checkBusPolicies(resources, over),
  };
}

/**
 * A bus has ONE resource policy: each AWS::Events::EventBusPolicy of a bus adds its statement to it (by
 * StatementId), so its 10,240 characters hold every statement together, counted as EventBridge stores them.
 */
function checkBusPolicies(resources: Resources, over: Over) {
  const statements = new Map<string, unknown[]>();
  for (const r of Object.values(resources)) {
    if (r.Type !== 'AWS::Events::EventBusPolicy') continue;
    const p = r.Properties ?? {};
    const bus = targetOf(p.EventBusName ?? 'default');
    const own = p.Statement ?? {
      Sid: p.StatementId,
      Effect: 'Allow',
      Principal: { AWS: p.Principal },
      Action: p.Action,
      ...(p.Condition ? { Condition: p.Condition } : {}),
    };
    statements.set(bus, [...(statements.get(bus) ?? []), own]);
  }
  let maxBusPolicyChars = 0;
  for (const [bus, list] of statements) {
    const chars = bytesOf({ Version: '2012-10-17', Statement: list });
    maxBusPolicyChars = Math.max(maxBusPolicyChars, chars);
    over(`resource policy of bus ${bus} (characters)`, chars, AWS_LIMITS.eventBusPolicyChars);
  }
  return { maxBusPolicyChars };
}

/** A metric's identity: namespace, name, dimensions (name and value), each within CloudWatch's lengths. */
function checkMetric(
  at: string,
  metric: { namespace: unknown; name: unknown; dimensions: Array<[unknown, unknown]> },
  over: Over,
) {
  const L = AWS_LIMITS;
  const text = (v: unknown) => String(resolveIntrinsics(v ?? ''));
  over(`metric namespace of ${at} (characters)`, text(metric.namespace).length, L.metricNamespaceChars);
  over(`metric name of ${at} (characters)`, text(metric.name).length, L.metricNameChars);
  over(`dimensions of a metric of ${at}`, metric.dimensions.length, L.metricDimensions);
  for (const [name, value] of metric.dimensions) {
    over(`dimension name of ${at} (characters)`, text(name).length, L.dimensionNameChars);
    over(`dimension value of ${at} (characters)`, text(value).length, L.dimensionValueChars);
  }
}

type CfnDimensions = Array<{ Name: unknown; Value: unknown }> | undefined;
const pairs = (dimensions: CfnDimensions) =>
  (dimensions ?? []).map((d): [unknown, unknown] => [d.Name, d.Value]);

/**
 * The metrics a dashboard graph names: each row `[namespace, name, dimension, value, …, {options}]`, where
 * "." repeats the previous row's value at that place; an expression row (`[{expression}]`) names none.
 */
function dashboardMetrics(rows: unknown[]) {
  const found: Array<{ namespace: unknown; name: unknown; dimensions: Array<[unknown, unknown]> }> = [];
  let previous: unknown[] = [];
  for (const row of rows) {
    if (!Array.isArray(row)) continue;
    const values = row.filter((v) => typeof v === 'string').map((v, i) => (v === '.' ? previous[i] : v));
    if (values.length < 2) continue;
    previous = values;
    const dimensions: Array<[unknown, unknown]> = [];
    for (let i = 2; i + 1 < values.length; i += 2) dimensions.push([values[i], values[i + 1]]);
    found.push({ namespace: values[0], name: values[1], dimensions });
  }
  return found;
}

/** Every metric the alarms, dashboards and log metric filters name (API_Metric's lengths and counts). */
function checkMetrics(resources: Resources, over: Over) {
  for (const [id, r] of Object.entries(resources)) {
    const p = r.Properties ?? {};
    if (r.Type === 'AWS::CloudWatch::Alarm') {
      if (p.MetricName !== undefined)
        checkMetric(
          id,
          { namespace: p.Namespace, name: p.MetricName, dimensions: pairs(p.Dimensions) },
          over,
        );
      for (const query of (p.Metrics ?? []) as Array<{ MetricStat?: { Metric?: Record<string, any> } }>) {
        const m = query.MetricStat?.Metric;
        if (m)
          checkMetric(
            id,
            { namespace: m.Namespace, name: m.MetricName, dimensions: pairs(m.Dimensions) },
            over,
          );
      }
    }
    if (r.Type === 'AWS::Logs::MetricFilter')
      for (const t of (p.MetricTransformations ?? []) as Array<Record<string, any>>) {
        const dimensions = Object.entries((t.Dimensions ?? {}) as Record<string, unknown>);
        // CloudFormation takes them as a list of {Key, Value}; CDK writes that list.
        const list = Array.isArray(t.Dimensions)
          ? (t.Dimensions as Array<{ Key: unknown; Value: unknown }>).map((d): [unknown, unknown] => [
              d.Key,
              d.Value,
            ])
          : dimensions;
        over(`dimensions of metric filter ${id}`, list.length, AWS_LIMITS.metricFilterDimensions);
        checkMetric(id, { namespace: t.MetricNamespace, name: t.MetricName, dimensions: list }, over);
      }
    if (r.Type === 'AWS::CloudWatch::Dashboard') {
      const body = JSON.parse(String(resolveIntrinsics(p.DashboardBody))) as {
        widgets?: Array<{ properties?: { metrics?: unknown[] } }>;
      };
      (body.widgets ?? []).forEach((widget, i) => {
        for (const metric of dashboardMetrics(widget.properties?.metrics ?? []))
          checkMetric(`widget ${i} of dashboard ${id}`, metric, over);
      });
    }
  }
}

/** EventBridge rules per bus and targets per rule; HTTP API routes, integrations, authorizers, stages per API. */
function checkCounts(resources: Resources, over: Over) {
  const L = AWS_LIMITS;
  const all = Object.entries(resources);
  const rules = all.filter(([, r]) => r.Type === 'AWS::Events::Rule');
  for (const [id, r] of rules)
    over(`targets of rule ${id}`, (r.Properties?.Targets ?? []).length, L.eventRuleTargets);
  const perBus = countBy(rules.map(([, r]) => targetOf(r.Properties?.EventBusName ?? 'default')));
  for (const [bus, n] of perBus) over(`rules on bus ${bus}`, n, L.eventBusRules);
  const perApi = (type: string) =>
    countBy(all.filter(([, r]) => r.Type === type).map(([, r]) => targetOf(r.Properties?.ApiId)));
  const routes = perApi('AWS::ApiGatewayV2::Route');
  for (const [api, n] of routes) over(`routes of ${api}`, n, L.httpApiRoutes);
  for (const [api, n] of perApi('AWS::ApiGatewayV2::Integration'))
    over(`integrations of ${api}`, n, L.httpApiIntegrations);
  for (const [api, n] of perApi('AWS::ApiGatewayV2::Authorizer'))
    over(`authorizers of ${api}`, n, L.httpApiAuthorizers);
  for (const [api, n] of perApi('AWS::ApiGatewayV2::Stage')) over(`stages of ${api}`, n, L.httpApiStages);
  const filters = (type: string) =>
    countBy(all.filter(([, r]) => r.Type === type).map(([, r]) => targetOf(r.Properties?.LogGroupName)));
  for (const [group, n] of filters('AWS::Logs::MetricFilter'))
    over(`metric filters of ${group}`, n, L.logGroupMetricFilters);
  for (const [group, n] of filters('AWS::Logs::SubscriptionFilter'))
    over(`subscription filters of ${group}`, n, L.logGroupSubscriptionFilters);
  return {
    maxRulesPerBus: Math.max(0, ...perBus.values()),
    maxRoutesPerApi: Math.max(0, ...routes.values()),
  };
}

/** Explicit names within their services' lengths; alarm actions per state. */
function checkNames(resources: Resources, over: Over) {
  const L = AWS_LIMITS;
  let maxAlarmNameChars = 0;
  for (const [id, r] of Object.entries(resources)) {
    const p = r.Properties ?? {};
    const [property, max] = NAME_LIMITS[r.Type] ?? [];
    if (property && p[property] !== undefined) {
      const length = String(resolveIntrinsics(p[property])).length;
      if (r.Type.startsWith('AWS::CloudWatch::') && r.Type.endsWith('Alarm'))
        maxAlarmNameChars = Math.max(maxAlarmNameChars, length);
      over(`${property} of ${id} (characters)`, length, max!);
    }
    if (r.Type === 'AWS::CloudWatch::Alarm' || r.Type === 'AWS::CloudWatch::CompositeAlarm')
      for (const state of ['AlarmActions', 'OKActions', 'InsufficientDataActions'])
        over(`${state} of ${id}`, (p[state] ?? []).length, L.alarmActionsPerState);
  }
  return { maxAlarmNameChars };
}

/**
 * Alarms' evaluation ranges and periods, composite alarms' underlying alarms; event patterns; key
 * policies; an SQS event source's queue visibility timeout, never below its function's timeout (Lambda
 * refuses the mapping: docs.aws.amazon.com/lambda/latest/dg/services-sqs-configure.html).
 */
function checkEvaluation(resources: Resources, over: Over, problems: string[]) {
  const L = AWS_LIMITS;
  const inComposites = new Map<string, number>();
  let maxEventPatternChars = 0;
  let maxCompositeUnderlying = 0;
  for (const [id, r] of Object.entries(resources)) {
    const p = r.Properties ?? {};
    if (r.Type === 'AWS::CloudWatch::Alarm') {
      const periods = [p.Period, ...(p.Metrics ?? []).map((m: any) => m.MetricStat?.Period ?? m.Period)]
        .filter((x) => x !== undefined)
        .map(Number);
      for (const period of periods) {
        if (![10, 20, 30].includes(period) && period % 60 !== 0)
          problems.push(`period of ${id}: ${period} s (10, 20, 30 or a multiple of 60)`);
        const limit = period < 3600 ? L.alarmShortPeriodEvaluationSeconds : L.alarmEvaluationSeconds;
        over(`evaluation range of ${id} (s)`, period * Number(p.EvaluationPeriods ?? 1), limit);
      }
    }
    if (r.Type === 'AWS::CloudWatch::CompositeAlarm') {
      const rule = String(resolveIntrinsics(p.AlarmRule));
      // Each ALARM(), OK() or INSUFFICIENT_DATA() names one alarm (every resolved ARN looks the same here).
      const underlying = (rule.match(/\b(?:ALARM|OK|INSUFFICIENT_DATA)\(/g) ?? []).length;
      maxCompositeUnderlying = Math.max(maxCompositeUnderlying, underlying);
      over(`underlying alarms of ${id}`, underlying, L.compositeAlarmUnderlying);
      const targets = JSON.stringify(p.AlarmRule).match(/"Fn::GetAtt":\["[^"]+","Arn"\]/g) ?? [];
      for (const target of new Set(targets)) inComposites.set(target, (inComposites.get(target) ?? 0) + 1);
    }
    if (r.Type === 'AWS::Events::Rule' && p.EventPattern) {
      const chars = JSON.stringify(resolveIntrinsics(p.EventPattern)).length;
      maxEventPatternChars = Math.max(maxEventPatternChars, chars);
      over(`event pattern of ${id} (characters)`, chars, L.eventPatternChars);
    }
    if (r.Type === 'AWS::KMS::Key')
      over(`key policy of ${id} (bytes)`, bytesOf(p.KeyPolicy), L.kmsKeyPolicyBytes);
    const queue = resources[targetOf(p.EventSourceArn)];
    if (r.Type === 'AWS::Lambda::EventSourceMapping' && queue?.Type === 'AWS::SQS::Queue') {
      const timeout = Number(resources[targetOf(p.FunctionName)]?.Properties?.Timeout ?? 3);
      const visibility = Number(queue.Properties?.VisibilityTimeout ?? 30);
      if (visibility < timeout)
        problems.push(
          `${id}: queue visibility timeout ${visibility} s below its function's timeout ${timeout} s`,
        );
    }
  }
  for (const [alarm, n] of inComposites) over(`composite alarms over ${alarm}`, n, L.compositeAlarmsPerAlarm);
  return { maxEventPatternChars, maxCompositeUnderlying };
}

/**
 * AWS WAF's published capacity of each statement kind the relay's web ACLs use, in WCUs
 * (docs.aws.amazon.com/waf/latest/developerguide/waf-rule-statements-match.html and the pages it links):
 * an IP set match 1 (5 with a forwarded IP at position ANY), a geo or label match 1, a string match 2
 * (exactly, starts with, ends with) or 10 (contains, contains word), a size constraint 1, a regex 3, a
 * regex pattern set 25; on an inspected component, +10 per text transformation (NONE applies none),
 * +10 for all query arguments, twice the base for the JSON body (waf-rule-statement-fields-list.html).
 * AND, OR and NOT cost their statements (waf-rule-statements-logical.html); a rate-based statement 2
 * plus its scope-down (waf-rule-statement-type-rate-based.html); a managed rule group its published
 * capacity plus its scope-down; labels 1 per 5 defined in the web ACL (waf-rule-label-add.html). Any
 * other kind or setting is refused by name, so a new rule cannot slip past uncounted: add its cost here.
 */
const WAF_MATCH_WCUS: Record<string, number> = {
  IPSetReferenceStatement: 1,
  GeoMatchStatement: 1,
  LabelMatchStatement: 1,
  SizeConstraintStatement: 1,
  RegexMatchStatement: 3,
  RegexPatternSetReferenceStatement: 25,
};
const WAF_STRING_MATCH_WCUS: Record<string, number> = {
  EXACTLY: 2,
  STARTS_WITH: 2,
  ENDS_WITH: 2,
  CONTAINS: 10,
  CONTAINS_WORD: 10,
};
/** Components that add nothing to the base cost; AllQueryArguments adds 10, JsonBody doubles it. */
const WAF_PLAIN_FIELDS = ['UriPath', 'QueryString', 'Method', 'SingleHeader', 'SingleQueryArgument', 'Body'];
/**
 * AWS managed rule groups' capacities as published (aws-managed-rule-groups-baseline.html,
 * aws-managed-rule-groups-ip-rep.html), by vendor/name.
 */
const MANAGED_RULE_GROUP_WCUS: Record<string, number> = {
  'AWS/AWSManagedRulesCommonRuleSet': 700,
  'AWS/AWSManagedRulesKnownBadInputsRuleSet': 200,
  'AWS/AWSManagedRulesAmazonIpReputationList': 25,
};
const WAF_REFERENCES = ['IPSetReferenceStatement', 'RegexPatternSetReferenceStatement'];

/** What one web ACL's statements add up to, and what they may not be. */
interface WafTally {
  references: number;
  rateBased: number;
  over: Over;
  unknown: (at: string, what: string) => number;
}

/** The cost of an inspected component: base, the component's surcharge, its text transformations. */
function inspectionWcus(base: number | undefined, s: Record<string, any>, at: string, t: WafTally) {
  const fields = Object.keys(s.FieldToMatch ?? {});
  const field = fields[0] ?? '';
  if (base === undefined) return t.unknown(at, `positional constraint ${s.PositionalConstraint}`);
  if (fields.length !== 1 || ![...WAF_PLAIN_FIELDS, 'AllQueryArguments', 'JsonBody'].includes(field))
    return t.unknown(at, `field to match ${fields.join('+') || 'none'}`);
  const transformations = (s.TextTransformations ?? []) as Array<{ Type: string }>;
  t.over(`text transformations of ${at}`, transformations.length, AWS_LIMITS.wafTextTransformations);
  const applied = transformations.filter((x) => x.Type !== 'NONE').length;
  return (field === 'JsonBody' ? 2 * base : base) + (field === 'AllQueryArguments' ? 10 : 0) + 10 * applied;
}

/** A nestable statement's WCUs (match and logical statements). */
function statementWcus(statement: unknown, at: string, t: WafTally): number {
  const kinds = Object.keys((statement ?? {}) as object);
  const kind = kinds[0] ?? '';
  const s = ((statement as Record<string, any>)?.[kind] ?? {}) as Record<string, any>;
  if (kinds.length !== 1) return t.unknown(at, `a statement of ${kinds.join('+') || 'nothing'}`);
  if (WAF_REFERENCES.includes(kind)) t.references++;
  if (kind === 'AndStatement' || kind === 'OrStatement')
    return (s.Statements as unknown[]).reduce<number>(
      (sum, nested, i) => sum + statementWcus(nested, `${at}.${kind}[${i}]`, t),
      0,
    );
  if (kind === 'NotStatement') return statementWcus(s.Statement, `${at}.NotStatement`, t);
  if (kind === 'IPSetReferenceStatement') return 1 + (s.IPSetForwardedIPConfig?.Position === 'ANY' ? 4 : 0);
  if (kind === 'ByteMatchStatement') {
    const search = String(resolveIntrinsics(s.SearchString ?? ''));
    t.over(`search string of ${at} (characters)`, search.length, AWS_LIMITS.wafSearchStringChars);
    return inspectionWcus(WAF_STRING_MATCH_WCUS[s.PositionalConstraint], s, at, t);
  }
  if (kind === 'GeoMatchStatement' || kind === 'LabelMatchStatement') return WAF_MATCH_WCUS[kind]!;
  if (kind in WAF_MATCH_WCUS) return inspectionWcus(WAF_MATCH_WCUS[kind], s, at, t);
  return t.unknown(at, kind);
}

/** A rule's WCUs: the non-nestable statements (rate-based, managed rule group) or a nestable one. */
function ruleWcus(statement: Record<string, any>, at: string, t: WafTally): number {
  const L = AWS_LIMITS;
  const rate = statement?.RateBasedStatement;
  const managed = statement?.ManagedRuleGroupStatement;
  const scopeDown = (s: Record<string, any>, kind: string) =>
    s.ScopeDownStatement ? statementWcus(s.ScopeDownStatement, `${at}.${kind}.ScopeDown`, t) : 0;
  if (rate) {
    t.rateBased++;
    const limit = Number(rate.Limit);
    if (limit < L.wafRateLimit[0]) t.over(`rate limit of ${at} below ${L.wafRateLimit[0]}`, 1, 0);
    t.over(`rate limit of ${at}`, limit, L.wafRateLimit[1]);
    if (![60, 120, 300, 600].includes(Number(rate.EvaluationWindowSec ?? 300)))
      t.unknown(at, `evaluation window ${rate.EvaluationWindowSec} s (60, 120, 300 or 600)`);
    if (rate.AggregateKeyType !== 'IP' || rate.CustomKeys)
      return t.unknown(at, `rate-based aggregation ${rate.AggregateKeyType}`);
    return 2 + scopeDown(rate, 'RateBasedStatement');
  }
  if (managed) {
    // Counted as a reference statement too (the quota names rule groups): an upper bound.
    t.references++;
    const wcus = MANAGED_RULE_GROUP_WCUS[`${managed.VendorName}/${managed.Name}`];
    if (wcus === undefined) return t.unknown(at, `managed rule group ${managed.VendorName}/${managed.Name}`);
    return wcus + scopeDown(managed, 'ManagedRuleGroupStatement');
  }
  return statementWcus(statement, at, t);
}

type WafRule = {
  Name: string;
  Priority: number;
  Statement: Record<string, any>;
  Action?: Record<string, any>;
  RuleLabels?: unknown[];
  VisibilityConfig?: { MetricName?: string };
};

/**
 * One web ACL's capacity in WCUs and its reference statements, every rule and its statements counted by
 * AWS WAF's published costs; a statement kind without a published cost here is a problem, not zero.
 */
function webAclCapacity(properties: Record<string, any>, id: string, over: Over) {
  const problems: string[] = [];
  const t: WafTally = {
    references: 0,
    rateBased: 0,
    over,
    unknown: (at, what) => {
      problems.push(`${at}: ${what} has no known WCU cost (add it to aws-limits.ts from the AWS WAF docs)`);
      return 0;
    },
  };
  const rules = (properties.Rules ?? []) as WafRule[];
  let wcus = 0;
  let labels = 0;
  for (const rule of rules) {
    wcus += ruleWcus(rule.Statement, `${id} rule ${rule.Name}`, t);
    labels += (rule.RuleLabels ?? []).length;
  }
  wcus += Math.ceil(labels / 5);
  return { wcus, references: t.references, rateBased: t.rateBased, problems };
}

/** A web ACL's rules: unique names and priorities, name lengths, custom responses. */
function checkWebAclRules(id: string, p: Record<string, any>, over: Over, problems: string[]) {
  const L = AWS_LIMITS;
  const rules = (p.Rules ?? []) as WafRule[];
  for (const [key, values] of [
    ['names', rules.map((r) => r.Name)],
    ['priorities', rules.map((r) => String(r.Priority))],
  ] as const)
    for (const [value, n] of countBy([...values]))
      if (n > 1) problems.push(`${id}: rule ${key} repeat ${value}`);
  for (const rule of rules) {
    over(`name of ${id} rule ${rule.Name} (characters)`, rule.Name.length, L.wafRuleNameChars);
    const metric = String(rule.VisibilityConfig?.MetricName ?? '');
    over(`metric name of ${id} rule ${rule.Name} (characters)`, metric.length, L.wafMetricNameChars);
  }
  const responses = [p.DefaultAction, ...rules.map((r) => r.Action)].flatMap((action) =>
    action?.Block?.CustomResponse ? [action.Block.CustomResponse] : [],
  ) as Array<{ ResponseHeaders?: unknown[] }>;
  for (const [i, response] of responses.entries())
    over(
      `headers of custom response ${i} of ${id}`,
      (response.ResponseHeaders ?? []).length,
      L.wafCustomResponseHeaders,
    );
  const headers = responses.reduce((sum, r) => sum + (r.ResponseHeaders ?? []).length, 0);
  over(`custom response headers of ${id}`, headers, L.wafWebAclCustomResponseHeaders);
  const bodies = Object.entries((p.CustomResponseBodies ?? {}) as Record<string, { Content: string }>);
  over(`custom response bodies of ${id}`, bodies.length, L.wafCustomResponseBodies);
  for (const [key, body] of bodies)
    over(
      `custom response body ${key} of ${id} (bytes)`,
      Buffer.byteLength(body.Content),
      L.wafCustomResponseBodyBytes,
    );
  const total = bodies.reduce((sum, [, body]) => sum + Buffer.byteLength(body.Content), 0);
  over(`custom response bodies of ${id} together (bytes)`, total, L.wafCustomResponseBodiesBytes);
}

/**
 * Every web ACL: its capacity, reference statements, rate-based rules and rules; the IP sets it references
 * in its own scope (a CLOUDFRONT web ACL cannot use a REGIONAL IP set); the template's IP sets.
 */
function checkWaf(resources: Resources, over: Over, problems: string[]) {
  const L = AWS_LIMITS;
  let maxWebAclWcus = 0;
  let maxWafReferences = 0;
  const ipSets = Object.entries(resources).filter(([, r]) => r.Type === 'AWS::WAFv2::IPSet');
  over('IP sets (account quota per region)', ipSets.length, L.wafIpSets);
  for (const [id, r] of Object.entries(resources)) {
    if (r.Type !== 'AWS::WAFv2::WebACL') continue;
    const p = r.Properties ?? {};
    const capacity = webAclCapacity(p, id, over);
    problems.push(...capacity.problems);
    maxWebAclWcus = Math.max(maxWebAclWcus, capacity.wcus);
    maxWafReferences = Math.max(maxWafReferences, capacity.references);
    over(`capacity of ${id} (WCUs)`, capacity.wcus, L.wafWebAclWcus);
    over(`reference statements of ${id}`, capacity.references, L.wafReferenceStatements);
    over(`rate-based rules of ${id}`, capacity.rateBased, L.wafRateBasedRules);
    checkWebAclRules(id, p, over, problems);
    for (const [, set] of ipSets.filter(([setId]) => JSON.stringify(p).includes(`"${setId}"`)))
      if (set.Properties?.Scope !== p.Scope)
        problems.push(`${id} (${p.Scope}) references an IP set of scope ${set.Properties?.Scope}`);
  }
  return { maxWebAclWcus, maxWafReferences };
}

/** The measured sizes, for the report, and the broken limits (empty: deployable). */
export interface LimitsReport {
  readonly sizes: {
    templateBytes: number;
    resources: number;
    outputs: number;
    parameters: number;
    /** The largest aggregate of inline policies of one role. */
    maxRoleInlinePolicyChars: number;
    maxManagedPolicyChars: number;
    maxLambdaEnvironmentBytes: number;
    alarms: number;
    maxLambdaResourcePolicyBytes: number;
    reservedConcurrency: number;
    maxSqsPolicyBytes: number;
    maxSqsPolicyStatements: number;
    maxTrustPolicyChars: number;
    maxRulesPerBus: number;
    maxRoutesPerApi: number;
    maxAlarmNameChars: number;
    /** The largest web ACL's capacity (WCUs) and reference statements; 0 without one. */
    maxWebAclWcus: number;
    maxWafReferences: number;
    maxEventPatternChars: number;
    maxCompositeUnderlying: number;
    /** The largest resource policy of a bus, every statement of it together (characters). */
    maxBusPolicyChars: number;
  };
  readonly problems: string[];
}

/**
 * Every limit above, over one template (as `Template.fromStack(...).toJSON()` gives it). The template
 * body is counted as CDK writes it (JSON, one space of indentation).
 */
export function checkAwsLimits(template: Template): LimitsReport {
  const L = AWS_LIMITS;
  const problems: string[] = [];
  const over = (what: string, size: number, limit: number) => {
    if (size > limit) problems.push(`${what}: ${size} > ${limit}`);
  };
  const resources = template.Resources ?? {};
  resourceTypes = Object.fromEntries(Object.entries(resources).map(([id, r]) => [id, r.Type]));
  const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);

  const templateBytes = Buffer.byteLength(JSON.stringify(template, undefined, 1));
  over('template body (bytes)', templateBytes, L.templateBytes);
  over('resources', Object.keys(resources).length, L.resources);
  over('outputs', Object.keys(template.Outputs ?? {}).length, L.outputs);
  over('parameters', Object.keys(template.Parameters ?? {}).length, L.parameters);
  over('mappings', Object.keys(template.Mappings ?? {}).length, L.mappings);
  for (const id of [...Object.keys(resources), ...Object.keys(template.Outputs ?? {})]) {
    if (!/^[A-Za-z0-9]+$/.test(id)) problems.push(`logical id ${id}: not alphanumeric`);
    over(`logical id ${id.slice(0, 40)}… (characters)`, id.length, L.logicalIdLength);
  }

  // IAM: inline policies count per role together (the role's own Policies and every AWS::IAM::Policy
  // attached to it); a managed policy counts alone, and a role takes at most 10 of them.
  const inline = new Map<string, number>();
  const managed = new Map<string, number>();
  for (const [id, role] of ofType('AWS::IAM::Role')) {
    const own = ((role.Properties?.Policies ?? []) as Array<{ PolicyDocument: unknown }>).reduce(
      (sum, p) => sum + policyChars(p.PolicyDocument),
      0,
    );
    inline.set(id, own);
    managed.set(id, (role.Properties?.ManagedPolicyArns ?? []).length);
  }
  for (const [, policy] of ofType('AWS::IAM::Policy'))
    for (const role of refsOf(policy.Properties?.Roles))
      inline.set(role, (inline.get(role) ?? 0) + policyChars(policy.Properties?.PolicyDocument));
  let maxManagedPolicyChars = 0;
  for (const [id, policy] of ofType('AWS::IAM::ManagedPolicy')) {
    const chars = policyChars(policy.Properties?.PolicyDocument);
    maxManagedPolicyChars = Math.max(maxManagedPolicyChars, chars);
    over(`managed policy ${id} (characters)`, chars, L.managedPolicyChars);
    for (const role of refsOf(policy.Properties?.Roles)) managed.set(role, (managed.get(role) ?? 0) + 1);
  }
  for (const [role, chars] of inline)
    over(`inline policies of role ${role} (characters)`, chars, L.roleInlinePolicyChars);
  for (const [role, count] of managed)
    over(`managed policies of role ${role}`, count, L.managedPoliciesPerRole);

  let maxLambdaEnvironmentBytes = 0;
  for (const [id, fn] of ofType('AWS::Lambda::Function')) {
    const variables = resolveIntrinsics(fn.Properties?.Environment?.Variables ?? {}) as Record<
      string,
      unknown
    >;
    const bytes = Object.entries(variables).reduce(
      (sum, [k, v]) => sum + Buffer.byteLength(k) + Buffer.byteLength(String(v)),
      0,
    );
    maxLambdaEnvironmentBytes = Math.max(maxLambdaEnvironmentBytes, bytes);
    over(`environment of ${id} (bytes)`, bytes, L.lambdaEnvironmentBytes);
    over(`layers of ${id}`, (fn.Properties?.Layers ?? []).length, L.lambdaLayers);
  }

  const alarms = ofType('AWS::CloudWatch::Alarm');
  for (const [id, alarm] of alarms) {
    const p = alarm.Properties ?? {};
    over(
      `description of ${id} (characters)`,
      String(resolveIntrinsics(p.AlarmDescription ?? '')).length,
      L.alarmDescriptionChars,
    );
    const queries = (p.Metrics ?? []) as Array<{ MetricStat?: unknown; Expression?: unknown }>;
    over(`metrics of alarm ${id}`, queries.filter((q) => q.MetricStat).length, L.alarmMetricStats);
    over(`expressions of alarm ${id}`, queries.filter((q) => q.Expression).length, L.alarmExpressions);
    for (const q of queries)
      if (q.Expression !== undefined)
        over(
          `expression of alarm ${id} (characters)`,
          String(resolveIntrinsics(q.Expression)).length,
          L.metricMathExpressionChars,
        );
  }
  for (const [id, composite] of ofType('AWS::CloudWatch::CompositeAlarm')) {
    const p = composite.Properties ?? {};
    over(
      `rule of ${id} (characters)`,
      String(resolveIntrinsics(p.AlarmRule)).length,
      L.compositeAlarmRuleChars,
    );
    over(
      `description of ${id} (characters)`,
      String(resolveIntrinsics(p.AlarmDescription ?? '')).length,
      L.alarmDescriptionChars,
    );
  }

  for (const [id, dashboard] of ofType('AWS::CloudWatch::Dashboard')) {
    const body = JSON.parse(String(resolveIntrinsics(dashboard.Properties?.DashboardBody))) as {
      widgets?: Array<{ properties?: { metrics?: unknown[] } }>;
    };
    const widgets = body.widgets ?? [];
    over(`widgets of dashboard ${id}`, widgets.length, L.dashboardWidgets);
    let metrics = 0;
    widgets.forEach((widget, i) => {
      const rows = widget.properties?.metrics ?? [];
      metrics += rows.length;
      over(`metrics of widget ${i} of dashboard ${id}`, rows.length, L.dashboardWidgetMetrics);
      // An expression row is `[{ expression, label, id, … }]`.
      for (const row of rows) {
        const expression = Array.isArray(row) ? (row[0] as { expression?: unknown })?.expression : undefined;
        if (typeof expression === 'string')
          over(
            `expression of widget ${i} of dashboard ${id} (characters)`,
            expression.length,
            L.metricMathExpressionChars,
          );
      }
    });
    over(`metrics of dashboard ${id}`, metrics, L.dashboardMetrics);
  }

  const more = {
    ...checkLambda(resources, over),
    ...checkResourcePolicies(resources, over),
    ...checkCounts(resources, over),
    ...checkNames(resources, over),
    ...checkWaf(resources, over, problems),
    ...checkEvaluation(resources, over, problems),
  };
  checkMetrics(resources, over);
  return {
    sizes: {
      templateBytes,
      resources: Object.keys(resources).length,
      outputs: Object.keys(template.Outputs ?? {}).length,
      parameters: Object.keys(template.Parameters ?? {}).length,
      maxRoleInlinePolicyChars: Math.max(0, ...inline.values()),
      maxManagedPolicyChars,
      maxLambdaEnvironmentBytes,
      alarms: alarms.length,
      ...more,
    },
    problems,
  };
}
