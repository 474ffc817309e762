import { describe, expect, it } from 'vitest';
import { createBufferConsumer, type SqsEvent } from '../../../functions/buffer-consumer/handler';
import { MemoryStore } from '../../../shared/adapters/memory/memory-store';
import { SEAL_ATTRIBUTE, sealOf } from '../../../shared/app/buffer/ingress-buffer';
import type { ReceiptInput, ReceiptResult, WriteOptions } from '../../../shared/app/ports';
import type { RelayServices } from '../../../shared/app/services';
import { parseConfig } from '../../../shared/config/load';
import { createScrubber } from '../../../shared/util/redact';
import { bufferServices, bufferWhileStoreDown } from '../../helpers/buffer-world';
import { RecordingMetrics } from '../../helpers/ingress-buffer';
import { silentLogger } from '../../helpers/relay';

function services(metrics?: RecordingMetrics): RelayServices {
  return {
    config: parseConfig({ management: { bearerToken: 'management-token-0123456789' } }),
    store: new MemoryStore(),
    clock: { now: () => new Date('2026-11-21T10:00:01.000Z') },
    log: silentLogger,
    scrub: createScrubber([]),
    ...(metrics ? { metrics } : {}),
  };
}

describe('buffer-consumer handler', () => {
  it('answers an empty batch with no failures and flushes the metrics of the invocation', async () => {
    // Prepare
    const metrics = new RecordingMetrics();

    // Act
    const answer = await createBufferConsumer(services(metrics))({ Records: [] }, {} as never);

    // Assess
    expect(answer).toEqual({ batchItemFailures: [] });
    expect(metrics.flushes).toBe(1);
  });

  it('reports each record it cannot apply by its message id, and counts why', async () => {
    // Prepare
    const metrics = new RecordingMetrics();

    // Act
    const answer = await createBufferConsumer(services(metrics))(
      {
        Records: [
          { messageId: 'a', body: '{"version":1,"kind":"callback"}' },
          { messageId: 'b', body: 'garbage' },
        ],
      },
      {} as never,
    );

    // Assess
    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: 'a' }, { itemIdentifier: 'b' }] });
    expect(metrics.counts.map((c) => [c.name, c.dimensions])).toEqual([
      ['BufferedCallbacksFailed', { reason: 'unappliable' }],
      ['BufferedCallbacksFailed', { reason: 'unappliable' }],
    ]);
    expect(metrics.flushes).toBe(1);
  });

  it('works without metrics wired', async () => {
    // Act
    const answer = await createBufferConsumer(services())(
      { Records: [{ messageId: 'a', body: '{}' }] },
      {} as never,
    );

    // Assess
    expect(answer.batchItemFailures).toEqual([{ itemIdentifier: 'a' }]);
  });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A DynamoDB that answers, slowly (`delayMs` per receipt write), or never (`stalled`), whatever the signal says. */
class SlowStore extends MemoryStore {
  delayMs = 0;
  stalled = false;
  receiptWrites = 0;
  override async recordReceipt(input: ReceiptInput, _options?: WriteOptions): Promise<ReceiptResult> {
    this.receiptWrites++;
    if (this.stalled) await new Promise(() => {});
    await sleep(this.delayMs);
    return super.recordReceipt(input, {});
  }
}

/** Three buffered MoMo callbacks for one registered transaction, and a consumer on a slow store. */
async function slowWorld() {
  const world = bufferServices({ store: new SlowStore() });
  await bufferWhileStoreDown(world, ['100', '101', '102']);
  world.store.failure = 'none';
  world.store.receiptWrites = 0;
  const event: SqsEvent = world.buffer.asSqsEvent();
  expect(event.Records).toHaveLength(3);
  return { ...world, event };
}

/** The Lambda context with `ms` left of the function's timeout. */
const remaining = (ms: number) => ({ getRemainingTimeInMillis: () => ms }) as never;

const failedReasons = (metrics: RecordingMetrics) =>
  metrics.counts.filter((c) => c.name === 'BufferedCallbacksFailed').map((c) => c.dimensions?.reason);

describe('buffer-consumer handler against the function timeout', () => {
  it('starts no record when less than the minimum is left before its deadline, and reports each as deadline', async () => {
    // Prepare
    const { store, metrics, services, event } = await slowWorld();
    const consumer = createBufferConsumer(services, { safetyMarginMs: 5_000, minStartMs: 1_000 });

    // Act
    const answer = await consumer(event, remaining(5_500));

    // Assess
    expect(answer.batchItemFailures).toEqual([
      { itemIdentifier: 'm-1' },
      { itemIdentifier: 'm-2' },
      { itemIdentifier: 'm-3' },
    ]);
    expect(store.receiptWrites).toBe(0);
    expect(failedReasons(metrics)).toEqual(['deadline', 'deadline', 'deadline']);
    expect(metrics.flushes).toBe(1);
  });

  it('keeps the records it applied before the deadline and reports the rest back without starting them', async () => {
    // Prepare
    const { store, metrics, services, event } = await slowWorld();
    store.delayMs = 300;
    const consumer = createBufferConsumer(services, { safetyMarginMs: 5_000, minStartMs: 400 });

    // Act
    const answer = await consumer(event, remaining(5_600));

    // Assess
    expect(answer.batchItemFailures).toEqual([{ itemIdentifier: 'm-2' }, { itemIdentifier: 'm-3' }]);
    expect(store.receiptWrites).toBe(1);
    expect(metrics.total('BufferedCallbacksApplied')).toBe(1);
    expect(failedReasons(metrics)).toEqual(['deadline', 'deadline']);
  });

  it('cuts a store call that stalls past the deadline and reports that record and the rest back in time', async () => {
    // Prepare
    const { store, metrics, services, event } = await slowWorld();
    store.stalled = true;
    const consumer = createBufferConsumer(services, { safetyMarginMs: 5_000, minStartMs: 100 });

    // Act
    const answer = await consumer(event, remaining(5_300));

    // Assess: the stalled call was cut by the deadline (without it the answer would never come).
    expect(answer.batchItemFailures).toEqual([
      { itemIdentifier: 'm-1' },
      { itemIdentifier: 'm-2' },
      { itemIdentifier: 'm-3' },
    ]);
    expect(store.receiptWrites).toBe(1);
    expect(failedReasons(metrics)).toEqual(['deadline', 'deadline', 'deadline']);
  });

  it('passes the deadline to the store calls as an AbortSignal', async () => {
    // Prepare
    const { store, services, event } = await slowWorld();
    const signals: (AbortSignal | undefined)[] = [];
    const getTransaction = store.getTransaction.bind(store);
    store.getTransaction = (key, options) => (signals.push(options?.signal), getTransaction(key, options));
    const consumer = createBufferConsumer(services);

    // Act
    await consumer({ Records: event.Records.slice(0, 1) }, remaining(30_000));

    // Assess
    expect(signals.length).toBeGreaterThan(0);
    expect(signals.every((signal) => signal instanceof AbortSignal && !signal.aborted)).toBe(true);
  });
});

describe('buffer-consumer handler with sealed messages', () => {
  const key = Buffer.from('seal-key-0123456789abcdef0123456789abcdef');

  it('applies a message sealed by the callback function', async () => {
    // Prepare
    const { store, services, event } = await slowWorld();
    const sealed = {
      Records: event.Records.slice(0, 1).map((r) => ({
        ...r,
        messageAttributes: { [SEAL_ATTRIBUTE]: { stringValue: sealOf(r.body, key) } },
      })),
    };

    // Act
    const answer = await createBufferConsumer(services, { sealKey: key })(sealed, remaining(30_000));

    // Assess
    expect(answer.batchItemFailures).toEqual([]);
    expect(store.receiptWrites).toBe(1);
  });

  it('refuses a message made up or altered outside the callback function, without applying it', async () => {
    // Prepare: one unsealed, one sealed then edited to claim it was authenticated.
    const { store, metrics, services, event } = await slowWorld();
    const [first, second] = event.Records;
    const forged = {
      Records: [
        { ...first!, messageAttributes: {} },
        {
          ...second!,
          body: second!.body.replace('"authenticated":false', '"authenticated":true'),
          messageAttributes: { [SEAL_ATTRIBUTE]: { stringValue: sealOf(second!.body, key) } },
        },
      ],
    };

    // Act
    const answer = await createBufferConsumer(services, { sealKey: key })(forged, remaining(30_000));

    // Assess
    expect(answer.batchItemFailures.map((f) => f.itemIdentifier)).toEqual([
      first!.messageId,
      second!.messageId,
    ]);
    expect(store.receiptWrites).toBe(0);
    expect(failedReasons(metrics)).toEqual(['unsealed', 'unsealed']);
  });
});
