import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../local/dynamodb-local';
import { killChildren, ROOT, runTs, waitFor } from '../helpers/child-process';
import { postAirtelSuccess, registerAirtelPayment } from '../helpers/airtel-payment';

afterEach(killChildren);

const AIRTEL_KEY = 'demo-airtel-callback-key';

/** A webhook endpoint that never answers: the attempt at it is in flight while npm start stops. */
async function holdingEndpoint() {
  const held: ServerResponse[] = [];
  const server = createServer((request, response) => {
    request.resume();
    held.push(response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://localhost:${(server.address() as AddressInfo).port}/hooks`,
    held,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A payment on the demo's airtel/demo account, succeeded by its signed callback: one TransactionSucceeded. */
async function airtelPayment(relayUrl: string): Promise<void> {
  const request = async (method: string, path: string, body?: unknown, headers = {}) => {
    const response = await fetch(`${relayUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: response.status, body: await response.text(), headers: response.headers };
  };
  const demoAdmin = { authorization: 'Bearer demo-admin-token', 'x-relay-actor': 'ada' };
  const relay = {
    request,
    admin: (method: string, path: string, body?: unknown) => request(method, path, body, demoAdmin),
  };
  const reference = await registerAirtelPayment(relay, 'STOP');
  expect((await postAirtelSuccess(relay, AIRTEL_KEY, reference)).status).toBe(200);
}

describe('npm start, stopped', () => {
  it('SIGINT twice: one stop, hurried by the second; exit 0, DynamoDB Local gone, nothing unhandled', async () => {
    // Prepare: a webhook attempt is in flight at an endpoint that never answers.
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'relay-stop-twice-'));
    const config = join(dir, 'relay.json');
    const demo = JSON.parse(readFileSync(join(ROOT, 'local/demo-config.json'), 'utf8'));
    const endpoint = await holdingEndpoint();
    const destinations = {
      partner: {
        url: endpoint.url,
        signingSecrets: [`whsec_${randomBytes(32).toString('base64')}`],
        allowPrivateAddresses: true,
        filter: { eventTypes: ['TransactionSucceeded'] },
      },
    };
    const eventsFile = join(dir, 'events.ndjson');
    writeFileSync(config, JSON.stringify({ ...demo, destinations, local: { ...demo.local, eventsFile } }));
    const relay = runTs('local/start.ts', ['--port', String(port), '--config', config]);
    try {
      await waitFor(() => relay.output().includes('listening on'), 45_000, relay.output);
      const dynamo = /DynamoDB Local (http:\/\/127\.0\.0\.1:\d+)/.exec(relay.output())?.[1];
      expect(dynamo).toBeDefined();
      await airtelPayment(`http://localhost:${port}`);
      await waitFor(() => endpoint.held.length > 0, 30_000, relay.output);

      // Act: Ctrl-C (the stop waits for the attempt the endpoint holds), and again once it is stopping.
      relay.child.kill('SIGINT');
      await waitFor(() => relay.output().includes('SIGINT: stopping'), 30_000, relay.output);
      relay.child.kill('SIGINT');

      // Assess
      expect(await relay.exited).toBe(0);
      expect(relay.output()).toContain('SIGINT again: not waiting for the work in flight');
      expect(relay.output()).not.toMatch(/Unhandled|UnhandledPromiseRejection|ResourceNotFound/);
      await expect(fetch(dynamo!, { signal: AbortSignal.timeout(1000) })).rejects.toThrow();
    } finally {
      await endpoint.close();
    }
  }, 90_000);
});
