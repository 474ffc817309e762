/**
 * npm run cost — what the relay bills, priced from the stack it synthesizes and the units the bench
 * measures (docs/deploy.md#cost-notes):
 *
 *   npm run cost [-- --region us-east-1|eu-west-1] [--callbacks 1000000] [--config infra/example-config.json]
 *                [--template cdk.out/MobileMoneyRelay.template.json] [--console-users 3]
 *
 * It synthesizes the example stack (infra/example-config.json, the defaults of infra/app.ts; bundling
 * skipped) and a copy with every account doubled, and prices every billed thing in the template:
 * alarms, composite alarms, dashboards, KMS keys, secrets, log groups, the event archive, queues, the
 * poll schedule, tracing as Lambda samples it; the custom metric series from the code's emitters
 * (scripts/cost/metric-series.ts); DynamoDB write units by AWS's item-size rule from the item sizes the
 * bench measures (scripts/cost/dynamo-units.ts); storage and PITR at steady state for the configured
 * retention. `--template` prices a template you synthesized instead (no per-account line then).
 */
import { perMillionStatementRows, statementIdleFloor } from './cost/statements';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { METRICS_WITHOUT_ROLL_UP } from '../shared/config/metric-names';
import { parseSecretRef } from '../shared/config/secret-reader';
import { parseCli, requireOneOf } from './cli';
import { deliveryCostPerMillion, sqsDeliveryCostPerMillion } from './cost/deliveries';
import { ACCOUNT_DAY_SLACK_SECONDS } from '../shared/adapters/dynamodb/table';
import {
  type IndexShape,
  indexWriteUnitsOfChange,
  type ItemChange,
  READ_UNIT_BYTES,
  STORAGE_OVERHEAD_BYTES,
  writeUnitsOf,
} from './cost/dynamo-units';
import { countSeries, type DimensionValues, findEmitters, type MetricSeries } from './cost/metric-series';
import { accessLogLineBytes, type CfnTemplate, countTemplate, type TemplateCounts } from './cost/template';

export type Region = 'us-east-1' | 'eu-west-1';

/** List prices, on-demand, first tier; a free tier only where a line says so. */
export interface Prices {
  /** API Gateway HTTP API, per million requests (first 300 million a month; 512 KB each). */
  readonly httpApiPerMillion: number;
  readonly lambdaPerMillionRequests: number;
  /** Lambda on Arm (Graviton), per GB-second. */
  readonly lambdaArmPerGbSecond: number;
  /** DynamoDB on-demand, Standard table class (after the November 2024 cut). */
  readonly dynamoPerMillionWrites: number;
  readonly dynamoPerMillionReads: number;
  readonly dynamoStoragePerGbMonth: number;
  /** Continuous backups (point-in-time recovery), per GB-month of table size. */
  readonly dynamoPitrPerGbMonth: number;
  /** EventBridge custom events put on a bus (64 KB chunks); a delivery to another account's bus as much again. */
  readonly eventBridgePerMillionEvents: number;
  /** EventBridge archive: events archived, per GB processed, and their storage. */
  readonly archivePerGbProcessed: number;
  readonly archivePerGbMonth: number;
  /** CloudWatch Logs, Standard class ingestion (EMF metrics included: they are log lines), and storage. */
  readonly logsIngestionPerGb: number;
  readonly logsStoragePerGbMonth: number;
  /** Custom metrics, per metric (name × dimension set) a month, first 10,000. */
  readonly metricPerMonth: number;
  /** Per metric an alarm reads, standard (60 s or more) and high resolution. */
  readonly alarmPerMonth: number;
  readonly highResolutionAlarmPerMonth: number;
  readonly compositeAlarmPerMonth: number;
  readonly dashboardPerMonth: number;
  /** Dashboards free per AWS account (up to 50 metrics each). */
  readonly dashboardsFree: number;
  /** X-Ray, per million traces recorded, beyond the free 100,000 a month. */
  readonly xrayPerMillionTraces: number;
  readonly xrayFreeTracesPerMonth: number;
  readonly secretPerMonth: number;
  readonly secretsPerTenThousandCalls: number;
  readonly kmsKeyPerMonth: number;
  readonly sqsPerMillionRequests: number;
  /** Cognito Plus tier (threat protection), per monthly active user. */
  readonly cognitoPlusPerMau: number;
}

/** When the prices below were read from the AWS pricing pages. */
export const PRICES_AS_OF = '2025-11 (AWS public pricing pages; DynamoDB after the November 2024 cut)';

const COMMON = {
  lambdaPerMillionRequests: 0.2,
  lambdaArmPerGbSecond: 0.0000133334,
  eventBridgePerMillionEvents: 1.0,
  archivePerGbProcessed: 0.1,
  archivePerGbMonth: 0.023,
  logsStoragePerGbMonth: 0.03,
  metricPerMonth: 0.3,
  alarmPerMonth: 0.1,
  highResolutionAlarmPerMonth: 0.3,
  compositeAlarmPerMonth: 0.5,
  dashboardPerMonth: 3.0,
  dashboardsFree: 3,
  xrayPerMillionTraces: 5.0,
  xrayFreeTracesPerMonth: 100_000,
  secretPerMonth: 0.4,
  secretsPerTenThousandCalls: 0.05,
  kmsKeyPerMonth: 1.0,
  sqsPerMillionRequests: 0.4,
  cognitoPlusPerMau: 0.02,
} as const;

/** Measured units (MEASURED's shape, for other measurements). */
export type Measured = Record<keyof typeof MEASURED, number>;

export const PRICES: Readonly<Record<Region, Prices>> = {
  'us-east-1': {
    ...COMMON,
    httpApiPerMillion: 1.0,
    dynamoPerMillionWrites: 0.625,
    dynamoPerMillionReads: 0.125,
    dynamoStoragePerGbMonth: 0.25,
    dynamoPitrPerGbMonth: 0.2,
    logsIngestionPerGb: 0.5,
  },
  'eu-west-1': {
    ...COMMON,
    httpApiPerMillion: 1.11,
    dynamoPerMillionWrites: 0.7068,
    dynamoPerMillionReads: 0.1415,
    dynamoStoragePerGbMonth: 0.283,
    dynamoPitrPerGbMonth: 0.2265,
    logsIngestionPerGb: 0.57,
  },
};

/**
 * Bytes CloudWatch Logs bills per log event beyond its message. Lambda's platform lines per
 * invocation: START (~70 B), END (~50 B), REPORT (~140 B), and ~90 B more on REPORT when the function
 * is actively traced (its XRAY TraceId line); a function that passes tracing through has none. A function
 * whose LoggingConfig sets SystemLogLevel WARN (infra/relay/functions.ts, platformLogging) has none of them.
 */
export const LOG_EVENT_OVERHEAD_BYTES = 26;
export const PLATFORM_LOG_BYTES = 70 + 50 + 140 + 3 * LOG_EVENT_OVERHEAD_BYTES;
export const XRAY_REPORT_LINE_BYTES = 90;

/**
 * Measured by `npm run bench` (section "Write units by AWS's item-size rule", the items a first callback
 * left in DynamoDB Local, sized by DynamoDB's rules) and the callback bundle's log lines at LOG_LEVEL=INFO
 * (test/integration/callback-bundle.test.ts with BUNDLE_TEST_LOG_LEVEL=INFO, shared/runtime/log-format.ts):
 * "callback handled" 226 B there (request id "bundle-test", ackedInMs 4 digits), 251 B with Lambda's
 * 36-character request id, and no EMF document: a callback counts no metric (the silence tickets read
 * the poller's SilentProviders); the deployed callback function has its ingress buffer, so no
 * IngressBufferOff document either. The publisher's "events published" 162 B and no EMF document (it
 * counts only failures). Durations are upper bounds: the local ack p50 at concurrency 16
 * (76 ms, HTTP server included), the publisher's one PutEvents ~40 ms. The event: the TransactionSucceeded
 * line the bench's sink wrote, plus EventBridge's envelope (version, id, detail-type, source, account,
 * time, region, resources).
 */
export const MEASURED = {
  /** Application lines (message + per-event overhead); the platform lines are added by the template's logging config. */
  callbackLogBytes: 251 + LOG_EVENT_OVERHEAD_BYTES,
  publisherLogBytes: 162 + LOG_EVENT_OVERHEAD_BYTES,
  callbackDurationMs: 76,
  publisherDurationMs: 40,
  // The bench's two kinds of first callback, both with the headers API Gateway passes on: a MoMo success
  // for a transaction registered as the registration writes it (its verdict within the account-day slack,
  // shared/adapters/dynamodb/table.ts ACCOUNT_DAY_SLACK_SECONDS), and a Daraja C2B confirmation nobody
  // registered, settled on arrival; each size is the larger of the two. Their index writes are not here:
  // they follow from FIRST_CALLBACKS and the synthesized indexes.
  /**
   * The receipt item a first callback creates, compact (shared/adapters/dynamodb/receipt-item.ts): the C2B
   * confirmation's, 750–751 B (its times and ids vary by a few bytes; MoMo's 655–656 B).
   */
  receiptBytes: 760,
  /**
   * The transaction before the callback (the registered one) and after it (the C2B confirmation's; the
   * registered MoMo one 523 B), in the compact layout (shared/adapters/dynamodb/transaction-item.ts).
   */
  transactionBeforeBytes: 417,
  transactionAfterBytes: 675,
  /** The sink's TransactionSucceeded line (1,001 B) and EventBridge's own envelope fields (~150 B). */
  eventBytes: 1001 + 150,
  /** A poll cycle with nothing due: its duration and its log bytes. */
  pollDurationMs: 200,
  pollLogBytes: 600,
  /**
   * Its reads, eventually consistent (0.5 RRU an item, a Query at least 0.5), as
   * test/integration/idle-poll-cycle.test.ts counts them: the due index once, a keys-only Query per
   * shard (4): callback health reads it whole while an account has had no callback for its silence time
   * (every account, at idle) and the poll cycle takes its due items from that read; each account's two
   * callback-health records (one BatchGetItem for all, billed by the item); each provider silence
   * ticket's first-look record (read every cycle while none of its accounts has called back, written once);
   * and, strongly consistent (1 RRU an item under 4 KB), each account's balance state and each pulling
   * account's pull state (shared/app/provider-records: one BatchGetItem each, every tick).
   */
  pollIndexReadUnits: 2,
  pollReadUnitsPerAccount: 1 + 1,
  pollReadUnitsPerPullingAccount: 1,
  pollReadUnitsPerProvider: 0.5,
} as const;

/**
 * The transaction item a first callback writes, by attribute (test/integration/first-callback-write-units.test.ts
 * reads them off the items in DynamoDB Local and checks them here): what it had, has, and changed. With
 * the template's index definitions they give the index writes (scripts/cost/dynamo-units.ts
 * indexWriteUnitsOfChange): an index whose keys appear puts an entry, whose keys go deletes it, whose
 * projected attributes change rewrites it.
 */
export const FIRST_CALLBACKS: Readonly<Record<'registered' | 'unregistered', ItemChange>> = {
  registered: {
    before: [
      'amount',
      'createdAt',
      'dayShard',
      'dueAt',
      'dueShard',
      'h',
      'outbox',
      'pk',
      'reconcile',
      'revision',
      'sk',
      'status',
      'updatedAt',
    ],
    after: [
      'amount',
      'createdAt',
      'dayShard',
      'expiresAt',
      'h',
      'outbox',
      'pk',
      'providerTransactionId',
      'reconcile',
      'revision',
      'sk',
      'status',
      'updatedAt',
    ],
    changed: [
      'dueAt',
      'dueShard',
      'expiresAt',
      'h',
      'outbox',
      'providerTransactionId',
      'reconcile',
      'status',
      'updatedAt',
    ],
  },
  unregistered: {
    before: [],
    after: [
      'amount',
      'createdAt',
      'dayShard',
      'expiresAt',
      'h',
      'outbox',
      'pk',
      'providerTransactionId',
      'reconcile',
      'revision',
      'sk',
      'status',
      'updatedAt',
    ],
    changed: [
      'amount',
      'createdAt',
      'dayShard',
      'expiresAt',
      'h',
      'outbox',
      'pk',
      'providerTransactionId',
      'reconcile',
      'revision',
      'sk',
      'status',
      'updatedAt',
    ],
  },
};

/**
 * Index entries a first callback puts or deletes (keys and projection), an upper bound: byDay and
 * byAccountDay as the bench measured them, due from the test's items (77 B) with the bench's longer
 * references (+24 B, as byDay's); first-callback-write-units.test.ts checks each entry against it and
 * `npm run bench -- --only callbacks` prints the ones it sees.
 */
export const INDEX_ENTRY_BYTES = { due: 101, byDay: 108, byAccountDay: 189 } as const;

/**
 * An idle drain of the ingress buffer (the buffer consumer on its schedule, nothing waiting): one
 * GetQueueAttributes and the handler's own work. Assumed, not measured: an upper bound for an SQS call
 * from Lambda in the same region (tens of ms). It writes no line then (its platform lines are dropped).
 */
export const DRAIN_IDLE_MS = 100;
/** SQS requests of an idle drain: GetQueueAttributes (it receives only when messages wait). */
export const DRAIN_IDLE_SQS_REQUESTS = 1;

/** Lambda polls an SQS event source with 5 long-polling connections, each one request per 20 s at most. */
export const SQS_POLLERS = 5;
export const SQS_REQUESTS_PER_POLLER_MINUTE = 3;
/** How long a function keeps a secret before reading it again (shared/adapters/secrets). */
export const SECRET_REREAD_MINUTES = 5;

const GB = 1024 ** 3;
const MILLION = 1_000_000;
const SECONDS_PER_MONTH = 30 * 86_400;
const MINUTES_PER_MONTH = 30 * 24 * 60;

/**
 * The share of an actively traced function's invocations Lambda records: the first request each second
 * (the reservoir), then 5% of the rest. Lambda decides this itself and ignores X-Ray sampling rules for
 * the function's segment. With Poisson arrivals at λ a second: (P(N ≥ 1) + 0.05 · E[N − 1; N ≥ 1]) / λ.
 */
export function lambdaTracedShare(invocationsPerMonth: number): number {
  const lambda = invocationsPerMonth / SECONDS_PER_MONTH;
  if (lambda <= 0) return 1;
  const atLeastOne = 1 - Math.exp(-lambda);
  return (atLeastOne + 0.05 * (lambda - atLeastOne)) / lambda;
}

export interface CostLine {
  readonly item: string;
  readonly dollars: number;
  /** Quantity × unit price, and where the quantity comes from. */
  readonly formula: string;
}

export const total = (lines: readonly CostLine[]) => lines.reduce((sum, line) => sum + line.dollars, 0);

/** What is being priced: the template's counts, the config's facts, the code's metric series. */
export interface Stack {
  readonly counts: TemplateCounts;
  /** Secrets the config names (callback, API, edge and badge secrets), created by the operator. */
  readonly configSecrets: number;
  readonly accounts: number;
  /** Accounts whose provider has a pull API (Daraja's Pull Transactions): each has a pull state. */
  readonly pullingAccounts: number;
  readonly providers: number;
  readonly retention: { readonly receiptDays: number; readonly transactionDays: number };
  readonly series: readonly MetricSeries[];
  readonly consoleUsers: number;
}

const fn = (stack: Stack, name: string) => stack.counts.functions.find((f) => f.name === name);
const gbSeconds = (ms: number, memoryMb: number) => (Math.ceil(ms) / 1000) * (memoryMb / 1024);
const seriesOf = (stack: Stack, activity: string) =>
  stack.series.filter((s) => s.activity === activity).reduce((n, s) => n + s.series, 0);
const namesOf = (stack: Stack, activity: string) =>
  stack.series
    .filter((s) => s.activity === activity)
    .map((s) => `${s.name} ${s.series}`)
    .join(', ');

/**
 * Write units of a first callback, by the 1 KB rule: the receipt, the transaction (larger image), and the
 * index entries the template's indexes take for its change; the dearer of a registered and an unregistered
 * transaction's is priced.
 */
export function callbackWriteUnits(indexes: readonly IndexShape[], m: Measured = MEASURED) {
  const receipt = writeUnitsOf(m.receiptBytes);
  const transaction = writeUnitsOf(Math.max(m.transactionBeforeBytes, m.transactionAfterBytes));
  const indexWrites = (change: ItemChange) =>
    indexes.map((index) => ({
      name: index.name,
      units: indexWriteUnitsOfChange(change, index, entryBytesOf(index)),
    }));
  const registered = indexWrites(FIRST_CALLBACKS.registered);
  const unregistered = indexWrites(FIRST_CALLBACKS.unregistered);
  const sum = (writes: typeof registered) => writes.reduce((n, w) => n + w.units, 0);
  const kind = sum(unregistered) > sum(registered) ? 'unregistered' : 'registered';
  const priced = kind === 'registered' ? registered : unregistered;
  return {
    receipt,
    transaction,
    indexes: sum(priced),
    /** The index writes priced, by index (none listed: none). */
    indexWrites: priced.filter((w) => w.units > 0),
    kind,
    byKind: {
      registered: receipt + transaction + sum(registered),
      unregistered: receipt + transaction + sum(unregistered),
    },
    total: receipt + transaction + sum(priced),
  } as const;
}

const entryBytesOf = (index: IndexShape) => (INDEX_ENTRY_BYTES as Record<string, number>)[index.name] ?? 0;

/** Bytes of index entries a stored transaction keeps: the indexes the priced first callback leaves it in. */
export function indexBytesPerTransaction(indexes: readonly IndexShape[]): number {
  const after = FIRST_CALLBACKS[callbackWriteUnits(indexes).kind].after;
  return indexes
    .filter((index) => index.keys.every((key) => after.includes(key)))
    .reduce((n, index) => n + entryBytesOf(index) + STORAGE_OVERHEAD_BYTES, 0);
}

/** An index as the cost line names it: its name and what it projects. */
const describeIndex = (index: IndexShape) =>
  `${index.name} ${typeof index.projection === 'string' ? index.projection.toLowerCase().replace('_', ' ') : `keys + ${index.projection.include.join(', ')}`}`;

/**
 * Changes the outbox publisher gets per invocation at `callbacksPerMonth` from the template's stream mapping:
 * the first change opens the batching window and every change within it joins (Poisson arrivals at the mean
 * rate: 1 + rate × window), up to the batch size; no window, one each.
 */
export function changesPerPublisherInvocation(stack: Stack, callbacksPerMonth: number): number {
  const mapping = stack.counts.streamMapping;
  if (!mapping) return 1;
  const rate = callbacksPerMonth / SECONDS_PER_MONTH;
  return Math.min(mapping.batchSize, 1 + rate * mapping.windowSeconds);
}

/**
 * Per million first callbacks that end their transaction (API → callback function → DynamoDB → stream →
 * publisher → one event), at `callbacksPerMonth` (the volume decides how much Lambda traces).
 */
export function perMillionCallbacks(
  stack: Stack,
  prices: Prices,
  callbacksPerMonth: number,
  m: Measured = MEASURED,
): CostLine[] {
  const callback = fn(stack, 'relay-callback');
  const publisher = fn(stack, 'relay-outbox-publisher');
  const memory = callback?.memoryMb ?? 512;
  const publisherMemory = publisher?.memoryMb ?? memory;
  // The publisher puts each change's events with a PutEvents of their own (in order): its time grows with
  // the changes it gets; its invocation and its START/END/REPORT lines are shared by the batch.
  const batch = changesPerPublisherInvocation(stack, callbacksPerMonth);
  const gbs = gbSeconds(m.callbackDurationMs, memory) + gbSeconds(m.publisherDurationMs, publisherMemory);
  const wcu = callbackWriteUnits(stack.counts.tableIndexes, m);
  // An eventually consistent read: half a unit per started 4 KB, half a unit for an item not there.
  // The callback's read, and the daily close's read of the item (the account-day reader settles each
  // transaction by its item: the indexes carry no verdict, so a first callback rewrites no entry).
  const itemRead = Math.max(1, Math.ceil(m.transactionAfterBytes / READ_UNIT_BYTES)) / 2;
  const rcu = Math.max(1, Math.ceil(m.transactionBeforeBytes / READ_UNIT_BYTES)) / 2 + itemRead;
  const crossAccount = stack.counts.busTargets;
  const archived = stack.counts.archives.length;
  const accessLog = Math.max(0, ...stack.counts.accessLogFormats.map(accessLogLineBytes));
  // Lambda's START/END/REPORT lines (an X-Ray line on REPORT when traced), unless its LoggingConfig drops
  // them: the callback's own, and the publisher's shared by its batch.
  const linesOf = (f: typeof callback, share: number) =>
    f?.platformLines === false
      ? 0
      : share * (PLATFORM_LOG_BYTES + (f?.tracing === 'Active' ? XRAY_REPORT_LINE_BYTES : 0));
  const traced = [callback, publisher].filter((f) => f?.tracing === 'Active');
  const platform = Math.round(linesOf(callback, 1) + linesOf(publisher, 1 / batch));
  const platformKept = [callback, publisher].filter((f) => f?.platformLines !== false).length;
  const logBytes = m.callbackLogBytes + m.publisherLogBytes + platform;
  const share = lambdaTracedShare(callbacksPerMonth);
  return [
    {
      item: 'API Gateway HTTP API',
      dollars: prices.httpApiPerMillion,
      formula: `1 request × $${prices.httpApiPerMillion}/M`,
    },
    {
      item: 'Lambda requests',
      dollars: (1 + 1 / batch) * prices.lambdaPerMillionRequests,
      formula: `1 callback + 1/${batch.toFixed(2)} outbox publisher invocations (${batch.toFixed(2)} changes each: ${stack.counts.streamMapping ? `the stream mapping's ${stack.counts.streamMapping.windowSeconds} s window × ${(callbacksPerMonth / SECONDS_PER_MONTH).toFixed(2)}/s + 1, batches ≤ ${stack.counts.streamMapping.batchSize}; template` : 'no stream mapping'}) × $${prices.lambdaPerMillionRequests}/M`,
    },
    {
      item: 'Lambda duration (Arm)',
      dollars: gbs * MILLION * prices.lambdaArmPerGbSecond,
      formula: `${m.callbackDurationMs} ms × ${memory} MB + ${m.publisherDurationMs} ms (one PutEvents a change) × ${publisherMemory} MB = ${gbs.toFixed(4)} GB-s × $${prices.lambdaArmPerGbSecond}/GB-s`,
    },
    {
      item: 'DynamoDB writes (1 KB rule)',
      dollars: wcu.total * prices.dynamoPerMillionWrites,
      formula: `${wcu.total} WRU (receipt ${m.receiptBytes} B → ${wcu.receipt}; transaction ${m.transactionBeforeBytes} → ${m.transactionAfterBytes} B → ${wcu.transaction}; index entries ${wcu.indexes}${wcu.indexWrites.length ? ` (${wcu.indexWrites.map((w) => `${w.name} ${w.units}`).join(', ')})` : ''} by the template's indexes (${stack.counts.tableIndexes.map(describeIndex).join('; ')}) for the dearer first callback, ${wcu.kind === 'registered' ? 'a registered' : 'an unregistered'} transaction's (registered ${wcu.byKind.registered}, unregistered ${wcu.byKind.unregistered}; a verdict more than ${ACCOUNT_DAY_SLACK_SECONDS / 60} min after the registration puts a byAccountDay entry: +1); npm run bench) × $${prices.dynamoPerMillionWrites}/M`,
    },
    {
      item: 'DynamoDB reads',
      dollars: rcu * prices.dynamoPerMillionReads,
      formula: `${rcu} RRU (eventually consistent reads ≤ 4 KB: the callback's of the transaction, the daily close's of its item; docs/table-design.md#the-account-day-slack) × $${prices.dynamoPerMillionReads}/M`,
    },
    {
      item: 'EventBridge events',
      dollars: (1 + crossAccount) * prices.eventBridgePerMillionEvents,
      formula: `1 event + ${crossAccount} cross-account deliveries (rules targeting a bus) × $${prices.eventBridgePerMillionEvents}/M`,
    },
    {
      item: 'EventBridge archive (processing)',
      dollars: (archived * m.eventBytes * MILLION * prices.archivePerGbProcessed) / GB,
      formula: `${archived} archive × ${m.eventBytes} B × $${prices.archivePerGbProcessed}/GB`,
    },
    {
      item: 'CloudWatch Logs: functions',
      dollars: (logBytes * MILLION * prices.logsIngestionPerGb) / GB,
      formula: `${logBytes} B (callback ${m.callbackLogBytes}, publisher ${m.publisherLogBytes}, Lambda's START/END/REPORT ${platform}: ${platformKept ? `kept by ${platformKept} of the 2 functions, the publisher's shared by ${batch.toFixed(2)} changes${traced.length ? `, X-Ray lines of ${traced.length} traced` : ''}` : "dropped by both functions' logging config (JSON, system logs at WARN; template)"}) × $${prices.logsIngestionPerGb}/GB`,
    },
    {
      item: 'CloudWatch Logs: API access log',
      dollars: ((accessLog + LOG_EVENT_OVERHEAD_BYTES) * MILLION * prices.logsIngestionPerGb) / GB,
      formula: `${accessLog + LOG_EVENT_OVERHEAD_BYTES} B (the stage's format with typical values) × $${prices.logsIngestionPerGb}/GB`,
    },
    {
      item: 'CloudWatch Logs: storage',
      dollars:
        ((logBytes + accessLog + LOG_EVENT_OVERHEAD_BYTES) * MILLION * prices.logsStoragePerGbMonth) / GB,
      formula: `the bytes above kept about a month (retention ${[...new Set(stack.counts.logGroups.map((g) => g.retentionDays ?? 'never'))].join('/')} days), uncompressed × $${prices.logsStoragePerGbMonth}/GB-month`,
    },
    {
      item: 'X-Ray traces (Lambda sampling)',
      dollars: traced.length * share * prices.xrayPerMillionTraces,
      formula: traced.length
        ? `${traced.map((f) => f!.name).join(', ')} actively traced: ${(share * 100).toFixed(1)}% each at ${callbacksPerMonth.toLocaleString('en')}/month (1/s + 5%) × $${prices.xrayPerMillionTraces}/M`
        : 'callback and publisher pass tracing through (hotPathTracing off): none recorded',
    },
  ];
}

/**
 * Metrics a Metrics Insights alarm's query analyses in a normal month: AWS bills such an alarm per metric
 * its query matches (each hour; not in the free 10 alarm metrics), not one metric per alarm. Its metric's
 * series with data all month (activity `cycle` or `traffic`) that the query's SCHEMA and WHERE select;
 * a query over a metric with data only in incidents is priced at 1 metric all month (AWS does not say that
 * a query matching nothing is free).
 */
export function insightsAlarmMetrics(stack: Stack, query: string): number {
  const match =
    /SELECT\s+\w+\((\w+)\)\s+FROM\s+(?:SCHEMA\(\s*"[^"]*"\s*((?:,\s*\w+\s*)*)\)|"[^"]*")(.*)$/is.exec(query);
  const series = match ? stack.series.find((s) => s.name === match[1]) : undefined;
  if (!match || !series || (series.activity !== 'cycle' && series.activity !== 'traffic')) return 1;
  const schemaKeys =
    match[2] === undefined
      ? undefined
      : match[2]
          .split(',')
          .map((k) => k.trim())
          .filter(Boolean);
  // FROM "namespace": every series of the metric, the roll-up included.
  if (schemaKeys === undefined) return Math.max(1, series.series);
  // SCHEMA(ns): the roll-up only; SCHEMA(ns, keys…): the series with exactly those dimensions, and
  // a WHERE on each key picks one of them.
  if (schemaKeys.length === 0) return 1;
  const pinned = schemaKeys.every((key) => new RegExp(`\\b${key}\\s*=\\s*'`).test(match[3] ?? ''));
  if (pinned) return 1;
  const rollUp = series.dimensionSets.includes('') || !METRICS_WITHOUT_ROLL_UP.includes(series.name) ? 1 : 0;
  return Math.max(1, series.series - rollUp);
}

/**
 * Traces a month of the actively traced functions a schedule invokes (the poller, the buffer drain):
 * Lambda records the first request each second, so every run of a schedule of a minute or more.
 */
export function tracesOfSchedules(stack: Stack): number {
  return Object.entries(stack.counts.scheduledInvocationsOf)
    .filter(([name]) => name === 'relay-poller' || name === 'relay-buffer-consumer')
    .filter(([name]) => fn(stack, name)?.tracing === 'Active')
    .reduce((n, [, runs]) => n + runs * lambdaTracedShare(runs), 0);
}

/** What the stack costs with no traffic. */
export function idleFloor(stack: Stack, prices: Prices, m: Measured = MEASURED): CostLine[] {
  const c = stack.counts;
  const poller = fn(stack, 'relay-poller');
  const cycles = c.scheduledInvocationsOf['relay-poller'] ?? 0;
  const pollGbSeconds = cycles * gbSeconds(m.pollDurationMs, poller?.memoryMb ?? 512);
  const pollReadUnits =
    m.pollIndexReadUnits +
    stack.accounts * m.pollReadUnitsPerAccount +
    stack.pullingAccounts * m.pollReadUnitsPerPullingAccount +
    stack.providers * m.pollReadUnitsPerProvider;
  const consumer = fn(stack, 'relay-buffer-consumer');
  const drains = c.scheduledInvocationsOf['relay-buffer-consumer'] ?? 0;
  const drainLogBytes =
    consumer?.platformLines === false
      ? 0
      : PLATFORM_LOG_BYTES + (consumer?.tracing === 'Active' ? XRAY_REPORT_LINE_BYTES : 0);
  const scheduledTraces = tracesOfSchedules(stack);
  const cycleSeries = seriesOf(stack, 'cycle') + c.metricFilters.filter((f) => f.always).length;
  const sqsRequests = c.polledQueues * SQS_POLLERS * SQS_REQUESTS_PER_POLLER_MINUTE * MINUTES_PER_MONTH;
  const secrets = c.secrets + stack.configSecrets;
  const billedDashboards = Math.max(0, c.dashboards - prices.dashboardsFree);
  const insights = c.insightsQueries.reduce((n, query) => n + insightsAlarmMetrics(stack, query), 0);
  return [
    {
      item: 'CloudWatch alarms',
      dollars:
        (c.alarmMetrics + insights) * prices.alarmPerMonth +
        c.highResolutionAlarmMetrics * prices.highResolutionAlarmPerMonth,
      formula: `${c.alarms} alarms: ${c.alarms - c.insightsQueries.length} reading ${c.alarmMetrics} metrics + ${c.insightsQueries.length} on Metrics Insights queries analysing ${insights} (the series they match) × $${prices.alarmPerMonth} + ${c.highResolutionAlarmMetrics} high-resolution × $${prices.highResolutionAlarmPerMonth} (template)`,
    },
    {
      item: 'CloudWatch composite alarms',
      dollars: c.compositeAlarms * prices.compositeAlarmPerMonth,
      formula: `${c.compositeAlarms} × $${prices.compositeAlarmPerMonth} (template)`,
    },
    {
      item: 'CloudWatch dashboards',
      dollars: billedDashboards * prices.dashboardPerMonth,
      formula: `${c.dashboards} (template) − ${prices.dashboardsFree} free per AWS account = ${billedDashboards} × $${prices.dashboardPerMonth}`,
    },
    {
      item: 'Custom metrics with data every cycle',
      dollars: cycleSeries * prices.metricPerMonth,
      formula: `${cycleSeries} series (${namesOf(stack, 'cycle')}; code emitters) × $${prices.metricPerMonth}`,
    },
    {
      item: 'KMS customer-managed keys',
      dollars: c.kmsKeys * prices.kmsKeyPerMonth,
      formula: `${c.kmsKeys} × $${prices.kmsKeyPerMonth} (template)`,
    },
    {
      item: 'Secrets Manager secrets',
      dollars: secrets * prices.secretPerMonth,
      formula: `${c.secrets} in the template + ${stack.configSecrets} the config names × $${prices.secretPerMonth}`,
    },
    {
      item: 'Poller (Lambda, due-index reads, logs)',
      dollars:
        (cycles / MILLION) * prices.lambdaPerMillionRequests +
        pollGbSeconds * prices.lambdaArmPerGbSecond +
        ((cycles * pollReadUnits) / MILLION) * prices.dynamoPerMillionReads +
        ((cycles * m.pollLogBytes) / GB) * (prices.logsIngestionPerGb + prices.logsStoragePerGbMonth),
      formula: `${cycles} cycles (schedule) × (${m.pollDurationMs} ms, ${pollReadUnits} RRU: due index ${m.pollIndexReadUnits} + ${stack.accounts} accounts' callback health and balance state × ${m.pollReadUnitsPerAccount} + ${stack.pullingAccounts} pull states × ${m.pollReadUnitsPerPullingAccount} + ${stack.providers} providers' first look × ${m.pollReadUnitsPerProvider}, ${m.pollLogBytes} B); EventBridge Scheduler inside its free 14 M invocations`,
    },
    {
      item: 'Buffer drain (scheduled buffer consumer)',
      dollars:
        (drains / MILLION) * prices.lambdaPerMillionRequests +
        drains * gbSeconds(DRAIN_IDLE_MS, consumer?.memoryMb ?? 512) * prices.lambdaArmPerGbSecond +
        ((drains * DRAIN_IDLE_SQS_REQUESTS) / MILLION) * prices.sqsPerMillionRequests +
        ((drains * drainLogBytes) / GB) * (prices.logsIngestionPerGb + prices.logsStoragePerGbMonth),
      formula: `${drains} drains (schedule) × (1 invocation, ${DRAIN_IDLE_MS} ms × ${consumer?.memoryMb ?? 512} MB assumed, ${DRAIN_IDLE_SQS_REQUESTS} SQS request: GetQueueAttributes, ${drainLogBytes} B of logs${drainLogBytes ? '' : ': no line while nothing waits, platform lines dropped'}); no secret read while idle`,
    },
    {
      item: 'SQS: Lambda polling the ingress buffer',
      dollars: (sqsRequests / MILLION) * prices.sqsPerMillionRequests,
      formula: `${c.polledQueues} queue × ${SQS_POLLERS} pollers × ${SQS_REQUESTS_PER_POLLER_MINUTE}/min = ${sqsRequests.toLocaleString('en')} requests × $${prices.sqsPerMillionRequests}/M (SQS's free million a month not taken off)`,
    },
    {
      item: 'X-Ray: poller traces',
      dollars:
        Math.max(0, scheduledTraces - prices.xrayFreeTracesPerMonth) *
        (prices.xrayPerMillionTraces / MILLION),
      formula: `${Math.round(scheduledTraces).toLocaleString('en')} traces of the actively traced scheduled functions (poller, buffer drain: every run, Lambda's 1/s reservoir) ${scheduledTraces > prices.xrayFreeTracesPerMonth ? 'beyond' : 'inside'} the free ${prices.xrayFreeTracesPerMonth.toLocaleString('en')}`,
    },
    {
      item: 'Cognito (console, Plus tier)',
      dollars: c.plusTierUserPools * stack.consoleUsers * prices.cognitoPlusPerMau,
      formula: `${c.plusTierUserPools} pool with threat protection × ${stack.consoleUsers} operators × $${prices.cognitoPlusPerMau}/MAU`,
    },
    {
      item: 'Free or negligible',
      dollars: 0,
      formula:
        'SNS (alarm mail, first 1,000 free), DynamoDB Streams read by Lambda, the console on S3 + CloudFront (~1 MB), sampling rules, DLQs with nothing in them',
    },
  ];
}

/** Fixed costs that start with traffic: the series every callback feeds, secrets re-read by warm functions. */
export function trafficFixed(
  stack: Stack,
  prices: Prices,
  callbacksPerMonth: number,
  m: Measured = MEASURED,
): CostLine[] {
  if (callbacksPerMonth <= 0) return [];
  const callback = fn(stack, 'relay-callback');
  // Warm callback containers: the concurrency the ack time needs at the mean rate, at least one.
  const warm = Math.max(
    1,
    Math.ceil((callbacksPerMonth / SECONDS_PER_MONTH) * (m.callbackDurationMs / 1000)),
  );
  const reads = stack.configSecrets * warm * (MINUTES_PER_MONTH / SECRET_REREAD_MINUTES);
  const series = seriesOf(stack, 'traffic');
  return [
    {
      item: 'Custom metrics fed by callbacks',
      dollars: series * prices.metricPerMonth,
      formula: `${series} series (${namesOf(stack, 'traffic')}; code emitters) × $${prices.metricPerMonth}`,
    },
    {
      item: 'Secrets Manager reads',
      dollars: (reads / 10_000) * prices.secretsPerTenThousandCalls,
      formula: `${stack.configSecrets} secrets × ${warm} warm ${callback ? 'callback' : ''} container × one read per ${SECRET_REREAD_MINUTES} min = ${reads.toLocaleString('en')} × $${prices.secretsPerTenThousandCalls}/10k`,
    },
  ];
}

/**
 * Storage at `callbacksPerMonth`: `months` after the start (transactions older than the retention are gone
 * by TTL, so from transactionDays on it stays level: the steady state).
 */
export function storage(
  stack: Stack,
  prices: Prices,
  callbacksPerMonth: number,
  months: number,
  m: Measured = MEASURED,
): CostLine[] {
  const keptMonths = (days: number) => Math.min(months, days / 30);
  const transactions = callbacksPerMonth * keptMonths(stack.retention.transactionDays);
  const receipts = callbacksPerMonth * keptMonths(stack.retention.receiptDays);
  const tableBytes =
    transactions * (m.transactionAfterBytes + STORAGE_OVERHEAD_BYTES) +
    receipts * (m.receiptBytes + STORAGE_OVERHEAD_BYTES);
  const entryBytes = indexBytesPerTransaction(stack.counts.tableIndexes);
  const indexBytes = transactions * entryBytes;
  const pitr = stack.counts.pointInTimeRecovery ? prices.dynamoPitrPerGbMonth : 0;
  const archiveDays = Math.max(0, ...stack.counts.archives.map((a) => a.retentionDays ?? 3650));
  const archived = stack.counts.archives.length ? callbacksPerMonth * keptMonths(archiveDays) : 0;
  const gb = (bytes: number) => (bytes / GB).toFixed(2);
  return [
    {
      item: 'DynamoDB storage',
      dollars: ((tableBytes + indexBytes) / GB) * prices.dynamoStoragePerGbMonth,
      formula: `${(transactions / MILLION).toFixed(2)} M transactions (${stack.retention.transactionDays} d) × (${m.transactionAfterBytes + STORAGE_OVERHEAD_BYTES} B + ${entryBytes} B of index entries: the template's indexes a final transaction is in), ${(receipts / MILLION).toFixed(2)} M receipts (${stack.retention.receiptDays} d) × ${m.receiptBytes + STORAGE_OVERHEAD_BYTES} B = ${gb(tableBytes + indexBytes)} GB × $${prices.dynamoStoragePerGbMonth}/GB-month`,
    },
    {
      item: 'DynamoDB point-in-time recovery',
      dollars: (tableBytes / GB) * pitr,
      formula: `${gb(tableBytes)} GB of table (indexes not billed) × $${pitr}/GB-month${pitr ? '' : ' (PITR off)'}`,
    },
    {
      item: 'EventBridge archive storage',
      dollars: ((archived * m.eventBytes) / GB) * prices.archivePerGbMonth,
      formula: `${(archived / MILLION).toFixed(2)} M events (${archiveDays} d) × ${m.eventBytes} B × $${prices.archivePerGbMonth}/GB-month`,
    },
  ];
}

export interface Month {
  readonly floor: CostLine[];
  readonly trafficFixed: CostLine[];
  readonly perMillion: CostLine[];
  readonly storage: CostLine[];
  /** The X-Ray free tier taken off (poller and hot-path traces together), ≤ 0. */
  readonly xrayFree: number;
  readonly total: number;
}

/** A month at `callbacksPerMonth`, `months` after the start (storage grows to its steady state). */
export function month(
  stack: Stack,
  prices: Prices,
  callbacksPerMonth: number,
  months: number,
  m: Measured = MEASURED,
): Month {
  const floor = idleFloor(stack, prices, m);
  const fixed = trafficFixed(stack, prices, callbacksPerMonth, m);
  const perMillion = perMillionCallbacks(stack, prices, callbacksPerMonth, m);
  const stored = storage(stack, prices, callbacksPerMonth, months, m);
  const xray = perMillion.find((l) => l.item.startsWith('X-Ray'))!.dollars * (callbacksPerMonth / MILLION);
  // The scheduled functions' traces fill the free tier first (their floor line bills only what exceeds it).
  const freeLeft = Math.max(0, prices.xrayFreeTracesPerMonth - tracesOfSchedules(stack));
  const xrayFree = -Math.min(xray, (freeLeft / MILLION) * prices.xrayPerMillionTraces);
  const sum =
    total(floor) +
    total(fixed) +
    (total(perMillion) * callbacksPerMonth) / MILLION +
    total(stored) +
    xrayFree;
  return { floor, trafficFixed: fixed, perMillion, storage: stored, xrayFree, total: sum };
}

/**
 * Every string value under a key ending in `SecretId`, anywhere in the config: the secrets it names (a
 * keyed reference, `<secret>#<member>`, names its secret: the accounts sharing one secret pay for one).
 */
export function configSecretIds(config: unknown): string[] {
  const ids = new Set<string>();
  const walk = (value: unknown) => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object')
      for (const [key, inner] of Object.entries(value)) {
        if (key.endsWith('SecretId') && typeof inner === 'string') ids.add(parseSecretRef(inner).secretId);
        else walk(inner);
      }
  };
  walk(config);
  return [...ids];
}

/**
 * The config with a second account beside each one (same settings, its own secrets and ids; a keyed
 * reference, `<secret>#<member>`, gets its own member of the same shared secret).
 */
export function doubledAccounts(config: { accounts?: Record<string, Record<string, unknown>> }): unknown {
  const accounts: Record<string, Record<string, unknown>> = {};
  for (const [provider, byId] of Object.entries(config.accounts ?? {})) {
    accounts[provider] = { ...byId };
    for (const [id, settings] of Object.entries(byId)) {
      const copy = JSON.parse(JSON.stringify(settings), (key, value) =>
        key.endsWith('SecretId') && typeof value === 'string'
          ? `${value}-2`
          : key === 'shortCode' && typeof value === 'string'
            ? String(Number(value) + 1)
            : value,
      ) as Record<string, unknown>;
      accounts[provider]![`${id}2`] = copy;
    }
  }
  return { ...config, accounts };
}

/**
 * What issue 28 asks a small partner to be able to pay (us-east-1, the example config's 3 accounts): the
 * idle floor, a month at 1 M callbacks at steady state per million (floor included), and the fixed cost
 * each account adds.
 */
export const TARGETS = { idleFloor: 5, perMillionSteady: 12, perAccount: 0.5 } as const;

/** Fixed cost per account added: the floor and the traffic-fixed lines of the stack and of its doubled copy. */
export function perAccountFixed(
  stack: Stack,
  doubled: Stack,
  prices: Prices,
  callbacksPerMonth: number,
): number {
  const fixedOf = (s: Stack) =>
    total(idleFloor(s, prices)) + total(trafficFixed(s, prices, callbacksPerMonth));
  return (fixedOf(doubled) - fixedOf(stack)) / (doubled.accounts - stack.accounts);
}

/** The three numbers the targets are about, computed as the tables compute them. */
export function headline(
  stack: Stack,
  doubled: Stack | undefined,
  prices: Prices,
  callbacksPerMonth: number,
) {
  const steady = month(stack, prices, callbacksPerMonth, stack.retention.transactionDays / 30);
  return {
    idleFloor: total(idleFloor(stack, prices)),
    perMillionSteady: (steady.total / Math.max(1, callbacksPerMonth)) * MILLION,
    perAccount: doubled ? perAccountFixed(stack, doubled, prices, callbacksPerMonth) : undefined,
  };
}

export const money = (dollars: number) =>
  dollars < 0 ? `−$${(-dollars).toFixed(2)}` : `$${dollars.toFixed(2)}`;

export function renderTable(title: string, lines: readonly CostLine[], scale = 1): string {
  const rows = lines.map((line) => `| ${line.item} | ${money(line.dollars * scale)} | ${line.formula} |`);
  return [
    `| ${title} | $ | quantity × unit price (source) |`,
    '| --- | ---: | --- |',
    ...rows,
    `| **total** | **${money(total(lines) * scale)}** | |`,
  ].join('\n');
}

const USAGE = `Usage: npm run cost -- [options]

What the relay bills: the idle floor, the fixed costs traffic starts, the cost per million callbacks,
storage at steady state, a month at a volume and the fixed cost per account, from the synthesized stack
(every alarm, key, secret, log group, archive in it), the code's metric emitters, the bench's measured
item sizes and list prices (docs/deploy.md#cost-notes).

Options:
  --region <r>          us-east-1 | eu-west-1 (default us-east-1)
  --callbacks <n>       callbacks a month (default 1000000)
  --config <file>       the relay config to synthesize (default infra/example-config.json)
  --template <file>     price this synthesized template instead (no per-account line)
  --console-users <n>   operators signing in to the console in a month (default 3)
  --help                this text`;

const ROOT = resolve(import.meta.dirname, '..');

/** Synthesizes the relay as infra/app.ts does by default (console on), without bundling the functions. */
export async function synthesize(configs: Record<string, unknown>): Promise<Record<string, CfnTemplate>> {
  const { App } = await import('aws-cdk-lib');
  const { RelayStack } = await import('../infra/relay-stack');
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  for (const [name, config] of Object.entries(configs))
    new RelayStack(app, name, {
      relay: {
        config,
        alarmEmail: 'oncall@example.org',
        console: { domainPrefix: `${name.toLowerCase()}-console` },
      },
    });
  const assembly = app.synth();
  return Object.fromEntries(
    Object.keys(configs).map((name) => [name, assembly.getStackByName(name).template as CfnTemplate]),
  );
}

export async function stackOf(template: CfnTemplate, config: unknown, consoleUsers: number): Promise<Stack> {
  const { parseConfig } = await import('../shared/config/load');
  const parsed = parseConfig(config, { secretsUnresolved: true });
  const accounts = [...parsed.accounts.values()];
  const providers = new Set(accounts.map((a) => a.provider)).size;
  const values: DimensionValues = {
    provider: providers,
    account: accounts.length,
    shop: Object.keys((config as { badges?: { shops?: object } }).badges?.shops ?? {}).length,
    // TransactionsFinalized by the poller: origin poll; the rest only in incidents.
    origin: 1,
    error: 1,
    reason: 1,
    route: 2,
    type: 1,
    // Webhook destinations (DeliveriesDelivered{destination}).
    destination: Object.keys((config as { destinations?: object }).destinations ?? {}).length,
  };
  const { PROVIDER_INFRA } = await import('../shared/providers/registry');
  const configured = new Set(accounts.map((a) => a.provider));
  // The pull's age is written per provider with a pull API (shared/app/provider-records/pull-cycle.ts).
  const pullers = new Set(PROVIDER_INFRA.filter((d) => 'pullApi' in d).map((d) => d.id));
  const pulling = [...configured].filter((id) => pullers.has(id)).length;
  return {
    counts: countTemplate(template),
    configSecrets: configSecretIds(config).length,
    accounts: accounts.length,
    pullingAccounts: accounts.filter((a) => pullers.has(a.provider)).length,
    providers,
    retention: parsed.retention,
    series: countSeries(findEmitters(ROOT), values, { StatementPullAgeSeconds: { provider: pulling } }),
    consoleUsers,
  };
}

async function main() {
  const { values } = parseCli(USAGE, {
    options: {
      region: { type: 'string', default: 'us-east-1' },
      callbacks: { type: 'string', default: '1000000' },
      config: { type: 'string', default: join(ROOT, 'infra/example-config.json') },
      template: { type: 'string' },
      'console-users': { type: 'string', default: '3' },
    },
  });
  // Only the regions whose list prices are recorded: another is a one-line refusal, not a stack trace.
  requireOneOf(USAGE, 'region', values.region, Object.keys(PRICES));
  const region = values.region as Region;
  const prices = PRICES[region];
  const volume = Number(values.callbacks);
  const users = Number(values['console-users']);
  const config = JSON.parse(readFileSync(values.config!, 'utf8')) as Record<string, unknown>;
  let stack: Stack;
  let doubled: Stack | undefined;
  if (values.template) {
    if (!existsSync(values.template)) throw new Error(`--template: no such file ${values.template}`);
    stack = await stackOf(JSON.parse(readFileSync(values.template, 'utf8')), config, users);
  } else {
    const twice = doubledAccounts(config);
    const templates = await synthesize({ MobileMoneyRelay: config, MobileMoneyRelayDoubled: twice });
    stack = await stackOf(templates.MobileMoneyRelay!, config, users);
    doubled = await stackOf(templates.MobileMoneyRelayDoubled!, twice, users);
  }
  const out = (line = '') => process.stdout.write(`${line}\n`);
  const steadyMonths = stack.retention.transactionDays / 30;
  const first = month(stack, prices, volume, 1);
  const steady = month(stack, prices, volume, steadyMonths);
  out(
    `Prices: ${region}, list, ${PRICES_AS_OF}. ${values.template ? `Template ${values.template}` : `Synthesized from ${values.config}`}: ` +
      `${stack.accounts} accounts, ${stack.providers} providers, transactions kept ${stack.retention.transactionDays} d, receipts ${stack.retention.receiptDays} d.\n`,
  );
  out(renderTable('Idle floor (a month, no traffic)', first.floor));
  out();
  out(renderTable(`Fixed once callbacks flow (${volume.toLocaleString('en')} a month)`, first.trafficFixed));
  out();
  out(renderTable('Per million callbacks (request path)', first.perMillion));
  out();
  printStatementCosts(out, prices, stack.accounts);
  out(
    renderTable(
      'Per million deliveries (webhooks, 2xx at the first attempt)',
      deliveryCostPerMillion(prices),
    ),
  );
  out();
  out(
    renderTable(
      'Per million deliveries to an SQS destination (accepted at the first send)',
      sqsDeliveryCostPerMillion(prices),
    ),
  );
  out();
  out(
    renderTable(
      `Storage at steady state (${volume.toLocaleString('en')} a month, after ${steadyMonths.toFixed(1)} months)`,
      steady.storage,
    ),
  );
  out();
  const perMillion = (m: Month) => money((m.total / Math.max(1, volume)) * MILLION);
  out(
    '| A month | floor | traffic fixed | request path | storage | X-Ray free tier | total | per million callbacks |',
  );
  out('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  // The storage lever: a 90-day hot window in the table (retention.transactionDays), for comparison.
  const HOT_DAYS = 90;
  const hot = { ...stack, retention: { ...stack.retention, transactionDays: HOT_DAYS } };
  const rows: Array<[string, Month]> = [
    ['first month', first],
    [`steady state (${stack.retention.transactionDays} d)`, steady],
  ];
  if (stack.retention.transactionDays > HOT_DAYS)
    rows.push([
      `steady state with "transactionDays": ${HOT_DAYS}`,
      month(hot, prices, volume, HOT_DAYS / 30),
    ]);
  for (const [label, m] of rows)
    out(
      `| ${label} | ${money(total(m.floor))} | ${money(total(m.trafficFixed))} | ${money((total(m.perMillion) * volume) / MILLION)} | ${money(total(m.storage))} | ${money(m.xrayFree)} | ${money(m.total)} | ${perMillion(m)} |`,
    );
  if (doubled) {
    const perAccount = perAccountFixed(stack, doubled, prices, volume);
    out();
    out(
      `Fixed cost per account: ${money(perAccount)} a month (idle floor + traffic fixed, ${stack.accounts} → ${doubled.accounts} accounts synthesized: ` +
        `${(doubled.counts.alarmMetrics - stack.counts.alarmMetrics) / (doubled.accounts - stack.accounts)} alarm metrics, ` +
        `${(doubled.configSecrets - stack.configSecrets) / (doubled.accounts - stack.accounts)} secrets, ` +
        `${(seriesOf(doubled, 'traffic') + seriesOf(doubled, 'cycle') - seriesOf(stack, 'traffic') - seriesOf(stack, 'cycle')) / (doubled.accounts - stack.accounts)} metric series each).`,
    );
  }
  const h = headline(stack, doubled, prices, volume);
  const against = (value: number | undefined, target: number) =>
    value === undefined
      ? 'not computed (--template)'
      : `${money(value)} ${value <= target ? '✔' : '✘'} ≤ ${money(target)}`;
  out();
  out(
    `Targets (issue 28; us-east-1, 3 accounts, 1,000,000 callbacks a month): idle floor ${against(h.idleFloor, TARGETS.idleFloor)}; ` +
      `per million at steady state, all in ${against(h.perMillionSteady, TARGETS.perMillionSteady)}; per account ${against(h.perAccount, TARGETS.perAccount)}.`,
  );
  const incident = stack.series.filter((s) => s.activity !== 'cycle' && s.activity !== 'traffic');
  out();
  out(
    `Not in a normal month (series with data only then, $${prices.metricPerMonth} a month each, prorated by the hour): ` +
      incident.map((s) => `${s.name} ${s.series} (${s.activity})`).join(', ') +
      '.',
  );
}

if (import.meta.url === `file://${process.argv[1]}`)
  main().catch((error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  });

/** The statement files' tables (scripts/cost/statements.ts): idle, and per million rows imported. */
function printStatementCosts(out: (line?: string) => void, prices: Prices, accounts: number) {
  out(
    renderTable(
      'Statements at idle (a month, no upload; part of the floor)',
      statementIdleFloor(prices, accounts),
    ),
  );
  out();
  out(
    renderTable(
      'Per million statement rows (files uploaded to the statement bucket)',
      perMillionStatementRows(prices),
    ),
  );
  out();
}
