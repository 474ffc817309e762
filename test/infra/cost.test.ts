import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/bundling';
import { OUTBOX_BATCHING_WINDOW_SECONDS } from '../../infra/relay/outbox';
import {
  callbackWriteUnits,
  changesPerPublisherInvocation,
  doubledAccounts,
  headline,
  idleFloor,
  MEASURED,
  perMillionCallbacks,
  PRICES,
  type Stack,
  stackOf,
  synthesize,
  TARGETS,
} from '../../scripts/cost';
import { accessLogLineBytes } from '../../scripts/cost/template';

const US = PRICES['us-east-1'];
const MILLION = 1_000_000;

/** The example config synthesized as `npm run cost` does, and its copy with every account doubled. */
let stack: Stack;
let doubled: Stack;
beforeAll(async () => {
  const config = JSON.parse(readFileSync(join(PROJECT_ROOT, 'infra/example-config.json'), 'utf8'));
  const twice = doubledAccounts(config);
  const templates = await synthesize({ CostExample: config, CostExampleDoubled: twice });
  stack = await stackOf(templates.CostExample!, config, 3);
  doubled = await stackOf(templates.CostExampleDoubled!, twice, 3);
}, 300_000);

describe('what the example stack costs (npm run cost, from the synthesized template)', () => {
  it('adds at most $0.50 a month per account: its secret, and no alarm metric or metric series of its own', () => {
    // Act
    const { perAccount } = headline(stack, doubled, US, MILLION);

    // Assess
    expect(perAccount).toBeLessThanOrEqual(TARGETS.perAccount);
    expect(doubled.counts.alarmMetrics).toBe(stack.counts.alarmMetrics);
    // Series with data in a normal month (every cycle, every callback); incident ones bill by the hour.
    const series = (s: Stack) =>
      s.series
        .filter((m) => m.activity === 'cycle' || m.activity === 'traffic')
        .reduce((n, m) => n + m.series, 0);
    expect(series(doubled)).toBe(series(stack));
  });

  it('bills no customer-managed KMS key and no metric series every poll cycle while idle', () => {
    // Act
    const line = (item: string) => idleFloor(stack, US).find((l) => l.item === item)!.dollars;

    // Assess
    expect(stack.counts.kmsKeys).toBe(0);
    expect(line('KMS customer-managed keys')).toBe(0);
    // Only the scheduled close's count of overdue days (one series) is written every hour; the pull's age
    // only while a pull is late, per provider, without a roll-up.
    expect(stack.series.filter((s) => s.activity === 'cycle').map((s) => [s.name, s.series])).toEqual([
      ['StatementDaysOverdue', 1],
    ]);
    expect(stack.series.find((s) => s.name === 'StatementPullAgeSeconds')).toMatchObject({
      activity: 'incident',
      series: 1,
    });
  });

  it('prices the outbox publisher by the stream mapping’s batching window: one invocation for several changes at 1 M a month', () => {
    // Act
    const batch = changesPerPublisherInvocation(stack, MILLION);
    const requests = perMillionCallbacks(stack, US, MILLION).find((l) => l.item === 'Lambda requests')!;

    // Assess: 1 + rate × window changes an invocation (Poisson arrivals at ~0.39 a second).
    expect(stack.counts.streamMapping).toEqual({
      batchSize: 100,
      windowSeconds: OUTBOX_BATCHING_WINDOW_SECONDS,
    });
    expect(batch).toBeCloseTo(1 + (MILLION / (30 * 86_400)) * OUTBOX_BATCHING_WINDOW_SECONDS, 6);
    expect(requests.dollars).toBeCloseTo((1 + 1 / batch) * US.lambdaPerMillionRequests, 6);
    expect(requests.dollars).toBeLessThan(2 * US.lambdaPerMillionRequests);
  });

  it('runs the outbox publisher, off the ack path, on half the callback function’s memory', () => {
    const memory = (name: string) => stack.counts.functions.find((f) => f.name === name)!.memoryMb;
    expect(memory('relay-outbox-publisher')).toBe(256);
    expect(memory('relay-callback')).toBe(512);
  });

  it('writes an API access log line of at most 350 bytes that still names the request, caller, route, answer and time', () => {
    // Act
    const lines = stack.counts.accessLogFormats.map((format) => ({
      format: JSON.parse(format) as Record<string, string>,
      bytes: accessLogLineBytes(format),
    }));

    // Assess: the relay's stage (the one with integrationStatus; the console's has its own).
    const relay = lines.find((l) => 'integrationStatus' in l.format)!;
    expect(relay.bytes).toBeLessThanOrEqual(350);
    for (const field of ['requestId', 'sourceIp', 'caller', 'routeKey', 'status', 'responseLatency', 'error'])
      expect(relay.format).toHaveProperty(field);
  });

  it('keeps final transactions a 90-day hot window by default (steady state after 3 months)', () => {
    expect(stack.retention.transactionDays).toBe(90);
  });

  it(`costs at most $${TARGETS.idleFloor} a month idle (3 accounts), the example's accounts sharing one secret`, () => {
    // Act
    const { idleFloor: floor } = headline(stack, doubled, US, MILLION);
    const secrets = idleFloor(stack, US).find((l) => l.item === 'Secrets Manager secrets')!;

    // Assess: the one shared callback secret (keyed references, the seal key a member too), whatever the accounts.
    expect(floor).toBeLessThanOrEqual(TARGETS.idleFloor);
    expect(stack.counts.secrets + stack.configSecrets).toBe(1);
    expect(doubled.configSecrets).toBe(stack.configSecrets);
    expect(secrets.dollars).toBeCloseTo(US.secretPerMonth, 10);
  });

  it('feeds no series on an accepted callback: only rejections (scanners reach any public URL); provider silence is written only while it lasts', () => {
    expect(stack.series.filter((s) => s.activity === 'traffic').map((s) => [s.name, s.series])).toEqual([
      ['CallbacksRejected', 1],
    ]);
    expect(stack.series.find((s) => s.name === 'SilentProviders')).toMatchObject({
      activity: 'incident',
      series: 3,
    });
  });

  it('logs no Lambda START/END/REPORT line for the callback and the publisher: their logging config drops them', () => {
    // Act
    const line = perMillionCallbacks(stack, US, MILLION).find(
      (l) => l.item === 'CloudWatch Logs: functions',
    )!;
    const hot = ['relay-callback', 'relay-outbox-publisher'].map((name) =>
      stack.counts.functions.find((f) => f.name === name)!,
    );

    // Assess: only the functions' own lines are billed (the callback's one line, the publisher's one).
    expect(hot.map((f) => f.platformLines)).toEqual([false, false]);
    expect(line.dollars).toBeCloseTo(
      ((MEASURED.callbackLogBytes + MEASURED.publisherLogBytes) * MILLION * US.logsIngestionPerGb) /
        1024 ** 3,
      10,
    );
  });

  it('bills no SQS polling on an idle ingress buffer and no secret of its own for the seal key', () => {
    // Act
    const floor = idleFloor(stack, US);
    const line = (item: string) => floor.find((l) => l.item === item)!;

    // Assess: the drain's minute asks SQS once; the seal key is a member of the callback secret.
    expect(stack.counts.polledQueues).toBe(0);
    expect(line('SQS: Lambda polling the ingress buffer').dollars).toBe(0);
    expect(stack.counts.scheduledInvocationsOf['relay-buffer-consumer']).toBe(43_200);
    expect(line('Buffer drain (scheduled buffer consumer)').dollars).toBeLessThan(0.06);
    expect(stack.counts.secrets).toBe(0);
  });

  it(`costs at most $${TARGETS.perMillionSteady} per million callbacks all in at 1 M a month, steady state`, () => {
    // Act
    const { perMillionSteady } = headline(stack, doubled, US, MILLION);

    // Assess: $12.30 while a first callback took 4 write units (its byAccountDay entry rewritten, or put).
    expect(perMillionSteady).toBeLessThanOrEqual(TARGETS.perMillionSteady);
  });

  it('prices a first callback’s index writes from the synthesized indexes: 3 write units, registered or not', () => {
    // Act
    const units = callbackWriteUnits(stack.counts.tableIndexes);
    const writes = perMillionCallbacks(stack, US, MILLION).find(
      (l) => l.item === 'DynamoDB writes (1 KB rule)',
    )!;

    // Assess: the receipt, the transaction, and one index entry (the due entry out, or the byDay entry in).
    expect(stack.counts.tableIndexes.map((i) => i.name)).toEqual(['due', 'byDay', 'byAccountDay']);
    expect(units.byKind).toEqual({ registered: 3, unregistered: 3 });
    expect(writes.dollars).toBeCloseTo(3 * US.dynamoPerMillionWrites, 10);
  });

  it('would price a byAccountDay entry rewritten at every verdict were the index to project all attributes', () => {
    // Prepare: the same template with the account-day index projecting everything (a key change apart,
    // only then does a verdict within the slack touch it) and every transaction in it.
    const all = stack.counts.tableIndexes.map((i) =>
      i.name === 'byAccountDay' ? { ...i, projection: 'ALL' as const, keys: ['dayShard', 'createdAt'] } : i,
    );

    // Act
    const units = callbackWriteUnits(all);

    // Assess: the registered one's entry rewritten, the unregistered one's put.
    expect(units.byKind).toEqual({ registered: 4, unregistered: 4 });
  });
});
