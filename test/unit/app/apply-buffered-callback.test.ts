import { describe, expect, it, vi } from 'vitest';
import { createBufferConsumer } from '../../../functions/buffer-consumer/handler';
import { MemoryStore } from '../../../shared/adapters/memory/memory-store';
import { applyBufferedCallback } from '../../../shared/app/buffer/apply-buffered-callback';
import { receiptDedupeKey } from '../../../shared/app/callbacks/receipts';
import { UnappliableBufferedCallbackError } from '../../../shared/app/buffer/ingress-buffer';
import type { ReceiptInput, WriteOptions } from '../../../shared/app/ports';
import { BUFFERED_HEADER, receiveCallback } from '../../../shared/http/callback-endpoint';
import { storeReceipt } from '../../../shared/app/callbacks/receipts';
import { parseConfig } from '../../../shared/config/load';
import { StorageUnavailableError } from '../../../shared/domain/errors';
import type { InboundRequest } from '../../../shared/http/types';
import { bufferServices, MOMO_BODY, momoCallback } from '../../helpers/buffer-world';
import { KEY, registered } from '../../helpers/reports';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const rawConfig = {
  management: { bearerToken: 'management-token-0123456789' },
  ackBudgets: { momo: { storeMs: 100, ackMs: 500 } },
  accounts: {
    momo: {
      demo: { currency: 'EUR', confirmSuccess: false, allowNoPathSecret: 'unit tests, no secret needed' },
    },
  },
};

function setup(store = new MemoryStore(), config = parseConfig(rawConfig)) {
  const world = bufferServices({ store, config });
  return { ...world, consumer: createBufferConsumer(world.services) };
}

/** MTN's callback, from a documentation address. */
const callback = (body = MOMO_BODY): InboundRequest => momoCallback({ body, sourceIp: '198.51.100.7' });

const finals = (store: MemoryStore) =>
  store.published.filter((e) => ['TransactionSucceeded', 'TransactionFailed'].includes(e.metadata.type));

/** Writes that land after `delayMs` whatever the caller's signal says: a slow DynamoDB that did write. */
/** A store that ignores the ack budget's abort (a request already on its way lands): its calls run on. */
class SlowStore extends MemoryStore {
  delayMs = 0;
  override async getTransaction(key: Parameters<MemoryStore['getTransaction']>[0]) {
    return super.getTransaction(key, {});
  }
  override async recordReceipt(input: ReceiptInput, _options?: WriteOptions) {
    await sleep(this.delayMs);
    return super.recordReceipt(input, {});
  }
  override async replaceTransaction(tx: Parameters<MemoryStore['replaceTransaction']>[0], revision: number) {
    await sleep(this.delayMs);
    return super.replaceTransaction(tx, revision, {});
  }
}

describe('a callback through the ingress buffer', () => {
  it('is acked while the store is down and applied once it is back: one TransactionSucceeded, origin buffer', async () => {
    // Prepare
    const { store, buffer, services, consumer } = setup();
    await store.createTransaction(registered());
    store.failure = 'error';

    // Act
    const ack = await receiveCallback(services, callback());
    store.failure = 'none';
    const answer = await consumer(buffer.asSqsEvent(), {} as never);

    // Assess
    expect(ack.statusCode).toBe(200);
    expect(ack.body).toEqual({ received: true, duplicate: false });
    expect(answer).toEqual({ batchItemFailures: [] });
    const events = finals(store);
    expect(events.map((e) => [e.metadata.type, e.metadata.origin])).toEqual([
      ['TransactionSucceeded', 'buffer'],
    ]);
    expect((await store.getTransaction(KEY))!.status).toBe('SUCCEEDED');
    expect(store.receiptsOf(KEY)).toHaveLength(1);
    expect(store.receiptsOf(KEY)[0]!.verification).toMatchObject({
      buffered: { at: '2026-11-21T10:00:01.000Z' },
    });
  });

  it('holds an unsigned success for confirmation when the account requires it now, whatever the message says', async () => {
    // Prepare: buffered while confirmSuccess was off; the account turns it on before the message is applied.
    const { store, buffer, services } = setup();
    await store.createTransaction(registered());
    store.failure = 'error';
    await receiveCallback(services, callback());
    store.failure = 'none';
    const stricter = setup(
      store,
      parseConfig({
        ...rawConfig,
        accounts: { momo: { demo: { ...rawConfig.accounts.momo.demo, confirmSuccess: true } } },
      }),
    );

    // Act
    const answer = await stricter.consumer(buffer.asSqsEvent(), {} as never);

    // Assess
    expect(answer).toEqual({ batchItemFailures: [] });
    expect(finals(store)).toEqual([]);
    expect((await store.getTransaction(KEY))!.status).toBe('AMBIGUOUS');
  });

  it('publishes nothing more when the same buffered message is delivered twice', async () => {
    // Prepare
    const { store, buffer, services, consumer } = setup();
    await store.createTransaction(registered());
    store.failure = 'error';
    await receiveCallback(services, callback());
    store.failure = 'none';

    // Act
    await consumer(buffer.asSqsEvent(), {} as never);
    await consumer(buffer.asSqsEvent(), {} as never);

    // Assess
    expect(finals(store)).toHaveLength(1);
    expect(store.receiptsOf(KEY)[0]!.deliveries).toBe(2);
  });

  it('dedupes a slow direct write that landed after the budget with its buffered copy: one event', async () => {
    // Prepare
    const store = new SlowStore();
    await store.createTransaction(registered());
    store.delayMs = 250;
    const { buffer, services, consumer } = setup(store);

    // Act
    const ack = await receiveCallback(services, callback());
    // The direct write goes on after the ack and lands: its final event is the proof.
    await vi.waitFor(() => expect(finals(store)).toHaveLength(1), { timeout: 30_000 });
    store.delayMs = 0;
    const answer = await consumer(buffer.asSqsEvent(), {} as never);

    // Assess
    expect(ack.statusCode).toBe(200);
    expect(ack.headers?.[BUFFERED_HEADER]).toBe('true');
    expect(answer.batchItemFailures).toEqual([]);
    expect(finals(store).map((e) => e.metadata.origin)).toEqual(['callback']);
    expect(store.receiptsOf(KEY)).toHaveLength(1);
    expect(store.receiptsOf(KEY)[0]!.deliveries).toBe(2);
  });

  it('gives a buffered copy the dedupe key the original bytes give', async () => {
    // Prepare
    const store = new MemoryStore();
    const draft = {
      routeName: 'callback',
      method: 'PUT',
      path: '/p',
      headers: {},
      sourceIp: '198.51.100.7',
      body: MOMO_BODY,
      rawBody: Buffer.from(MOMO_BODY),
      receivedAt: '2026-11-21T10:00:00.000Z',
      verification: {},
    };

    // Act
    await storeReceipt(store, KEY, draft);
    const stored = store.receiptsOf(KEY)[0]!;

    // Assess
    const { createHash } = await import('node:crypto');
    const digest = createHash('sha256').update(MOMO_BODY).digest('hex');
    expect(receiptDedupeKey(KEY, 'callback', digest)).toBe(stored.dedupeKey);
  });

  it('retries while the store is still down: the record is reported back and the rest not tried', async () => {
    // Prepare
    const { store, buffer, services, consumer, metrics } = setup();
    store.failure = 'error';
    await receiveCallback(services, callback());
    await receiveCallback(services, callback(MOMO_BODY.replace('100', '101')));

    // Act
    const answer = await consumer(buffer.asSqsEvent(), {} as never);

    // Assess
    expect(answer.batchItemFailures).toEqual([{ itemIdentifier: 'm-1' }, { itemIdentifier: 'm-2' }]);
    expect(metrics.total('BufferedCallbacksFailed')).toBe(2);
    expect(metrics.total('BufferedCallbacksApplied')).toBe(0);
    expect(metrics.flushes).toBe(1);
  });

  it('throws StorageUnavailableError from the use case while the store is down', async () => {
    // Prepare
    const { store, buffer, services } = setup();
    store.failure = 'error';
    await receiveCallback(services, callback());

    // Act / Assess
    await expect(applyBufferedCallback(services, buffer.messages[0]!.body)).rejects.toBeInstanceOf(
      StorageUnavailableError,
    );
  });
});

describe('a buffered message that can never be applied', () => {
  async function buffered() {
    const { store, buffer, services } = setup();
    store.failure = 'error';
    await receiveCallback(services, callback());
    return JSON.parse(buffer.messages[0]!.body) as Record<string, unknown>;
  }

  it('is refused when its version is unknown', async () => {
    // Prepare
    const message = { ...(await buffered()), version: 2 };
    const { services } = setup();

    // Act / Assess
    await expect(applyBufferedCallback(services, JSON.stringify(message))).rejects.toThrow(
      UnappliableBufferedCallbackError,
    );
    await expect(applyBufferedCallback(services, 'not json')).rejects.toThrow(/not JSON/);
  });

  it('is refused when its account was removed from the config', async () => {
    // Prepare
    const message = await buffered();
    const { services } = setup(
      new MemoryStore(),
      parseConfig({ ...rawConfig, accounts: { momo: { other: rawConfig.accounts.momo.demo } } }),
    );

    // Act / Assess
    await expect(applyBufferedCallback(services, message)).rejects.toThrow(/no longer configured/);
  });

  it('is refused when the route parser no longer accepts its body', async () => {
    // Prepare
    const message = { ...(await buffered()), body: '{"status":42}' };
    const { services } = setup();

    // Act / Assess
    await expect(applyBufferedCallback(services, message)).rejects.toThrow(/parser refuses/);
  });

  it('is reported back by the consumer with BufferedCallbacksFailed, beside applied records', async () => {
    // Prepare
    const message = await buffered();
    const { store, consumer, metrics } = setup();
    await store.createTransaction(registered());

    // Act
    const answer = await consumer(
      {
        Records: [
          { messageId: 'bad', body: JSON.stringify({ ...message, version: 9 }) },
          { messageId: 'good', body: JSON.stringify(message) },
        ],
      },
      {} as never,
    );

    // Assess
    expect(answer.batchItemFailures).toEqual([{ itemIdentifier: 'bad' }]);
    expect(metrics.total('BufferedCallbacksFailed')).toBe(1);
    expect(metrics.total('BufferedCallbacksApplied')).toBe(1);
    expect(finals(store)).toHaveLength(1);
  });
});
