import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDeliveryLog } from '../../shared/adapters/dynamodb/delivery-log';
import { DynamoDestinationStateStore } from '../../shared/adapters/dynamodb/destination-state-store';
import { MemoryDeliveryLog } from '../../shared/adapters/memory/delivery-log';
import { MemoryDestinationStates } from '../../shared/adapters/memory/destination-states';
import type { DeliveryAttempt, DeliveryLog, DestinationStateStore } from '../../shared/app/delivery/ports';
import { destinationDisabledEvent } from '../../shared/app/delivery/disabled-event';
import { SchemaValidationError } from '../../shared/domain/errors';
import { createTestTable } from '../helpers/dynamo';

let table: Awaited<ReturnType<typeof createTestTable>>;
beforeAll(async () => {
  table = await createTestTable();
});
afterAll(async () => {
  await table?.drop();
});

const at = (minute: number) => new Date(Date.UTC(2026, 10, 28, 23, 50 + minute)).toISOString();

describe.each([
  ['memory', () => new MemoryDestinationStates() as DestinationStateStore],
  ['DynamoDB', () => new DynamoDestinationStateStore(table.doc, { tableName: table.tableName })],
])('destination states (%s)', (kind, makeStates) => {
  it('counts concurrent failures without losing one, disables once, and a resume clears both but keeps the rotation', async () => {
    // Prepare
    const states = makeStates();
    const name = `${kind}-partner`;
    await states.rotate(name, {
      secretRef: 'env:NEW',
      rotatedAt: at(0),
      rotatedBy: 'bo',
      windowEndsAt: at(60),
    });

    // Act
    const streaks = await Promise.all(
      Array.from({ length: 5 }, () =>
        states.recordAttempt(name, { at: at(1), status: 500, outcome: 'retrying', failed: true }),
      ),
    );
    const disabling = destinationDisabledEvent({
      destination: name,
      reason: 'consecutive-failures',
      detail: '5 consecutive failed attempts',
      lastStatus: 500,
      consecutiveFailures: 5,
      disabledAt: at(2),
    });
    const disabled = await Promise.all([states.disable(name, disabling), states.disable(name, disabling)]);
    const paused = await states.pause(name, 'ana', at(3));
    const resumed = await states.resume(name);

    // Assess
    expect(streaks.sort()).toEqual([1, 2, 3, 4, 5]);
    expect(disabled.filter(Boolean)).toHaveLength(1);
    expect(paused).toMatchObject({
      paused: true,
      pausedBy: 'ana',
      disabled: true,
      disabledReason: '5 consecutive failed attempts',
      consecutiveFailures: 5,
    });
    expect(resumed).toMatchObject({
      paused: false,
      disabled: false,
      consecutiveFailures: 0,
      lastStatus: 500,
    });
    expect(resumed.rotation).toMatchObject({ secretRef: 'env:NEW', rotatedBy: 'bo' });
    expect(resumed.disabledReason).toBeUndefined();
  });
});

const attempt = (n: number, minute: number): DeliveryAttempt => ({
  eventId: `e${n}`,
  correlationId: `momo:acct:r${n}`,
  destination: 'paged',
  attempt: 0,
  at: at(minute),
  status: n % 2 ? 500 : 200,
  latencyMs: 3,
  outcome: n % 2 ? 'retrying' : 'delivered',
  excerpt: '',
});

describe.each([
  ['memory', () => new MemoryDeliveryLog() as DeliveryLog],
  [
    'DynamoDB',
    () => new DynamoDeliveryLog(table.doc, { tableName: table.tableName, retentionDays: 400 }) as DeliveryLog,
  ],
])("a destination's delivery log (%s)", (kind, makeLog) => {
  it('pages newest first across days, filters by outcome and refuses a cursor it did not give', async () => {
    // Prepare: attempts on both sides of midnight (minute 10 is 00:00 the next day).
    const log = makeLog();
    for (let n = 0; n < 7; n++)
      await log.recordAttempt({ ...attempt(n, n * 3), destination: `${kind}-paged` });
    const range = { from: at(0), to: at(30) };

    // Act
    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      const page = await log.attemptsOf(`${kind}-paged`, {
        ...range,
        limit: 3,
        ...(cursor ? { cursor } : {}),
      });
      pages.push(page.attempts.map((a) => a.eventId));
      cursor = page.next;
    } while (cursor);
    const failed = await log.attemptsOf(`${kind}-paged`, { ...range, limit: 10, outcome: 'retrying' });
    const bad = log.attemptsOf(`${kind}-paged`, { ...range, limit: 3, cursor: 'not-a-cursor' });

    // Assess
    expect(pages.flat()).toEqual(['e6', 'e5', 'e4', 'e3', 'e2', 'e1', 'e0']);
    expect(pages.every((p) => p.length <= 3)).toBe(true);
    expect(failed.attempts.map((a) => a.eventId)).toEqual(['e5', 'e3', 'e1']);
    await expect(bad).rejects.toBeInstanceOf(SchemaValidationError);
  });
});
