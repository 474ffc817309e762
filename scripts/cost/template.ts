/**
 * What a synthesized relay template bills by itself, read from its resources: alarms (by metric,
 * standard or high resolution), composite alarms, dashboards, customer-managed KMS keys, secrets, log
 * groups and their retention, the event archive, queues polled by Lambda, the schedules (by the
 * function each invokes), and how each function is traced.
 */
import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import { type IndexShape, indexShapes } from './dynamo-units';

export interface CfnResource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
}
export interface CfnTemplate {
  readonly Resources?: Record<string, CfnResource>;
}

export interface TemplateCounts {
  /**
   * Metrics read by standard-resolution alarms (a metric-math alarm bills each metric it reads); alarms
   * on a Metrics Insights query are apart (`insightsQueries`): AWS bills those per metric the query analyses.
   */
  readonly alarmMetrics: number;
  /** The query of each alarm on a Metrics Insights query (`SELECT …`), priced by the series it matches. */
  readonly insightsQueries: readonly string[];
  /** The same for alarms whose period is under a minute (billed as high resolution). */
  readonly highResolutionAlarmMetrics: number;
  readonly alarms: number;
  readonly compositeAlarms: number;
  readonly dashboards: number;
  readonly kmsKeys: number;
  readonly secrets: number;
  readonly logGroups: ReadonlyArray<{ readonly id: string; readonly retentionDays: number | undefined }>;
  /** Metric filters and whether each reports 0 when nothing matches (a series every minute). */
  readonly metricFilters: ReadonlyArray<{ readonly id: string; readonly always: boolean }>;
  readonly archives: ReadonlyArray<{ readonly id: string; readonly retentionDays: number | undefined }>;
  /** SQS queues a Lambda event source mapping polls (its pollers bill requests while idle). */
  readonly polledQueues: number;
  /** Scheduled invocations a month, from each schedule's rate(). */
  readonly scheduledInvocationsPerMonth: number;
  /** The same by the function each schedule invokes (its name as in `functions`). */
  readonly scheduledInvocationsOf: Readonly<Record<string, number>>;
  /** Functions by their POWERTOOLS_SERVICE_NAME (or logical id): memory, tracing mode, Lambda's own lines. */
  readonly functions: ReadonlyArray<{
    readonly name: string;
    readonly memoryMb: number;
    readonly tracing: 'Active' | 'PassThrough';
    /** Lambda writes its START/END/REPORT lines (not when LoggingConfig's SystemLogLevel is WARN). */
    readonly platformLines: boolean;
  }>;
  /** Stages with access logging on, and an access log line's format. */
  readonly accessLogFormats: readonly string[];
  readonly pointInTimeRecovery: boolean;
  /** The table's global secondary indexes as synthesized: their keys and projections (what a write puts in each). */
  readonly tableIndexes: readonly IndexShape[];
  /** Cognito user pools on the Plus tier (threat protection enforced: billed per monthly active user). */
  readonly plusTierUserPools: number;
  /** Event rules delivering to an event bus (each delivery to another account's bus is billed as an event). */
  readonly busTargets: number;
  /** The table stream's mapping to the outbox publisher: its batch size and batching window. */
  readonly streamMapping: { readonly batchSize: number; readonly windowSeconds: number } | undefined;
}

const MINUTES_PER_MONTH = 30 * 24 * 60;

/** Invocations a month of a `rate(n unit)` expression (cron expressions: not priced, 0). */
export function ratePerMonth(expression: string): number {
  const match = /^rate\((\d+)\s+(minute|minutes|hour|hours|day|days)\)$/.exec(expression.trim());
  if (!match) return 0;
  const every = Number(match[1]);
  const minutes = match[2]!.startsWith('minute')
    ? every
    : match[2]!.startsWith('hour')
      ? every * 60
      : every * 1440;
  return MINUTES_PER_MONTH / minutes;
}

export function countTemplate(template: CfnTemplate): TemplateCounts {
  const all = Object.entries(template.Resources ?? {});
  const of = (type: string) => all.filter(([, r]) => r.Type === type);
  let alarmMetrics = 0;
  let highResolutionAlarmMetrics = 0;
  const insightsQueries: string[] = [];
  for (const [, alarm] of of('AWS::CloudWatch::Alarm')) {
    const p = alarm.Properties ?? {};
    const metrics = p.Metrics as
      Array<{ MetricStat?: { Period?: number }; Expression?: unknown }> | undefined;
    const query = metrics?.find(
      (m) => typeof m.Expression === 'string' && /^\s*SELECT\s/i.test(m.Expression),
    )?.Expression;
    if (typeof query === 'string') {
      insightsQueries.push(query);
      continue;
    }
    const periods = metrics
      ? metrics.filter((m) => m.MetricStat).map((m) => m.MetricStat!.Period ?? 60)
      : [Number(p.Period ?? 60)];
    // An alarm on a metric-math expression alone (no MetricStat) still bills one metric.
    const count = Math.max(1, periods.length);
    if (periods.some((period) => period < 60)) highResolutionAlarmMetrics += count;
    else alarmMetrics += count;
  }
  const nameOf = new Map<string, string>();
  const functions = of('AWS::Lambda::Function').map(([id, fn]) => {
    const p = fn.Properties ?? {};
    const env = (p.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
    const name = typeof env.POWERTOOLS_SERVICE_NAME === 'string' ? env.POWERTOOLS_SERVICE_NAME : id;
    nameOf.set(id, name);
    return {
      name,
      memoryMb: Number(p.MemorySize ?? 128),
      tracing: ((p.TracingConfig as { Mode?: string } | undefined)?.Mode === 'Active'
        ? 'Active'
        : 'PassThrough') as 'Active' | 'PassThrough',
      platformLines: (p.LoggingConfig as { SystemLogLevel?: string } | undefined)?.SystemLogLevel !== 'WARN',
    };
  });
  const queueIds = new Set(
    of('AWS::Lambda::EventSourceMapping')
      .map(
        ([, m]) =>
          (m.Properties?.EventSourceArn as { 'Fn::GetAtt'?: [string, string] } | undefined)?.['Fn::GetAtt'],
      )
      .filter((ref): ref is [string, string] => Array.isArray(ref) && ref[1] === 'Arn')
      .map(([id]) => id)
      .filter((id) => template.Resources?.[id]?.Type === 'AWS::SQS::Queue'),
  );
  const table = of('AWS::DynamoDB::Table')[0]?.[1].Properties ?? {};
  const stream = of('AWS::Lambda::EventSourceMapping').find(
    ([, m]) =>
      (m.Properties?.EventSourceArn as { 'Fn::GetAtt'?: [string, string] } | undefined)?.[
        'Fn::GetAtt'
      ]?.[1] === 'StreamArn',
  )?.[1].Properties;
  return {
    alarms: of('AWS::CloudWatch::Alarm').length,
    alarmMetrics,
    insightsQueries,
    highResolutionAlarmMetrics,
    compositeAlarms: of('AWS::CloudWatch::CompositeAlarm').length,
    dashboards: of('AWS::CloudWatch::Dashboard').length,
    kmsKeys: of('AWS::KMS::Key').length,
    secrets: of('AWS::SecretsManager::Secret').length,
    logGroups: of('AWS::Logs::LogGroup').map(([id, g]) => ({
      id,
      retentionDays: g.Properties?.RetentionInDays as number | undefined,
    })),
    metricFilters: of('AWS::Logs::MetricFilter').flatMap(([id, f]) =>
      ((f.Properties?.MetricTransformations as Array<{ DefaultValue?: number }>) ?? []).map((t) => ({
        id,
        always: t.DefaultValue !== undefined,
      })),
    ),
    archives: of('AWS::Events::Archive').map(([id, a]) => ({
      id,
      retentionDays: a.Properties?.RetentionDays as number | undefined,
    })),
    polledQueues: queueIds.size,
    scheduledInvocationsPerMonth: of('AWS::Scheduler::Schedule').reduce(
      (n, [, s]) => n + ratePerMonth(String(s.Properties?.ScheduleExpression ?? '')),
      0,
    ),
    scheduledInvocationsOf: of('AWS::Scheduler::Schedule').reduce<Record<string, number>>((by, [, s]) => {
      const arn = (s.Properties?.Target as { Arn?: { 'Fn::GetAtt'?: [string, string] } } | undefined)?.Arn;
      const target = nameOf.get(arn?.['Fn::GetAtt']?.[0] ?? '') ?? 'unknown';
      by[target] = (by[target] ?? 0) + ratePerMonth(String(s.Properties?.ScheduleExpression ?? ''));
      return by;
    }, {}),
    functions,
    accessLogFormats: of('AWS::ApiGatewayV2::Stage')
      .map(([, s]) => (s.Properties?.AccessLogSettings as { Format?: string } | undefined)?.Format)
      .filter((f): f is string => typeof f === 'string'),
    // CloudFormation spells the table the way CreateTable does (KeySchema, GlobalSecondaryIndexes, Projection).
    tableIndexes: indexShapes(table as unknown as CreateTableCommandInput),
    pointInTimeRecovery:
      (table.PointInTimeRecoverySpecification as { PointInTimeRecoveryEnabled?: boolean } | undefined)
        ?.PointInTimeRecoveryEnabled === true,
    plusTierUserPools: of('AWS::Cognito::UserPool').filter(
      ([, pool]) =>
        (pool.Properties?.UserPoolAddOns as { AdvancedSecurityMode?: string } | undefined)
          ?.AdvancedSecurityMode === 'ENFORCED' || pool.Properties?.UserPoolTier === 'PLUS',
    ).length,
    busTargets: of('AWS::Events::Rule').reduce(
      (n, [, rule]) =>
        n +
        ((rule.Properties?.Targets as Array<{ Arn?: unknown }>) ?? []).filter((t) =>
          JSON.stringify(t.Arn ?? '').includes(':event-bus/'),
        ).length,
      0,
    ),
    // Lambda's defaults for a stream: 100 records, no window.
    streamMapping: stream && {
      batchSize: Number(stream.BatchSize ?? 100),
      windowSeconds: Number(stream.MaximumBatchingWindowInSeconds ?? 0),
    },
  };
}

/**
 * Typical lengths of API Gateway's access log variables for a provider callback (a request id, an ISO
 * time, an IPv4 address, a route key…); any other variable is taken as 16 characters.
 */
const ACCESS_LOG_VALUE_BYTES: Readonly<Record<string, number>> = {
  requestId: 16,
  requestTime: 26,
  'identity.sourceIp': 14,
  'identity.userAgent': 40,
  'identity.userArn': 1,
  httpMethod: 4,
  routeKey: 28,
  status: 3,
  protocol: 8,
  responseLength: 3,
  responseLatency: 3,
  integrationLatency: 3,
  path: 60,
  'error.message': 1,
  integrationErrorMessage: 1,
  'authorizer.error': 1,
  'authorizer.claims.username': 1,
  'integration.error': 1,
  'integration.status': 3,
  'integration.latency': 3,
};

/** Bytes of one access log line of `format` (API Gateway writes `-` for an empty variable). */
export function accessLogLineBytes(format: string): number {
  return Buffer.byteLength(
    format.replace(/\$context\.([A-Za-z.]+)/g, (_, name: string) =>
      'x'.repeat(ACCESS_LOG_VALUE_BYTES[name] ?? 16),
    ),
  );
}
