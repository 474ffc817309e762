import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createLocalServer, MAX_REQUEST_LINE_AND_HEADER_BYTES } from '../../../local/server';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

/** The local server whose management function answers 200 with the query it got, counting its calls. */
async function serve(): Promise<{ get: (path: string) => Promise<Response>; calls: () => number }> {
  let calls = 0;
  const answer = async () => {
    calls++;
    return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: '{"ok":true}' };
  };
  const server = createLocalServer({
    callback: answer,
    management: answer,
    trustForwardedFor: true,
    health: async () => ({}),
    ready: async () => ({ ready: true, checks: {} }),
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    get: (path) => fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(30_000) }),
    calls: () => calls,
  };
}

async function expectRelayRefusal(res: Response): Promise<void> {
  expect(res.status).toBe(431);
  expect(res.headers.get('content-type')).toBe('application/json');
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  const body = (await res.json()) as { error: { code: string; message: string; limit: number } };
  expect(body.error).toMatchObject({ code: 'REQUEST_HEADERS_TOO_LARGE', limit: 10_240 });
  expect(body.error.message).toContain('10240');
}

describe('the local server refuses an over-long request line as API Gateway does', () => {
  it('answers a 100 KB search query with the relay’s 431 JSON and headers, not Node’s bare 431', async () => {
    // Prepare: over Node's own 16 KB header limit, so its parser refuses it before any request exists.
    const { get, calls } = await serve();
    const query = encodeURIComponent('x'.repeat(100_000));

    // Act
    const res = await get(`/v1/transactions/search?q=${query}`);

    // Assess
    await expectRelayRefusal(res);
    expect(calls()).toBe(0);
  });

  it('refuses a request line over API Gateway’s 10,240 bytes that Node would have let through', async () => {
    // Prepare: 12 KB, under Node's limit, over API Gateway's.
    const { get, calls } = await serve();
    const long = `/v1/transactions/search?q=${'y'.repeat(12_000)}`;
    const fits = `/v1/transactions/search?q=${'y'.repeat(MAX_REQUEST_LINE_AND_HEADER_BYTES - 500)}`;

    // Act
    const refused = await get(long);
    const served = await get(fits);

    // Assess
    await expectRelayRefusal(refused);
    expect(served.status).toBe(200);
    expect(calls()).toBe(1);
  });
});
