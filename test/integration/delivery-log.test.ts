import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDeliveryLog } from '../../shared/adapters/dynamodb/delivery-log';
import { MemoryDeliveryLog } from '../../shared/adapters/memory/delivery-log';
import type { DeliveredEvent, DeliveryAttempt, DeliveryLog } from '../../shared/app/delivery/ports';
import { createTestTable } from '../helpers/dynamo';

let table: Awaited<ReturnType<typeof createTestTable>>;
beforeAll(async () => {
  table = await createTestTable();
});
afterAll(async () => {
  await table?.drop();
});

const event = (
  eventId: string,
  correlationId: string,
  eventType: string,
  occurredAt: string,
): DeliveredEvent => ({
  eventId,
  correlationId,
  eventType,
  occurredAt,
  body: JSON.stringify({ metadata: { id: eventId, type: eventType } }),
});

const attempt = (eventId: string, correlationId: string, n: number, at: string): DeliveryAttempt => ({
  eventId,
  correlationId,
  destination: 'partner',
  attempt: n,
  at,
  status: n === 0 ? 500 : 200,
  latencyMs: 12,
  outcome: n === 0 ? 'retrying' : 'delivered',
  excerpt: n === 0 ? 'try later' : 'ok',
});

describe.each([
  ['memory', () => new MemoryDeliveryLog() as DeliveryLog],
  [
    'DynamoDB',
    () => new DynamoDeliveryLog(table.doc, { tableName: table.tableName, retentionDays: 400 }) as DeliveryLog,
  ],
])('delivery log (%s)', (_, makeLog) => {
  it('reads a transaction story of attempts oldest first, and selects events for replay by transaction, type and time range', async () => {
    // Prepare
    const log = makeLog();
    const tx = `momo:acct:${_}-ref`;
    await log.recordEvent(event(`${_}-e1`, tx, 'TransactionAmbiguous', '2026-11-28T23:59:00.000Z'));
    await log.recordEvent(event(`${_}-e2`, tx, 'TransactionSucceeded', '2026-11-29T00:01:00.000Z'));
    await log.recordEvent(
      event(`${_}-e3`, `${tx}-other`, 'TransactionSucceeded', '2026-11-29T00:02:00.000Z'),
    );
    await log.recordAttempt(attempt(`${_}-e2`, tx, 1, '2026-11-29T00:01:05.000Z'));
    await log.recordAttempt(attempt(`${_}-e2`, tx, 0, '2026-11-29T00:01:00.000Z'));

    // Act
    const story = await log.attempts({ correlationId: tx });
    const byTransaction = await log.events({ correlationId: tx });
    const byTypeAndRange = await log.events({
      eventType: 'TransactionSucceeded',
      from: '2026-11-28T00:00:00.000Z',
      to: '2026-11-29T00:01:30.000Z',
    });

    // Assess
    expect(story.map((a) => [a.attempt, a.status, a.outcome])).toEqual([
      [0, 500, 'retrying'],
      [1, 200, 'delivered'],
    ]);
    expect(byTransaction.map((e) => e.eventId)).toEqual([`${_}-e1`, `${_}-e2`]);
    expect(byTypeAndRange.map((e) => e.eventId)).toEqual([`${_}-e2`]);
    expect(byTypeAndRange[0]!.body).toBe(
      JSON.stringify({ metadata: { id: `${_}-e2`, type: 'TransactionSucceeded' } }),
    );
  });
});
