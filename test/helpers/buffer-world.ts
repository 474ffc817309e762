import { readFileSync } from 'node:fs';
import { MemoryStore } from '../../shared/adapters/memory/memory-store';
import type { IngressBuffer, RelayLogger } from '../../shared/app/ports';
import type { RelayServices } from '../../shared/app/services';
import { parseConfig } from '../../shared/config/load';
import type { RelayConfig } from '../../shared/config/schema';
import { receiveCallback } from '../../shared/http/callback-endpoint';
import type { InboundRequest } from '../../shared/http/types';
import { createScrubber } from '../../shared/util/redact';
import { MemoryIngressBuffer, RecordingMetrics } from './ingress-buffer';
import { silentLogger } from './relay';
import { KEY, registered } from './reports';

/** MTN's documented successful requesttopay callback (amount "100"), for the transaction of reports.ts KEY. */
export const MOMO_BODY = readFileSync(
  new URL('../fixtures/momo/requesttopay-successful.json', import.meta.url),
  'utf8',
);

/** The config of the ingress buffer's tests: the MoMo account `demo` of reports.ts KEY, without path secret. */
export const momoDemoConfig = (extra: Record<string, unknown> = {}): RelayConfig =>
  parseConfig({
    management: { bearerToken: 'management-token-0123456789' },
    accounts: {
      momo: { demo: { currency: 'EUR', confirmSuccess: false, allowNoPathSecret: 'buffer unit tests' } },
    },
    ...extra,
  });

/**
 * The relay's services around a store and an ingress buffer (memory ones unless given): the clock fixed a
 * second after momoCallback's receipt, nothing logged, the metrics recorded.
 */
export function bufferServices<
  S extends MemoryStore = MemoryStore,
  B extends IngressBuffer = MemoryIngressBuffer,
>(parts: { store?: S; buffer?: B; config?: RelayConfig; log?: RelayLogger } = {}) {
  const store = parts.store ?? (new MemoryStore() as S);
  const buffer = parts.buffer ?? (new MemoryIngressBuffer() as unknown as B);
  const metrics = new RecordingMetrics();
  const services: RelayServices = {
    config: parts.config ?? momoDemoConfig(),
    store,
    clock: { now: () => new Date('2026-11-21T10:00:01.000Z') },
    log: parts.log ?? silentLogger,
    scrub: createScrubber([]),
    ingressBuffer: buffer,
    metrics,
  };
  return { store, buffer, metrics, services };
}

/** MTN's callback about the transaction of reports.ts KEY, as the callback function receives it. */
export function momoCallback(
  options: { body?: string; amount?: string; requestId?: string; sourceIp?: string } = {},
): InboundRequest {
  const body = options.body ?? MOMO_BODY;
  return {
    requestId: options.requestId ?? 'req-1',
    method: 'PUT',
    path: `/v1/momo/demo/requesttopay/${KEY.reference}`,
    headers: { 'content-type': 'application/json' },
    query: {},
    rawBody: Buffer.from(options.amount ? body.replace('"100"', `"${options.amount}"`) : body),
    sourceIp: options.sourceIp ?? '127.0.0.1',
    receivedAt: new Date('2026-11-21T10:00:00.000Z'),
  };
}

/**
 * Registers the transaction, then receives one MoMo callback per amount while the store is down, so each
 * goes to the buffer. The store is left down (`failure: 'error'`): the caller says when it comes back.
 */
export async function bufferWhileStoreDown(
  world: { store: MemoryStore; services: RelayServices },
  amounts: readonly string[],
): Promise<void> {
  await world.store.createTransaction(registered());
  world.store.failure = 'error';
  for (const amount of amounts)
    await receiveCallback(world.services, momoCallback({ amount, requestId: `req-${amount}` }));
}
