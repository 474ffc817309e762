/**
 * npm run cost — what the relay costs: the fixed monthly floor, the cost per million callbacks and per
 * million transaction lifecycles, and a month at a given volume, from the units `npm run bench` measures
 * (write/read units), the bundles' measured log lines, and list prices (docs/deploy.md, "Cost notes").
 *
 *   npm run cost [-- --region us-east-1|eu-west-1] [--callbacks 1000000] [--lifecycles 0]
 *                [--trace-rate 0.05] [--template cdk.out/MobileMoneyRelay.template.json] [--accounts 3]
 *
 * With --template (a synthesized stack), the alarms, keys and dashboard are counted from it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { parseCli } from './cli';

export type Region = 'us-east-1' | 'eu-west-1';

/** List prices, on-demand, first tier, no free tier unless named. Check the pricing pages before relying on them. */
export interface Prices {
  /** API Gateway HTTP API, per million requests (first 300 million a month; 512 KB each). */
  readonly httpApiPerMillion: number;
  readonly lambdaPerMillionRequests: number;
  /** Lambda on Arm (Graviton), per GB-second (first 7.5 billion GB-s a month). */
  readonly lambdaArmPerGbSecond: number;
  /** DynamoDB on-demand, Standard table class (halved in November 2024). */
  readonly dynamoPerMillionWrites: number;
  readonly dynamoPerMillionReads: number;
  readonly dynamoStoragePerGbMonth: number;
  readonly dynamoPitrPerGbMonth: number;
  /** EventBridge custom events put on a bus (64 KB chunks). */
  readonly eventBridgePerMillionEvents: number;
  /** CloudWatch Logs, Standard class ingestion (EMF metrics included: they are log lines). */
  readonly logsIngestionPerGb: number;
  /** Custom metrics, per metric (name × dimension set) a month, first 10,000. */
  readonly metricPerMonth: number;
  /** Standard-resolution alarm, per alarm a month (per metric for metric-math alarms). */
  readonly alarmPerMonth: number;
  readonly compositeAlarmPerMonth: number;
  readonly dashboardPerMonth: number;
  /** X-Ray, per million traces recorded, beyond the free 100,000 a month. */
  readonly xrayPerMillionTraces: number;
  readonly xrayFreeTracesPerMonth: number;
  readonly secretPerMonth: number;
  readonly secretsPerTenThousandCalls: number;
  readonly kmsKeyPerMonth: number;
  readonly sqsPerMillionRequests: number;
}

/** When the prices below were read from the AWS pricing pages. */
export const PRICES_AS_OF = '2025-11 (AWS public pricing pages; DynamoDB after the November 2024 cut)';

export const PRICES: Readonly<Record<Region, Prices>> = {
  'us-east-1': {
    httpApiPerMillion: 1.0,
    lambdaPerMillionRequests: 0.2,
    lambdaArmPerGbSecond: 0.0000133334,
    dynamoPerMillionWrites: 0.625,
    dynamoPerMillionReads: 0.125,
    dynamoStoragePerGbMonth: 0.25,
    dynamoPitrPerGbMonth: 0.2,
    eventBridgePerMillionEvents: 1.0,
    logsIngestionPerGb: 0.5,
    metricPerMonth: 0.3,
    alarmPerMonth: 0.1,
    compositeAlarmPerMonth: 0.5,
    dashboardPerMonth: 3.0,
    xrayPerMillionTraces: 5.0,
    xrayFreeTracesPerMonth: 100_000,
    secretPerMonth: 0.4,
    secretsPerTenThousandCalls: 0.05,
    kmsKeyPerMonth: 1.0,
    sqsPerMillionRequests: 0.4,
  },
  'eu-west-1': {
    httpApiPerMillion: 1.11,
    lambdaPerMillionRequests: 0.2,
    lambdaArmPerGbSecond: 0.0000133334,
    dynamoPerMillionWrites: 0.7068,
    dynamoPerMillionReads: 0.1415,
    dynamoStoragePerGbMonth: 0.283,
    dynamoPitrPerGbMonth: 0.2265,
    eventBridgePerMillionEvents: 1.0,
    logsIngestionPerGb: 0.57,
    metricPerMonth: 0.3,
    alarmPerMonth: 0.1,
    compositeAlarmPerMonth: 0.5,
    dashboardPerMonth: 3.0,
    xrayPerMillionTraces: 5.0,
    xrayFreeTracesPerMonth: 100_000,
    secretPerMonth: 0.4,
    secretsPerTenThousandCalls: 0.05,
    kmsKeyPerMonth: 1.0,
    sqsPerMillionRequests: 0.4,
  },
};

/** One Lambda invocation of a kind: what it is billed for and what it logs. */
export interface Invocation {
  readonly fn: string;
  /** Invocations per unit (a callback, a lifecycle). */
  readonly count: number;
  readonly durationMs: number;
  readonly memoryMb: number;
  /** Bytes of log events ingested per invocation, platform lines and per-event overhead included. */
  readonly logBytes: number;
  /** Whether the function's traces are sampled by the hot-path rule (infra/relay/tracing-sampling.ts). */
  readonly hotPath: boolean;
}

/** What one unit of work (a callback, a lifecycle) consumes. */
export interface Usage {
  readonly apiRequests: number;
  readonly invocations: readonly Invocation[];
  readonly writeUnits: number;
  readonly readUnits: number;
  readonly events: number;
  /** Bytes stored per unit, and for how many days (TTL). */
  readonly stored: ReadonlyArray<{ readonly what: string; readonly bytes: number; readonly days: number }>;
}

/**
 * Bytes CloudWatch Logs bills per log event beyond its message (the PutLogEvents event size). Lambda's
 * platform lines per invocation: START (~70 B), END (~50 B), REPORT with its XRAY line (~230 B).
 */
export const LOG_EVENT_OVERHEAD_BYTES = 26;
/** DynamoDB bills 100 bytes of indexing overhead per stored item. */
export const DYNAMO_ITEM_OVERHEAD_BYTES = 100;
export const PLATFORM_LOG_BYTES = 70 + 50 + 230 + 3 * LOG_EVENT_OVERHEAD_BYTES;

/**
 * Measured 2026-11-26. Write/read units: `npm run bench` (ConsumedCapacity against DynamoDB Local: 3.00
 * WCU / 0.50 RCU per first callback; 16 WCU per lifecycle confirmed by a status call). Log lines: the
 * callback bundle run as deployed at LOG_LEVEL=INFO (test/integration/callback-bundle.test.ts with
 * BUNDLE_TEST_LOG_LEVEL=INFO): "callback handled" 265 B, its two EMF blobs 221 + 197 B; the publisher's
 * "events published" ~250 B and one EMF blob ~200 B. Durations: the local ack p50 at concurrency 16
 * (50–76 ms, docs/development.md), taken whole as the callback's billed duration (an upper bound: three
 * DynamoDB calls take ~10–20 ms in the cloud); the publisher's one PutEvents call ~40 ms. Item sizes:
 * the receipt and transaction items that callback left in DynamoDB Local, by DynamoDB's size rules
 * (827 B and 2,551 B, of which 1,064 B the transaction's `outbox`, kept after publishing). Reads per
 * lifecycle: the callback's 0.5 plus a share of the poll queries (estimated, not measured).
 */
export const MEASURED = {
  callbackLogBytes: 265 + 221 + 197 + 3 * LOG_EVENT_OVERHEAD_BYTES + PLATFORM_LOG_BYTES,
  publisherLogBytes: 250 + 200 + 2 * LOG_EVENT_OVERHEAD_BYTES + PLATFORM_LOG_BYTES,
  managementLogBytes: 265 + 220 + 2 * LOG_EVENT_OVERHEAD_BYTES + PLATFORM_LOG_BYTES,
  callbackDurationMs: 76,
  publisherDurationMs: 40,
  managementDurationMs: 80,
  memoryMb: 512,
  writeUnitsPerCallback: 3,
  readUnitsPerCallback: 0.5,
  writeUnitsPerLifecycle: 16,
  readUnitsPerLifecycle: 1,
  receiptBytes: 827 + DYNAMO_ITEM_OVERHEAD_BYTES,
  transactionBytes: 2551 + DYNAMO_ITEM_OVERHEAD_BYTES,
  receiptDays: 30,
  transactionDays: 400,
} as const;

/** A first callback that ends its transaction: API → callback function → DynamoDB → stream → one event. */
export function callbackUsage(m = MEASURED): Usage {
  return {
    apiRequests: 1,
    invocations: [
      {
        fn: 'callback',
        count: 1,
        durationMs: m.callbackDurationMs,
        memoryMb: m.memoryMb,
        logBytes: m.callbackLogBytes,
        hotPath: true,
      },
      // At low volume the stream delivers records one at a time: one publisher run per event.
      {
        fn: 'outbox-publisher',
        count: 1,
        durationMs: m.publisherDurationMs,
        memoryMb: m.memoryMb,
        logBytes: m.publisherLogBytes,
        hotPath: true,
      },
    ],
    writeUnits: m.writeUnitsPerCallback,
    readUnits: m.readUnitsPerCallback,
    events: 1,
    stored: [
      { what: 'receipt', bytes: m.receiptBytes, days: m.receiptDays },
      { what: 'transaction', bytes: m.transactionBytes, days: m.transactionDays },
    ],
  };
}

/**
 * A registered transaction confirmed by a status call (MoMo's unsigned success): registration through
 * the management API, the callback (AMBIGUOUS event), the poller's claim and status call (inside the
 * poll cycles the floor pays for), the final event.
 */
export function lifecycleUsage(m = MEASURED): Usage {
  return {
    apiRequests: 2,
    invocations: [
      {
        fn: 'management',
        count: 1,
        durationMs: m.managementDurationMs,
        memoryMb: m.memoryMb,
        logBytes: m.managementLogBytes,
        hotPath: true,
      },
      {
        fn: 'callback',
        count: 1,
        durationMs: m.callbackDurationMs,
        memoryMb: m.memoryMb,
        logBytes: m.callbackLogBytes,
        hotPath: true,
      },
      {
        fn: 'outbox-publisher',
        count: 2,
        durationMs: m.publisherDurationMs,
        memoryMb: m.memoryMb,
        logBytes: m.publisherLogBytes,
        hotPath: true,
      },
    ],
    writeUnits: m.writeUnitsPerLifecycle,
    readUnits: m.readUnitsPerLifecycle,
    events: 2,
    stored: [
      { what: 'receipt', bytes: m.receiptBytes, days: m.receiptDays },
      { what: 'transaction', bytes: m.transactionBytes, days: m.transactionDays },
    ],
  };
}

const GB = 1024 ** 3;
const MILLION = 1_000_000;

export interface CostLine {
  readonly item: string;
  readonly dollars: number;
  readonly formula: string;
}

/**
 * Dollars per million units of `usage`, line by line. X-Ray is at list price here (no free tier): the
 * month's table applies the free traces. `traceRate` is the share of hot-path invocations traced; the
 * others are traced by X-Ray's default rule (taken as all of them: they are few).
 */
export function costPerMillion(usage: Usage, prices: Prices, traceRate: number): CostLine[] {
  const invocations = usage.invocations.reduce((sum, i) => sum + i.count, 0);
  const gbSeconds = usage.invocations.reduce(
    (sum, i) => sum + i.count * (Math.ceil(i.durationMs) / 1000) * (i.memoryMb / 1024),
    0,
  );
  const logBytes = usage.invocations.reduce((sum, i) => sum + i.count * i.logBytes, 0);
  const traces = usage.invocations.reduce((sum, i) => sum + i.count * (i.hotPath ? traceRate : 1), 0);
  const storage = usage.stored.reduce((sum, s) => sum + (s.bytes / GB) * (s.days / 30), 0);
  return [
    {
      item: 'API Gateway HTTP API',
      dollars: usage.apiRequests * prices.httpApiPerMillion,
      formula: `${usage.apiRequests} request × $${prices.httpApiPerMillion}/M`,
    },
    {
      item: 'Lambda requests',
      dollars: invocations * prices.lambdaPerMillionRequests,
      formula: `${invocations} invocations × $${prices.lambdaPerMillionRequests}/M`,
    },
    {
      item: 'Lambda duration (Arm)',
      dollars: gbSeconds * MILLION * prices.lambdaArmPerGbSecond,
      formula: `${gbSeconds.toFixed(4)} GB-s × $${prices.lambdaArmPerGbSecond}/GB-s`,
    },
    {
      item: 'DynamoDB writes',
      dollars: usage.writeUnits * prices.dynamoPerMillionWrites,
      formula: `${usage.writeUnits} WRU × $${prices.dynamoPerMillionWrites}/M`,
    },
    {
      item: 'DynamoDB reads',
      dollars: usage.readUnits * prices.dynamoPerMillionReads,
      formula: `${usage.readUnits} RRU × $${prices.dynamoPerMillionReads}/M`,
    },
    {
      item: 'EventBridge events',
      dollars: usage.events * prices.eventBridgePerMillionEvents,
      formula: `${usage.events} event × $${prices.eventBridgePerMillionEvents}/M`,
    },
    {
      item: 'CloudWatch Logs (and EMF metrics)',
      dollars: (logBytes * MILLION * prices.logsIngestionPerGb) / GB,
      formula: `${logBytes} B × $${prices.logsIngestionPerGb}/GB`,
    },
    {
      item: 'X-Ray traces',
      dollars: traces * prices.xrayPerMillionTraces,
      formula: `${traces.toFixed(2)} traces × $${prices.xrayPerMillionTraces}/M`,
    },
    {
      item: 'DynamoDB storage + PITR over the retention',
      dollars: storage * MILLION * (prices.dynamoStoragePerGbMonth + prices.dynamoPitrPerGbMonth),
      formula:
        usage.stored.map((s) => `${s.bytes} B × ${s.days} d`).join(' + ') +
        ` × $${(prices.dynamoStoragePerGbMonth + prices.dynamoPitrPerGbMonth).toFixed(4)}/GB-month`,
    },
  ];
}

export const total = (lines: readonly CostLine[]) => lines.reduce((sum, line) => sum + line.dollars, 0);

/** The lines the per-million target counts: everything but the storage that the retention decides. */
export const requestPath = (lines: readonly CostLine[]) =>
  lines.filter((line) => !line.item.startsWith('DynamoDB storage'));

/** What the stack costs with no traffic. */
export interface FixedResources {
  readonly alarms: number;
  readonly compositeAlarms: number;
  readonly dashboards: number;
  readonly kmsKeys: number;
  readonly secrets: number;
  /** Custom metrics (name × dimension set) with data this month. */
  readonly metrics: number;
  /** Poll cycles a month (one a minute) and what each costs. */
  readonly pollCycles: number;
  readonly pollDurationMs: number;
  readonly pollReadUnits: number;
  readonly pollLogBytes: number;
  /** Secrets Manager reads: per secret, one per cold start and one per cache refresh. */
  readonly secretReads: number;
}

/**
 * The floor for `accounts` accounts over `providers` providers. Metrics with data in a normal month, each
 * as a roll-up plus its dimension values (shared/adapters/metrics/powertools-metrics.ts): by account
 * CallbacksReceived, TimeToFinal, PickupDelay (3 × (1 + accounts)); by provider AckLatency,
 * CallbacksRejected (2 × (1 + providers)); EventsPublished, SilentAccounts (2); TransactionsFinalized by
 * origin (1 + 2). A poll cycle a minute; warm functions reading each secret every 5 minutes (~9,000 reads
 * a secret a month per warm function, two warm functions).
 */
export function defaultFixed(accounts: number, providers = Math.min(accounts, 3)): FixedResources {
  return {
    alarms: 35 + accounts,
    compositeAlarms: 0,
    dashboards: 1,
    kmsKeys: 2,
    secrets: accounts,
    metrics: 3 * (1 + accounts) + 2 * (1 + providers) + 2 + 3,
    pollCycles: 43_200,
    pollDurationMs: 200,
    pollReadUnits: 2,
    pollLogBytes: 600,
    secretReads: accounts * 2 * 9_000,
  };
}

export function fixedMonthly(fixed: FixedResources, prices: Prices): CostLine[] {
  const pollGbSeconds = fixed.pollCycles * (fixed.pollDurationMs / 1000) * (MEASURED.memoryMb / 1024);
  return [
    {
      item: 'CloudWatch alarms',
      dollars: fixed.alarms * prices.alarmPerMonth + fixed.compositeAlarms * prices.compositeAlarmPerMonth,
      formula: `${fixed.alarms} × $${prices.alarmPerMonth} + ${fixed.compositeAlarms} composite × $${prices.compositeAlarmPerMonth}`,
    },
    {
      item: 'CloudWatch dashboard',
      dollars: fixed.dashboards * prices.dashboardPerMonth,
      formula: `${fixed.dashboards} × $${prices.dashboardPerMonth}`,
    },
    {
      item: 'Custom metrics',
      dollars: fixed.metrics * prices.metricPerMonth,
      formula: `${fixed.metrics} metrics × $${prices.metricPerMonth}`,
    },
    {
      item: 'KMS keys',
      dollars: fixed.kmsKeys * prices.kmsKeyPerMonth,
      formula: `${fixed.kmsKeys} × $${prices.kmsKeyPerMonth}`,
    },
    {
      item: 'Secrets Manager',
      dollars:
        fixed.secrets * prices.secretPerMonth +
        (fixed.secretReads / 10_000) * prices.secretsPerTenThousandCalls,
      formula: `${fixed.secrets} × $${prices.secretPerMonth} + ${fixed.secretReads} reads × $${prices.secretsPerTenThousandCalls}/10k`,
    },
    {
      item: 'Poller (Lambda, reads, logs)',
      dollars:
        (fixed.pollCycles / MILLION) * prices.lambdaPerMillionRequests +
        pollGbSeconds * prices.lambdaArmPerGbSecond +
        ((fixed.pollCycles * fixed.pollReadUnits) / MILLION) * prices.dynamoPerMillionReads +
        ((fixed.pollCycles * fixed.pollLogBytes) / GB) * prices.logsIngestionPerGb,
      formula: `${fixed.pollCycles} cycles × (${fixed.pollDurationMs} ms, ${fixed.pollReadUnits} RRU, ${fixed.pollLogBytes} B); Scheduler inside its free 14 M`,
    },
  ];
}

/** A month: the floor, the traffic at list price, X-Ray's free traces taken off (poller traces included). */
export function month(
  volume: { callbacks: number; lifecycles: number },
  prices: Prices,
  traceRate: number,
  fixed: FixedResources,
): { floor: number; traffic: number; xrayFree: number; total: number } {
  const floor = total(fixedMonthly(fixed, prices));
  const perCallback = costPerMillion(callbackUsage(), prices, traceRate);
  const perLifecycle = costPerMillion(lifecycleUsage(), prices, traceRate);
  const traffic = (total(perCallback) * volume.callbacks + total(perLifecycle) * volume.lifecycles) / MILLION;
  const xrayDollars = (lines: CostLine[]) => lines.find((l) => l.item === 'X-Ray traces')!.dollars;
  const tracedDollars =
    (xrayDollars(perCallback) * volume.callbacks + xrayDollars(perLifecycle) * volume.lifecycles) / MILLION +
    (fixed.pollCycles / MILLION) * prices.xrayPerMillionTraces;
  const xrayFree = -Math.min(
    tracedDollars,
    (prices.xrayFreeTracesPerMonth / MILLION) * prices.xrayPerMillionTraces,
  );
  // The poller's traces are in the floor only through the free tier they use up.
  const pollerTraces = (fixed.pollCycles / MILLION) * prices.xrayPerMillionTraces;
  return { floor: floor + pollerTraces, traffic, xrayFree, total: floor + pollerTraces + traffic + xrayFree };
}

/** Counts a synthesized template's alarms, keys and dashboards. */
export function fixedFromTemplate(
  template: { Resources?: Record<string, { Type: string; Properties?: Record<string, unknown> }> },
  accounts: number,
): FixedResources {
  const resources = Object.values(template.Resources ?? {});
  const count = (type: string) => resources.filter((r) => r.Type === type).length;
  const metricsPerAlarm = (r: { Properties?: Record<string, unknown> }) => {
    const metrics = r.Properties?.Metrics as Array<{ MetricStat?: unknown }> | undefined;
    return metrics ? Math.max(1, metrics.filter((m) => m.MetricStat !== undefined).length) : 1;
  };
  return {
    ...defaultFixed(accounts),
    alarms: resources
      .filter((r) => r.Type === 'AWS::CloudWatch::Alarm')
      .reduce((sum, r) => sum + metricsPerAlarm(r), 0),
    compositeAlarms: count('AWS::CloudWatch::CompositeAlarm'),
    dashboards: count('AWS::CloudWatch::Dashboard'),
    kmsKeys: count('AWS::KMS::Key'),
  };
}

const money = (dollars: number) => `$${dollars.toFixed(2)}`;

export function renderTable(title: string, lines: readonly CostLine[]): string {
  const rows = lines.map((line) => `| ${line.item} | ${money(line.dollars)} | ${line.formula} |`);
  return [
    `| ${title} | $ | formula |`,
    '| --- | ---: | --- |',
    ...rows,
    `| **total** | **${money(total(lines))}** | |`,
  ].join('\n');
}

const USAGE = `Usage: npm run cost -- [options]

What the relay costs: the fixed monthly floor, the cost per million callbacks and per million transaction
lifecycles, and a month at a given volume, from list prices and the units \`npm run bench\` measures
(docs/deploy.md#cost-notes).

Options:
  --region <r>         us-east-1 | eu-west-1 (default us-east-1)
  --callbacks <n>      callbacks a month (default 1000000)
  --lifecycles <n>     transaction lifecycles a month (default 0)
  --trace-rate <p>     X-Ray sampling rate on the hot path (default 0.05)
  --template <file>    a synthesized stack (cdk.out/MobileMoneyRelay.template.json): alarms, keys and the
                       dashboard counted from it
  --accounts <n>       provider accounts (default 3)
  --help               this text`;

function main() {
  const { values } = parseCli(USAGE, {
    options: {
      region: { type: 'string', default: 'us-east-1' },
      callbacks: { type: 'string', default: '1000000' },
      lifecycles: { type: 'string', default: '0' },
      'trace-rate': { type: 'string', default: '0.05' },
      template: { type: 'string' },
      accounts: { type: 'string', default: '3' },
    },
  });
  const region = values.region as Region;
  const prices = PRICES[region];
  if (!prices) throw new Error(`--region: one of ${Object.keys(PRICES).join(', ')} (got "${values.region}")`);
  const traceRate = Number(values['trace-rate']);
  const accounts = Number(values.accounts);
  const fixed =
    values.template && existsSync(values.template)
      ? fixedFromTemplate(JSON.parse(readFileSync(values.template, 'utf8')), accounts)
      : defaultFixed(accounts);
  const volume = { callbacks: Number(values.callbacks), lifecycles: Number(values.lifecycles) };
  const perCallback = costPerMillion(callbackUsage(), prices, traceRate);
  const perLifecycle = costPerMillion(lifecycleUsage(), prices, traceRate);
  const m = month(volume, prices, traceRate, fixed);
  console.log(`Prices: ${region}, list, ${PRICES_AS_OF}. Hot-path trace rate ${traceRate}.\n`);
  console.log(renderTable('Per million callbacks', perCallback));
  console.log(
    `\nRequest path (without storage): ${money(total(requestPath(perCallback)))} per million callbacks\n`,
  );
  console.log(renderTable('Per million lifecycles (registered, confirmed by a status call)', perLifecycle));
  console.log(
    `\nRequest path (without storage): ${money(total(requestPath(perLifecycle)))} per million lifecycles\n`,
  );
  console.log(renderTable('Fixed monthly floor', fixedMonthly(fixed, prices)));
  console.log(
    `\nA month with ${volume.callbacks.toLocaleString('en')} callbacks and ${volume.lifecycles.toLocaleString('en')} lifecycles: ` +
      `floor ${money(m.floor)} + traffic ${money(m.traffic)} − X-Ray free tier ${money(-m.xrayFree)} = ${money(m.total)}; ` +
      `all-in per million callbacks ${money((m.total / Math.max(1, volume.callbacks + volume.lifecycles)) * MILLION)}`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) main();
