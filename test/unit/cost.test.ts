import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import {
  configSecretIds,
  doubledAccounts,
  idleFloor,
  insightsAlarmMetrics,
  lambdaTracedShare,
  month,
  perMillionCallbacks,
  PRICES,
  type Stack,
  storage,
  total,
} from '../../scripts/cost';
import { deliveryCostPerMillion, sqsDeliveryCostPerMillion } from '../../scripts/cost/deliveries';
import {
  indexShapes,
  indexWriteUnits,
  itemBytes,
  numberBytes,
  storedBytes,
  writeUnits,
  writeUnitsOf,
} from '../../scripts/cost/dynamo-units';
import { countSeries, emittersIn, metricConstants } from '../../scripts/cost/metric-series';
import { countTemplate, ratePerMonth } from '../../scripts/cost/template';
import { createTableInput } from '../../shared/adapters/dynamodb/table';

const US = PRICES['us-east-1'];
const item = (value: Record<string, unknown>) =>
  marshall(value, { removeUndefinedValues: true }) as Record<string, AttributeValue>;
const [DUE, DAY] = indexShapes(createTableInput('relay'));

describe('DynamoDB item sizes', () => {
  it('counts names and UTF-8 bytes of strings, one byte per two significant digits plus one for numbers', () => {
    // Act
    const size = itemBytes(item({ pk: 'TX', née: 'é', n: 12345, z: 100 }));

    // Assess: pk 2+2, née 4+2, n 1+(3+1), z 1+(1+1)
    expect(size).toBe(4 + 6 + 5 + 3);
    expect(numberBytes('0.00120')).toBe(2);
  });

  it('adds 3 bytes per list or map and 1 byte per element', () => {
    // Act
    const size = itemBytes(item({ l: ['ab', 'c'], m: { k: true } }));

    // Assess: l 1 + 3 + (1+2) + (1+1); m 1 + 3 + (1 + 1 + 1)
    expect(size).toBe(9 + 7);
  });
});

describe('write units by the 1 KB rule', () => {
  it('takes one unit per started KB of the larger of the before and after images', () => {
    // Prepare
    const small = item({ pk: 'TX#a', sk: 'TX', v: 'x'.repeat(100) });
    const big = item({ pk: 'TX#a', sk: 'TX', v: 'x'.repeat(1100) });

    // Act / Assess
    expect(writeUnitsOf(1024)).toBe(1);
    expect(writeUnitsOf(1025)).toBe(2);
    expect(writeUnits(big, small, []).table).toBe(2);
    expect(writeUnits(small, big, []).table).toBe(2);
    expect(writeUnits(undefined, small, []).table).toBe(1);
  });

  it('writes an index entry when the item enters it, changes its keys (two), or leaves it, and none otherwise', () => {
    // Prepare
    const base = { pk: 'TX#a', sk: 'TX', dayShard: '2026-11-29#1', createdAt: '2026-11-29T00:00:00Z' };
    const due = { dueShard: 'DUE#1', dueAt: '2026-11-29T01:00:00Z' };

    // Act / Assess
    expect(indexWriteUnits(undefined, item(base), DAY!)).toBe(1);
    expect(indexWriteUnits(item(base), item({ ...base, status: 'SUCCEEDED' }), DAY!)).toBe(0);
    expect(indexWriteUnits(item({ ...base, ...due }), item(base), DUE!)).toBe(1);
    expect(
      indexWriteUnits(
        item({ ...base, ...due }),
        item({ ...base, ...due, dueAt: '2026-11-29T02:00:00Z' }),
        DUE!,
      ),
    ).toBe(2);
    expect(indexWriteUnits(item(base), item(base), DUE!)).toBe(0);
  });

  it('bills storage with 100 bytes per item and per index entry', () => {
    // Prepare
    const tx = item({ pk: 'TX#a', sk: 'TX', dayShard: 'd', createdAt: 'c', other: 'x'.repeat(500) });

    // Act
    const bytes = storedBytes(tx, [DUE!, DAY!]);

    // Assess: the item, and its byDay entry (keys only: pk, sk, dayShard, createdAt); not in the due index
    expect(bytes).toBe(itemBytes(tx) + 100 + (2 + 4) + (2 + 2) + (8 + 1) + (9 + 1) + 100);
  });
});

describe('tracing as Lambda samples it', () => {
  it('traces most invocations at a million a month and about 5% when busy', () => {
    // Act / Assess: 0.39 a second: the 1/s reservoir takes most of them
    expect(lambdaTracedShare(1_000_000)).toBeCloseTo(0.838, 2);
    expect(lambdaTracedShare(43_200)).toBeGreaterThan(0.98);
    expect(lambdaTracedShare(1_000 * 2_592_000)).toBeCloseTo(0.051, 3);
  });
});

describe('metric series from the code', () => {
  it('reads each call’s metric name and dimension names, spread variables included', () => {
    // Prepare
    const source = [
      `const where = { provider: key.provider, account: key.account };`,
      `metrics.count('A', 1, { provider: p.id, account: a.id });`,
      `metrics.count('B', 1, { ...where, error: answer.error });`,
      `services.metrics?.count('C', events.length);`,
      `metrics.timing('D', Math.max(0, now - then), {\n  provider: item.key.provider,\n});`,
      `metrics.count('E', 1, where);`,
    ].join('\n');

    // Act
    const found = emittersIn(source, 'x.ts').map((e) => [e.name, e.dimensions.join(',')]);

    // Assess
    expect(found).toEqual([
      ['A', 'account,provider'],
      ['B', 'account,error,provider'],
      ['C', ''],
      ['D', 'provider'],
      ['E', 'account,provider'],
    ]);
  });

  it('reads a metric named by a constant declared in another file, and refuses one it cannot resolve', () => {
    // Prepare
    const constants = metricConstants([`export const PULL_AGE_METRIC = 'StatementPullAgeSeconds';`]);
    const source = `services.metrics.count(PULL_AGE_METRIC, age, { provider });`;

    // Act
    const found = emittersIn(source, 'x.ts', constants);

    // Assess
    expect(found).toEqual([{ name: 'StatementPullAgeSeconds', dimensions: ['provider'], at: 'x.ts:1' }]);
    expect(() => emittersIn(`metrics.count(UNKNOWN_METRIC, 1);`, 'y.ts', constants)).toThrow(
      /UNKNOWN_METRIC/,
    );
  });

  it('counts a roll-up plus each dimension value set, accounts as provider/account pairs, no roll-up for a metric published without one', () => {
    // Prepare
    const emitters = [
      { name: 'StatementPullAgeSeconds', dimensions: ['account', 'provider'], at: 'a' },
      { name: 'PickupDelay', dimensions: ['provider'], at: 'b' },
      { name: 'CallbacksRejected', dimensions: [], at: 'c' },
    ];

    // Act
    const series = countSeries(emitters, { provider: 3, account: 5, shop: 0 });

    // Assess
    expect(Object.fromEntries(series.map((s) => [s.name, s.series]))).toEqual({
      // In METRICS_WITHOUT_ROLL_UP: the 5 account series only.
      StatementPullAgeSeconds: 5,
      CallbacksRejected: 1,
      PickupDelay: 4,
    });
  });

  it('refuses a metric nobody priced, naming where it is published', () => {
    // Act / Assess
    expect(() =>
      countSeries([{ name: 'BrandNew', dimensions: [], at: 'shared/x.ts:3' }], {
        provider: 1,
        account: 1,
        shop: 0,
      }),
    ).toThrow(/shared\/x\.ts:3: metric BrandNew is not priced/);
  });
});

const TEMPLATE = {
  Resources: {
    Plain: { Type: 'AWS::CloudWatch::Alarm', Properties: { MetricName: 'Errors', Period: 60 } },
    Math: {
      Type: 'AWS::CloudWatch::Alarm',
      Properties: {
        Metrics: [{ MetricStat: { Period: 60 } }, { MetricStat: { Period: 60 } }, { Expression: 'a+b' }],
      },
    },
    Fast: { Type: 'AWS::CloudWatch::Alarm', Properties: { Metrics: [{ MetricStat: { Period: 10 } }] } },
    Composite: { Type: 'AWS::CloudWatch::CompositeAlarm' },
    Board: { Type: 'AWS::CloudWatch::Dashboard' },
    Key: { Type: 'AWS::KMS::Key' },
    Seal: { Type: 'AWS::SecretsManager::Secret' },
    Buffer: { Type: 'AWS::SQS::Queue' },
    Dlq: { Type: 'AWS::SQS::Queue' },
    Mapping: {
      Type: 'AWS::Lambda::EventSourceMapping',
      Properties: { EventSourceArn: { 'Fn::GetAtt': ['Buffer', 'Arn'] } },
    },
    Schedule: {
      Type: 'AWS::Scheduler::Schedule',
      Properties: {
        ScheduleExpression: 'rate(1 minute)',
        Target: { Arn: { 'Fn::GetAtt': ['Poller', 'Arn'] } },
      },
    },
    Callback: {
      Type: 'AWS::Lambda::Function',
      Properties: {
        MemorySize: 512,
        TracingConfig: { Mode: 'Active' },
        Environment: { Variables: { POWERTOOLS_SERVICE_NAME: 'relay-callback' } },
      },
    },
    Publisher: {
      Type: 'AWS::Lambda::Function',
      Properties: {
        MemorySize: 512,
        TracingConfig: { Mode: 'PassThrough' },
        Environment: { Variables: { POWERTOOLS_SERVICE_NAME: 'relay-outbox-publisher' } },
      },
    },
    Poller: {
      Type: 'AWS::Lambda::Function',
      Properties: {
        MemorySize: 512,
        TracingConfig: { Mode: 'Active' },
        Environment: { Variables: { POWERTOOLS_SERVICE_NAME: 'relay-poller' } },
      },
    },
    Archive: { Type: 'AWS::Events::Archive', Properties: { RetentionDays: 30 } },
    Table: {
      Type: 'AWS::DynamoDB::Table',
      Properties: { PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } },
    },
  },
};

const stackFrom = (template: object, overrides: Partial<Stack> = {}): Stack => ({
  counts: countTemplate(template),
  configSecrets: 3,
  accounts: 3,
  pullingAccounts: 1,
  providers: 3,
  retention: { receiptDays: 30, transactionDays: 90 },
  series: [
    { name: 'PollCyclesCompleted', activity: 'cycle', series: 1, dimensionSets: [''] },
    { name: 'AckLatency', activity: 'traffic', series: 4, dimensionSets: ['provider'] },
  ],
  consoleUsers: 0,
  ...overrides,
});

describe('Metrics Insights alarms (billed per metric their query analyses)', () => {
  const INSIGHTS = {
    Resources: {
      ByProvider: {
        Type: 'AWS::CloudWatch::Alarm',
        Properties: {
          Metrics: [{ Expression: 'SELECT SUM(SilentProviders) FROM SCHEMA("Ns", provider)', Period: 300 }],
        },
      },
      OneProvider: {
        Type: 'AWS::CloudWatch::Alarm',
        Properties: {
          Metrics: [
            {
              Expression: `SELECT MAX(SilentProviders) FROM SCHEMA("Ns", provider) WHERE provider = 'momo'`,
            },
          ],
        },
      },
      Everything: {
        Type: 'AWS::CloudWatch::Alarm',
        Properties: { Metrics: [{ Expression: 'SELECT SUM(StatusCallErrors) FROM "Ns"' }] },
      },
    },
  };

  it('prices an alarm on a query by the series it matches with data all month, at least one', () => {
    // Prepare
    const stack = stackFrom(INSIGHTS, {
      series: [
        // As if written all month (a metric published without its roll-up, per provider).
        { name: 'SilentProviders', activity: 'traffic', series: 3, dimensionSets: ['provider'] },
        { name: 'StatusCallErrors', activity: 'incident', series: 13, dimensionSets: ['account,error'] },
      ],
    });
    // Act
    const counts = countTemplate(INSIGHTS);
    const [alarms] = idleFloor(stack, US);
    // Assess: 3 providers' series (no roll-up), 1 for the pinned provider, 1 for the incident-only metric.
    expect(counts).toMatchObject({ alarms: 3, alarmMetrics: 0 });
    expect(counts.insightsQueries.map((q) => insightsAlarmMetrics(stack, q))).toEqual([3, 1, 1]);
    expect(alarms!.dollars).toBeCloseTo(5 * US.alarmPerMonth, 10);
    expect(alarms!.formula).toContain('3 on Metrics Insights queries analysing 5');
  });
});

describe('what the template bills', () => {
  it('counts alarms by the metrics they read, high resolution apart, and queues Lambda polls', () => {
    // Act
    const counts = countTemplate(TEMPLATE);

    // Assess
    expect(counts).toMatchObject({
      alarms: 3,
      alarmMetrics: 3,
      highResolutionAlarmMetrics: 1,
      compositeAlarms: 1,
      dashboards: 1,
      kmsKeys: 1,
      secrets: 1,
      polledQueues: 1,
      scheduledInvocationsPerMonth: 43_200,
      // By the function each schedule invokes: the poller's cycles are not the other schedules' runs.
      scheduledInvocationsOf: { 'relay-poller': 43_200 },
      pointInTimeRecovery: true,
    });
    expect(ratePerMonth('rate(5 minutes)')).toBe(8_640);
  });

  it('prices an idle poller tick by what it reads: the due index, each account, each pull state, each provider', () => {
    // Prepare: the template's poller runs 43,200 times a month; one more pulling account, one more pull state a tick.
    const poller = (stack: Stack) => idleFloor(stack, US).find((l) => l.item.startsWith('Poller'))!;
    const one = poller(stackFrom(TEMPLATE));
    const two = poller(stackFrom(TEMPLATE, { pullingAccounts: 2 }));

    // Assess: 2 (due index) + 3 accounts × 2 (callback health, balance state) + 1 pull state + 3 × 0.5
    expect(one.formula).toContain('10.5 RRU');
    expect(two.dollars - one.dollars).toBeCloseTo((43_200 / 1_000_000) * US.dynamoPerMillionReads, 9);
  });

  it('prices the idle floor from the template, the first three dashboards free', () => {
    // Prepare
    const stack = stackFrom(TEMPLATE);
    const line = (item: string) => idleFloor(stack, US).find((l) => l.item === item)!.dollars;

    // Act / Assess
    expect(line('CloudWatch alarms')).toBeCloseTo(3 * 0.1 + 0.3, 6);
    expect(line('CloudWatch composite alarms')).toBeCloseTo(0.5, 6);
    expect(line('CloudWatch dashboards')).toBe(0);
    expect(line('KMS customer-managed keys')).toBeCloseTo(1, 6);
    expect(line('Secrets Manager secrets')).toBeCloseTo((1 + 3) * 0.4, 6);
    expect(line('Custom metrics with data every cycle')).toBeCloseTo(0.3, 6);
    const four = {
      Resources: {
        ...TEMPLATE.Resources,
        ...Object.fromEntries(['B', 'C', 'D'].map((id) => [id, { Type: 'AWS::CloudWatch::Dashboard' }])),
      },
    };
    expect(idleFloor(stackFrom(four), US).find((l) => l.item === 'CloudWatch dashboards')!.dollars).toBe(3);
  });

  it('prices the traces of actively traced hot-path functions only, at Lambda’s sampling', () => {
    // Act
    const xray = (stack: Stack) =>
      perMillionCallbacks(stack, US, 1_000_000).find((l) => l.item.startsWith('X-Ray'))!.dollars;
    const untraced = {
      Resources: {
        ...TEMPLATE.Resources,
        Callback: {
          ...TEMPLATE.Resources.Callback,
          Properties: { ...TEMPLATE.Resources.Callback.Properties, TracingConfig: { Mode: 'PassThrough' } },
        },
      },
    };

    // Assess: the callback traced (83.8%), the publisher passing through
    expect(xray(stackFrom(TEMPLATE))).toBeCloseTo(lambdaTracedShare(1_000_000) * 5, 6);
    expect(xray(stackFrom(untraced))).toBe(0);
  });

  it('stores the configured retention at steady state, a month’s worth in the first month', () => {
    // Prepare
    const stack = stackFrom(TEMPLATE);

    // Act
    const first = total(storage(stack, US, 1_000_000, 1));
    const second = total(storage(stack, US, 1_000_000, 2));
    const steady = total(storage(stack, US, 1_000_000, 3));
    const longer = total(storage(stack, US, 1_000_000, 12));

    // Assess: 90 days = three months of transactions (receipts and the archive: one month either way), so
    // each month until the third adds one month of transactions, then the total stays level (TTL)
    const aMonthOfTransactions = steady - second;
    expect(aMonthOfTransactions).toBeGreaterThan(0);
    expect(second - first).toBeCloseTo(aMonthOfTransactions, 6);
    expect(steady).toBeGreaterThan(first + 2 * aMonthOfTransactions - 1e-6);
    expect(longer).toBeCloseTo(steady, 6);
  });

  it('takes X-Ray’s free traces off once, after the poller’s', () => {
    // Prepare
    const stack = stackFrom(TEMPLATE);

    // Act
    const m = month(stack, US, 1_000_000, 1);

    // Assess: 100,000 − the poller's ~43,000 traces left free, at $5 per million
    expect(m.xrayFree).toBeLessThan(-0.25);
    expect(m.xrayFree).toBeGreaterThan(-0.3);
  });
});

describe('the config', () => {
  it('names every secret under a key ending in SecretId, once', () => {
    // Act
    const ids = configSecretIds({
      accounts: { momo: { a: { callbackSecretId: 's1', apiSecretId: 's2' }, b: { callbackSecretId: 's1' } } },
      edge: { originVerifySecretId: 's3' },
    });

    // Assess
    expect(ids.sort()).toEqual(['s1', 's2', 's3']);
  });

  it('counts a secret shared by keyed references (<secret>#<member>) once', () => {
    // Act
    const ids = configSecretIds({
      accounts: {
        momo: { a: { callbackSecretId: 'shared/callback#momo/a' } },
        airtel: { b: { callbackSecretId: 'shared/callback#airtel/b', apiSecretId: 'shared/api#airtel/b' } },
      },
    });
    // Assess
    expect(ids.sort()).toEqual(['shared/api', 'shared/callback']);
  });

  it('doubles each account with its own secrets and Daraja short code', () => {
    // Act
    const doubled = doubledAccounts({
      accounts: { daraja: { demo: { shortCode: '600638', callbackSecretId: 'd/cb' } } },
    }) as { accounts: Record<string, Record<string, Record<string, string>>> };

    // Assess
    expect(doubled.accounts.daraja).toEqual({
      demo: { shortCode: '600638', callbackSecretId: 'd/cb' },
      demo2: { shortCode: '600639', callbackSecretId: 'd/cb-2' },
    });
  });
});

describe('a million deliveries to an sqs destination', () => {
  it('costs the relay what an https delivery costs: the partner pays the SendMessage and STS is free', () => {
    // Prepare
    const prices = PRICES['us-east-1'];

    // Act
    const https = deliveryCostPerMillion(prices);
    const sqs = sqsDeliveryCostPerMillion(prices);

    // Assess
    expect(total(sqs)).toBeCloseTo(total(https), 9);
    expect(total(sqs)).toBeGreaterThan(0);
    expect(sqs.map((l) => l.item)).toEqual([
      ...https.map((l) => l.item),
      "SQS SendMessage to the partner's queue",
      'STS AssumeRole (partner role)',
    ]);
    const send = sqs.find((l) => l.item.startsWith('SQS SendMessage'))!;
    expect(send).toMatchObject({ dollars: 0 });
    expect(send.formula).toMatch(/billed to the partner's account/);
    const sts = sqs.find((l) => l.item.startsWith('STS'))!;
    expect(sts).toMatchObject({ dollars: 0 });
    expect(sts.formula).toMatch(/^free; about once an hour per destination .*not per delivery/);
  });
});
