import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IdempotentConsumer, MemoryIdempotencyStore, type ConsumableEvent } from '../src/index.js';
import { succeeded } from './fixtures';
import { buildEvent } from '../../../shared/domain/events';
import { eventsFromChange } from '../../../shared/domain/outbox';

/** An event of transaction `tx` at `stateVersion` (in its metadata, as the relay publishes it), with its own id. */
const at = (tx: string, stateVersion: number, id = `${tx}#${stateVersion}`): ConsumableEvent => ({
  metadata: { id, correlationId: tx, type: 'TransactionSucceeded', stateVersion },
  data: {},
});

describe('the idempotent consumer', () => {
  it('handles an event once and drops its second delivery as a duplicate', async () => {
    // Prepare
    const consumer = new IdempotentConsumer();
    const handled: string[] = [];
    const handle = (event: ConsumableEvent) => handled.push(event.metadata.id);

    // Act
    const first = await consumer.consume(succeeded, handle);
    const second = await consumer.consume(structuredClone(succeeded), handle);

    // Assess
    expect([first.outcome, second.outcome]).toEqual(['handled', 'duplicate']);
    expect(handled).toEqual([succeeded.metadata.id]);
  });

  it('drops an older stateVersion of a transaction once a newer one was handled, and keeps a newer one', async () => {
    // Prepare
    const consumer = new IdempotentConsumer();
    const handled: string[] = [];
    const handle = (event: ConsumableEvent) => handled.push(event.metadata.id);
    await consumer.consume(at('tx-1', 3), handle);

    // Act
    const stale = await consumer.consume(at('tx-1', 2), handle);
    const newer = await consumer.consume(at('tx-1', 4), handle);
    const sameVersionOtherEvent = await consumer.consume(at('tx-1', 4, 'tx-1#4-conflict'), handle);
    const otherTransaction = await consumer.consume(at('tx-2', 1), handle);

    // Assess
    expect(stale).toEqual({ outcome: 'stale', version: 2, current: 3 });
    expect(newer.outcome).toBe('handled');
    expect(sameVersionOtherEvent.outcome).toBe('handled');
    expect(otherTransaction.outcome).toBe('handled');
    expect(handled).toEqual(['tx-1#3', 'tx-1#4', 'tx-1#4-conflict', 'tx-2#1']);
  });

  it('drops a transaction’s older event arriving after a newer one, by the stateVersion the relay’s outbox sets', async () => {
    // Prepare: two writes of one transaction item, as the table's stream hands them to the publisher
    const tx = { provider: 'momo', account: 'acct', reference: 'order-9' };
    const pending = buildEvent(
      'TransactionAmbiguous',
      'momo:acct:order-9',
      'AMBIGUOUS',
      'poll',
      '2026-11-29T10:00:00Z',
      { ...tx, status: 'AMBIGUOUS' },
    );
    const done = buildEvent(
      'TransactionSucceeded',
      'momo:acct:order-9',
      'SUCCEEDED',
      'callback',
      '2026-11-29T10:01:00Z',
      { ...tx, status: 'SUCCEEDED' },
    );
    const [older] = eventsFromChange({ ...tx, revision: 1 }, { ...tx, revision: 2, outbox: [pending] });
    const [newer] = eventsFromChange({ ...tx, revision: 2 }, { ...tx, revision: 3, outbox: [done] });
    const consumer = new IdempotentConsumer();
    const handled: string[] = [];
    const handle = (event: ConsumableEvent) => handled.push(event.metadata.type!);

    // Act: delivered out of order (a retry of the older one arrives last)
    const first = await consumer.consume(newer!, handle);
    const late = await consumer.consume(older!, handle);

    // Assess
    expect([older!.metadata.stateVersion, newer!.metadata.stateVersion]).toEqual([2, 3]);
    expect(first.outcome).toBe('handled');
    expect(late).toEqual({ outcome: 'stale', version: 2, current: 3 });
    expect(handled).toEqual(['TransactionSucceeded']);
  });

  it('handles an event again after its handler failed, so the retry is not lost', async () => {
    // Prepare
    const consumer = new IdempotentConsumer();
    const failing = () => {
      throw new Error('database down');
    };

    // Act
    const failed = consumer.consume(at('tx-1', 1), failing);
    await expect(failed).rejects.toThrow('database down');
    const retried = await consumer.consume(at('tx-1', 1), () => 'stored');

    // Assess
    expect(retried).toEqual({ outcome: 'handled', result: 'stored' });
  });

  it('orders Badge events by their revision and other streams by a versionOf of your own', async () => {
    // Prepare
    const badges = new IdempotentConsumer();
    const custom = new IdempotentConsumer<ConsumableEvent & { data: { seq: number } }>({
      versionOf: (event) => event.data.seq,
    });
    const badge = (revision: number): ConsumableEvent => ({
      metadata: { id: `badge-r${revision}`, correlationId: 'badges:shop:7' },
      data: { revision },
    });
    const seq = (n: number) => ({ metadata: { id: `s${n}`, correlationId: 'x' }, data: { seq: n } });

    // Act
    await badges.consume(badge(5), () => undefined);
    const olderBadge = await badges.consume(badge(4), () => undefined);
    await custom.consume(seq(9), () => undefined);
    const olderSeq = await custom.consume(seq(8), () => undefined);

    // Assess
    expect(olderBadge.outcome).toBe('stale');
    expect(olderSeq.outcome).toBe('stale');
  });

  it('forgets the oldest ids once the memory store is full', async () => {
    // Prepare
    const consumer = new IdempotentConsumer({ store: new MemoryIdempotencyStore(2) });
    for (const id of ['a', 'b', 'c']) await consumer.consume(at(id, 1), () => undefined);

    // Act
    const oldest = await consumer.consume(at('a', 1), () => undefined);
    const newest = await consumer.consume(at('c', 1), () => undefined);

    // Assess
    expect([oldest.outcome, newest.outcome]).toEqual(['handled', 'duplicate']);
  });

  it('runs the handler once per event id and never for a version below one handled before, whatever the order and repeats (property)', async () => {
    const delivery = fc.record({
      tx: fc.constantFrom('t1', 't2', 't3'),
      version: fc.integer({ min: 1, max: 6 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(delivery, { maxLength: 60 }), async (deliveries) => {
        // Prepare
        const consumer = new IdempotentConsumer();
        const handled: ConsumableEvent[] = [];

        // Act
        for (const { tx, version } of deliveries)
          await consumer.consume(at(tx, version), (event) => void handled.push(event));

        // Assess
        const ids = handled.map((e) => e.metadata.id);
        expect(new Set(ids).size).toBe(ids.length);
        const highest = new Map<string, number>();
        for (const event of handled) {
          const version = event.metadata.stateVersion!;
          expect(version).toBeGreaterThanOrEqual(highest.get(event.metadata.correlationId) ?? 0);
          highest.set(event.metadata.correlationId, version);
        }
        // Every first delivery at or above its transaction's highest so far was handled.
        const expected = new Map<string, number>();
        let count = 0;
        const seen = new Set<string>();
        for (const { tx, version } of deliveries) {
          const id = `${tx}#${version}`;
          if (seen.has(id)) continue;
          seen.add(id);
          if (version >= (expected.get(tx) ?? 0)) {
            expected.set(tx, version);
            count++;
          }
        }
        expect(handled).toHaveLength(count);
      }),
    );
  });
});
