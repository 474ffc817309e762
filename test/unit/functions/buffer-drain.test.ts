import { describe, expect, it } from 'vitest';
import {
  type BufferDrainOptions,
  type BufferDrainResult,
  type BufferQueue,
  createBufferDrain,
  type SqsEvent,
} from '../../../functions/buffer-consumer/handler';
import { SEAL_ATTRIBUTE, sealOf } from '../../../shared/app/buffer/ingress-buffer';
import type { RelayServices } from '../../../shared/app/services';
import { bufferServices, bufferWhileStoreDown } from '../../helpers/buffer-world';
import { registered } from '../../helpers/reports';

const KEY = Buffer.from('seal-key-0123456789abcdef0123456789abcdef');

/**
 * An SQS queue in memory as the drain sees it: what waits, receives that make a message invisible until
 * it is deleted or its visibility is changed, the requests made.
 */
class MemoryQueue implements BufferQueue {
  readonly requests: string[] = [];
  private readonly visible: SqsEvent['Records'] = [];
  readonly inFlight = new Map<string, SqsEvent['Records'][number]>();
  readonly deleted: string[] = [];
  constructor(records: SqsEvent['Records'] = []) {
    this.visible.push(...records.map((r, i) => ({ ...r, receiptHandle: `rh-${i}` })));
  }
  async waiting() {
    this.requests.push('GetQueueAttributes');
    return this.visible.length;
  }
  async receive(max: number) {
    this.requests.push('ReceiveMessage');
    const taken = this.visible.splice(0, max);
    for (const record of taken) this.inFlight.set(record.receiptHandle!, record);
    return taken;
  }
  async delete(handles: readonly string[]) {
    this.requests.push('DeleteMessageBatch');
    for (const handle of handles) {
      this.inFlight.delete(handle);
      this.deleted.push(handle);
    }
  }
}

/** `count` MoMo callbacks for one registered transaction, buffered while the store was down, sealed. */
async function bufferedWorld(count: number) {
  const world = bufferServices();
  await bufferWhileStoreDown(
    world,
    Array.from({ length: count }, (_, i) => String(100 + i)),
  );
  world.store.failure = 'none';
  const records = world.buffer.asSqsEvent().Records.map((r) => ({
    ...r,
    messageAttributes: { [SEAL_ATTRIBUTE]: { stringValue: sealOf(r.body, KEY) } },
  }));
  expect(records).toHaveLength(count);
  return { ...world, records };
}

/**
 * A drain of `records` through a MemoryQueue, counting its seal key reads and recording the delays it asks
 * for; `options` replace any of it.
 */
function drainOf(
  services: RelayServices,
  records: SqsEvent['Records'] = [],
  options: Partial<BufferDrainOptions> = {},
) {
  const queue = new MemoryQueue(records);
  const delays: { receiptHandle: string; seconds: number }[] = [];
  const reads = { key: 0 };
  const drain = createBufferDrain(services, {
    queue,
    sealKey: async () => {
      reads.key++;
      return KEY;
    },
    retryLater: async (records) => void delays.push(...records),
    ...options,
  });
  return { queue, delays, reads, drain };
}

const thirtySeconds = { getRemainingTimeInMillis: () => 30_000 } as never;

describe('the scheduled drain of the ingress buffer', () => {
  it('asks SQS once and reads no secret when nothing waits (an idle minute)', async () => {
    // Prepare
    const { services } = await bufferedWorld(0);
    const { queue, reads, drain } = drainOf(services);

    // Act
    const result = (await drain({}, thirtySeconds)) as BufferDrainResult;

    // Assess
    expect(result).toEqual({ received: 0, applied: 0 });
    expect(queue.requests).toEqual(['GetQueueAttributes']);
    expect(reads.key).toBe(0);
  });

  it('applies every waiting sealed callback, deletes each applied message and reads the seal key once', async () => {
    // Prepare: more than one batch of 10.
    const { services, store, records } = await bufferedWorld(23);
    const { queue, reads, drain } = drainOf(services, records, { lanes: 3 });

    // Act
    const result = (await drain({}, thirtySeconds)) as BufferDrainResult;

    // Assess: all 23 applied and deleted; the transaction ended once, by a buffered callback.
    expect(result).toEqual({ received: 23, applied: 23 });
    expect(queue.deleted).toHaveLength(23);
    expect(queue.inFlight.size).toBe(0);
    expect(reads.key).toBe(1);
    const transaction = await store.getTransaction(registered().key);
    expect(transaction?.status).toBe('SUCCEEDED');
  });

  it('keeps a message whose seal does not match: not deleted, backed off towards the DLQ', async () => {
    // Prepare: the second message edited after it was sealed.
    const { services, records } = await bufferedWorld(2);
    const forged = [records[0]!, { ...records[1]!, body: `${records[1]!.body} ` }];
    const { queue, delays, drain } = drainOf(services, forged);

    // Act
    const result = (await drain({}, thirtySeconds)) as BufferDrainResult;

    // Assess
    expect(result).toEqual({ received: 2, applied: 1 });
    expect(queue.deleted).toEqual(['rh-0']);
    expect([...queue.inFlight.keys()]).toEqual(['rh-1']);
    expect(delays).toEqual([{ receiptHandle: 'rh-1', seconds: 5 }]);
  });

  it('stops draining while the store is still down: nothing deleted, every received record backed off', async () => {
    // Prepare
    const { services, store, records, metrics } = await bufferedWorld(12);
    store.failure = 'error';
    const { queue, delays, drain } = drainOf(services, records);

    // Act
    const result = (await drain({}, thirtySeconds)) as BufferDrainResult;

    // Assess: the lanes stop at their first batch; the rest stays in the queue for the next minute.
    expect(result.applied).toBe(0);
    expect(queue.deleted).toEqual([]);
    expect(delays).toHaveLength(result.received);
    expect(metrics.total('BufferedCallbacksFailed')).toBe(result.received);
    expect(queue.requests.filter((r) => r === 'ReceiveMessage').length).toBeLessThanOrEqual(5);
  });

  it('fails the invocation when the seal key cannot be read, deleting nothing (the messages come back)', async () => {
    // Prepare
    const { services, records } = await bufferedWorld(1);
    const { queue, drain } = drainOf(services, records, {
      sealKey: async () => {
        throw new Error('AccessDeniedException');
      },
    });

    // Act / Assess
    await expect(drain({}, thirtySeconds)).rejects.toThrow('AccessDeniedException');
    expect(queue.deleted).toEqual([]);
  });
});
