import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DeleteTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand, DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { dynamoEndpoint } from '../helpers/dynamo';
import { type DynamoDbLocalHandle, startDynamoDbLocal } from '../../local/dynamodb-local';
import { LocalStreamPump, type StreamCheckpointStore, type StreamPumpOptions } from '../../local/stream-pump';
import { createDynamoClients } from '../../shared/adapters/dynamodb/client';
import { ensureTable } from '../../shared/adapters/dynamodb/setup';

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** A fresh relay-shaped table (with its stream) in the DynamoDB Local at `endpoint`. */
async function freshTable(endpoint: string, tableName = `pump-${randomUUID()}`) {
  // The checkpoint logic is under test, not DynamoDB Local's speed on a busy machine (a JVM restart included).
  const { client } = createDynamoClients({ endpoint, requestTimeoutMs: 15_000 });
  await ensureTable(client, tableName);
  return { client, tableName };
}

async function writeItems(client: DynamoDBClient, tableName: string, ids: string[]): Promise<void> {
  for (const id of ids) {
    // Each item carries one outbox event, as a transaction write does; only such records reach the publisher.
    await client.send(
      new PutItemCommand({
        TableName: tableName,
        Item: {
          pk: { S: id },
          sk: { S: 'TX' },
          outbox: { L: [{ M: { metadata: { M: { id: { S: id } } } } }] },
        },
      }),
    );
  }
}

const ids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

/** A publisher stand-in that records the pk of every record it was handed; `fail` makes it throw after recording. */
function recorder() {
  const seen: string[] = [];
  let calls = 0;
  const behaviour: { failOnCall?: number } = {};
  const handler = async (event: DynamoDBStreamEvent) => {
    calls += 1;
    seen.push(...event.Records.map((r) => r.dynamodb?.Keys?.pk?.S ?? '?'));
    // Published, then the process dies before the batch is acknowledged.
    if (behaviour.failOnCall === calls) throw new Error('killed mid-batch');
    return { batchItemFailures: [] };
  };
  return { seen, handler, behaviour };
}

function pumpFor(
  endpoint: string,
  client: DynamoDBClient,
  tableName: string,
  handler: ReturnType<typeof recorder>['handler'],
  options: StreamPumpOptions = {},
) {
  // A long interval: the test drives every pass with poll().
  const pump = new LocalStreamPump(client, endpoint, tableName, handler, quiet, 60_000, options);
  cleanups.push(() => pump.stop());
  return pump;
}

/** Polls until a pass publishes nothing (bounded). */
async function drain(pump: LocalStreamPump): Promise<void> {
  for (let i = 0; i < 50; i++) if ((await pump.poll()) === 0) return;
  throw new Error('stream did not drain');
}

describe('local stream pump: checkpoint and resume', () => {
  it('hands the publisher only records that carry outbox events, like the cloud stream filter, and still moves past the others', async () => {
    // Prepare: a receipt-like item (no outbox) between two transaction-like items.
    const endpoint = dynamoEndpoint();
    const { client, tableName } = await freshTable(endpoint);
    cleanups.push(() => client.send(new DeleteTableCommand({ TableName: tableName })).catch(() => undefined));
    await writeItems(client, tableName, ['tx-1']);
    await client.send(
      new PutItemCommand({ TableName: tableName, Item: { pk: { S: 'receipt' }, sk: { S: 'RCPT#1' } } }),
    );
    await writeItems(client, tableName, ['tx-2']);
    const rec = recorder();
    const pump = pumpFor(endpoint, client, tableName, rec.handler);
    await pump.start();
    // Act
    await drain(pump);
    await drain(pump);
    // Assess
    expect(rec.seen).toEqual(['tx-1', 'tx-2']);
  });

  it('publishes, after a crash and restart, everything written but not yet published', async () => {
    // Prepare: 12 callbacks stored; the first pump publishes one batch of 5, then dies publishing the next.
    const endpoint = dynamoEndpoint();
    const { client, tableName } = await freshTable(endpoint);
    cleanups.push(() => client.send(new DeleteTableCommand({ TableName: tableName })).catch(() => undefined));
    const written = ids('before', 12);
    await writeItems(client, tableName, written);
    const first = recorder();
    first.behaviour.failOnCall = 2;
    const pump1 = pumpFor(endpoint, client, tableName, first.handler, { batchSize: 5 });
    await pump1.start();
    expect(await pump1.poll()).toBe(5);
    await expect(pump1.poll()).rejects.toThrow('killed mid-batch');
    await pump1.stop();
    // More callbacks are stored while no pump runs.
    const whileDown = ids('down', 3);
    await writeItems(client, tableName, whileDown);

    // Act: a new pump instance on the same table (same checkpoint store: the DynamoDB Local).
    const second = recorder();
    const pump2 = pumpFor(endpoint, client, tableName, second.handler, { batchSize: 5 });
    await pump2.start();
    await drain(pump2);

    // Assess: every record published at least once; the checkpointed batch is not published again,
    // the batch that died unacknowledged is (at least once).
    const all = new Set([...first.seen, ...second.seen]);
    for (const id of [...written, ...whileDown]) expect(all.has(id), id).toBe(true);
    expect(second.seen.filter((id) => written.slice(0, 5).includes(id))).toEqual([]);
    expect(second.seen).toEqual(expect.arrayContaining(written.slice(5, 10)));
    expect(second.seen).toEqual(expect.arrayContaining(whileDown));
  });

  it('says it caught up only after a pass that read every record written before it to the end, none failing', async () => {
    // Prepare: 12 records, batches of 5, the second batch fails once.
    const endpoint = dynamoEndpoint();
    const { client, tableName } = await freshTable(endpoint);
    cleanups.push(() => client.send(new DeleteTableCommand({ TableName: tableName })).catch(() => undefined));
    const rec = recorder();
    rec.behaviour.failOnCall = 2;
    const pump = pumpFor(endpoint, client, tableName, rec.handler, { batchSize: 5 });
    await pump.start();
    await drain(pump);
    const idle = pump.caughtUpAt;
    await writeItems(client, tableName, ids('tx', 12));
    const written = new Date().toISOString();

    // Act and assess: a full page, then a failed batch: not caught up with what was written.
    expect(await pump.poll()).toBe(5);
    expect(pump.caughtUpAt).toBe(idle);
    await expect(pump.poll()).rejects.toThrow('killed mid-batch');
    expect(pump.caughtUpAt).toBe(idle);
    await drain(pump);
    // Assess: caught up, at the start of a pass that began after the writes, with every record published.
    expect(pump.caughtUpAt! > written).toBe(true);
    expect(new Set(rec.seen)).toEqual(new Set(ids('tx', 12)));
  });

  it('publishes what was written before the very first start (no checkpoint: from the horizon, not LATEST)', async () => {
    const endpoint = dynamoEndpoint();
    const { client, tableName } = await freshTable(endpoint);
    cleanups.push(() => client.send(new DeleteTableCommand({ TableName: tableName })).catch(() => undefined));
    await writeItems(client, tableName, ids('early', 3));
    const seen = recorder();
    const pump = pumpFor(endpoint, client, tableName, seen.handler);
    await pump.start();
    await writeItems(client, tableName, ids('late', 2));
    await drain(pump);
    expect([...seen.seen].sort()).toEqual([...ids('early', 3), ...ids('late', 2)].sort());
  });

  it('reads a shard from its horizon when its checkpoint cannot be used, and checkpoints as it goes', async () => {
    // Prepare: a checkpoint store holding a position past the end of this stream (another database's).
    const endpoint = dynamoEndpoint();
    const { client, tableName } = await freshTable(endpoint);
    cleanups.push(() => client.send(new DeleteTableCommand({ TableName: tableName })).catch(() => undefined));
    await writeItems(client, tableName, ids('x', 4));
    const streams = new DynamoDBStreamsClient({
      endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    cleanups.push(() => streams.destroy());
    const { LatestStreamArn } = (await client.send(new DescribeTableCommand({ TableName: tableName })))
      .Table!;
    const shards = (await streams.send(new DescribeStreamCommand({ StreamArn: LatestStreamArn })))
      .StreamDescription!.Shards!;
    const saved: Array<[string, string]> = [];
    const checkpoints: StreamCheckpointStore = {
      load: async () => new Map(shards.map((s) => [s.ShardId!, '999999999999999999999'])),
      save: async (_arn, shard, sequence) => void saved.push([shard, sequence]),
    };
    const seen = recorder();
    const pump = pumpFor(endpoint, client, tableName, seen.handler, { checkpoints });
    // Act
    await pump.start();
    await drain(pump);
    // Assess
    expect([...seen.seen].sort()).toEqual(ids('x', 4));
    expect(saved.length).toBeGreaterThan(0);
    expect(saved.at(-1)![1]).toMatch(/^\d+$/);
  });

  it('with a data directory, resumes after its checkpoint when DynamoDB Local and the relay restart', async () => {
    // Prepare: a DynamoDB Local of this test's own, persisting to a directory.
    const dataDir = mkdtempSync(join(tmpdir(), 'relay-pump-data-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    let dynamo: DynamoDbLocalHandle = await startDynamoDbLocal({ dataDir });
    cleanups.push(() => dynamo.stop());
    let { client } = await freshTable(dynamo.endpoint, 'relay-local');
    const written = ids('persisted', 9);
    await writeItems(client, 'relay-local', written);
    const first = recorder();
    const pump1 = pumpFor(dynamo.endpoint, client, 'relay-local', first.handler, { batchSize: 4 });
    await pump1.start();
    expect(await pump1.poll()).toBe(4);
    // Act: the relay is killed (no final publish), DynamoDB Local with it; both start again.
    await pump1.stop();
    client.destroy();
    await dynamo.stop();
    dynamo = await startDynamoDbLocal({ dataDir });
    ({ client } = await freshTable(dynamo.endpoint, 'relay-local'));
    cleanups.push(() => client.destroy());
    const second = recorder();
    const pump2 = pumpFor(dynamo.endpoint, client, 'relay-local', second.handler, { batchSize: 4 });
    await pump2.start();
    await drain(pump2);
    // Assess: the five unpublished records are published; the four published ones are not repeated.
    expect(first.seen).toEqual(written.slice(0, 4));
    expect(second.seen).toEqual(written.slice(4));
  }, 120_000);
});
