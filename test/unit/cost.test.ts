import { describe, expect, it } from 'vitest';
import {
  callbackUsage,
  costPerMillion,
  defaultFixed,
  fixedFromTemplate,
  lifecycleUsage,
  month,
  PRICES,
  type Prices,
  requestPath,
  total,
  type Usage,
} from '../../scripts/cost';

const GB = 1024 ** 3;
const UNIT_PRICES: Prices = {
  ...PRICES['us-east-1'],
  httpApiPerMillion: 1,
  lambdaPerMillionRequests: 0.2,
  lambdaArmPerGbSecond: 0.00001,
  dynamoPerMillionWrites: 1,
  dynamoPerMillionReads: 0.1,
  dynamoStoragePerGbMonth: 0.25,
  dynamoPitrPerGbMonth: 0.25,
  eventBridgePerMillionEvents: 1,
  logsIngestionPerGb: 0.5,
  xrayPerMillionTraces: 5,
  xrayFreeTracesPerMonth: 100_000,
};

const usage = (overrides: Partial<Usage> = {}): Usage => ({
  apiRequests: 1,
  invocations: [{ fn: 'callback', count: 1, durationMs: 1000, memoryMb: 1024, logBytes: 0, hotPath: true }],
  writeUnits: 0,
  readUnits: 0,
  events: 0,
  stored: [],
  ...overrides,
});

const line = (lines: ReturnType<typeof costPerMillion>, item: string) =>
  lines.find((l) => l.item === item)!.dollars;

describe('cost per million', () => {
  it('prices a million one-second 1 GB invocations at a million GB-seconds', () => {
    // Act
    const lines = costPerMillion(usage(), UNIT_PRICES, 1);

    // Assess
    expect(line(lines, 'Lambda duration (Arm)')).toBeCloseTo(10, 6);
    expect(line(lines, 'Lambda requests')).toBeCloseTo(0.2, 6);
    expect(line(lines, 'API Gateway HTTP API')).toBeCloseTo(1, 6);
  });

  it('bills the duration rounded up to the millisecond', () => {
    // Act
    const lines = costPerMillion(
      usage({
        invocations: [{ fn: 'f', count: 1, durationMs: 0.2, memoryMb: 1024, logBytes: 0, hotPath: true }],
      }),
      UNIT_PRICES,
      1,
    );

    // Assess: 1 ms × 1 GB × a million = 1,000 GB-s
    expect(line(lines, 'Lambda duration (Arm)')).toBeCloseTo(0.01, 6);
  });

  it('prices write and read units, events and log bytes by their unit prices', () => {
    // Act
    const lines = costPerMillion(
      usage({
        writeUnits: 3,
        readUnits: 0.5,
        events: 2,
        invocations: [
          { fn: 'f', count: 2, durationMs: 0, memoryMb: 512, logBytes: GB / 1_000_000, hotPath: true },
        ],
      }),
      UNIT_PRICES,
      1,
    );

    // Assess
    expect(line(lines, 'DynamoDB writes')).toBeCloseTo(3, 6);
    expect(line(lines, 'DynamoDB reads')).toBeCloseTo(0.05, 6);
    expect(line(lines, 'EventBridge events')).toBeCloseTo(2, 6);
    expect(line(lines, 'CloudWatch Logs (and EMF metrics)')).toBeCloseTo(1, 6); // 2 GB × $0.50
  });

  it('traces the hot path at the trace rate and every other invocation', () => {
    // Act
    const lines = costPerMillion(
      usage({
        invocations: [
          { fn: 'callback', count: 1, durationMs: 0, memoryMb: 512, logBytes: 0, hotPath: true },
          { fn: 'poller', count: 1, durationMs: 0, memoryMb: 512, logBytes: 0, hotPath: false },
        ],
      }),
      UNIT_PRICES,
      0.05,
    );

    // Assess: 1.05 traces × $5
    expect(line(lines, 'X-Ray traces')).toBeCloseTo(5.25, 6);
  });

  it('stores each item for its retention, with point-in-time recovery', () => {
    // Act
    const lines = costPerMillion(
      usage({ stored: [{ what: 'item', bytes: GB / 1_000_000, days: 60 }] }),
      UNIT_PRICES,
      1,
    );

    // Assess: 1 GB for two months at $0.50
    expect(line(lines, 'DynamoDB storage + PITR over the retention')).toBeCloseTo(1, 6);
  });
});

describe('a month', () => {
  it('takes the free traces off, never more than were traced', () => {
    // Prepare
    const fixed = { ...defaultFixed(1), pollCycles: 0 };

    // Act
    const none = month({ callbacks: 0, lifecycles: 0 }, UNIT_PRICES, 0.05, fixed);
    const many = month({ callbacks: 10_000_000, lifecycles: 0 }, UNIT_PRICES, 0.05, fixed);

    // Assess
    expect(none.xrayFree).toBeCloseTo(0, 6);
    expect(many.xrayFree).toBeCloseTo(-0.5, 6); // 100,000 traces × $5/M
    expect(many.total).toBeCloseTo(many.floor + many.traffic - 0.5, 6);
  });
});

describe('the relay against its target', () => {
  it('costs at most $7 per million callbacks on the request path in us-east-1 with the hot path traced at 5%', () => {
    // Act
    const lines = costPerMillion(callbackUsage(), PRICES['us-east-1'], 0.05);

    // Assess
    expect(total(requestPath(lines))).toBeLessThanOrEqual(7);
  });

  it('would miss the target with every callback traced (X-Ray default sampling at low volume)', () => {
    // Act
    const lines = costPerMillion(callbackUsage(), PRICES['us-east-1'], 1);

    // Assess
    expect(total(requestPath(lines))).toBeGreaterThan(7);
  });

  it('prices a confirmed lifecycle above a lone callback (registration, status confirmation, two events)', () => {
    // Act
    const callback = total(costPerMillion(callbackUsage(), PRICES['us-east-1'], 0.05));
    const lifecycle = total(costPerMillion(lifecycleUsage(), PRICES['us-east-1'], 0.05));

    // Assess
    expect(lifecycle).toBeGreaterThan(callback);
  });
});

describe('the floor from a template', () => {
  it('counts a metric-math alarm once per metric it reads, composites, dashboards and keys', () => {
    // Prepare
    const template = {
      Resources: {
        A: { Type: 'AWS::CloudWatch::Alarm', Properties: { MetricName: 'Errors' } },
        B: {
          Type: 'AWS::CloudWatch::Alarm',
          Properties: { Metrics: [{ MetricStat: {} }, { MetricStat: {} }, { Expression: 'a+b' }] },
        },
        C: { Type: 'AWS::CloudWatch::CompositeAlarm' },
        D: { Type: 'AWS::CloudWatch::Dashboard' },
        E: { Type: 'AWS::KMS::Key' },
      },
    };

    // Act
    const fixed = fixedFromTemplate(template, 2);

    // Assess
    expect(fixed).toMatchObject({ alarms: 3, compositeAlarms: 1, dashboards: 1, kmsKeys: 1, secrets: 2 });
  });
});
