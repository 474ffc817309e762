import { request as httpRequest, Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createLocalServer } from '../../../local/server';
import { watched } from '../../helpers/driven-timers';

/** The local server whose callback function answers only when the test says so. */
async function serve() {
  const waiting: (() => void)[] = [];
  let arrived: () => void = () => {};
  const callbackArrived = new Promise<void>((resolve) => (arrived = resolve));
  const callback = () =>
    new Promise<{ statusCode: number; body: string }>((resolve) => {
      waiting.push(() => resolve({ statusCode: 200, body: '{"received":true}' }));
      arrived();
    });
  const server = createLocalServer({
    callback,
    management: callback,
    trustForwardedFor: false,
    health: async () => ({}),
    ready: async () => ({ ready: true, checks: {} }),
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return { server, port, callbackArrived, answer: () => waiting.shift()?.() };
}

/** A request on `agent` (one kept-alive connection), answered with its status and body. */
function put(port: number, agent: Agent): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { port, host: '127.0.0.1', method: 'PUT', path: '/v1/momo/demo/requesttopay/ref-1', agent },
      (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end('{}');
  });
}

describe('the local server, shut down', () => {
  it('answers the callback it is handling before it ends, and takes no new connection', async () => {
    // Prepare: a callback is being handled (its store write, say, has not answered yet).
    const { server, port, callbackArrived, answer } = await serve();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const inFlight = put(port, agent);
    await callbackArrived;

    // Act
    const shutdown = watched(server.shutdown(new AbortController().signal));
    await new Promise((resolve) => setImmediate(resolve));
    const endedBeforeAnswer = shutdown.settled();
    answer();
    const answered = await inFlight;
    await shutdown.promise;

    // Assess
    expect(endedBeforeAnswer).toBe(false);
    expect(answered).toEqual({ status: 200, body: '{"received":true}' });
    await expect(fetch(`http://127.0.0.1:${port}/health/live`)).rejects.toThrow();
    agent.destroy();
  });

  it('ends when hurried, closing the connection of a request still being handled', async () => {
    // Prepare
    const { server, port, callbackArrived } = await serve();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const inFlight = put(port, agent);
    inFlight.catch(() => undefined);
    await callbackArrived;
    const hurry = new AbortController();

    // Act
    const shutdown = server.shutdown(hurry.signal);
    hurry.abort();
    await shutdown;

    // Assess: its client sees the connection closed, not an answer.
    await expect(inFlight).rejects.toThrow();
    agent.destroy();
  });
});
