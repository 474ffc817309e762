/**
 * Provider simulator: one local HTTP server speaking MTN MoMo, Airtel Money and Safaricom Daraja sandbox
 * dialects (the providers' real paths, and Daraja's under a neutral `/wallet` alias too), sending their callbacks, with fault knobs.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { registerAdmin } from './admin/routes';
import { Books } from './core/books';
import { airtelKeyPair, createAirtel } from './airtel';
import { type BadgesInfo, createBadges } from './badges';
import { type CallbackLogEntry, CallbackSender } from './core/callbacks';
import { Scheduler } from './core/clock';
import type { SimContext } from './core/context';
import { FaultSpecError, FaultStore, formatFaults, type GlobalFaultsInput, parseFaults } from './core/faults';
import { normaliseRemoteAddress, type Reply, RequestContext, SimHttpError } from './core/http';
import { Logger, maskDigitsInText } from './core/log';
import { Router } from './core/router';
import { createDaraja, DARAJA_PREFIXES } from './daraja';
import { darajaErrors } from './daraja/errors';
import { createMomo } from './momo';
import { MOMO_PRODUCTS } from './momo/auth';
import { momoErrors, respellError } from './momo/errors';
import { type ResolvedOptions, resolveOptions, type SimulatorOptions } from './options';

export type { SimulatorOptions } from './options';

/** Request bodies above this are refused: no provider operation comes close. */
const MAX_BODY_BYTES = 1024 * 1024;

class BodyTooLargeError extends Error {
  constructor() {
    super(`request body exceeds ${MAX_BODY_BYTES} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

export interface SimulatorInfo {
  baseUrl: string;
  momo: {
    collectionSubscriptionKeys: { primary: string; secondary: string };
    disbursementSubscriptionKeys: { primary: string; secondary: string };
    remittanceSubscriptionKeys: { primary: string; secondary: string };
    apiUsers: { id: string; apiKey: string | undefined; providerCallbackHost: string }[];
    targetEnvironment: string;
    currency: string;
    sandboxMsisdnBase: string;
  };
  airtel: {
    apps: {
      clientId: string;
      clientSecret: string;
      callbackUrl: string | undefined;
      callbackAuth: boolean;
      callbackKey: string;
      hashRecipe: string;
      messageSigning: boolean;
    }[];
  };
  daraja: {
    consumerKey: string;
    consumerSecret: string;
    passkeys: Record<string, string>;
    callbackSourceIp: string;
  };
  /** The badge API of a shop plugin (`cpbw/v1`). */
  badges: BadgesInfo;
  foreignSourceIp: string;
  admin: string[];
}

export interface Simulator {
  url: string;
  port: number;
  /** Credentials and endpoints the simulator accepts now (what `main.ts` prints). */
  info(): SimulatorInfo;
  /** Everything the simulator sent (callbacks, validations, queue-timeout notices), oldest first. */
  callbacks(): CallbackLogEntry[];
  transactions(provider?: string): unknown[];
  /** Replaces the global faults, e.g. `{ daraja: 'foreign-ip', all: 'delay=200' }`. */
  setFaults(faults: GlobalFaultsInput): void;
  /** Clears transactions, callbacks, timers and faults (back to the start options); keeps credentials and tokens. */
  reset(): void;
  /** Resolves when nothing is scheduled or in flight (pending approvals, callbacks being sent). */
  whenIdle(): Promise<void>;
  /** The Airtel RSA public key (PEM) that `/v1/rsa/encryption-keys` serves. */
  airtelPublicKeyPem: string;
  /** Live options; `PATCH /_sim/config` changes some of them. */
  options: ResolvedOptions;
  close(): Promise<void>;
}

const ADMIN_ENDPOINTS = [
  'GET    /_sim/health',
  'GET    /_sim/info',
  'GET    /_sim/faults | PUT /_sim/faults {"all"|"momo"|"airtel"|"daraja": "<spec>"} | DELETE /_sim/faults',
  'GET    /_sim/config | PATCH /_sim/config',
  'GET    /_sim/callbacks[?provider=&kind=&reference=] | DELETE /_sim/callbacks',
  'GET    /_sim/transactions[?provider=]',
  'POST   /_sim/reset',
  'GET    /_sim/daraja/c2b | PUT /_sim/daraja/c2b/{shortCode} {"externalValidation": bool}',
  'GET    /_sim/airtel/public-key',
  'GET    /_sim/badges/faults | PUT /_sim/badges/faults {"spec": "<faults>"} | DELETE /_sim/badges/faults',
  'POST   /_sim/badges/{id}/expire {"inSeconds"?: N} (valid_to = now + N seconds)',
  'POST   /_sim/never-answers (a decision endpoint that holds the request and never answers)',
  'GET    /_sim/books/faults | PUT /_sim/books/faults {"missingEvery"|"duplicateEvery"|"lateEvery": N, "feePercent": P, "pullFailure": true|N} | DELETE /_sim/books/faults',
  'GET    /_sim/books/{provider}/{account} (the money moved, and the rows as served)',
  'GET    /_sim/statements/{provider}/{account}[?layout=&from=&to=&subAccount=] (CSV: mpesa-merchant, mpesa-paybill, momo, airtel)',
  'header X-Sim-Fault: drop, delay=MS, repeat=N, stale-after-final, corrupt-hash, foreign-ip[=IP], status-5xx[=CODE], status-5xx-times=N, status-slow=MS, token-expire-early[=MS], queue-timeout[=echo|result], late-result=MS',
];

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        reject(new BodyTooLargeError());
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function isDarajaPath(path: string): boolean {
  return path.startsWith('/oauth/') || DARAJA_PREFIXES.some((p) => path === p || path.startsWith(`${p}/`));
}

/** Every product prefix plus provisioning, so a product added to MOMO_PRODUCTS gets MoMo's 404 too. */
const MOMO_PATH = new RegExp(`^/(${[...MOMO_PRODUCTS, 'apiuser', 'v1_0'].join('|')})(/|$)`);

function isMomoPath(path: string): boolean {
  return MOMO_PATH.test(path);
}

function toReply(e: SimHttpError): Reply {
  return e.headers
    ? { status: e.status, body: e.body, headers: e.headers }
    : { status: e.status, body: e.body };
}

export async function createSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const opts = resolveOptions(options);
  const logger = new Logger(opts.log);
  const scheduler = new Scheduler(opts.timeScale, options.clock);
  const sender = new CallbackSender(scheduler, logger, {
    foreignIp: opts.foreignSourceIp,
    timeoutMs: opts.callbackTimeoutMs,
  });
  const faults = new FaultStore(opts.faults);
  const onTaskError = (e: unknown) =>
    logger.line(`background task failed: ${e instanceof Error ? e.stack : String(e)}`);
  const sim: SimContext = {
    opts,
    scheduler,
    sender,
    faults,
    logger,
    books: new Books(),
    background: (task) => scheduler.run(task, onTaskError),
    later: (ms, task) => scheduler.after(ms, task, onTaskError),
  };

  const router = new Router();
  const momo = createMomo(sim, router);
  const airtel = createAirtel(sim, router, await airtelKeyPair(opts.airtel.rsaPrivateKeyPem));
  const daraja = createDaraja(sim, router);
  const providers = { momo, airtel, daraja };
  const badges = createBadges(sim, router);

  let baseUrl = '';
  const info = (): SimulatorInfo => ({
    baseUrl,
    momo: {
      collectionSubscriptionKeys: opts.momo.collectionSubscriptionKeys,
      disbursementSubscriptionKeys: opts.momo.disbursementSubscriptionKeys,
      remittanceSubscriptionKeys: opts.momo.remittanceSubscriptionKeys,
      apiUsers: [...momo.auth.users.values()].map((u) => ({
        id: u.id,
        apiKey: u.apiKey,
        providerCallbackHost: u.providerCallbackHost,
      })),
      targetEnvironment: opts.momo.targetEnvironment,
      currency: opts.momo.currency,
      sandboxMsisdnBase: opts.momo.sandboxMsisdnBase,
    },
    airtel: { apps: opts.airtel.apps.map((a) => ({ ...a })) },
    daraja: {
      consumerKey: opts.daraja.consumerKey,
      consumerSecret: opts.daraja.consumerSecret,
      passkeys: opts.daraja.passkeys,
      callbackSourceIp: opts.daraja.callbackSourceIp,
    },
    badges: badges.info(),
    foreignSourceIp: opts.foreignSourceIp,
    admin: ADMIN_ENDPOINTS,
  });
  const transactions = (provider?: string): unknown[] =>
    Object.entries(providers)
      .filter(([name]) => !provider || name === provider)
      .flatMap(([, p]) => p.transactions());
  const reset = () => {
    scheduler.clear();
    sender.abortAll();
    sender.clearLog();
    faults.resetToInitial();
    for (const p of Object.values(providers)) p.reset();
    sim.books.reset();
    badges.reset();
    logger.line('reset');
  };

  registerAdmin(router, {
    sim,
    sender,
    info,
    transactions,
    reset,
    daraja,
    airtelPublicKeyPem: airtel.publicKeyPem,
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = Date.now();
    const method = req.method ?? 'GET';
    const url = new URL(req.url ?? '/', 'http://simulator.local');
    const rawPath = url.pathname;
    const path = rawPath.length > 1 && rawPath.endsWith('/') ? rawPath.slice(0, -1) : rawPath;
    let reply: Reply;
    let faultTag = '';
    try {
      const rawBody = await readBody(req);
      const faultHeader = req.headers['x-sim-fault'];
      const requestFaults = parseFaults(Array.isArray(faultHeader) ? faultHeader.join(',') : faultHeader);
      faultTag = formatFaults(requestFaults);
      const ctx = new RequestContext(
        method,
        path,
        rawPath,
        url.searchParams,
        req.headers,
        rawBody,
        requestFaults,
        normaliseRemoteAddress(req.socket.remoteAddress),
      );
      reply = await dispatch(ctx);
    } catch (e) {
      if (e instanceof SimHttpError) reply = toReply(e);
      else if (e instanceof FaultSpecError)
        reply = { status: 400, body: { error: 'SIM_BAD_FAULT', message: e.message } };
      else if (e instanceof BodyTooLargeError)
        reply = { status: 413, body: { error: 'PAYLOAD_TOO_LARGE', message: e.message } };
      else {
        logger.line(
          `internal error on ${method} ${maskDigitsInText(rawPath)}: ${e instanceof Error ? e.stack : String(e)}`,
        );
        reply = {
          status: 500,
          body: { error: 'SIM_INTERNAL', message: e instanceof Error ? e.message : String(e) },
        };
      }
    }
    const text = reply.raw ?? (reply.body === undefined ? '' : JSON.stringify(reply.body));
    const headers: Record<string, string> = { ...reply.headers };
    if (text && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
      headers['content-type'] = 'application/json';
    }
    // A held request (never-answers) may outlive its connection: nothing to answer then.
    if (!res.headersSent && !res.destroyed) {
      res.writeHead(reply.status, headers);
      res.end(text);
    }
    if (!path.startsWith('/_sim/')) {
      logger.line(
        `${method} ${maskDigitsInText(rawPath)} ${reply.status} ${Date.now() - started}ms${faultTag ? ` [X-Sim-Fault: ${faultTag}]` : ''}`,
      );
    }
  }

  // MoMo's own routes re-spell their errors (momo/spelling.ts); these come from the dispatcher, outside them.
  const momoError = (e: SimHttpError) => respellError(e, opts.momo.errorSpelling);

  async function dispatch(ctx: RequestContext): Promise<Reply> {
    // MoMo Open API docs: a malformed URL such as one with extra slashes is a 400.
    if (ctx.rawPath.includes('//')) {
      throw isDarajaPath(ctx.path)
        ? darajaErrors.notFound()
        : momoError(momoErrors.badRequest('Malformed URL.'));
    }
    const match = router.match(ctx.method, ctx.path);
    if (match.kind === 'found') {
      ctx.params = match.params;
      return match.handler(ctx);
    }
    if (match.kind === 'method-not-allowed') {
      if (match.owner === 'daraja') throw darajaErrors.wrongMethod();
      return {
        status: 405,
        body: { error: 'METHOD_NOT_ALLOWED', message: `use ${match.allowed.join(' or ')}` },
        headers: { allow: match.allowed.join(', ') },
      };
    }
    if (isDarajaPath(ctx.path)) throw darajaErrors.notFound();
    if (isMomoPath(ctx.path)) throw momoError(momoErrors.notFound());
    return { status: 404, body: { error: 'NOT_FOUND', message: `no route for ${ctx.method} ${ctx.path}` } };
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((e) => {
      logger.line(`request handling failed: ${e instanceof Error ? e.message : String(e)}`);
      if (!res.headersSent) res.writeHead(500).end();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const hostForUrl = opts.host === '0.0.0.0' || opts.host === '::' ? '127.0.0.1' : opts.host;
  baseUrl = `http://${hostForUrl.includes(':') ? `[${hostForUrl}]` : hostForUrl}:${port}`;

  let closed = false;
  return {
    url: baseUrl,
    port,
    info,
    callbacks: () => [...sender.log],
    transactions,
    setFaults: (input) => faults.replace(input),
    reset,
    whenIdle: () => scheduler.whenIdle(),
    airtelPublicKeyPem: airtel.publicKeyPem,
    options: opts,
    close: async () => {
      if (closed) return;
      closed = true;
      scheduler.clear();
      sender.abortAll();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
