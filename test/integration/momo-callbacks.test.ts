import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../shared/config/load';
import type { RelayServices } from '../../shared/app/services';
import { registerTransaction } from '../../shared/app/transactions/register-transaction';
import { systemClock } from '../../shared/app/ports';
import { receiveCallback } from '../../shared/http/callback-endpoint';
import type { InboundRequest } from '../../shared/http/types';
import { createIntegrationRelay } from '../helpers/integration';
import { allReceipts } from '../helpers/receipts';

const config = parseConfig({
  management: { bearerToken: 'integration-token' },
  // Callback mechanics; the status confirmation of successes is tested in test/unit/app/reconcile.test.ts and e2e.
  accounts: { momo: { demo: { currency: 'EUR', confirmSuccess: false } } },
  // Dedupe and races, not the ack deadline: a busy machine's DynamoDB Local must not cut the writes.
  ackBudgets: { momo: { storeMs: 20_000, ackMs: 25_000 } },
});
const fixture = (name: string) => readFileSync(join(import.meta.dirname, '../fixtures/momo', name));

let relay: Awaited<ReturnType<typeof createIntegrationRelay>>;
let table: Awaited<ReturnType<typeof createIntegrationRelay>>['table'];
let services: RelayServices;

beforeAll(async () => {
  relay = await createIntegrationRelay(config);
  ({ table, services } = relay);
});
afterAll(async () => {
  await relay.stop();
});

let counter = 0;
function reference(): string {
  counter += 1;
  return `6f1c2a9e-4b7d-4e2a-9c3b-${String(counter).padStart(12, '0')}`;
}

function callback(ref: string, body: Buffer | string, method = 'PUT'): InboundRequest {
  return {
    requestId: 'test',
    method,
    path: `/v1/momo/demo/requesttopay/${ref}`,
    headers: { 'content-type': 'application/json' },
    query: {},
    rawBody: Buffer.isBuffer(body) ? body : Buffer.from(body),
    sourceIp: '10.0.0.1',
    receivedAt: new Date(),
  };
}

async function register(ref: string, amount = '100') {
  await registerTransaction(
    { config, store: table.store, clock: systemClock },
    {
      provider: 'momo',
      account: 'demo',
      kind: 'requesttopay',
      reference: ref,
      amount,
      currency: 'EUR',
    },
  );
}

async function publishedFor(ref: string) {
  return (await relay.publish())
    .filter((e) => (e.data as { reference?: string }).reference === ref)
    .map((e) => e.metadata.type);
}

describe('MoMo callbacks against DynamoDB Local', () => {
  it('applies an identical callback once and answers the repeat with 200', async () => {
    const ref = reference();
    await register(ref);
    const first = await receiveCallback(services, callback(ref, fixture('requesttopay-successful.json')));
    const again = await receiveCallback(
      services,
      callback(ref, fixture('requesttopay-successful.json'), 'POST'),
    );
    expect(first.statusCode).toBe(200);
    expect(again).toMatchObject({ statusCode: 200, body: { duplicate: true } });
    expect(await publishedFor(ref)).toEqual(['TransactionSucceeded']);
    expect(
      (await allReceipts(table.store, { provider: 'momo', account: 'demo', reference: ref }))[0]?.deliveries,
    ).toBe(2);
  });

  it('turns 20 concurrent identical callbacks into exactly one final event', async () => {
    const ref = reference();
    await register(ref);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        receiveCallback(services, callback(ref, fixture('requesttopay-successful.json'))),
      ),
    );
    expect(
      answers.filter((a) => a.statusCode !== 200),
      JSON.stringify(answers.filter((a) => a.statusCode !== 200)),
    ).toEqual([]);
    expect(await publishedFor(ref)).toEqual(['TransactionSucceeded']);
    const tx = await table.store.getTransaction({ provider: 'momo', account: 'demo', reference: ref });
    expect(tx?.status).toBe('SUCCEEDED');
    expect(tx?.transitions).toHaveLength(1);
  });

  it('settles 10 SUCCESSFUL and 10 FAILED callbacks racing each other on one final status and one final event', async () => {
    const ref = reference();
    await register(ref);
    const bodies = Array.from({ length: 20 }, (_, i) =>
      i % 2 === 0
        ? fixture('requesttopay-successful.json')
        : fixture('requesttopay-failed-string-reason.json'),
    );
    await Promise.all(bodies.map((b) => receiveCallback(services, callback(ref, b))));
    const types = await publishedFor(ref);
    const finals = types.filter((t) => t === 'TransactionSucceeded' || t === 'TransactionFailed');
    expect(finals).toHaveLength(1);
    expect(types.filter((t) => t === 'TransactionConflict')).toHaveLength(1);
  });

  it('ignores a PENDING callback that arrives after SUCCESSFUL', async () => {
    const ref = reference();
    await register(ref);
    await receiveCallback(services, callback(ref, fixture('requesttopay-successful.json')));
    const stale = await receiveCallback(
      services,
      callback(ref, JSON.stringify({ status: 'PENDING', amount: '100', currency: 'EUR' })),
    );
    expect(stale.statusCode).toBe(200);
    expect(
      (await table.store.getTransaction({ provider: 'momo', account: 'demo', reference: ref }))?.status,
    ).toBe('SUCCEEDED');
    expect(await publishedFor(ref)).toEqual(['TransactionSucceeded']);
  });

  it('keeps SUCCEEDED and emits TransactionConflict when a FAILED callback follows', async () => {
    const ref = reference();
    await register(ref);
    await receiveCallback(services, callback(ref, fixture('requesttopay-successful.json')));
    await receiveCallback(services, callback(ref, fixture('requesttopay-failed-object-reason.json')));
    const tx = await table.store.getTransaction({ provider: 'momo', account: 'demo', reference: ref });
    expect(tx?.status).toBe('SUCCEEDED');
    expect(tx?.conflicts).toMatchObject([{ kind: 'STATUS', reportedStatus: 'FAILED' }]);
    expect(await publishedFor(ref)).toEqual(['TransactionSucceeded', 'TransactionConflict']);
  });

  it('stores and applies a callback for an unregistered reference as an orphan', async () => {
    const ref = reference();
    const answer = await receiveCallback(services, callback(ref, fixture('requesttopay-successful.json')));
    expect(answer.statusCode).toBe(200);
    expect(await publishedFor(ref)).toEqual(['CallbackOrphaned', 'TransactionSucceeded']);
    // A registration arriving after its callback adopts the orphan instead of failing.
    await register(ref);
    const tx = await table.store.getTransaction({ provider: 'momo', account: 'demo', reference: ref });
    expect(tx).toMatchObject({ registered: true, status: 'SUCCEEDED' });
  });
});
