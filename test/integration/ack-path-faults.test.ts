import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ConditionalCheckFailedException,
  type DynamoDBClient,
  ProvisionedThroughputExceededException,
} from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FileIngressBuffer, LocalBufferDrainer } from '../../local/file-ingress-buffer';
import { createDynamoClients } from '../../shared/adapters/dynamodb/client';
import { DynamoRelayStore } from '../../shared/adapters/dynamodb/relay-store';
import { ensureTable } from '../../shared/adapters/dynamodb/setup';
import { CallbackTracker, trackingCallbacks } from '../../shared/app/callbacks/callback-health';
import { noMetrics } from '../../shared/app/ports';
import { type RelayServices, scrubbingLogger } from '../../shared/app/services';
import { parseConfig } from '../../shared/config/load';
import { secretScrubber } from '../../shared/config/secrets';
import { BUFFERED_HEADER, receiveCallback } from '../../shared/http/callback-endpoint';
import type { InboundRequest } from '../../shared/http/types';
import { cuttableForwarder } from '../helpers/cuttable-forwarder';
import { dynamoEndpoint, TEST_RETENTION, testTableName } from '../helpers/dynamo';
import { silentLogger } from '../helpers/relay';
import { registered } from '../helpers/reports';

/**
 * The ack path under faults, with the real adapters (the DynamoDB store over DynamoDB Local, reached through
 * a forwarder that can stall; the file ingress buffer of npm start) and faults injected into the SDK's own
 * request path (after its retry middleware, so its retries see them): for each, the provider gets its answer
 * in its format, the callback is stored or buffered (never lost), and a genuine duplicate makes one final
 * event. Guarantees 1, 2 and 5 of the design.
 */

const MOMO_SECRET = 'momo-path-secret-0123456789';
const MOMO_BODY = readFileSync(
  new URL('../fixtures/momo/requesttopay-successful.json', import.meta.url),
  'utf8',
);
const config = parseConfig({
  management: { bearerToken: 'management-token-0123456789' },
  // A store budget a loaded machine's DynamoDB Local meets when it answers; a stall is cut by it. The
  // buffer's share (ackMs - storeMs) is wide for the same reason: with MoMo's 400 ms a busy worker's
  // file write once came late, and the stalled callback was answered 503 instead of buffered.
  ackBudgets: { momo: { storeMs: 1500, ackMs: 8000 } },
  accounts: { momo: { demo: { pathSecret: MOMO_SECRET, currency: 'EUR', confirmSuccess: false } } },
});

/** A fault for the next DynamoDB call of the named command (or any), thrown where the SDK would see DynamoDB's answer. */
type Fault = (command: string) => Error | undefined;

let forwarder: Awaited<ReturnType<typeof cuttableForwarder>>;
let tableName: string;
let stateDir: string;
let fault: Fault = () => undefined;
/** A fault for a call that carries a condition (what DynamoDB can answer ConditionalCheckFailed to). */
let conditionalFault: Fault = () => undefined;

beforeAll(async () => {
  forwarder = await cuttableForwarder(dynamoEndpoint());
  tableName = testTableName('ack-faults');
  const setup = createDynamoClients({ endpoint: dynamoEndpoint(), requestTimeoutMs: 15_000 });
  await ensureTable(setup.client, tableName);
  setup.client.destroy();
  stateDir = mkdtempSync(join(tmpdir(), 'ack-faults-'));
}, 60_000);

afterEach(() => {
  fault = () => undefined;
  conditionalFault = () => undefined;
  forwarder.stall(false);
});

afterAll(async () => {
  await forwarder?.cut();
  rmSync(stateDir, { recursive: true, force: true });
});

function injectFaults(client: DynamoDBClient): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const error = fault(context.commandName ?? '');
      if (error) throw error;
      return next(args);
    },
    { step: 'finalizeRequest', priority: 'low', name: 'injectedFaults' },
  );
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { ConditionExpression?: string };
      const error = input.ConditionExpression ? conditionalFault(context.commandName ?? '') : undefined;
      if (error) throw error;
      return next(args);
    },
    { step: 'initialize', name: 'injectedConditionalFaults' },
  );
}

const throughputExceeded = () =>
  new ProvisionedThroughputExceededException({
    message: 'Throughput exceeded',
    $metadata: { httpStatusCode: 400 },
  });

/** A relay's callback side as the callback function wires it, on the real store and npm start's buffer. */
function relay(options: { buffer?: 'file' | 'broken' } = {}) {
  const { client, doc } = createDynamoClients({ endpoint: forwarder.endpoint });
  injectFaults(client);
  const store = new DynamoRelayStore(doc, { tableName, retention: TEST_RETENTION });
  const scrub = secretScrubber(config);
  const log = scrubbingLogger(silentLogger, scrub);
  const dir = join(stateDir, `buffer-${Math.random().toString(36).slice(2)}`);
  if (options.buffer === 'broken') writeFileSync(dir, 'not a directory');
  const buffer = new FileIngressBuffer(dir);
  const services: RelayServices = {
    config,
    store: trackingCallbacks(store, new CallbackTracker(store, config, log)),
    clock: { now: () => new Date() },
    log,
    scrub,
    metrics: noMetrics,
    ingressBuffer: buffer,
  };
  /** The relay's drainer applies what was buffered, with the store healthy again. */
  const drain = () => new LocalBufferDrainer(services, buffer, 60_000).runOnce();
  return { services, store, buffer, drain, close: () => client.destroy() };
}

let references = 0;
function freshReference(): string {
  return `5d0c1b2a-3e4f-4a5b-8c9d-${String(++references + (Date.now() % 1e6) * 100).padStart(12, '0')}`;
}

function momoCallback(reference: string): InboundRequest {
  return {
    requestId: `req-${reference}`,
    method: 'PUT',
    path: `/v1/momo/demo/${MOMO_SECRET}/requesttopay/${reference}`,
    headers: { 'content-type': 'application/json' },
    query: {},
    rawBody: Buffer.from(MOMO_BODY, 'utf8'),
    sourceIp: '198.51.100.7',
    receivedAt: new Date(),
  };
}

/** The transaction's final events (TransactionSucceeded/Failed) and its receipts, as stored. */
async function stored(store: DynamoRelayStore, reference: string) {
  const key = { provider: 'momo', account: 'demo', reference };
  const tx = await store.getTransaction(key, { consistent: true });
  const finals = (tx?.transitions ?? []).filter((t) => t.to === 'SUCCEEDED' || t.to === 'FAILED');
  const receipts = await store.listReceipts(key, { limit: 10 });
  return { status: tx?.status, finals: finals.length, receipts: receipts.receipts };
}

async function registeredTransaction(store: DynamoRelayStore): Promise<string> {
  const reference = freshReference();
  await store.createTransaction(registered({ key: { provider: 'momo', account: 'demo', reference } }));
  return reference;
}

describe('the ack path under faults, real adapters', () => {
  it('throttled once (ThrottlingException), the SDK retries: stored directly, acked 200', async () => {
    // Prepare
    const r = relay();
    const reference = await registeredTransaction(r.store);
    let thrown = 0;
    fault = (command) => {
      if (command !== 'PutItemCommand' || thrown > 0) return undefined;
      thrown++;
      return Object.assign(new Error('Rate of requests exceeds the allowed throughput'), {
        name: 'ThrottlingException',
        $metadata: { httpStatusCode: 400 },
      });
    };

    // Act
    const response = await receiveCallback(r.services, momoCallback(reference));

    // Assess
    expect(thrown).toBe(1);
    expect(response.statusCode).toBe(200);
    expect(response.body).toMatchObject({ received: true, duplicate: false });
    expect(response.headers?.[BUFFERED_HEADER]).toBeUndefined();
    expect(await stored(r.store, reference)).toMatchObject({ status: 'SUCCEEDED', finals: 1 });
    r.close();
  });

  it('ProvisionedThroughputExceeded on every write: buffered, acked 200; applied once by the drain', async () => {
    // Prepare
    const r = relay();
    const reference = await registeredTransaction(r.store);
    fault = (command) => (/^(Put|Update|TransactWrite)/.test(command) ? throughputExceeded() : undefined);

    // Act
    const response = await receiveCallback(r.services, momoCallback(reference));
    fault = () => undefined;
    const drained = await r.drain();

    // Assess
    expect(response.statusCode).toBe(200);
    expect(response.body).toMatchObject({ received: true, duplicate: false });
    expect(response.headers?.[BUFFERED_HEADER]).toBe('true');
    expect(drained.applied).toBe(1);
    expect(await stored(r.store, reference)).toMatchObject({ status: 'SUCCEEDED', finals: 1 });
    r.close();
  });

  it('a genuine duplicate (the conditional write fails on the same receipt) is acknowledged as one, with one final event', async () => {
    // Prepare
    const r = relay();
    const reference = await registeredTransaction(r.store);

    // Act: the same bytes twice at once, then a third time.
    const [first, second] = await Promise.all([
      receiveCallback(r.services, momoCallback(reference)),
      receiveCallback(r.services, momoCallback(reference)),
    ]);
    const third = await receiveCallback(r.services, momoCallback(reference));

    // Assess: every one acked 200, one of the first two and the third as duplicates; one final event.
    expect([first, second, third].map((a) => a.statusCode)).toEqual([200, 200, 200]);
    expect([first, second].map((a) => (a.body as { duplicate: boolean }).duplicate).sort()).toEqual([
      false,
      true,
    ]);
    expect(third.body).toMatchObject({ received: true, duplicate: true });
    const after = await stored(r.store, reference);
    expect(after).toMatchObject({ status: 'SUCCEEDED', finals: 1 });
    expect(after.receipts).toHaveLength(1);
    expect(after.receipts[0]!.deliveries).toBe(3);
    r.close();
  });

  it('a ConditionalCheckFailed the store did not expect (a racing writer) is retried, never a lost callback', async () => {
    // Prepare: the first transaction write loses a race it did not see (as when another writer moved it).
    const r = relay();
    const reference = await registeredTransaction(r.store);
    let thrown = 0;
    conditionalFault = () => {
      if (thrown > 0) return undefined;
      thrown++;
      return new ConditionalCheckFailedException({
        message: 'The conditional request failed',
        $metadata: { httpStatusCode: 400 },
      });
    };

    // Act
    const response = await receiveCallback(r.services, momoCallback(reference));
    conditionalFault = () => undefined;
    await r.drain();

    // Assess: acked; stored directly or buffered and applied, one final event either way.
    expect(thrown).toBe(1);
    expect(response.statusCode).toBe(200);
    expect(await stored(r.store, reference)).toMatchObject({ status: 'SUCCEEDED', finals: 1 });
    r.close();
  });

  it('a stalled connection: acked from the buffer while DynamoDB still holds the write; the late write and the buffered copy make one final event', async () => {
    // Prepare
    const r = relay();
    const reference = await registeredTransaction(r.store);
    forwarder.stall(true);

    // Act: answered while the stall lasts (the store never answered it), then the store moves again.
    const response = await receiveCallback(r.services, momoCallback(reference));
    forwarder.stall(false);
    const drained = await r.drain();

    // Assess
    expect(response.statusCode).toBe(200);
    expect(response.body).toMatchObject({ received: true, duplicate: false });
    expect(response.headers?.[BUFFERED_HEADER]).toBe('true');
    expect(drained.applied).toBe(1);
    const after = await stored(r.store, reference);
    expect(after).toMatchObject({ status: 'SUCCEEDED', finals: 1 });
    expect(after.receipts).toHaveLength(1);
    r.close();
  });

  it('the store stalled and the buffer failing too: 503 in time (the provider calls again), and its retry is stored once', async () => {
    // Prepare
    const r = relay({ buffer: 'broken' });
    const reference = await registeredTransaction(r.store);
    forwarder.stall(true);

    // Act
    const response = await receiveCallback(r.services, momoCallback(reference));
    forwarder.stall(false);
    const retried = await receiveCallback(r.services, momoCallback(reference));

    // Assess: never a success answer for a callback nobody holds; the provider's retry is taken.
    expect(response.statusCode).toBe(503);
    expect(response.body).toMatchObject({ error: { code: 'STORAGE_UNAVAILABLE' } });
    expect(retried.statusCode).toBe(200);
    expect(await stored(r.store, reference)).toMatchObject({ status: 'SUCCEEDED', finals: 1 });
    r.close();
  });
});
