import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createLocalServer, describeTableCheck, readinessOf } from '../../local/server';
import { createDynamoClients } from '../../shared/adapters/dynamodb/client';
import { ensureTable } from '../../shared/adapters/dynamodb/setup';
import { cuttableForwarder } from '../helpers/cuttable-forwarder';
import { dynamoEndpoint, testTableName } from '../helpers/dynamo';

// The run's DynamoDB Local, reached through a forwarder this file cuts: DynamoDB becomes unreachable for
// this relay alone (connections refused, as when DynamoDB Local is killed), without a JVM of its own.
let dynamo: Awaited<ReturnType<typeof cuttableForwarder>> | undefined;
let server: Server | undefined;
let clients: ReturnType<typeof createDynamoClients> | undefined;

afterAll(async () => {
  if (server) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server!.close(() => resolve()));
  }
  clients?.client.destroy();
  await dynamo?.cut();
});

describe('health routes against a real DynamoDB Local', () => {
  it('reports ready while DynamoDB Local answers, 503 naming dynamodb once it is unreachable; live stays 200', async () => {
    // Prepare: DynamoDB Local, the relay table, the local server with the relay's readiness check.
    dynamo = await cuttableForwarder(dynamoEndpoint());
    const table = testTableName('health');
    clients = createDynamoClients({ endpoint: dynamo.endpoint });
    await ensureTable(clients.client, table);
    const unexpected = async () => ({ statusCode: 418, body: '' });
    server = createLocalServer({
      callback: unexpected,
      management: unexpected,
      trustForwardedFor: true,
      health: async () => ({ status: 'ok', dynamodb: dynamo!.endpoint }),
      ready: readinessOf({ dynamodb: describeTableCheck(clients.client, table) }),
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', () => resolve()));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const get = async (path: string) => {
      const response = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(10_000) });
      return { status: response.status, body: (await response.json()) as Record<string, any> };
    };

    // Act + Assess: up.
    const readyUp = await get('/health/ready');
    expect(readyUp.status).toBe(200);
    expect(readyUp.body).toMatchObject({
      status: 'ready',
      ready: true,
      checks: { dynamodb: { ok: true, table, status: 'ACTIVE' } },
    });
    expect((await get('/health')).body).toMatchObject({ status: 'ok', ready: true });

    // Act: DynamoDB goes away.
    await dynamo.cut();

    // Assess: not ready, and says what is down; alive all the same.
    const readyDown = await get('/health/ready');
    expect(readyDown.status).toBe(503);
    expect(readyDown.body).toMatchObject({
      status: 'unavailable',
      ready: false,
      down: ['dynamodb'],
      checks: { dynamodb: { ok: false } },
    });
    const live = await get('/health/live');
    expect(live).toEqual({ status: 200, body: { status: 'ok' } });
    const health = await get('/health');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: 'ok', ready: false });
  }, 60_000);
});
