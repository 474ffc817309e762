import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryDeliveryLog } from '../../shared/adapters/memory/delivery-log';
import { MemoryDestinationStates } from '../../shared/adapters/memory/destination-states';
import { HttpWebhookSender } from '../../shared/adapters/webhooks/http-sender';
import { DeliveryEngine } from '../../shared/app/delivery/engine';
import { destinationSchema } from '../../shared/config/schema';
import { buildEvent } from '../../shared/domain/events';
import { createScrubber } from '../../shared/util/redact';
import { DrivenTime } from '../helpers/driven-time';

let server: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

describe('webhook delivery to a real HTTP receiver', () => {
  it('delivers an event refused with 500 a second time, with the same webhook-id, both verified by the reference library', async () => {
    // Prepare
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const received: { headers: IncomingHttpHeaders; body: string }[] = [];
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(received.length === 1 ? 500 : 200).end(received.length === 1 ? 'try later' : 'ok');
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const destination = destinationSchema.parse({
      url: `http://localhost:${port}/webhooks`,
      signingSecrets: [secret],
      allowPrivateAddresses: true,
    });
    const time = new DrivenTime();
    const log = new MemoryDeliveryLog();
    const engine = new DeliveryEngine({
      destinations: { partner: destination },
      secretsOf: () => destination.signingSecrets,
      sender: new HttpWebhookSender(),
      log,
      states: new MemoryDestinationStates(),
      clock: time,
      scheduler: time,
      scrub: createScrubber([secret]),
      runtime: 'local',
    });
    const event = buildEvent(
      'TransactionSucceeded',
      'momo:acct:ref-9',
      'SUCCEEDED',
      'callback',
      time.now().toISOString(),
      {
        provider: 'momo',
        account: 'acct',
        reference: 'ref-9',
      },
    );

    // Act
    await engine.submit(event);
    await engine.settled();
    time.advance(5_000);
    await engine.settled();

    // Assess
    expect(received).toHaveLength(2);
    const webhook = new Webhook(secret);
    for (const { headers, body } of received) {
      expect(webhook.verify(body, headers as Record<string, string>)).toEqual(
        JSON.parse(JSON.stringify(event)),
      );
      expect(headers['webhook-id']).toBe(event.metadata.id);
    }
    expect(log.attemptList.map((a) => [a.status, a.outcome, a.excerpt])).toEqual([
      [500, 'retrying', 'try later'],
      [200, 'delivered', 'ok'],
    ]);
  });
});
