import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../shared/adapters/memory/memory-store';
import { CallbackTracker, trackingCallbacks } from '../../../shared/app/callbacks/callback-health';
import { HINT_NAMESPACE } from '../../../shared/app/transactions/ingest-report';
import { BUFFERED_HEADER, receiveCallback } from '../../../shared/http/callback-endpoint';
import { parseConfig } from '../../../shared/config/load';
import type { InboundRequest } from '../../../shared/http/types';
import { callbackWorld, fixture, MOMO_SECRET, REFERENCE } from '../../helpers/callback-world';
import { aborted } from '../../helpers/driven-timers';
import { MemoryIngressBuffer } from '../../helpers/ingress-buffer';
import { registered } from '../../helpers/reports';

/**
 * Every store call a callback makes before its ack carries the ack budget's signal: a call that stalls is
 * cut with the budget and abandoned (the SDK aborts its request), not left running after the ack.
 */

const config = parseConfig({
  management: { bearerToken: 'management-token-0123456789' },
  ackBudgets: { momo: { storeMs: 150, ackMs: 600 } },
  accounts: { momo: { demo: { pathSecret: MOMO_SECRET, currency: 'EUR', confirmSuccess: false } } },
});

const silent = { debug() {}, info() {}, warn() {}, error() {} };

function momoCallback(path: string, body = fixture('momo/requesttopay-successful.json')): InboundRequest {
  return {
    requestId: 'req-1',
    method: 'PUT',
    path,
    headers: { 'content-type': 'application/json' },
    query: {},
    rawBody: Buffer.from(body, 'utf8'),
    sourceIp: '198.51.100.7',
    receivedAt: new Date('2026-11-21T10:00:00.000Z'),
  };
}

/** A store whose provider-record writes (putRecord) of one namespace hang until their signal aborts. */
function stallingPutRecord(namespace: string) {
  const store = new MemoryStore();
  const signals: (AbortSignal | undefined)[] = [];
  const putRecord = store.putRecord.bind(store);
  store.putRecord = (record, options) => {
    if (record.namespace !== namespace) return putRecord(record, options);
    signals.push(options?.signal);
    return new Promise((_, reject) =>
      options?.signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true }),
    );
  };
  return { store, signals };
}

function relayWith(store: MemoryStore) {
  const buffer = new MemoryIngressBuffer();
  const tracked = trackingCallbacks(store, new CallbackTracker(store, config, silent));
  const { services } = callbackWorld({ config, store, services: { store: tracked, ingressBuffer: buffer } });
  return { services, buffer };
}

describe('the store calls of the ack path', () => {
  it('abandons a stalled callback-health write at the ack budget: the callback is buffered and acked', async () => {
    // Prepare: the receipt is written, the account's last-callback note stalls.
    const { store, signals } = stallingPutRecord('callback-health');
    await store.createTransaction(registered());
    const { services, buffer } = relayWith(store);

    // Act
    const response = await receiveCallback(
      services,
      momoCallback(`/v1/momo/demo/${MOMO_SECRET}/requesttopay/${REFERENCE}`),
    );

    // Assess: acked (held by the buffer), and the stalled write was given the budget's signal, now aborted.
    expect(response.statusCode).toBe(200);
    expect(response.headers?.[BUFFERED_HEADER]).toBe('true');
    expect(buffer.messages).toHaveLength(1);
    expect(signals).toHaveLength(1);
    await aborted(signals[0]);
  });

  it('abandons a stalled write of an unmatched hint (the reference-less MoMo route) at the ack budget', async () => {
    // Prepare: nothing registered with this externalId: the callback is kept as a hint, whose write stalls.
    const { store, signals } = stallingPutRecord(HINT_NAMESPACE);
    const { services, buffer } = relayWith(store);

    // Act
    const response = await receiveCallback(
      services,
      momoCallback(`/v1/momo/demo/${MOMO_SECRET}/requesttopay`),
    );

    // Assess
    expect(response.statusCode).toBe(200);
    expect(response.headers?.[BUFFERED_HEADER]).toBe('true');
    expect(buffer.messages).toHaveLength(1);
    expect(signals).toHaveLength(1);
    await aborted(signals[0]);
  });
});
