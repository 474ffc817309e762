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
  compositeAlarmRuleChars: 10_240,
  /** CloudWatch dashboards: widgets per dashboard, metrics per graph widget and per dashboard. */
  dashboardWidgets: 500,
  dashboardWidgetMetrics: 500,
  dashboardMetrics: 2_500,
} as const;

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

/** The template value as deployed, every intrinsic replaced by its longest plausible value. */
export function resolveIntrinsics(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(resolveIntrinsics);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 1) {
    const [key, arg] = entries[0]!;
    if (key === 'Ref') return PSEUDO[arg as string] ?? RESOURCE_VALUE;
    if (key === 'Fn::GetAtt') return RESOURCE_VALUE;
    if (key === 'Fn::ImportValue') return RESOURCE_VALUE;
    if (key === 'Fn::Join') {
      const [sep, parts] = arg as [string, unknown[]];
      const resolved = resolveIntrinsics(parts);
      return (Array.isArray(resolved) ? resolved : [RESOURCE_VALUE]).map(String).join(sep);
    }
    if (key === 'Fn::Sub') {
      const [text, vars] = (Array.isArray(arg) ? arg : [arg, {}]) as [string, Record<string, unknown>];
      return text.replace(/\$\{([^}!]+)\}/g, (_, name: string) =>
        name in (vars ?? {}) ? String(resolveIntrinsics(vars[name])) : (PSEUDO[name] ?? RESOURCE_VALUE),
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
      const count = widget.properties?.metrics?.length ?? 0;
      metrics += count;
      over(`metrics of widget ${i} of dashboard ${id}`, count, L.dashboardWidgetMetrics);
    });
    over(`metrics of dashboard ${id}`, metrics, L.dashboardMetrics);
  }

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
    },
    problems,
  };
}
