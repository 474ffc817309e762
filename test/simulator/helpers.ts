import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ManualClock } from '../../simulator/core/clock';
import { createSimulator, type Simulator, type SimulatorOptions } from '../../simulator/server';

export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface ReceiverAnswer {
  status?: number;
  body?: unknown;
  /** Never answer (the connection is closed when the receiver closes). */
  hang?: boolean;
}

export interface Receiver {
  /** `http://localhost:<port>`: a host name, as MoMo's providerCallbackHost check requires. */
  url: string;
  requests: Received[];
  answer: (r: Received) => ReceiverAnswer;
  waitFor(count: number, filter?: (r: Received) => boolean, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/** A tiny HTTP server recording what the simulator sends; answers 200 `{}` unless told otherwise. */
export async function startReceiver(answer: (r: Received) => ReceiverAnswer = () => ({})): Promise<Receiver> {
  const requests: Received[] = [];
  const hanging: ServerResponse[] = [];
  const receiver: Receiver = {
    url: '',
    requests,
    answer,
    async waitFor(count, filter = () => true, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const matching = requests.filter(filter);
        if (matching.length >= count) return matching;
        await new Promise((r) => setTimeout(r, 10));
      }
      throw new Error(`expected ${count} request(s), got ${requests.filter(filter).length}`);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      requests.push(r);
      const a = receiver.answer(r);
      if (a.hang) {
        hanging.push(res);
        return;
      }
      res.writeHead(a.status ?? 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(a.body ?? {}));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://localhost:${(server.address() as AddressInfo).port}`;
  return receiver;
}

/** A quiet simulator with compressed time: 20 ms payer answers, 5-minute window ≈ 300 ms. */
export function startSim(options: SimulatorOptions = {}): Promise<Simulator> {
  return createSimulator({ port: 0, log: () => {}, approvalDelayMs: 20, timeScale: 0.001, ...options });
}

/**
 * `startSim` on a `ManualClock`: payers answer, windows close and tokens expire only when the test calls
 * `clock.advance`, so a state before a timer can be observed however slow the machine is. Note that
 * `sim.whenIdle()` waits for timers too: advance the clock past them first.
 */
export async function startHeldSim(
  options: SimulatorOptions = {},
): Promise<{ sim: Simulator; clock: ManualClock }> {
  const clock = new ManualClock();
  return { sim: await startSim({ ...options, clock }), clock };
}

export interface HttpResult {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export async function call(
  sim: Simulator,
  method: string,
  path: string,
  init: { headers?: Record<string, string>; body?: unknown; raw?: string } = {},
): Promise<HttpResult> {
  const headers: Record<string, string> = { ...init.headers };
  let body: string | undefined = init.raw;
  if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${sim.url}${path}`, { method, headers, body });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

export const parse = <T = Record<string, unknown>>(r: Received): T => JSON.parse(r.body) as T;

/** Independent HMAC for checking Airtel hashes (not the simulator's code). */
export const hmacB64 = (key: string, text: string) => createHmac('sha256', key).update(text).digest('base64');
export const hmacHex = (key: string, text: string) => createHmac('sha256', key).update(text).digest('hex');

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Retries an assertion until it passes or the timeout ends (for states reached on a timer). */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await sleep(15);
    }
  }
}

/** Slows the payer down so a test can observe the state before the answer, even on a busy machine. */
export async function slowPayer(sim: Simulator, ms = 500): Promise<void> {
  await call(sim, 'PATCH', '/_sim/config', { body: { approvalDelayMs: ms } });
}
