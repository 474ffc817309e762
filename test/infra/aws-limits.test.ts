import { describe, expect, it } from 'vitest';
import { checkAwsLimits } from './aws-limits';

type Resources = Record<string, { Type: string; Properties?: Record<string, any> }>;
const times = <T>(n: number, make: (i: number) => [string, T]) =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => make(i)));

/** A dashboard of one graph widget with these metric rows. */
const graphDashboard = (metrics: unknown[]) => ({
  Type: 'AWS::CloudWatch::Dashboard',
  Properties: { DashboardBody: JSON.stringify({ widgets: [{ type: 'metric', properties: { metrics } }] }) },
});

/** A template of just these resources: its problems. */
const problemsOf = (resources: Resources) => checkAwsLimits({ Resources: resources }).problems;

describe('the deploy-time limits aws-limits.ts adds (each over by one: named; at the limit: none)', () => {
  it("a function's resource-based policy: 20 KB of statements, one per permission", () => {
    const fn = { Type: 'AWS::Lambda::Function', Properties: { MemorySize: 512, Timeout: 10 } };
    const permissions = (n: number) =>
      times(n, (i) => [
        `Permission${i}`,
        {
          Type: 'AWS::Lambda::Permission',
          Properties: {
            FunctionName: { 'Fn::GetAtt': ['Fn', 'Arn'] },
            Action: 'lambda:InvokeFunction',
            Principal: 'apigateway.amazonaws.com',
            SourceArn: {
              'Fn::Join': [
                '',
                ['arn:aws:execute-api:eu-west-1:123456789012:', { Ref: 'Api' }, `/*/*/v1/r${i}`],
              ],
            },
          },
        },
      ]);
    expect(problemsOf({ Fn: fn, ...permissions(10) })).toEqual([]);
    expect(problemsOf({ Fn: fn, ...permissions(60) })).toEqual([
      expect.stringMatching(/^resource-based policy of Fn \(bytes\): \d+ > 20480$/),
    ]);
  });

  it('a queue policy: 20 statements, 8,192 bytes', () => {
    const policy = (n: number) => ({
      Type: 'AWS::SQS::QueuePolicy',
      Properties: {
        PolicyDocument: {
          Statement: times(n, (i) => [`s${i}`, { Effect: 'Allow', Action: 'sqs:SendMessage' }]),
        },
      },
    });
    const fix = (p: ReturnType<typeof policy>) => ({
      ...p,
      Properties: { PolicyDocument: { Statement: Object.values(p.Properties.PolicyDocument.Statement) } },
    });
    expect(problemsOf({ Q: fix(policy(20)) })).toEqual([]);
    expect(problemsOf({ Q: fix(policy(21)) })).toEqual(['statements of queue policy Q: 21 > 20']);
  });

  it('a queue policy: 50 principals together, 7 actions a statement', () => {
    const policy = (principals: number, actions: number) => ({
      Type: 'AWS::SQS::QueuePolicy',
      Properties: {
        PolicyDocument: {
          Statement: [
            {
              Effect: 'Allow',
              Principal: {
                AWS: Array.from({ length: principals - 1 }, (_, i) => `arn:aws:iam::1234567890${i}:root`),
              },
              Action: Array.from({ length: actions }, (_, i) => `sqs:Action${i}`),
            },
            { Effect: 'Allow', Principal: { Service: 'events.amazonaws.com' }, Action: 'sqs:SendMessage' },
          ],
        },
      },
    });
    expect(problemsOf({ Q: policy(50, 7) })).toEqual([]);
    expect(problemsOf({ Q: policy(51, 8) })).toEqual([
      'principals of queue policy Q: 51 > 50',
      'actions of statement 0 of queue policy Q: 8 > 7',
    ]);
  });

  it('rules per bus (300), an alarm name (255 characters), the reserved concurrency of a stack (900)', () => {
    const rules = times(301, (i) => [
      `Rule${i}`,
      { Type: 'AWS::Events::Rule', Properties: { EventBusName: { Ref: 'Bus' }, Targets: [{}] } },
    ]);
    const alarm = {
      Type: 'AWS::CloudWatch::Alarm',
      Properties: { AlarmName: 'a'.repeat(256), AlarmActions: [] },
    };
    const fn = (reserved: number) => ({
      Type: 'AWS::Lambda::Function',
      Properties: { ReservedConcurrentExecutions: reserved },
    });
    expect(problemsOf({ ...rules, Alarm: alarm, F1: fn(500), F2: fn(401) })).toEqual([
      'reserved concurrency of the stack (executions): 901 > 900',
      'rules on bus Bus: 301 > 300',
      'AlarmName of Alarm (characters): 256 > 255',
    ]);
  });
});

describe("AWS WAF web ACLs: capacity (WCUs) by AWS's published costs, and the web ACL quotas", () => {
  /** A web ACL of these rules (priorities in order) and the IP sets they name, in one template. */
  const webAcl = (statements: Array<Record<string, unknown>>, extra: Record<string, unknown> = {}) => ({
    Acl: {
      Type: 'AWS::WAFv2::WebACL',
      Properties: {
        Scope: 'CLOUDFRONT',
        DefaultAction: { Allow: {} },
        Rules: statements.map((statement, i) => ({
          Name: `Rule${i}`,
          Priority: i,
          Statement: statement,
          Action: { Count: {} },
          VisibilityConfig: { MetricName: `Rule${i}` },
        })),
        ...extra,
      },
    },
    Set: { Type: 'AWS::WAFv2::IPSet', Properties: { Scope: 'CLOUDFRONT', Addresses: [] } },
  });
  const wcusOf = (resources: Resources) => checkAwsLimits({ Resources: resources }).sizes.maxWebAclWcus;
  /** 20 WCUs: a "contains" string match (10) with one text transformation (10). */
  const contains = {
    ByteMatchStatement: {
      FieldToMatch: { UriPath: {} },
      PositionalConstraint: 'CONTAINS',
      SearchString: '/v1/',
      TextTransformations: [{ Priority: 0, Type: 'LOWERCASE' }],
    },
  };
  const ipSet = { IPSetReferenceStatement: { Arn: { 'Fn::GetAtt': ['Set', 'Arn'] } } };
  const label = { LabelMatchStatement: { Scope: 'LABEL', Key: 'relay:x' } };

  it('counts the capacity: 1,500 WCUs pass, 1,501 do not', () => {
    const at = webAcl(Array.from({ length: 75 }, () => contains));
    expect(wcusOf(at)).toBe(1_500);
    expect(problemsOf(at)).toEqual([]);
    expect(problemsOf(webAcl([...Array.from({ length: 75 }, () => contains), label]))).toEqual([
      'capacity of Acl (WCUs): 1501 > 1500',
    ]);
  });

  it('prices the statements the relay uses: rate-based with a NOT/OR scope-down, AND, managed groups, labels', () => {
    const rate = {
      RateBasedStatement: {
        Limit: 2000,
        AggregateKeyType: 'IP',
        EvaluationWindowSec: 300,
        ScopeDownStatement: { NotStatement: { Statement: { OrStatement: { Statements: [ipSet, ipSet] } } } },
      },
    };
    const startsWith = {
      ByteMatchStatement: { ...contains.ByteMatchStatement, PositionalConstraint: 'STARTS_WITH' },
    };
    const managed = (Name: string) => ({ ManagedRuleGroupStatement: { VendorName: 'AWS', Name } });
    const resources = webAcl([
      rate, // 2 + 1 + 1
      { AndStatement: { Statements: [startsWith, { NotStatement: { Statement: ipSet } }] } }, // 2 + 10 + 1
      managed('AWSManagedRulesCommonRuleSet'), // 700
      managed('AWSManagedRulesAmazonIpReputationList'), // 25
      managed('AWSManagedRulesKnownBadInputsRuleSet'), // 200
    ]);
    const rules = (resources.Acl.Properties.Rules as Array<Record<string, unknown>>).map((rule, i) =>
      i < 2 ? { ...rule, RuleLabels: Array.from({ length: 6 }, (_, j) => ({ Name: `l${j}` })) } : rule,
    );
    // 12 labels: 3 WCUs (1 per 5 or part of 5).
    const labelled = {
      ...resources,
      Acl: { ...resources.Acl, Properties: { ...resources.Acl.Properties, Rules: rules } },
    };
    expect(wcusOf(labelled)).toBe(4 + 13 + 700 + 25 + 200 + 3);
    expect(problemsOf(labelled)).toEqual([]);
  });

  it('refuses a statement kind or a managed group it has no published cost for, by name', () => {
    expect(
      problemsOf(
        webAcl([
          { SqliMatchStatement: { FieldToMatch: { Body: {} }, TextTransformations: [] } },
          { ManagedRuleGroupStatement: { VendorName: 'AWS', Name: 'AWSManagedRulesBotControlRuleSet' } },
        ]),
      ),
    ).toEqual([
      'Acl rule Rule0: SqliMatchStatement has no known WCU cost (add it to aws-limits.ts from the AWS WAF docs)',
      'Acl rule Rule1: managed rule group AWS/AWSManagedRulesBotControlRuleSet has no known WCU cost (add it to aws-limits.ts from the AWS WAF docs)',
    ]);
  });

  it('50 reference statements and 10 rate-based rules per web ACL', () => {
    const rate = { RateBasedStatement: { Limit: 100, AggregateKeyType: 'IP' } };
    expect(
      problemsOf(
        webAcl([...Array.from({ length: 50 }, () => ipSet), ...Array.from({ length: 10 }, () => rate)]),
      ),
    ).toEqual([]);
    expect(
      problemsOf(
        webAcl([...Array.from({ length: 51 }, () => ipSet), ...Array.from({ length: 11 }, () => rate)]),
      ),
    ).toEqual(['reference statements of Acl: 51 > 50', 'rate-based rules of Acl: 11 > 10']);
  });

  it('custom response bodies (4 KB each, 50 KB together, 50) and an IP set of another scope', () => {
    const bodies = (n: number, bytes: number) => ({
      CustomResponseBodies: Object.fromEntries(
        Array.from({ length: n }, (_, i) => [
          `b${i}`,
          { ContentType: 'TEXT_PLAIN', Content: 'x'.repeat(bytes) },
        ]),
      ),
    });
    expect(problemsOf(webAcl([label], bodies(12, 4_096)))).toEqual([]);
    expect(problemsOf(webAcl([label], bodies(1, 4_097)))).toEqual([
      'custom response body b0 of Acl (bytes): 4097 > 4096',
    ]);
    expect(problemsOf(webAcl([label], bodies(13, 4_000)))).toEqual([
      'custom response bodies of Acl together (bytes): 52000 > 51200',
    ]);
    const regional = webAcl([ipSet]);
    regional.Set.Properties.Scope = 'REGIONAL';
    expect(problemsOf(regional)).toEqual(['Acl (CLOUDFRONT) references an IP set of scope REGIONAL']);
  });
});

describe('more deploy-time limits: alarm ranges, composite alarms, event patterns, key policies, SQS event sources', () => {
  it("an alarm's period (10, 20, 30 s or minutes) and evaluation range (1 day under an hour's period, else 7 days)", () => {
    const alarm = (Period: number, EvaluationPeriods: number) => ({
      Type: 'AWS::CloudWatch::Alarm',
      Properties: { Period, EvaluationPeriods },
    });
    const math = (Period: number, EvaluationPeriods: number) => ({
      Type: 'AWS::CloudWatch::Alarm',
      Properties: { EvaluationPeriods, Metrics: [{ MetricStat: { Period } }, { Expression: 'm1' }] },
    });
    expect(problemsOf({ A: alarm(300, 288), B: math(3600, 168), C: alarm(30, 2_880) })).toEqual([]);
    expect(problemsOf({ A: alarm(300, 289), B: math(3600, 169), C: alarm(45, 1) })).toEqual([
      'evaluation range of A (s): 86700 > 86400',
      'evaluation range of B (s): 608400 > 604800',
      'period of C: 45 s (10, 20, 30 or a multiple of 60)',
    ]);
  });

  it('a composite alarm: 100 underlying alarms; one alarm in at most 150 composite alarms', () => {
    const composite = (rule: unknown) => ({
      Type: 'AWS::CloudWatch::CompositeAlarm',
      Properties: { AlarmRule: rule },
    });
    // By name (short): 100 ARNs of 256 characters would pass the rule's 10,240 characters first.
    const byName = (n: number) => Array.from({ length: n }, (_, i) => `ALARM("a${i}")`).join(' OR ');
    expect(problemsOf({ C: composite(byName(100)) })).toEqual([]);
    expect(problemsOf({ C: composite(byName(101)) })).toEqual(['underlying alarms of C: 101 > 100']);
    const shared = { 'Fn::Join': ['', ['ALARM("', { 'Fn::GetAtt': ['Shared', 'Arn'] }, '")']] };
    expect(problemsOf(times(150, (i) => [`C${i}`, composite(shared)]))).toEqual([]);
    expect(problemsOf(times(151, (i) => [`C${i}`, composite(shared)]))).toEqual([
      'composite alarms over "Fn::GetAtt":["Shared","Arn"]: 151 > 150',
    ]);
  });

  it('an event pattern (2,048 characters) and a key policy (32 KiB)', () => {
    /** A value of `size` characters in all: the pattern or policy around it, padded. */
    const sized = (size: number, shape: (pad: string) => unknown) =>
      shape('x'.repeat(size - JSON.stringify(shape('')).length));
    const rule = (chars: number) => ({
      Type: 'AWS::Events::Rule',
      Properties: { EventPattern: sized(chars, (pad) => ({ detail: { account: [pad] } })) },
    });
    const key = (bytes: number) => ({
      Type: 'AWS::KMS::Key',
      Properties: { KeyPolicy: sized(bytes, (pad) => ({ Statement: [{ Sid: pad }] })) },
    });
    expect(problemsOf({ R: rule(2_048), K: key(32_768) })).toEqual([]);
    expect(problemsOf({ R: rule(2_049), K: key(32_769) })).toEqual([
      'event pattern of R (characters): 2049 > 2048',
      'key policy of K (bytes): 32769 > 32768',
    ]);
  });

  it("an SQS event source: the queue's visibility timeout at least the function's timeout", () => {
    const resources = (visibility: number | undefined, timeout: number) => ({
      Q: {
        Type: 'AWS::SQS::Queue',
        Properties: visibility === undefined ? {} : { VisibilityTimeout: visibility },
      },
      F: { Type: 'AWS::Lambda::Function', Properties: { Timeout: timeout } },
      M: {
        Type: 'AWS::Lambda::EventSourceMapping',
        Properties: { EventSourceArn: { 'Fn::GetAtt': ['Q', 'Arn'] }, FunctionName: { Ref: 'F' } },
      },
    });
    expect(problemsOf(resources(60, 60))).toEqual([]);
    expect(problemsOf(resources(undefined, 30))).toEqual([]);
    expect(problemsOf(resources(59, 60))).toEqual([
      "M: queue visibility timeout 59 s below its function's timeout 60 s",
    ]);
    expect(problemsOf(resources(undefined, 31))).toEqual([
      "M: queue visibility timeout 30 s below its function's timeout 31 s",
    ]);
  });
});

describe("a bus's one resource policy, and the metrics alarms, dashboards and metric filters name", () => {
  it('counts every statement of a bus together against its 10,240 characters (one policy per bus)', () => {
    // Prepare: two statements of about 6,000 characters each, on one bus or on two.
    const statement = (bus: string, sid: string) => ({
      Type: 'AWS::Events::EventBusPolicy',
      Properties: {
        EventBusName: { Ref: bus },
        StatementId: sid,
        Statement: {
          Sid: sid,
          Effect: 'Allow',
          Principal: '*',
          Action: 'events:PutEvents',
          Resource: 'x'.repeat(6_000),
        },
      },
    });
    // Act + Assess
    expect(problemsOf({ A: statement('Bus', 'a'), B: statement('Other', 'b') })).toEqual([]);
    expect(problemsOf({ A: statement('Bus', 'a'), B: statement('Bus', 'b') })).toEqual([
      expect.stringMatching(/^resource policy of bus Bus \(characters\): 12\d{3} > 10240$/),
    ]);
  });

  it('a metric: namespace and name 255 characters, 30 dimensions, a dimension value 1,024', () => {
    const alarm = (namespace: string, dimensions: number) => ({
      Type: 'AWS::CloudWatch::Alarm',
      Properties: {
        Period: 60,
        Metrics: [
          {
            Id: 'm1',
            MetricStat: {
              Metric: {
                Namespace: namespace,
                MetricName: 'Errors',
                Dimensions: Array.from({ length: dimensions }, (_, i) => ({ Name: `d${i}`, Value: 'v' })),
              },
              Period: 60,
              Stat: 'Sum',
            },
          },
        ],
      },
    });
    const dashboard = (value: string) =>
      graphDashboard([
        ['Ns', 'Calls', 'account', 'a'],
        ['.', '.', '.', value, { stat: 'Sum' }],
      ]);
    const filter = (dimensions: number) => ({
      Type: 'AWS::Logs::MetricFilter',
      Properties: {
        MetricTransformations: [
          {
            MetricNamespace: 'Ns',
            MetricName: 'Refused',
            Dimensions: Array.from({ length: dimensions }, (_, i) => ({ Key: `k${i}`, Value: `$.k${i}` })),
          },
        ],
      },
    });
    expect(
      problemsOf({ A: alarm('n'.repeat(255), 30), D: dashboard('v'.repeat(1_024)), F: filter(3) }),
    ).toEqual([]);
    expect(
      problemsOf({ A: alarm('n'.repeat(256), 31), D: dashboard('v'.repeat(1_025)), F: filter(4) }),
    ).toEqual([
      'metric namespace of A (characters): 256 > 255',
      'dimensions of a metric of A: 31 > 30',
      'dimension value of widget 0 of dashboard D (characters): 1025 > 1024',
      'dimensions of metric filter F: 4 > 3',
    ]);
  });

  it('a metric math expression: 2,048 characters, in an alarm and in a dashboard graph', () => {
    const alarm = (expression: string) => ({
      Type: 'AWS::CloudWatch::Alarm',
      Properties: {
        Period: 60,
        Metrics: [
          { Id: 'e1', Expression: expression, ReturnData: true },
          {
            Id: 'm1',
            ReturnData: false,
            MetricStat: { Metric: { Namespace: 'Ns', MetricName: 'Calls' }, Period: 60, Stat: 'Sum' },
          },
        ],
      },
    });
    const dashboard = (expression: string) =>
      graphDashboard([
        [{ expression, label: 'all', id: 'e1' }],
        ['Ns', 'Calls', { id: 'm1', visible: false }],
      ]);
    // A sum over many accounts' metrics: "m1+m1+…", at the limit and one over.
    const sum = (chars: number) => `m1${'+m1'.repeat((chars - 2) / 3)}`.padEnd(chars, ' ');
    expect(problemsOf({ A: alarm(sum(2_048)), D: dashboard(sum(2_048)) })).toEqual([]);
    expect(problemsOf({ A: alarm(sum(2_049)), D: dashboard(sum(2_049)) })).toEqual([
      'expression of alarm A (characters): 2049 > 2048',
      'expression of widget 0 of dashboard D (characters): 2049 > 2048',
    ]);
  });
});
