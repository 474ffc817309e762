import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { postAirtelSuccess, registerAirtelPayment } from '../helpers/airtel-payment';
import { startTestRelay, type TestRelay } from '../helpers/relay';

const KEY = 'e2e-webhook-airtel-callback-key';
const SECRET = `whsec_${randomBytes(32).toString('base64')}`;

let relay: TestRelay;
let receiver: Server;
const received: { headers: IncomingHttpHeaders; body: string }[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const port = (receiver.address() as AddressInfo).port;
  relay = await startTestRelay({
    accounts: { airtel: { demo: { callbackKey: KEY, hashMode: 'enforce', country: 'UG', currency: 'UGX' } } },
    destinations: {
      partner: {
        url: `http://localhost:${port}/webhooks`,
        signingSecrets: [SECRET],
        allowPrivateAddresses: true,
        filter: { eventTypes: ['TransactionSucceeded'] },
      },
    },
  });
});

afterAll(async () => {
  await relay?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
});

describe('npm start delivers webhooks from its event stream', () => {
  it('delivers a TransactionSucceeded to the configured destination, signed so the reference library verifies it', async () => {
    // Prepare
    const reference = await registerAirtelPayment(relay, 'WH');

    // Act
    const response = await postAirtelSuccess(relay, KEY, reference);
    const events = await relay.flush();

    // Assess
    expect(response.status).toBe(200);
    const published = events.find(
      (e) =>
        e.metadata.type === 'TransactionSucceeded' && e.metadata.correlationId === `airtel:demo:${reference}`,
    )!;
    await vi.waitFor(
      () => expect(received.map((r) => r.headers['webhook-id'])).toContain(published.metadata.id),
      {
        timeout: 20_000,
      },
    );
    const delivery = received.find((r) => r.headers['webhook-id'] === published.metadata.id)!;
    expect(new Webhook(SECRET).verify(delivery.body, delivery.headers as Record<string, string>)).toEqual(
      JSON.parse(JSON.stringify(published)),
    );
    // The destination's filter: only TransactionSucceeded (the registration's events are not sent).
    expect(received.every((r) => JSON.parse(r.body).metadata.type === 'TransactionSucceeded')).toBe(true);
  });
});
