/**
 * The custom metric series the relay's code publishes, found in the source rather than listed by hand:
 * every `metrics.count('Name', …, { dimensions })` and `metrics.timing(…)` under shared/ and functions/.
 * CloudWatch bills each metric name × dimension value set with data in a month ($0.30, prorated by the
 * hour), and PowertoolsRelayMetrics publishes a metric with dimensions twice: the roll-up without
 * dimensions and the dimensioned series (shared/adapters/metrics/powertools-metrics.ts), except those in
 * METRICS_WITHOUT_ROLL_UP (the dimensioned series only).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { METRICS_WITHOUT_ROLL_UP } from '../../shared/config/metric-names';

export interface Emitter {
  readonly name: string;
  /** Dimension names, sorted; empty for a roll-up only metric. */
  readonly dimensions: readonly string[];
  /** Where it is published (path:line), for the explanation. */
  readonly at: string;
}

/**
 * When a metric has data, which decides whether it is billed in a month:
 * - `cycle`: every poll cycle, traffic or not (the idle floor);
 * - `traffic`: on every callback;
 * - `lifecycle`: when the poller checks or finalizes registered transactions;
 * - `badges`: with badge shops configured;
 * - `incident`: only on a failure, a rotation or an operator's action (a few hours at most: not in a
 *   normal month's bill).
 * A metric the code publishes that is missing here stops `npm run cost` with its name, so a new emitter
 * is priced on purpose.
 */
export const METRIC_ACTIVITY: Readonly<
  Record<string, 'cycle' | 'traffic' | 'lifecycle' | 'badges' | 'deliveries' | 'statements' | 'incident'>
> = {
  PollCycleFailures: 'incident',
  // Written only while an account is silent (the heartbeat reads the poller's Lambda metrics instead).
  SilentAccounts: 'incident',
  // Per provider, only while no account of it has called back for its ticket's period.
  SilentProviders: 'incident',
  // Scanners and misconfigured senders reach any public URL: some rejections every month.
  CallbacksRejected: 'traffic',
  TransactionsFinalized: 'lifecycle',
  TimeToFinal: 'lifecycle',
  PickupDelay: 'lifecycle',
  FinalizedWithoutCallback: 'incident',
  TransactionsExpired: 'incident',
  AmbiguousEscalated: 'incident',
  VerificationDisagreements: 'incident',
  StatusNotFoundConflicts: 'incident',
  StatusCallErrors: 'incident',
  StatusApiCredentialFailures: 'incident',
  SilentTransactionsHastened: 'incident',
  CallbacksResumed: 'incident',
  CallbackSilenceStarted: 'incident',
  CallbacksBuffered: 'incident',
  BufferedCallbacksApplied: 'incident',
  BufferedCallbacksFailed: 'incident',
  IngressBufferOff: 'incident',
  EventPublishFailures: 'incident',
  RefusalsNotStored: 'incident',
  RegistrationEventsRefused: 'incident',
  PreviousPathSecretUsed: 'incident',
  BadgeReads: 'badges',
  BadgeEvents: 'badges',
  BadgeReadFailures: 'incident',
  BadgeRefused: 'incident',
  BadgeInvalidDates: 'incident',
  BadgeListInconsistent: 'incident',
  // With the edge on: a refused origin header is an attack or a half-done rotation.
  OriginVerifyRefusals: 'incident',
  // The provider's own records (issue 29): per provider, written only while a pull is half its ticket
  // threshold late (shared/app/provider-records/pull-cycle.ts).
  StatementPullAgeSeconds: 'incident',
  StatementPullFailures: 'incident',
  BalanceSnapshotFailures: 'incident',
  // Webhook deliveries (issue 31): only with destinations configured; priced per delivery apart.
  DeliveriesDelivered: 'deliveries',
  DeliveriesDeadLettered: 'incident',
  DestinationsDisabled: 'incident',
  DeliveryMessagesRefused: 'incident',
  DeliveryErrors: 'incident',
  // Statement files and the scheduled close (issue 29): every close run writes the overdue count.
  StatementDaysOverdue: 'cycle',
  StatementDaysClosed: 'statements',
  StatementImportsDone: 'statements',
  StatementImportsRefused: 'incident',
};

// The name is a literal or a constant (`PULL_AGE_METRIC`) declared as `export const NAME = 'Value'`.
const CALL = /metrics\??\.(count|timing)\(\s*(?:'([A-Za-z]+)'|([A-Z][A-Z0-9_]*))([^;]*?)\);/gs;
const CONSTANT = /export const ([A-Z][A-Z0-9_]*) = '([A-Za-z]+)';/g;

/** Metric-name constants declared in these sources (`export const X_METRIC = 'Name'`). */
export function metricConstants(sources: readonly string[]): ReadonlyMap<string, string> {
  return new Map(sources.flatMap((source) => [...source.matchAll(CONSTANT)].map((m) => [m[1]!, m[2]!])));
}

/** The dimension names of a call's last argument: `{ a: …, b }`, `where` or `{ ...where, c: … }`. */
function dimensionNames(args: string, source: string, at: string): string[] {
  const literal = /\{([^{}]*)\}\s*$/s.exec(args.trim());
  const variable = /,\s*([A-Za-z_$][\w$]*)\s*$/s.exec(args.trim());
  if (!literal && !variable) return [];
  const names = new Set<string>();
  const parts = literal ? literal[1]!.split(',') : [`...${variable![1]}`];
  for (const raw of parts) {
    const part = raw.trim();
    if (!part) continue;
    const spread = /^\.\.\.([A-Za-z_$][\w$]*)$/.exec(part);
    if (spread) {
      const declared = new RegExp(`const ${spread[1]} = \\{([^{}]*)\\}`).exec(source);
      if (!declared) throw new Error(`${at}: cannot read the dimensions in ${spread[1]}`);
      for (const inner of declared[1]!.split(',')) {
        const name = /^\s*([A-Za-z_$][\w$]*)/.exec(inner)?.[1];
        if (name) names.add(name);
      }
      continue;
    }
    const name = /^([A-Za-z_$][\w$]*)/.exec(part)?.[1];
    if (!name) throw new Error(`${at}: cannot read a dimension in "${part}"`);
    names.add(name);
  }
  return [...names].sort();
}

/** Every metric call in one source text. */
export function emittersIn(
  source: string,
  file: string,
  constants: ReadonlyMap<string, string> = metricConstants([source]),
): Emitter[] {
  const found: Emitter[] = [];
  for (const match of source.matchAll(CALL)) {
    const line = source.slice(0, match.index).split('\n').length;
    const at = `${file}:${line}`;
    // The arguments after the name: value, then the dimensions when there are three.
    const rest = match[4]!;
    const name = match[2] ?? constants.get(match[3]!);
    if (!name) throw new Error(`${at}: the metric name ${match[3]} is not a constant declared as 'Name'`);
    const args = rest.replace(/^\s*,/, '');
    const topLevelCommas = [...args].reduce(
      (state, ch) => {
        if ('({['.includes(ch)) state.depth++;
        else if (')}]'.includes(ch)) state.depth--;
        else if (ch === ',' && state.depth === 0) state.commas++;
        return state;
      },
      { depth: 0, commas: 0 },
    ).commas;
    const dimensions = topLevelCommas >= 1 ? dimensionNames(rest, source, at) : [];
    found.push({ name, dimensions, at });
  }
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Every metric call under shared/ and functions/ (the metrics adapters themselves excepted). */
export function findEmitters(root: string): Emitter[] {
  const files = ['shared', 'functions']
    .flatMap((dir) => sourceFiles(join(root, dir)))
    .filter((path) => !path.includes(join('adapters', 'metrics')))
    .map((path) => ({ path, source: readFileSync(path, 'utf8') }));
  const constants = metricConstants(files.map((f) => f.source));
  return files.flatMap(({ path, source }) => emittersIn(source, relative(root, path), constants));
}

/** How many values a dimension takes in a normal month. */
export interface DimensionValues {
  /** Providers with an account. */
  readonly provider: number;
  /** Provider/account pairs. */
  readonly account: number;
  /** Badge shops (BadgeReads, BadgeEvents). */
  readonly shop: number;
  /** Anything else, by dimension name (origin: the poller's `poll`; type: badge event types). */
  readonly [other: string]: number;
}

export interface MetricSeries {
  readonly name: string;
  readonly activity: (typeof METRIC_ACTIVITY)[string];
  readonly series: number;
  readonly dimensionSets: readonly string[];
}

/**
 * Series per metric name: 1 roll-up (none for a METRICS_WITHOUT_ROLL_UP metric written with dimensions),
 * plus for each distinct dimension set the product of its dimensions' values ({provider, account} counts
 * the pairs, not providers × accounts).
 */
export function countSeries(
  emitters: readonly Emitter[],
  values: DimensionValues,
  /** Per metric name, dimensions that take fewer values for it (providers with a pull API…). */
  overrides: Readonly<Record<string, Partial<DimensionValues>>> = {},
): MetricSeries[] {
  const byName = new Map<string, Set<string>>();
  for (const e of emitters) {
    if (!(e.name in METRIC_ACTIVITY))
      throw new Error(
        `${e.at}: metric ${e.name} is not priced: add it to METRIC_ACTIVITY in scripts/cost/metric-series.ts`,
      );
    const sets = byName.get(e.name) ?? new Set<string>();
    sets.add(e.dimensions.join(','));
    byName.set(e.name, sets);
  }
  const valuesOf = (set: string, metric: string) => {
    const names = set ? set.split(',') : [];
    if (names.length === 0) return 0;
    // An account belongs to one provider: the pair count already holds the provider.
    const counted = names.includes('account') ? names.filter((n) => n !== 'provider') : names;
    return counted.reduce((n, name) => {
      const v = overrides[metric]?.[name] ?? values[name];
      if (v === undefined) throw new Error(`dimension ${name}: how many values it takes is not known`);
      return n * v;
    }, 1);
  };
  return [...byName.entries()]
    .map(([name, sets]) => ({
      name,
      activity: METRIC_ACTIVITY[name]!,
      dimensionSets: [...sets],
      series:
        (METRICS_WITHOUT_ROLL_UP.includes(name) && ![...sets].includes('') ? 0 : 1) +
        [...sets].reduce((n, set) => n + valuesOf(set, name), 0),
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}
