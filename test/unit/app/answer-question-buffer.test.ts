import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { createBufferConsumer } from '../../../functions/buffer-consumer/handler';
import { MemoryStore } from '../../../shared/adapters/memory/memory-store';
import { receiveCallback } from '../../../shared/http/callback-endpoint';
import { parseConfig } from '../../../shared/config/load';
import type { InboundRequest } from '../../../shared/http/types';
import { ANSWER_MARGIN_MS } from '../../../shared/app/callbacks/receive-callback';
import { driveTimers, useDrivenTimers, watched } from '../../helpers/driven-timers';
import { bufferServices } from '../../helpers/buffer-world';

const SAFARICOM_IP = '196.201.214.200';
const BODY = readFileSync(new URL('../../fixtures/daraja/c2b-validation.json', import.meta.url), 'utf8');
const DEADLINE_MS = 600;

function setup() {
  return bufferServices({
    config: parseConfig({
      management: { bearerToken: 'management-token-0123456789' },
      accounts: {
        daraja: {
          ke: {
            shortCode: '600638',
            allowNoPathSecret: 'unit tests of the buffer',
            c2b: { deadlineMs: DEADLINE_MS, defaultDecision: 'accept', knownAccounts: false },
            sourceIp: { allow: [`${SAFARICOM_IP}/32`] },
          },
        },
      },
    }),
  });
}

const validation = (): InboundRequest => ({
  requestId: 'req-c2b',
  method: 'POST',
  path: '/v1/daraja/ke/c2b/validation',
  headers: { 'content-type': 'application/json' },
  query: {},
  rawBody: Buffer.from(BODY),
  sourceIp: SAFARICOM_IP,
  receivedAt: new Date('2026-11-21T10:00:00.000Z'),
});

const decided = (store: MemoryStore) =>
  store.published.filter((e) => e.metadata.type === 'C2BValidationDecided');

useDrivenTimers();

describe('a C2B validation whose storage fails', () => {
  it('is answered as decided and its receipt and decision are buffered before the answer', async () => {
    // Prepare
    const { store, buffer, metrics, services } = setup();
    store.failure = 'error';

    // Act
    const response = await receiveCallback(services, validation());

    // Assess
    expect(response.body).toEqual({ ResultCode: '0', ResultDesc: 'Accepted' });
    expect(buffer.messages).toHaveLength(1);
    expect(JSON.parse(buffer.messages[0]!.body)).toMatchObject({
      version: 1,
      kind: 'decision',
      useCase: 'c2b-validation',
      requestId: 'req-c2b',
      reference: 'RKTQDM7W6S',
      outcome: { decision: 'accept', resultCode: '0', deadlineMs: DEADLINE_MS, msisdn: '25470****149' },
    });
    expect(metrics.total('CallbacksBuffered')).toBe(1);
  });

  it('is buffered and answered by its deadline when the store stalls', async () => {
    // Prepare
    const { store, buffer, services } = setup();
    store.failure = 'hang';
    driveTimers();

    // Act: the request's clock runs to the deadline less the answer's margin.
    const answered = watched(receiveCallback(services, validation()));
    await vi.advanceTimersByTimeAsync(DEADLINE_MS - ANSWER_MARGIN_MS);

    // Assess: answered then, the decision in the buffer.
    expect(answered.settled()).toBe(true);
    expect((await answered.promise).statusCode).toBe(200);
    expect(buffer.messages).toHaveLength(1);
    expect(buffer.signals[0]).toBeDefined();
  });

  it('records the decision and publishes C2BValidationDecided once when the buffer is applied, even twice', async () => {
    // Prepare
    const { store, buffer, services } = setup();
    store.failure = 'error';
    await receiveCallback(services, validation());
    store.failure = 'none';
    const consumer = createBufferConsumer(services);

    // Act
    const first = await consumer(buffer.asSqsEvent(), {} as never);
    const second = await consumer(buffer.asSqsEvent(), {} as never);

    // Assess
    expect(first.batchItemFailures).toEqual([]);
    expect(second.batchItemFailures).toEqual([]);
    expect(decided(store)).toHaveLength(1);
    expect(decided(store)[0]!.data).toMatchObject({
      decision: 'accept',
      transId: 'RKTQDM7W6S',
      deadlineMs: DEADLINE_MS,
    });
    const record = [...store.records.values()].find((r) => r.namespace === 'c2b-validation')!;
    expect(record.data).toMatchObject({ resultCode: '0', link: { ValidationDecision: 'accept' } });
    const receipts = store.receiptsOf({ provider: 'daraja', account: 'ke', reference: 'RKTQDM7W6S' });
    expect(receipts.map((r) => r.deliveries)).toEqual([2]);
  });

  it('publishes the C2BValidationDecided of a buffered validation with origin buffer, like every applied buffered message', async () => {
    // Prepare
    const { store, buffer, services } = setup();
    store.failure = 'error';
    await receiveCallback(services, validation());
    store.failure = 'none';

    // Act
    await createBufferConsumer(services)(buffer.asSqsEvent(), {} as never);

    // Assess
    expect(decided(store).map((e) => e.metadata.origin)).toEqual(['buffer']);
    expect(decided(store)[0]!.data).toMatchObject({ decidedAt: '2026-11-21T10:00:01.000Z' });
  });

  it('publishes the C2BValidationDecided of a validation stored in time with origin callback', async () => {
    // Prepare
    const { store, services } = setup();

    // Act
    await receiveCallback(services, validation());

    // Assess
    expect(decided(store).map((e) => e.metadata.origin)).toEqual(['callback']);
  });

  it('is still answered when the buffer fails too', async () => {
    // Prepare
    const { store, buffer, services } = setup();
    store.failure = 'error';
    buffer.failure = 'error';

    // Act
    const response = await receiveCallback(services, validation());

    // Assess
    expect(response.statusCode).toBe(200);
    expect(response.body).toEqual({ ResultCode: '0', ResultDesc: 'Accepted' });
  });

  it('applies a validation buffered in the earlier message shape (kind c2b-validation) during an upgrade', async () => {
    // Prepare
    const { store, buffer, services } = setup();
    store.failure = 'error';
    await receiveCallback(services, validation());
    store.failure = 'none';
    const current = JSON.parse(buffer.messages[0]!.body) as Record<string, unknown>;
    const { useCase: _useCase, ...earlier } = { ...current, kind: 'c2b-validation' } as Record<
      string,
      unknown
    >;
    buffer.messages[0]!.body = JSON.stringify(earlier);

    // Act
    const applied = await createBufferConsumer(services)(buffer.asSqsEvent(), {} as never);

    // Assess
    expect(applied.batchItemFailures).toEqual([]);
    expect(decided(store)).toHaveLength(1);
  });

  it('leaves a buffered decision whose facts its provider does not record for the dead-letter queue, instead of guessing', async () => {
    // Prepare
    const { store, buffer, services } = setup();
    store.failure = 'error';
    await receiveCallback(services, validation());
    store.failure = 'none';
    const message = JSON.parse(buffer.messages[0]!.body) as { outcome: Record<string, unknown> };
    delete message.outcome.rule;
    buffer.messages[0]!.body = JSON.stringify(message);

    // Act
    const applied = await createBufferConsumer(services)(buffer.asSqsEvent(), {} as never);

    // Assess
    expect(decided(store)).toHaveLength(0);
    expect(applied.batchItemFailures).toEqual([{ itemIdentifier: 'm-1' }]);
  });
});
