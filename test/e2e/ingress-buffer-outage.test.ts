import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type DynamoDbLocalHandle, startDynamoDbLocal } from '../../local/dynamodb-local';
import { type LocalRelay, startLocalRelay } from '../../local/relay';
import { parseConfig } from '../../shared/config/load';
import { cuttableForwarder } from '../helpers/cuttable-forwarder';
import { dynamoEndpoint, testTableName } from '../helpers/dynamo';
import { ADMIN_HEADERS, ADMIN_TOKEN, CollectingSink, silentLogger } from '../helpers/relay';

const BODY = readFileSync(join(import.meta.dirname, '../fixtures/momo/requesttopay-successful.json'), 'utf8');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The local relay reaches the run's DynamoDB Local through a forwarder that stalls mid-traffic: bytes stop
 * moving both ways, so calls hang as they would on a stalled DynamoDB (a JVM stopped with SIGSTOP, which
 * this test did to a DynamoDB Local of its own), and move again, in order, when the stall ends.
 */
let dynamo: Awaited<ReturnType<typeof cuttableForwarder>>;
let relay: LocalRelay;
let stateDir: string;
const sink = new CollectingSink();
const printed: string[] = [];
let stalled = false;

function stall(on: boolean): void {
  dynamo.stall(on);
  stalled = on;
}

beforeAll(async () => {
  stateDir = mkdtempSync(join(tmpdir(), 'relay-outage-'));
  dynamo = await cuttableForwarder(dynamoEndpoint());
  relay = await startLocalRelay({
    config: parseConfig({
      management: { auth: 'bearer', bearerToken: ADMIN_TOKEN },
      local: { eventsFile: join(stateDir, 'events.ndjson') },
      accounts: {
        momo: {
          demo: { currency: 'EUR', confirmSuccess: false, allowNoPathSecret: 'e2e test of the buffer' },
        },
      },
    }),
    dynamoEndpoint: dynamo.endpoint,
    tableName: testTableName('relay-outage'),
    port: 0,
    log: silentLogger,
    sink,
    streamPollMs: 100,
    poller: false,
    ingressBufferDir: join(stateDir, 'ingress-buffer'),
    bufferDrainMs: 200,
    printBuffer: (line) => printed.push(line),
  });
}, 60_000);

afterAll(async () => {
  if (stalled) stall(false);
  await relay?.stop();
  await dynamo?.cut();
  rmSync(stateDir, { recursive: true, force: true });
});

/**
 * References of this attempt of a test: the dynamodb lane runs a failed test once more, against the same
 * relay and table, where the first attempt's transactions are already registered (a second registration
 * answers 200, not 201) and their callbacks already applied: the retry gets references of its own.
 */
let attempts = 0;
const referencesOf = (count: number) => {
  const first = ++attempts * 1000;
  return Array.from(
    { length: count },
    (_, i) => `5d0c1b2a-3e4f-4a5b-8c9d-${String(first + i).padStart(12, '0')}`,
  );
};

async function register(ref: string): Promise<void> {
  const response = await fetch(`${relay.url}/v1/transactions`, {
    method: 'POST',
    headers: { ...ADMIN_HEADERS, 'content-type': 'application/json' },
    body: JSON.stringify({
      provider: 'momo',
      account: 'demo',
      kind: 'requesttopay',
      reference: ref,
      amount: '100',
      currency: 'EUR',
      externalId: 'order-8841',
    }),
  });
  expect(response.status).toBe(201);
}

async function callback(ref: string): Promise<{ status: number; buffered: boolean }> {
  const response = await fetch(`${relay.url}/v1/momo/demo/requesttopay/${ref}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: BODY,
  });
  await response.text();
  return {
    status: response.status,
    buffered: response.headers.get('x-relay-buffered') === 'true',
  };
}

describe('npm start with DynamoDB Local stalled mid-traffic', () => {
  it('acks every callback and ends every transaction with exactly one TransactionSucceeded', async () => {
    // Prepare
    const refs = referencesOf(12);
    for (const ref of refs) await register(ref);
    const acks: { ref: string; status: number; buffered: boolean }[] = [];

    // Act: 4 callbacks with DynamoDB up, 4 while it is stalled (plus a MoMo-style repeat), 4 after.
    for (const ref of refs.slice(0, 4)) acks.push({ ref, ...(await callback(ref)) });
    stall(true);
    // The stalled ones at once, as a provider's do: each waits out the ack deadline, together not in turn.
    acks.push(
      ...(await Promise.all(refs.slice(4, 8).map(async (ref) => ({ ref, ...(await callback(ref)) })))),
    );
    acks.push({ ref: refs[4]!, ...(await callback(refs[4]!)) });
    stall(false);
    for (const ref of refs.slice(8)) acks.push({ ref, ...(await callback(ref)) });
    const buffer = relay.buffer!.store;
    const deadline = Date.now() + 45_000;
    while ((await buffer.pending()).length > 0 && Date.now() < deadline) await sleep(200);
    // Every transaction's final event published, then a pass of the stream that publishes nothing more:
    // a second final event would have been published by then.
    const finalsOf = (ref: string) =>
      sink.events.filter(
        (e) =>
          (e.data as { reference?: string }).reference === ref &&
          ['TransactionSucceeded', 'TransactionFailed'].includes(e.metadata.type),
      );
    await vi.waitFor(
      async () => {
        await relay.pump.poll();
        expect(refs.filter((ref) => finalsOf(ref).length === 0)).toEqual([]);
        // The drain's own summary: it has finished, not just emptied the list.
        expect(printed.some((l) => l.includes('ingress buffer drained'))).toBe(true);
      },
      { timeout: 45_000, interval: 100 },
    );
    while ((await relay.pump.poll()) > 0);

    // Assess: every callback acked; those of the stall by the buffer, once the store budget cut the write.
    expect(acks.map((a) => a.status)).toEqual(acks.map(() => 200));
    const duringStall = acks.slice(4, 9);
    expect(duringStall.every((a) => a.buffered)).toBe(true);
    expect(acks.slice(0, 4).some((a) => a.buffered)).toBe(false);
    expect(await buffer.pending()).toEqual([]);
    expect(readdirSync(join(buffer.dir, 'failed'))).toEqual([]);
    for (const ref of refs) {
      expect(
        finalsOf(ref).map((e) => e.metadata.type),
        ref,
      ).toEqual(['TransactionSucceeded']);
    }
    expect(printed.filter((l) => l.includes('⇢ buffered momo/demo')).length).toBeGreaterThanOrEqual(5);
    expect(printed.some((l) => l.includes('ingress buffer drained'))).toBe(true);
  }, 90_000);
});

describe('npm start with DynamoDB Local killed mid-traffic and restarted on its data directory', () => {
  let dataDynamo: DynamoDbLocalHandle | undefined;
  let dataRelay: LocalRelay;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'relay-restart-'));
    dataDynamo = await startDynamoDbLocal({ dataDir: join(dir, 'dynamodb') });
    dataRelay = await startLocalRelay({
      config: parseConfig({
        management: { auth: 'bearer', bearerToken: ADMIN_TOKEN },
        local: { eventsFile: join(dir, 'events.ndjson') },
        accounts: {
          momo: {
            demo: { currency: 'EUR', confirmSuccess: false, allowNoPathSecret: 'e2e test of the buffer' },
          },
        },
      }),
      dynamoEndpoint: dataDynamo.endpoint,
      tableName: 'relay-restart',
      port: 0,
      log: silentLogger,
      sink: new CollectingSink(),
      streamPollMs: 100,
      poller: false,
      ingressBufferDir: join(dir, 'ingress-buffer'),
      bufferDrainMs: 200,
    });
  }, 60_000);

  afterAll(async () => {
    await dataRelay?.stop();
    await dataDynamo?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('acks the callbacks sent while it is gone and applies each exactly once after the restart', async () => {
    // Prepare
    const refs = referencesOf(6);
    const post = (path: string, body: string, headers: Record<string, string> = {}) =>
      fetch(`${dataRelay.url}${path}`, {
        method: path.startsWith('/v1/transactions') ? 'POST' : 'PUT',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      });
    for (const ref of refs) {
      const registered = await post(
        '/v1/transactions',
        JSON.stringify({
          provider: 'momo',
          account: 'demo',
          kind: 'requesttopay',
          reference: ref,
          amount: '100',
          currency: 'EUR',
        }),
        ADMIN_HEADERS,
      );
      expect(registered.status).toBe(201);
    }
    const port = dataDynamo!.port;
    const statuses: number[] = [];

    // Act: 2 callbacks up, kill DynamoDB Local, 4 callbacks (2 repeated), restart it on the same port and data.
    for (const ref of refs.slice(0, 2))
      statuses.push((await post(`/v1/momo/demo/requesttopay/${ref}`, BODY)).status);
    await dataDynamo!.stop();
    dataDynamo = undefined;
    for (const ref of [...refs.slice(2), refs[2]!, refs[3]!])
      statuses.push((await post(`/v1/momo/demo/requesttopay/${ref}`, BODY)).status);
    const buffer = dataRelay.buffer!.store;
    const whileDown = (await buffer.pending()).length;
    dataDynamo = await startDynamoDbLocal({ port, dataDir: join(dir, 'dynamodb') });
    const deadline = Date.now() + 45_000;
    while ((await buffer.pending()).length > 0 && Date.now() < deadline) await sleep(200);

    // Assess
    expect(statuses).toEqual(statuses.map(() => 200));
    expect(whileDown).toBe(6);
    expect(await buffer.pending()).toEqual([]);
    for (const ref of refs) {
      const tx = await dataRelay.store.getTransaction({ provider: 'momo', account: 'demo', reference: ref });
      expect(tx?.status, ref).toBe('SUCCEEDED');
      expect(
        tx!.events.filter((e) => e.type === 'TransactionSucceeded'),
        ref,
      ).toHaveLength(1);
    }
  }, 120_000);
});
