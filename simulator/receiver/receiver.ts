import { readFileSync } from 'node:fs';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/**
 * A sample partner endpoint for webhook destinations (docs/webhooks.md#the-simulators-receiver): it
 * verifies every delivery with the Standard Webhooks reference library (not the relay's code) and prints
 * it, and can misbehave the way real endpoints do, so every delivery rule is seen end to end.
 */
const RECEIVER_FAULTS = ['none', 'slow', '500', '410', '429', 'tls'] as const;
export type ReceiverFault = (typeof RECEIVER_FAULTS)[number];

export class ReceiverOptionError extends Error {
  override name = 'ReceiverOptionError';
}

export interface ReceiverOptions {
  port: number;
  host?: string;
  /** The destination's signing secret (whsec_…): what the partner was given. */
  secret: string;
  fault: ReceiverFault;
  /** `500` and `429`: how many first deliveries fail before the endpoint answers 200. */
  failures?: number;
  /** `slow`: how long it waits before answering (past the relay's 15 s time-out by default). */
  delayMs?: number;
  /** `429`: the Retry-After it sends, in seconds. */
  retryAfterSeconds?: number;
  print?: (line: string) => void;
}

interface ReceivedWebhook {
  id: string;
  timestamp: string;
  /** The `webhook-signature` header: one `v1,…` per signing secret (two during a rotation). */
  signature: string;
  /** Whether the reference library verified the signature and timestamp. */
  verified: boolean;
  error?: string;
  type?: string;
  body: string;
  answered: number;
}

export interface RunningReceiver {
  url: string;
  port: number;
  received: ReceivedWebhook[];
  stop(): Promise<void>;
}

const DEFAULT_SLOW_MS = 20_000;

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

export async function startReceiver(options: ReceiverOptions): Promise<RunningReceiver> {
  if (!(RECEIVER_FAULTS as readonly string[]).includes(options.fault))
    throw new ReceiverOptionError(`--fault: one of ${RECEIVER_FAULTS.slice(1).join(', ')}`);
  const webhook = new Webhook(options.secret);
  const print = options.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  const failures = options.failures ?? 1;
  const received: ReceivedWebhook[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let failed = 0;

  const answer = (): { status: number; headers: Record<string, string>; delayMs: number } => {
    if (options.fault === '410') return { status: 410, headers: {}, delayMs: 0 };
    if ((options.fault === '500' || options.fault === '429') && failed < failures) {
      failed += 1;
      return options.fault === '500'
        ? { status: 500, headers: {}, delayMs: 0 }
        : { status: 429, headers: { 'retry-after': String(options.retryAfterSeconds ?? 2) }, delayMs: 0 };
    }
    if (options.fault === 'slow')
      return { status: 200, headers: {}, delayMs: options.delayMs ?? DEFAULT_SLOW_MS };
    return { status: 200, headers: {}, delayMs: 0 };
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const body = await readBody(request);
    const headers = Object.fromEntries(
      Object.entries(request.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]),
    );
    const entry: ReceivedWebhook = {
      id: headers['webhook-id'] ?? '',
      timestamp: headers['webhook-timestamp'] ?? '',
      signature: headers['webhook-signature'] ?? '',
      verified: false,
      body,
      answered: 0,
    };
    try {
      const event = webhook.verify(body, headers) as { metadata?: { type?: string } };
      entry.verified = true;
      if (event.metadata?.type) entry.type = event.metadata.type;
    } catch (error) {
      entry.error = (error as Error).message;
    }
    // A delivery that does not verify is refused as a real partner would (and never counts as a fault).
    const {
      status,
      headers: extra,
      delayMs,
    } = entry.verified ? answer() : { status: 401, headers: {}, delayMs: 0 };
    entry.answered = status;
    received.push(entry);
    const signatures = (headers['webhook-signature'] ?? '').split(' ').filter(Boolean).length;
    print(
      `${entry.verified ? '✔ verified' : `✖ NOT verified (${entry.error})`} webhook-id=${entry.id} ` +
        `${entry.type ?? ''} signatures=${signatures} → ${status}${delayMs ? ` after ${delayMs} ms` : ''}`,
    );
    const send = () => {
      if (!response.destroyed)
        response.writeHead(status, { 'content-type': 'text/plain', ...extra }).end(`${status}\n`);
    };
    if (delayMs === 0) send();
    else {
      const timer = setTimeout(() => {
        timers.delete(timer);
        send();
      }, delayMs);
      timers.add(timer);
    }
  };
  const listener = (request: IncomingMessage, response: ServerResponse) => {
    handle(request, response).catch((error: unknown) => {
      print(`✖ receiver error: ${(error as Error).message}`);
      if (!response.headersSent) response.writeHead(500).end();
    });
  };
  // `tls`: https with a self-signed certificate for another name, which the relay must refuse.
  const server: Server =
    options.fault === 'tls'
      ? createHttpsServer(
          {
            cert: readFileSync(new URL('./wrong-tls.cert.pem', import.meta.url)),
            key: readFileSync(new URL('./wrong-tls.key.pem', import.meta.url)),
          },
          listener,
        )
      : createHttpServer(listener);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const scheme = options.fault === 'tls' ? 'https' : 'http';
  return {
    url: `${scheme}://localhost:${port}/webhooks`,
    port,
    received,
    async stop() {
      for (const timer of timers) clearTimeout(timer);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
