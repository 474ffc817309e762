import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isForbiddenAddress } from '../../../../shared/adapters/webhooks/address-guard';
import { HttpWebhookSender, MAX_RESPONSE_BYTES } from '../../../../shared/adapters/webhooks/http-sender';
import type { WebhookRequest } from '../../../../shared/app/delivery/ports';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

/** A real receiver on loopback that counts what reaches it. */
async function receiver(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  host = '127.0.0.1',
): Promise<{ port: number; hits: string[] }> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? '');
    handler(req, res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return { port: (server.address() as AddressInfo).port, hits };
}

const request = (url: string, allowPrivateAddresses = false): WebhookRequest => ({
  url,
  headers: { 'content-type': 'application/json' },
  body: '{}',
  timeoutMs: 15_000,
  allowPrivateAddresses,
});

describe('webhook sender address guard', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '::1',
    '::ffff:127.0.0.1',
    '::ffff:a9fe:a9fe',
    'fd00:ec2::254',
    'fe80::1',
    '100.64.0.1',
    '64:ff9b::a9fe:a9fe',
    '0.0.0.0',
    '224.0.0.1',
    'ff02::1',
    '::127.0.0.1',
    '::a9fe:a9fe',
    '::ffff:0:7f00:1',
    '64:ff9b:1::a9fe:a9fe',
    '2002:7f00:1::',
    '2002:a9fe:a9fe::1',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
  ])('refuses %s', (address) => {
    // Assess
    expect(isForbiddenAddress(address)).toBe(true);
  });

  it.each(['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c', '::ffff:93.184.215.14'])(
    'allows the public address %s',
    (address) => {
      // Assess
      expect(isForbiddenAddress(address)).toBe(false);
    },
  );

  it('refuses a loopback IP literal before connecting: the receiver sees nothing', async () => {
    // Prepare
    const { port, hits } = await receiver((_, res) => res.end());

    // Act
    const response = await new HttpWebhookSender().send(request(`http://127.0.0.1:${port}/hook`));

    // Assess
    expect(response).toMatchObject({ kind: 'failed', error: expect.stringMatching(/refused/) });
    expect(hits).toEqual([]);
  });

  it('refuses a host name that resolves to loopback at connect time', async () => {
    // Prepare
    const { port, hits } = await receiver((_, res) => res.end());

    // Act
    const response = await new HttpWebhookSender().send(request(`http://localhost:${port}/hook`));

    // Assess
    expect(response).toMatchObject({
      kind: 'failed',
      error: expect.stringMatching(/localhost resolves to .* refused/),
    });
    expect(hits).toEqual([]);
  });

  it('refuses the IPv6 loopback literal', async () => {
    // Act
    const response = await new HttpWebhookSender().send(request('http://[::1]:9/hook'));

    // Assess
    expect(response).toMatchObject({ kind: 'failed', error: expect.stringMatching(/refused/) });
  });

  it('reaches a loopback receiver only with the simulator flag', async () => {
    // Prepare
    const { port, hits } = await receiver((_, res) => res.writeHead(204).end());

    // Act
    const response = await new HttpWebhookSender().send(request(`http://localhost:${port}/hook`, true));

    // Assess
    expect(response).toMatchObject({ kind: 'answered', status: 204 });
    expect(hits).toEqual(['/hook']);
  });

  it('answers a redirect as a 302 without following it', async () => {
    // Prepare
    const { port, hits } = await receiver((_, res) => res.writeHead(302, { location: '/elsewhere' }).end());

    // Act
    const response = await new HttpWebhookSender().send(request(`http://127.0.0.1:${port}/hook`, true));

    // Assess
    expect(response).toMatchObject({ kind: 'answered', status: 302 });
    expect(hits).toEqual(['/hook']);
  });

  it('reads at most the bounded excerpt of a large answer and passes Retry-After on', async () => {
    // Prepare
    const { port } = await receiver((_, res) =>
      res.writeHead(503, { 'retry-after': '30' }).end('x'.repeat(1024 * 1024)),
    );

    // Act
    const response = await new HttpWebhookSender().send(request(`http://127.0.0.1:${port}/hook`, true));

    // Assess
    expect(response).toMatchObject({ kind: 'answered', status: 503, retryAfterSeconds: 30 });
    expect(response.kind === 'answered' && response.excerpt.length).toBe(MAX_RESPONSE_BYTES);
  });

  it('gives up on a receiver that starts answering but never finishes, at the request time-out, not before', async () => {
    // Prepare: the status line and one byte, then nothing (a slow drip holds no attempt past its time-out)
    let reached: () => void = () => {};
    const arrived = new Promise<void>((resolve) => (reached = resolve));
    const { port } = await receiver((_, res) => {
      res.writeHead(200);
      res.write('x');
      reached();
    });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      let result: unknown;
      const sending = new HttpWebhookSender()
        .send(request(`http://127.0.0.1:${port}/hook`, true))
        .then((response) => (result = response));
      await arrived;

      // Act
      vi.advanceTimersByTime(14_999);
      await new Promise((resolve) => setImmediate(resolve));
      const beforeTimeOut = result;
      vi.advanceTimersByTime(1);
      await sending;

      // Assess
      expect(beforeTimeOut).toBeUndefined();
      expect(result).toEqual({ kind: 'failed', error: 'no answer within 15000 ms' });
    } finally {
      vi.useRealTimers();
    }
  });
});
