import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createDynamoClients,
  DYNAMO_TIMEOUT_DEFAULTS,
  dynamoClientConfig,
} from '../../../shared/adapters/dynamodb/client';

/** A TCP server that accepts connections and reads requests but never answers: a stalled DynamoDB. */
async function blackHole(): Promise<{ endpoint: string; connections: () => number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let connections = 0;
  const server: Server = createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('data', () => undefined);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** The error of one GetItem with a client made with `options` (undefined if it succeeded). */
async function getItemError(options: Parameters<typeof createDynamoClients>[0]) {
  const { client } = createDynamoClients(options);
  cleanups.push(() => client.destroy());
  return client
    .send(new GetItemCommand({ TableName: 'relay', Key: { pk: { S: 'a' }, sk: { S: 'b' } } }))
    .then(
      () => undefined,
      (e: unknown) => e as Error & { $metadata?: { attempts?: number } },
    );
}

describe('DynamoDB client timeouts', () => {
  it('exports defaults that keep a stalled call within about 3 seconds', () => {
    expect(DYNAMO_TIMEOUT_DEFAULTS.connectionTimeoutMs).toBeGreaterThan(0);
    expect(DYNAMO_TIMEOUT_DEFAULTS.requestTimeoutMs).toBeGreaterThan(0);
    expect(
      DYNAMO_TIMEOUT_DEFAULTS.requestTimeoutMs * DYNAMO_TIMEOUT_DEFAULTS.maxAttempts,
    ).toBeLessThanOrEqual(3000);
  });

  it('configures a client made without options with the default timeouts and attempts', () => {
    // Act
    const config = dynamoClientConfig({ endpoint: 'http://127.0.0.1:8000' });
    // Assess: the values the stalled call below shows the SDK acting on (whose product the test above
    // keeps well inside the 8 s Daraja deadline), the request timeout thrown, not only logged.
    expect(config.maxAttempts).toBe(DYNAMO_TIMEOUT_DEFAULTS.maxAttempts);
    expect(config.requestHandler).toEqual({
      connectionTimeout: DYNAMO_TIMEOUT_DEFAULTS.connectionTimeoutMs,
      requestTimeout: DYNAMO_TIMEOUT_DEFAULTS.requestTimeoutMs,
      throwOnRequestTimeout: true,
    });
  });

  it('gives up on a DynamoDB that accepts connections but never answers, after the attempts it was given', async () => {
    // Prepare: a request timeout short enough not to be waited out (the defaults' are set above).
    const hole = await blackHole();
    cleanups.push(() => hole.close());
    // Act
    const error = await getItemError({
      endpoint: hole.endpoint,
      requestTimeoutMs: 100,
      maxAttempts: 2,
    });
    // Assess: each attempt cut by the request timeout (a TimeoutError, retried), on a connection of its own.
    expect(error).toBeDefined();
    expect(error!.name).toBe('TimeoutError');
    expect(error!.message).toContain('100 ms requestTimeout');
    expect(error!.$metadata?.attempts).toBe(2);
    expect(hole.connections()).toBe(2);
  }, 15_000);
});
