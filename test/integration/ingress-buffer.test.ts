import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBufferConsumer } from '../../functions/buffer-consumer/handler';
import { createDynamoClients } from '../../shared/adapters/dynamodb/client';
import { DynamoRelayStore } from '../../shared/adapters/dynamodb/relay-store';
import type { RelayStore } from '../../shared/app/ports';
import { BUFFERED_HEADER, receiveCallback } from '../../shared/http/callback-endpoint';
import { registerTransaction } from '../../shared/app/transactions/register-transaction';
import type { RelayServices } from '../../shared/app/services';
import { parseConfig } from '../../shared/config/load';
import type { InboundRequest } from '../../shared/http/types';
import { TEST_RETENTION } from '../helpers/dynamo';
import { MemoryIngressBuffer, RecordingMetrics } from '../helpers/ingress-buffer';
import { createIntegrationRelay } from '../helpers/integration';
import { allReceipts } from '../helpers/receipts';

const config = parseConfig({
  management: { bearerToken: 'integration-token' },
  accounts: { momo: { demo: { currency: 'EUR', confirmSuccess: false } } },
});
const BODY = readFileSync(join(import.meta.dirname, '../fixtures/momo/requesttopay-successful.json'));

let relay: Awaited<ReturnType<typeof createIntegrationRelay>>;
let down: ReturnType<typeof createDynamoClients>;
/** The same table behind an endpoint nothing listens on: every call fails like an outage. */
let unreachable: RelayStore;

beforeAll(async () => {
  relay = await createIntegrationRelay(config);
  down = createDynamoClients({ endpoint: 'http://127.0.0.1:9', maxAttempts: 1, connectionTimeoutMs: 200 });
  unreachable = new DynamoRelayStore(down.doc, {
    tableName: relay.table.tableName,
    retention: TEST_RETENTION,
  });
});
afterAll(async () => {
  down.client.destroy();
  await relay.stop();
});

let counter = 0;
const reference = () => `9a8b7c6d-4b7d-4e2a-9c3b-${String(++counter).padStart(12, '0')}`;

function callback(ref: string): InboundRequest {
  return {
    requestId: `req-${ref}`,
    method: 'PUT',
    path: `/v1/momo/demo/requesttopay/${ref}`,
    headers: { 'content-type': 'application/json' },
    query: {},
    rawBody: BODY,
    sourceIp: '198.51.100.7',
    receivedAt: new Date(),
  };
}

async function register(ref: string) {
  await registerTransaction(relay.services, {
    provider: 'momo',
    account: 'demo',
    kind: 'requesttopay',
    reference: ref,
    amount: '100',
    currency: 'EUR',
  });
}

function withBuffer(store: RelayStore) {
  const buffer = new MemoryIngressBuffer();
  const services: RelayServices = {
    ...relay.services,
    store,
    ingressBuffer: buffer,
    metrics: new RecordingMetrics(),
  };
  return { buffer, services };
}

const finalsOf = (events: Awaited<ReturnType<typeof relay.publish>>, ref: string) =>
  events.filter(
    (e) => (e.data as { reference?: string }).reference === ref && e.metadata.type === 'TransactionSucceeded',
  );

describe('the ingress buffer on DynamoDB Local', () => {
  it('acks while DynamoDB is unreachable, then the consumer publishes one TransactionSucceeded with origin buffer', async () => {
    // Prepare
    const ref = reference();
    await register(ref);
    const { buffer, services } = withBuffer(unreachable);

    // Act
    const ack = await receiveCallback(services, callback(ref));
    const answer = await createBufferConsumer(relay.services)(buffer.asSqsEvent(), {} as never);
    const events = await relay.publish();

    // Assess
    expect(ack.statusCode).toBe(200);
    expect(ack.headers?.[BUFFERED_HEADER]).toBe('true');
    expect(answer.batchItemFailures).toEqual([]);
    expect(finalsOf(events, ref).map((e) => e.metadata.origin)).toEqual(['buffer']);
    const receipts = await allReceipts(relay.table.store, {
      provider: 'momo',
      account: 'demo',
      reference: ref,
    });
    expect(receipts).toHaveLength(1);
  });

  it('dedupes a buffered copy against the direct write that did land: one receipt, one event', async () => {
    // Prepare: the same delivery once buffered (its copy), once written directly.
    const ref = reference();
    await register(ref);
    const { buffer, services } = withBuffer(unreachable);
    await receiveCallback(services, callback(ref));
    const direct = await receiveCallback({ ...relay.services }, callback(ref));

    // Act
    const answer = await createBufferConsumer(relay.services)(buffer.asSqsEvent(), {} as never);
    const events = await relay.publish();

    // Assess
    expect(direct.statusCode).toBe(200);
    expect(answer.batchItemFailures).toEqual([]);
    expect(finalsOf(events, ref).map((e) => e.metadata.origin)).toEqual(['callback']);
    const receipts = await allReceipts(relay.table.store, {
      provider: 'momo',
      account: 'demo',
      reference: ref,
    });
    expect(receipts.map((r) => r.deliveries)).toEqual([2]);
  });

  it('reports the record back while DynamoDB is still unreachable', async () => {
    // Prepare
    const ref = reference();
    const { buffer, services } = withBuffer(unreachable);
    await receiveCallback(services, callback(ref));

    // Act
    const answer = await createBufferConsumer({ ...relay.services, store: unreachable })(
      buffer.asSqsEvent(),
      {} as never,
    );

    // Assess
    expect(answer.batchItemFailures).toEqual([{ itemIdentifier: 'm-1' }]);
  });
});
