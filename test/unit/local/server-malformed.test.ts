import type { Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { localRefusalRecorder } from '../../../local/relay';
import { createLocalServer } from '../../../local/server';
import { MemoryStore } from '../../../shared/adapters/memory/memory-store';
import type { QuarantineInput, RelayLogger } from '../../../shared/app/ports';
import { API_ANSWER_HEADERS } from '../../../shared/http/types';

const BEARER = 'bearer-token-never-stored-0123456789';
const quiet: RelayLogger = { debug() {}, info() {}, warn() {}, error() {} };

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

/**
 * The local server wired as npm start wires it: its refusals recorded in the quarantine (a memory store
 * here), `recorded()` resolving once the n-th refusal is written.
 */
async function serve() {
  const store = new MemoryStore();
  const record = localRefusalRecorder({
    store,
    log: quiet,
    scrub: (text) => text.replaceAll(BEARER, '{secret}'),
  });
  const waiting: { n: number; done: () => void }[] = [];
  let calls = 0;
  const server = createLocalServer({
    callback: async () => {
      calls++;
      return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: '{"ok":true}' };
    },
    management: async () => ({ statusCode: 200, body: '{}' }),
    trustForwardedFor: false,
    health: async () => ({}),
    ready: async () => ({ ready: true, checks: {} }),
    refused: async (request, error) => {
      await record(request, error);
      for (const w of waiting.filter((w) => store.quarantined.length >= w.n)) w.done();
    },
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    store,
    server,
    calls: () => calls,
    recorded: (n: number): Promise<QuarantineInput[]> =>
      store.quarantined.length >= n
        ? Promise.resolve(store.quarantined)
        : new Promise((resolve) => waiting.push({ n, done: () => resolve(store.quarantined) })),
  };
}

/** Sends bytes over a raw socket and reads everything until the server closes the connection. */
function rawExchange(port: number, bytes: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.on('error', reject);
    socket.setTimeout(20_000, () => reject(new Error('no answer from the local server')));
    socket.write(bytes);
  });
}

function parse(answer: string) {
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => [
      line.slice(0, line.indexOf(':')).toLowerCase(),
      line.slice(line.indexOf(':') + 1).trim(),
    ]),
  );
  return {
    status: Number(statusLine.split(' ')[1]),
    headers,
    body: JSON.parse(body) as { error: { code: string } },
  };
}

function expectRelayAnswer(answer: ReturnType<typeof parse>, status: number, code: string): void {
  expect(answer.status).toBe(status);
  expect(answer.body.error.code).toBe(code);
  expect(answer.headers['content-type']).toBe('application/json');
  expect(answer.headers).toMatchObject(API_ANSWER_HEADERS);
}

describe('the local server answers and records bytes Node cannot parse as HTTP', () => {
  it('answers a bad request line with the relay’s JSON 400 and quarantines it with its source and first bytes', async () => {
    // Prepare
    const { port, recorded, calls } = await serve();

    // Act
    const answer = parse(await rawExchange(port, 'HELLO THERE\r\n\r\n'));

    // Assess
    expectRelayAnswer(answer, 400, 'MALFORMED_REQUEST');
    const [entry] = await recorded(1);
    expect(entry).toMatchObject({
      errorCode: 'MALFORMED_REQUEST',
      httpStatus: 400,
      sourceIp: '127.0.0.1',
      method: '-',
      path: '(unparsed)',
    });
    expect(entry!.body).toContain('HELLO THERE');
    expect(entry!.message).toMatch(/not valid HTTP/);
    expect(entry!.outbox).toEqual([]);
    expect(calls()).toBe(0);
  });

  it('answers a header with a control character 400 and records the request line, never a credential header', async () => {
    // Prepare
    const { port, recorded } = await serve();
    const request =
      'POST /v1/momo/demo/requesttopay/abc HTTP/1.1\r\nHost: relay\r\n' +
      `Authorization: Bearer ${BEARER}\r\nCookie: session=keep-me-out\r\nX-Note: a\u0001b\r\n\r\n`;

    // Act
    const answer = parse(await rawExchange(port, request));

    // Assess
    expectRelayAnswer(answer, 400, 'MALFORMED_REQUEST');
    const [entry] = await recorded(1);
    expect(entry).toMatchObject({ method: 'POST', path: '/v1/momo/demo/requesttopay/abc', httpStatus: 400 });
    expect(entry!.body).toContain('Host: relay');
    expect(entry!.body).not.toContain(BEARER);
    expect(entry!.body).not.toContain('keep-me-out');
  });

  it('answers headers over Node’s 16 KB with the relay’s 431 and records it', async () => {
    // Prepare
    const { port, recorded } = await serve();

    // Act
    const answer = parse(
      await rawExchange(port, `GET /v1/x HTTP/1.1\r\nHost: relay\r\nX-Big: ${'y'.repeat(20_000)}\r\n\r\n`),
    );

    // Assess
    expectRelayAnswer(answer, 431, 'REQUEST_HEADERS_TOO_LARGE');
    const [entry] = await recorded(1);
    expect(entry).toMatchObject({
      errorCode: 'REQUEST_HEADERS_TOO_LARGE',
      httpStatus: 431,
      sourceIp: '127.0.0.1',
    });
    expect(entry!.bodyBytes).toBeLessThanOrEqual(2048);
  });

  it('records a request line over API Gateway’s quota that Node parsed, as it records Node’s refusals', async () => {
    // Prepare
    const { port, recorded, calls } = await serve();

    // Act
    const answer = await fetch(`http://127.0.0.1:${port}/v1/x?q=${'z'.repeat(12_000)}`);

    // Assess
    expect(answer.status).toBe(431);
    const [entry] = await recorded(1);
    expect(entry).toMatchObject({ errorCode: 'REQUEST_HEADERS_TOO_LARGE', method: 'GET', path: '/v1/x' });
    expect(calls()).toBe(0);
  });

  it('closes a connection reset mid-request without answering, recording or stopping serving', async () => {
    // Prepare
    const { port, server, store } = await serve();
    const socket = connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write('POST /v1/x HTTP/1.1\r\nHost: relay\r\nContent-Le');
    const serverSide = await new Promise<number>((resolve) =>
      server.getConnections((_, count) => resolve(count)),
    );

    // Act
    socket.resetAndDestroy();
    await new Promise<void>((resolve) => server.once('clientError', () => resolve()));
    const after = await fetch(`http://127.0.0.1:${port}/health/live`);

    // Assess
    expect(serverSide).toBe(1);
    expect(after.status).toBe(200);
    expect(store.quarantined).toEqual([]);
  });
});
