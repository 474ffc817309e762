import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type LocalRelay, startLocalRelay } from '../../local/relay';
import { createDynamoClients } from '../../shared/adapters/dynamodb/client';
import { DynamoDeliveryLog } from '../../shared/adapters/dynamodb/delivery-log';
import { parseConfig } from '../../shared/config/load';
import { postAirtelSuccess, registerAirtelPayment } from '../helpers/airtel-payment';
import { cuttableForwarder } from '../helpers/cuttable-forwarder';
import { dynamoEndpoint, testTableName } from '../helpers/dynamo';
import {
  ADMIN_HEADERS,
  ADMIN_TOKEN,
  CollectingSink,
  patientAckBudgets,
  silentLogger,
} from '../helpers/relay';

/**
 * npm start's relay stopped in-process while its background work is in flight (docs/configuration.md#stopping):
 * the webhook attempt at an endpoint, the poller, the buffer drainer and the stream pump. Its stop awaits
 * them, then closes DynamoDB: nothing the relay does reaches the table after its stop (the table is dropped
 * after the file), and no rejection goes unhandled.
 */

const KEY = 'e2e-stop-airtel-callback-key';
const SECRET = `whsec_${randomBytes(32).toString('base64')}`;

/** A webhook endpoint that holds every request until the test answers it. */
async function heldEndpoint() {
  const held: ServerResponse[] = [];
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => held.push(response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://localhost:${(server.address() as AddressInfo).port}/hooks`,
    held,
    answer: (status: number) => held.shift()?.writeHead(status).end(),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let unhandled: unknown[] = [];
const collect = (reason: unknown) => unhandled.push(reason);
let stateDir: string;
let forwarder: Awaited<ReturnType<typeof cuttableForwarder>>;
let endpoint: Awaited<ReturnType<typeof heldEndpoint>>;
let relay: LocalRelay | undefined;
let tableName: string;

beforeEach(async () => {
  unhandled = [];
  process.on('unhandledRejection', collect);
  stateDir = mkdtempSync(join(tmpdir(), 'relay-stop-'));
  forwarder = await cuttableForwarder(dynamoEndpoint());
  endpoint = await heldEndpoint();
  tableName = testTableName('relay-stop');
  relay = await startLocalRelay({
    config: parseConfig({
      management: { auth: 'bearer', bearerToken: ADMIN_TOKEN },
      local: { eventsFile: join(stateDir, 'events.ndjson') },
      ackBudgets: patientAckBudgets(),
      reconciliation: { pollIntervalSeconds: 1 },
      accounts: {
        airtel: { demo: { callbackKey: KEY, hashMode: 'enforce', country: 'UG', currency: 'UGX' } },
      },
      destinations: {
        partner: {
          url: endpoint.url,
          signingSecrets: [SECRET],
          allowPrivateAddresses: true,
          filter: { eventTypes: ['TransactionSucceeded'] },
          retryScheduleSeconds: [0, 1, 1],
        },
      },
    }),
    dynamoEndpoint: forwarder.endpoint,
    dynamoRequestTimeoutMs: 15_000,
    tableName,
    port: 0,
    log: silentLogger,
    sink: new CollectingSink(),
    streamPollMs: 100,
    ingressBufferDir: join(stateDir, 'ingress-buffer'),
    bufferDrainMs: 100,
  });
}, 60_000);

afterEach(async () => {
  await relay?.stop();
  await endpoint.close();
  await forwarder.cut();
  process.off('unhandledRejection', collect);
  rmSync(stateDir, { recursive: true, force: true });
});

/** What the relay answers through its HTTP server, as a test client. */
function client(url: string) {
  const request = async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
  };
  return {
    request,
    admin: (method: string, path: string, body?: unknown) => request(method, path, body, ADMIN_HEADERS),
  };
}

/** Resolves once the relay's port refuses connections: its server stopped taking requests. */
async function refusing(url: string): Promise<void> {
  await vi.waitFor(
    async () => {
      await expect(fetch(`${url}/health/live`)).rejects.toThrow();
    },
    { timeout: 30_000, interval: 20 },
  );
}

/** The delivery attempts logged for a transaction, read with a client of the test's own. */
async function attemptsOf(correlationId: string) {
  const { doc, client: raw } = createDynamoClients({ endpoint: dynamoEndpoint(), requestTimeoutMs: 15_000 });
  try {
    return await new DynamoDeliveryLog(doc, { tableName, retentionDays: 30 }).attempts({ correlationId });
  } finally {
    raw.destroy();
  }
}

describe('the local relay, stopped with work in flight', () => {
  it('waits for the webhook attempt at the endpoint, logs its outcome, then closes the store', async () => {
    // Prepare: a payment succeeds; its TransactionSucceeded is at the endpoint, which has not answered.
    const http = client(relay!.url);
    const reference = await registerAirtelPayment(http, 'STOP');
    expect((await postAirtelSuccess(http, KEY, reference)).status).toBe(200);
    await vi.waitFor(() => expect(endpoint.held).toHaveLength(1), { timeout: 30_000 });

    // Act: stop; once the relay takes no more requests, the endpoint answers 500 (a retry is due 1 s later).
    const stopped = relay!.stop();
    await refusing(relay!.url);
    endpoint.answer(500);
    await stopped;

    // Assess: the attempt's outcome was written before the stop ended; nothing reaches the store after it;
    // the retry is not made; nothing went unhandled.
    const attempts = await attemptsOf(`airtel:demo:${reference}`);
    expect(attempts.map((a) => a.outcome)).toEqual(['retrying']);
    await expect(
      relay!.store.putRecord({
        provider: 'airtel',
        account: 'demo',
        namespace: 'test',
        id: 'after-stop',
        data: {},
        createdAt: new Date().toISOString(),
      }),
    ).rejects.toThrow(/relay stopped/);
    expect(endpoint.held).toHaveLength(0);
    expect(unhandled).toEqual([]);
  });

  it('is one stop when asked twice, and a hurried one ends while the endpoint still holds the attempt', async () => {
    // Prepare
    const http = client(relay!.url);
    const reference = await registerAirtelPayment(http, 'TWICE');
    expect((await postAirtelSuccess(http, KEY, reference)).status).toBe(200);
    await vi.waitFor(() => expect(endpoint.held).toHaveLength(1), { timeout: 30_000 });

    // Act: stopped, then again with a hurry (a second Ctrl-C); the endpoint answers only after both ended.
    const hurry = new AbortController();
    const first = relay!.stop();
    const second = relay!.stop({ hurry: hurry.signal });
    hurry.abort();
    await Promise.all([first, second]);
    endpoint.answer(200);

    // Assess: the same stop; the late answer is not logged (the engine was closed); nothing unhandled.
    expect(second).toBe(first);
    expect((await attemptsOf(`airtel:demo:${reference}`)).map((a) => a.outcome)).toEqual([]);
    expect(unhandled).toEqual([]);
  });

  it('stops with DynamoDB Local already gone: the poller, drainer, pump and engine fail quietly, nothing unhandled', async () => {
    // Prepare: a payment succeeds, then DynamoDB Local goes away while the endpoint holds the attempt.
    const http = client(relay!.url);
    const reference = await registerAirtelPayment(http, 'GONE');
    expect((await postAirtelSuccess(http, KEY, reference)).status).toBe(200);
    await vi.waitFor(() => expect(endpoint.held).toHaveLength(1), { timeout: 30_000 });
    await forwarder.cut();

    // Act: the stop waits for the attempt, whose writes now fail; the endpoint answers meanwhile.
    const stopped = relay!.stop();
    await refusing(relay!.url);
    endpoint.answer(200);
    await stopped;

    // Assess
    expect(unhandled).toEqual([]);
  });
});
