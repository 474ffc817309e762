/**
 * Issue 32 item 2 (metric names): every custom metric is declared once (shared/config/metric-names.ts),
 * the emitters name it by that constant, and no alarm or dashboard graph reads a name that no emitter
 * writes. The emitters are found in the source by their constant usage (any `count`/`timing` call on a
 * metrics sink, found by parsing: `metrics.count(X_METRIC, …)`, `(deps.metrics ?? noMetrics).count(…)`;
 * the edge's inline EMF `Name: '${X_METRIC}'`), never listed by hand.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/bundling';
import * as METRIC_NAMES from '../../shared/config/metric-names';
import { exampleConfig, type Resource, sharedRelay, synthRelay } from './relay-synth';

/** `X_METRIC` → its name, as declared. */
const DECLARED = new Map(
  Object.entries(METRIC_NAMES).filter(([key, value]) => key.endsWith('_METRIC') && typeof value === 'string'),
) as Map<string, string>;

/** The emitters' sources: shared/, functions/, local/ and the edge's inline EMF writers (the metrics adapters excepted). */
function emitterSources(): Array<{ path: string; text: string }> {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return walk(path);
      return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
    });
  return [
    ...['shared', 'functions', 'local'].flatMap((dir) => walk(join(PROJECT_ROOT, dir))),
    join(PROJECT_ROOT, 'infra/relay/edge.ts'),
  ]
    .filter((path) => !path.includes(join('adapters', 'metrics')))
    .map((path) => ({ path: relative(PROJECT_ROOT, path), text: readFileSync(path, 'utf8') }));
}

/** Whether a name is a metrics sink's: `metrics`, `deps.metrics`, `noMetrics`, `relayMetrics`. */
const METRICS_NAME = /metrics$/i;

/**
 * Whether an expression is (or may be) a metrics sink, however it is written: `metrics`, `deps.metrics`,
 * `this.metrics!`, `(deps.metrics ?? noMetrics)`, `(metrics as RelayMetrics)`, or a local name given
 * one (`const m = services.metrics ?? noMetrics`).
 */
function isMetricsSink(
  node: ts.Expression,
  locals: ReadonlyMap<string, ts.Expression>,
  seen = new Set<string>(),
): boolean {
  if (ts.isParenthesizedExpression(node) || ts.isNonNullExpression(node) || ts.isAsExpression(node))
    return isMetricsSink(node.expression, locals, seen);
  if (ts.isBinaryExpression(node))
    return isMetricsSink(node.left, locals, seen) || isMetricsSink(node.right, locals, seen);
  if (ts.isConditionalExpression(node))
    return isMetricsSink(node.whenTrue, locals, seen) || isMetricsSink(node.whenFalse, locals, seen);
  if (ts.isPropertyAccessExpression(node)) return METRICS_NAME.test(node.name.text);
  if (!ts.isIdentifier(node)) return false;
  if (METRICS_NAME.test(node.text)) return true;
  const given = locals.get(node.text);
  if (!given || seen.has(node.text)) return false;
  return isMetricsSink(given, locals, new Set([...seen, node.text]));
}

/**
 * The first argument of every `count`/`timing` call on a metrics sink in a source, found by parsing it
 * (TypeScript's parser, no type check): any call shape, `(deps.metrics ?? noMetrics).count(X_METRIC)`
 * and `metrics?.timing(...)` alike, where a regex over the text sees only some.
 */
function metricCallArguments(path: string, text: string): string[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const locals = new Map<string, ts.Expression>();
  const calls: ts.CallExpression[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer)
      locals.set(node.name.text, node.initializer);
    if (ts.isCallExpression(node)) calls.push(node);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return calls
    .filter((call) => {
      const callee = call.expression;
      return (
        ts.isPropertyAccessExpression(callee) &&
        ['count', 'timing'].includes(callee.name.text) &&
        isMetricsSink(callee.expression, locals)
      );
    })
    .map((call) => call.arguments[0]?.getText(source) ?? '(no argument)');
}

/** The names the emitters write (through a constant), and every call that names a metric otherwise. */
function emittedNames(sources: ReadonlyArray<{ path: string; text: string }>) {
  const names = new Set<string>();
  const problems: string[] = [];
  for (const { path, text } of sources) {
    const calls = metricCallArguments(path, text);
    const emf = [...text.matchAll(/Name: '([^']*)'/g)]
      .filter((m) => text.slice(Math.max(0, m.index - 200), m.index).includes('CloudWatchMetrics'))
      .map((m) => m[1]!);
    for (const argument of [...calls, ...emf]) {
      const constants = [...argument.matchAll(/\b([A-Z][A-Z0-9_]*_METRIC)\b/g)].map((m) => m[1]!);
      if (!constants.length)
        problems.push(`${path}: a metric named by ${argument.trim()}, not by a constant`);
      for (const constant of constants) {
        const name = DECLARED.get(constant);
        if (name) names.add(name);
        else problems.push(`${path}: ${constant} is not declared in shared/config/metric-names.ts`);
      }
    }
  }
  return { names, problems };
}

/**
 * What each alarm and dashboard of a template reads, by logical id: an alarm's properties, a dashboard's
 * body parsed (its tokens, such as a function's name, stand as 'TOKEN').
 */
function readers(resources: Record<string, Resource>): Array<[string, unknown]> {
  const found: Array<[string, unknown]> = [];
  for (const [id, r] of Object.entries(resources)) {
    if (r.Type === 'AWS::CloudWatch::Alarm') found.push([id, r.Properties]);
    if (r.Type === 'AWS::CloudWatch::Dashboard') {
      const body = r.Properties.DashboardBody as string | { 'Fn::Join': [string, unknown[]] };
      const text =
        typeof body === 'string'
          ? body
          : body['Fn::Join'][1].map((part) => (typeof part === 'string' ? part : 'TOKEN')).join('');
      found.push([id, JSON.parse(text)]);
    }
  }
  return found;
}

/**
 * Every metric name of `namespace` a template's alarms and dashboards read (with where), and those its
 * metric filters write (the stage's 429s are counted from the access logs, not by code).
 */
function templateMetrics(resources: Record<string, Resource>, namespace: string) {
  const read = new Map<string, string[]>();
  const written = new Set<string>();
  const note = (name: string, where: string) => read.set(name, [...(read.get(name) ?? []), where]);
  const walk = (value: unknown, where: string): void => {
    if (typeof value === 'string') {
      for (const m of value.matchAll(/SELECT\s+\w+\((\w+)\)\s+FROM\s+(?:SCHEMA\()?"([^"]+)"/g))
        if (m[2] === namespace) note(m[1]!, where);
    } else if (Array.isArray(value)) {
      if (value[0] === namespace && typeof value[1] === 'string') note(value[1], where);
      for (const inner of value) walk(inner, where);
    } else if (value && typeof value === 'object') {
      const o = value as Record<string, unknown>;
      if (o.Namespace === namespace && typeof o.MetricName === 'string') note(o.MetricName, where);
      for (const inner of Object.values(o)) walk(inner, where);
    }
  };
  for (const [id, what] of readers(resources)) walk(what, id);
  for (const r of Object.values(resources)) {
    if (r.Type === 'AWS::Logs::MetricFilter')
      for (const t of r.Properties.MetricTransformations as Array<Record<string, string>>)
        if (t.MetricNamespace === namespace) written.add(t.MetricName!);
  }
  return { read, written };
}

/** What a relay's alarms and graphs read that nothing writes. */
function unwritten(resources: Record<string, Resource>, namespace: string, emitted: ReadonlySet<string>) {
  const { read, written } = templateMetrics(resources, namespace);
  return [...read.entries()]
    .filter(([name]) => !emitted.has(name) && !written.has(name))
    .map(([name, where]) => `${name} (read by ${[...new Set(where)].join(', ')})`);
}

const emitters = emittedNames(emitterSources());

/**
 * Where a template reads the roll-up (no dimensions) of a metric published without one
 * (METRICS_WITHOUT_ROLL_UP): an alarm or graph on a series that is never written.
 */
function rollUpReads(resources: Record<string, Resource>, namespace: string): string[] {
  const bare = new Set(METRIC_NAMES.METRICS_WITHOUT_ROLL_UP);
  const found: string[] = [];
  const walk = (value: unknown, where: string): void => {
    if (typeof value === 'string') {
      for (const m of value.matchAll(/SELECT\s+\w+\((\w+)\)\s+FROM\s+(SCHEMA\(\s*"([^"]+)"\s*\)|"([^"]+)")/g))
        if (bare.has(m[1]!) && (m[3] ?? m[4]) === namespace) found.push(`${m[1]} (query, ${where})`);
    } else if (Array.isArray(value)) {
      // A dashboard metric: [namespace, name, dimension name, dimension value, …, {options}].
      if (value[0] === namespace && bare.has(value[1]) && typeof value[2] !== 'string')
        found.push(`${value[1]} (graph, ${where})`);
      for (const inner of value) walk(inner, where);
    } else if (value && typeof value === 'object') {
      const o = value as Record<string, unknown>;
      if (
        o.Namespace === namespace &&
        bare.has(o.MetricName as string) &&
        !(o.Dimensions as unknown[])?.length
      )
        found.push(`${String(o.MetricName)} (alarm, ${where})`);
      for (const inner of Object.values(o)) walk(inner, where);
    }
  };
  for (const [id, what] of readers(resources)) walk(what, id);
  return found;
}

describe('metric names, declared once', () => {
  it('has every emitter name its metric by a constant declared in shared/config/metric-names.ts', () => {
    expect(emitters.problems).toEqual([]);
    // The scan finds the emitters of every part: callbacks, reconciliation, the buffer, the edge, statements.
    for (const name of [
      'CallbacksRejected',
      'SilentProviders',
      'TransactionsExpired',
      'BufferedCallbacksFailed',
      'EdgeProbeFailures',
      'RegistrationEventsRefused',
    ])
      expect(emitters.names, name).toContain(name);
  });

  it('has no alarm or dashboard graph read a metric that nothing writes (the example relay, and one with the edge and badge shops)', () => {
    // Prepare
    const plain = sharedRelay();
    const edged = synthRelay(
      'MetricNamesEdge',
      (stack) => ({
        cloudFront: {
          webAclArn:
            'arn:aws:wafv2:us-east-1:123456789012:global/webacl/relay-edge/11111111-2222-3333-4444-555555555555',
        },
        customDomain: {
          domainName: 'relay.payments.example.org',
          certificate: acm.Certificate.fromCertificateArn(
            stack,
            'Certificate',
            'arn:aws:acm:us-east-1:123456789012:certificate/11111111-2222-3333-4444-555555555555',
          ),
        },
      }),
      {
        ...exampleConfig,
        publicBaseUrl: 'https://relay.payments.example.org',
        edge: { mode: 'cloudfront', originVerifySecretId: 'relay/edge-origin' },
        badges: { shops: { corner: { baseUrl: 'https://badges.example.org' } } },
      },
    );

    // Act
    const problems = [plain, edged].flatMap((r) =>
      unwritten(r.resources, r.relay.metricsNamespace, emitters.names),
    );

    // Assess: and the check did read them (alarms, graphs, Metrics Insights queries).
    expect(problems).toEqual([]);
    const { read } = templateMetrics(edged.resources, edged.relay.metricsNamespace);
    for (const name of ['StatusCallErrors', 'OriginVerifyRefusals', 'BadgeReadFailures', 'StageThrottled'])
      expect([...read.keys()], name).toContain(name);
  });

  it('has no alarm or graph read the roll-up of a metric published without one, and names one that does', () => {
    // Prepare
    const { resources, relay } = sharedRelay();
    const namespace = relay.metricsNamespace;
    const probe: Record<string, Resource> = {
      Rolled: {
        Type: 'AWS::CloudWatch::Alarm',
        Properties: { Namespace: namespace, MetricName: 'SilentProviders' },
      },
      Query: {
        Type: 'AWS::CloudWatch::Alarm',
        Properties: { Metrics: [{ Expression: `SELECT SUM(StatementPullAgeSeconds) FROM "${namespace}"` }] },
      },
    };
    // Act / Assess: the example relay reads them per provider only; the probe's two reads are named.
    expect(rollUpReads(resources, namespace)).toEqual([]);
    expect(rollUpReads(probe, namespace)).toEqual([
      'SilentProviders (alarm, Rolled)',
      'StatementPullAgeSeconds (query, Query)',
    ]);
    // And the check did see the per-provider reads (the pull-age alarms' query, the silence alarms).
    expect(JSON.stringify(Object.values(resources))).toContain(
      'FROM SCHEMA(\\"' + namespace + '\\", provider)',
    );
    expect(
      Object.values(resources).filter((r) =>
        (r.Properties?.Metrics as any[] | undefined)?.some(
          (m) =>
            m.MetricStat?.Metric?.MetricName === 'SilentProviders' && m.MetricStat.Metric.Dimensions?.length,
        ),
      ),
    ).toHaveLength(3);
  });

  it('names a watched metric that no emitter writes, and an emitter that names its metric by a string', () => {
    // Prepare: an alarm on a name nobody writes, a graph of one, and a literal-named emitter.
    const namespace = 'MobileMoneyRelay/Probe/Relay';
    const resources: Record<string, Resource> = {
      Watch: {
        Type: 'AWS::CloudWatch::Alarm',
        Properties: { Namespace: namespace, MetricName: 'NobodyWritesThis' },
      },
      Board: {
        Type: 'AWS::CloudWatch::Dashboard',
        Properties: {
          DashboardBody: {
            'Fn::Join': [
              '',
              [
                `{"widgets":[{"properties":{"metrics":[["${namespace}","CallbacksRejected"],["${namespace}","NorThis","x","`,
                { Ref: 'X' },
                '"]]}}]}',
              ],
            ],
          },
        },
      },
    };

    // Act
    const problems = unwritten(resources, namespace, emitters.names);
    const literal = emittedNames([{ path: 'probe.ts', text: "metrics.count('Handwritten', 1);" }]);

    // Assess
    expect(problems).toEqual(['NobodyWritesThis (read by Watch)', 'NorThis (read by Board)']);
    expect(literal.problems).toEqual(["probe.ts: a metric named by 'Handwritten', not by a constant"]);
  });

  it('sees a metric emitted only through a call shape other than metrics.count: (a ?? b).count, a local alias, metrics!.timing', () => {
    // Prepare: emitters a text search for "metrics.count(" misses, each naming its metric once.
    const text = [
      'import { CALLBACKS_REJECTED_METRIC, SILENT_PROVIDERS_METRIC, STATUS_CALL_ERRORS_METRIC } from "x";',
      'export function f(deps: Deps) {',
      '  (deps.metrics ?? noMetrics).count(CALLBACKS_REJECTED_METRIC, 1);',
      '  const sink = deps.metrics ?? noMetrics;',
      '  sink.count(SILENT_PROVIDERS_METRIC);',
      '  (this.metrics as RelayMetrics)!.timing(STATUS_CALL_ERRORS_METRIC, 3);',
      "  (deps.metrics ?? noMetrics).count('Handwritten');",
      '  rows.count(NOT_A_METRIC);',
      '}',
    ].join('\n');

    // Act
    const found = emittedNames([{ path: 'probe.ts', text }]);

    // Assess
    expect([...found.names].sort()).toEqual(['CallbacksRejected', 'SilentProviders', 'StatusCallErrors']);
    expect(found.problems).toEqual(["probe.ts: a metric named by 'Handwritten', not by a constant"]);
  });
});
