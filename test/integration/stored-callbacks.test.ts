import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRelay, startLocalRelay } from '../../local/relay';
import type { RelayLogger } from '../../shared/app/ports';
import { systemClock } from '../../shared/app/ports';
import { receiveCallback } from '../../shared/http/callback-endpoint';
import { storeReceipt } from '../../shared/app/callbacks/receipts';
import { registerTransaction } from '../../shared/app/transactions/register-transaction';
import type { RelayServices } from '../../shared/app/services';
import { parseConfig } from '../../shared/config/load';
import { createScrubber } from '../../shared/util/redact';
import { createTestTable } from '../helpers/dynamo';
import { CollectingSink, silentLogger } from '../helpers/relay';
import { allReceipts } from '../helpers/receipts';

const config = parseConfig({
  management: { bearerToken: 'integration-token' },
  accounts: { momo: { demo: { currency: 'EUR', confirmSuccess: false } } },
});
const BODY = readFileSync(join(import.meta.dirname, '../fixtures/momo/requesttopay-successful.json'));
const CRASHED = '5e1c2a9e-4b7d-4e2a-9c3b-000000000001';
const APPLIED = '5e1c2a9e-4b7d-4e2a-9c3b-000000000002';

let table: Awaited<ReturnType<typeof createTestTable>>;
let services: RelayServices;

beforeAll(async () => {
  table = await createTestTable();
  services = {
    config,
    store: table.store,
    clock: systemClock,
    log: silentLogger,
    scrub: createScrubber([]),
  };
});
afterAll(async () => {
  await table.drop();
});

/** npm start's relay on the test table, with the warnings of its start collected. */
async function start(sink: CollectingSink) {
  const warnings: string[] = [];
  const log: RelayLogger = { ...silentLogger, warn: (message) => void warnings.push(message) };
  const relay: LocalRelay = await startLocalRelay({
    config,
    poller: false,
    dynamoEndpoint: table.endpoint,
    tableName: table.tableName,
    port: 0,
    log,
    sink,
    streamPollMs: 60_000,
  });
  return { relay, warnings };
}

async function published(relay: LocalRelay, sink: CollectingSink) {
  await relay.pump.poll();
  await relay.pump.poll();
  return sink.events;
}

describe('a callback stored but not applied when the process died', () => {
  it('is applied at start, once, through the one ingest: one TransactionSucceeded; an applied one is left alone', async () => {
    // Prepare: two registered payments. One callback went all the way; the other's process died after
    // its receipt was written (the receipt as the callback path writes it, and nothing else).
    for (const reference of [CRASHED, APPLIED])
      await registerTransaction(services, {
        provider: 'momo',
        account: 'demo',
        kind: 'requesttopay',
        reference,
        amount: '100',
        currency: 'EUR',
      });
    const answered = await receiveCallback(services, {
      requestId: 'req-applied',
      method: 'PUT',
      path: `/v1/momo/demo/requesttopay/${APPLIED}`,
      headers: { 'content-type': 'application/json' },
      query: {},
      rawBody: BODY,
      sourceIp: '198.51.100.7',
      receivedAt: new Date(),
    });
    expect(answered.statusCode).toBe(200);
    const crashedKey = { provider: 'momo', account: 'demo', reference: CRASHED };
    const receipt = await storeReceipt(table.store, crashedKey, {
      routeName: 'callback',
      method: 'PUT',
      path: `/v1/momo/demo/requesttopay/${CRASHED}`,
      headers: { 'content-type': 'application/json' },
      sourceIp: '198.51.100.7',
      body: BODY.toString('utf8'),
      rawBody: BODY,
      receivedAt: new Date().toISOString(),
      verification: { pathSecret: 'not-configured' },
    });
    expect((await table.store.getTransaction(crashedKey))?.status).toBe('PENDING');

    // Act: npm start
    const sink = new CollectingSink();
    const first = await start(sink);
    let events;
    try {
      events = await published(first.relay, sink);
    } finally {
      await first.relay.stop();
    }

    // Assess: applied from its receipt (origin callback, the same receipt), one success event for it;
    // the callback that had been applied keeps its one event (published by this first pump).
    const tx = await table.store.getTransaction(crashedKey, { consistent: true });
    expect(tx?.status).toBe('SUCCEEDED');
    expect(tx?.transitions.at(-1)).toMatchObject({ origin: 'callback', receiptId: receipt.receiptId });
    const succeeded = events.filter((e) => e.metadata.type === 'TransactionSucceeded');
    expect(succeeded.map((e) => e.data.reference).sort()).toEqual([CRASHED, APPLIED].sort());
    expect(first.warnings.filter((w) => w.startsWith('stored callback applied at start'))).toHaveLength(1);
    expect(await allReceipts(table.store, crashedKey)).toHaveLength(1);

    // Act again: a second start applies nothing and publishes nothing.
    const again = new CollectingSink();
    const second = await start(again);
    try {
      expect(await published(second.relay, again)).toEqual([]);
    } finally {
      await second.relay.stop();
    }
    expect(second.warnings.filter((w) => w.startsWith('stored callback applied at start'))).toHaveLength(0);
  });
});
