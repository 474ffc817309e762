import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
  STATUS_CODES,
} from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { routesAt } from '../shared/config/management-routes';
import type { ReceivedRequest } from '../shared/app/ports';
import {
  MethodNotAllowedError,
  PayloadTooLargeError,
  type RelayError,
  RequestHeadersTooLargeError,
} from '../shared/domain/errors';
import { toInboundRequest } from '../shared/http/api-gateway';
import { errorResponse, statusFor } from '../shared/http/error-mapping';
import { API_ANSWER_HEADERS, type HttpResponse } from '../shared/http/types';
import { lambdaContext, requestUrl, type SourceIpOptions, toApiGatewayEvent } from './lambda-adapter';
import { clientErrorAsRelayError, type LocalRefusalRecorder, unparsedRequest } from './refused-request';
import { untilDone } from './shutdown';

type HttpLambda = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>;

export interface Readiness {
  ready: boolean;
  /** One entry per dependency; an entry `{ ok: false, … }` names that dependency as down. */
  checks: Record<string, unknown>;
}

export interface LocalServerOptions extends SourceIpOptions {
  callback: HttpLambda;
  management: HttpLambda;
  /** Extra fields of the `GET /health` answer (endpoint, table, number of accounts). */
  health: () => Promise<Record<string, unknown>>;
  /** Readiness: can the relay serve callbacks right now (storage answers)? See `readinessOf`. */
  ready: () => Promise<Readiness>;
  /** The console's event stream (GET /v1/events/stream): answers and returns true when the path is its own. */
  events?: (path: string, request: IncomingMessage, response: ServerResponse) => Promise<boolean>;
  /** Static pages (the operator console under /console/): answers and returns true when the path is its own. */
  site?: (path: string, response: ServerResponse) => Promise<boolean>;
  /** Records the server's own refusals (npm start: the quarantine); absent, they are noted on standard error. */
  refused?: LocalRefusalRecorder;
}

/** How long one readiness check may take before its dependency counts as down. */
export const READY_CHECK_TIMEOUT_MS = 1000;

/** One dependency check: resolves (optionally with details) when the dependency answers. */
export type DependencyCheck = (signal: AbortSignal) => Promise<Record<string, unknown> | void>;

/**
 * Runs the checks in parallel, each bounded by `timeoutMs` (its signal is aborted then):
 * `{ ready, checks: { name: { ok, latencyMs, error? } } }`.
 */
export function readinessOf(
  checks: Record<string, DependencyCheck>,
  timeoutMs = READY_CHECK_TIMEOUT_MS,
): () => Promise<Readiness> {
  return async () => {
    const results = await Promise.all(
      Object.entries(checks).map(async ([name, check]) => {
        const started = Date.now();
        const controller = new AbortController();
        let timer: NodeJS.Timeout | undefined;
        const timedOut = new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            const error = new Error(`no answer within ${timeoutMs} ms`);
            error.name = 'TimeoutError';
            controller.abort(error);
            reject(error);
          }, timeoutMs);
        });
        try {
          const details = await Promise.race([check(controller.signal), timedOut]);
          return [name, { ok: true, latencyMs: Date.now() - started, ...(details ?? {}) }] as const;
        } catch (error) {
          const e = error as Error;
          return [
            name,
            { ok: false, latencyMs: Date.now() - started, error: `${e.name}: ${e.message}` },
          ] as const;
        } finally {
          clearTimeout(timer);
        }
      }),
    );
    return { ready: results.every(([, r]) => r.ok), checks: Object.fromEntries(results) };
  };
}

/** Readiness check of DynamoDB: DescribeTable of the relay table (cheap, no capacity consumed). */
export function describeTableCheck(client: DynamoDBClient, tableName: string): DependencyCheck {
  return async (signal) => {
    const table = await client.send(new DescribeTableCommand({ TableName: tableName }), {
      abortSignal: signal,
    });
    return { table: tableName, status: table.Table?.TableStatus };
  };
}

/** Names of the checks reporting `ok: false`. */
function downOf(readiness: Readiness): string[] {
  return Object.entries(readiness.checks)
    .filter(([, check]) => (check as { ok?: unknown } | null)?.ok === false)
    .map(([name]) => name);
}

/** The readiness function itself must not hang or throw the health answer away. */
async function checkReadiness(ready: () => Promise<Readiness>): Promise<Readiness> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      ready(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`readiness check gave no answer within ${READY_CHECK_TIMEOUT_MS * 2} ms`)),
          READY_CHECK_TIMEOUT_MS * 2,
        );
      }),
    ]);
  } catch (error) {
    return { ready: false, checks: { readiness: { ok: false, error: (error as Error).message } } };
  } finally {
    clearTimeout(timer);
  }
}

const HEALTH_HEADERS = { 'content-type': 'application/json' };

/**
 * `GET /health/live`: liveness, 200 as long as the process serves HTTP.
 * `GET /health/ready`: readiness, 200 when every dependency answers within its timeout, else 503
 * naming what is down (`down`).
 * `GET /health`: liveness (always 200), with the readiness verdict (`ready`) and the relay's details.
 */
async function answerHealth(path: string, options: LocalServerOptions, response: ServerResponse) {
  if (path === '/health/live') {
    send(response, 200, HEALTH_HEADERS, JSON.stringify({ status: 'ok' }));
    return;
  }
  const readiness = await checkReadiness(options.ready);
  if (path === '/health/ready') {
    const body = readiness.ready
      ? { status: 'ready', ready: true, checks: readiness.checks }
      : { status: 'unavailable', ready: false, down: downOf(readiness), checks: readiness.checks };
    send(response, readiness.ready ? 200 : 503, HEALTH_HEADERS, JSON.stringify(body));
    return;
  }
  const details = await options.health().catch(() => ({}));
  send(response, 200, HEALTH_HEADERS, JSON.stringify({ ...details, status: 'ok', ready: readiness.ready }));
}

const HEALTH_PATHS = new Set(['/health', '/health/live', '/health/ready']);

/** Same limit as API Gateway's payload limit; the relay's own (smaller) limit is checked by the handler. */
const MAX_REQUEST_BYTES = 10 * 1024 * 1024;

function readBody(request: IncomingMessage): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES) {
        resolve('too-large');
        request.resume();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

/**
 * API Gateway's quota for HTTP APIs: the request line and the header values together, at most 10,240
 * bytes; it refuses a larger request before any Lambda runs. The local server refuses it too, so a long
 * search query fails the same way under `npm start` as in AWS.
 */
export const MAX_REQUEST_LINE_AND_HEADER_BYTES = 10_240;

function requestLineAndHeaderBytes(request: IncomingMessage): number {
  let bytes = Buffer.byteLength(`${request.method} ${request.url} HTTP/${request.httpVersion}`);
  for (let i = 1; i < request.rawHeaders.length; i += 2) bytes += Buffer.byteLength(request.rawHeaders[i]!);
  return bytes;
}

/** The relay's refusal of a request line and headers over the quota (`bytes`: when Node counted them). */
function headersTooLarge(bytes?: number): RelayError {
  const size = bytes === undefined ? 'over the limit' : `${bytes} bytes`;
  return new RequestHeadersTooLargeError(
    `The request line and header values are ${size}; the limit is ${MAX_REQUEST_LINE_AND_HEADER_BYTES} (a query that long: send fewer or shorter filters)`,
    { details: { limit: MAX_REQUEST_LINE_AND_HEADER_BYTES } },
  );
}

/** The relay's refusal of a body over API Gateway's payload quota (the handlers check the relay's own, smaller limit). */
function bodyTooLarge(): RelayError {
  return new PayloadTooLargeError(`The body is over ${MAX_REQUEST_BYTES} bytes, the most the API takes`, {
    details: { limit: MAX_REQUEST_BYTES },
  });
}

/**
 * The local server's own refusals (a request Node could not parse, one over API Gateway's quotas) are
 * recorded as the relay records every refusal (`options.refused`: the quarantine under `npm start`);
 * without a recorder they are noted on standard error, one line each, never echoing what was sent.
 */
function refusalRecorder(options: LocalServerOptions, track: (work: Promise<void>) => void) {
  return (request: ReceivedRequest, error: RelayError): void => {
    if (!options.refused) {
      process.stderr.write(`local server refused a request: ${statusFor(error)} ${error.code}\n`);
      return;
    }
    track(
      options.refused(request, error).catch((failure: unknown) => {
        process.stderr.write(`local server could not record a refusal: ${(failure as Error).message}\n`);
      }),
    );
  };
}

/** What the quarantine takes of a request the server refused before reading its body. */
function receivedOf(request: IncomingMessage, options: SourceIpOptions): ReceivedRequest {
  return toInboundRequest(toApiGatewayEvent(request, Buffer.alloc(0), options));
}

function sendAnswer(response: ServerResponse, answer: HttpResponse): void {
  send(response, answer.statusCode, answer.headers ?? {}, JSON.stringify(answer.body));
}

/**
 * Node's HTTP parser refuses bytes before a request exists (a bad request line, a header with invalid
 * characters, headers over its 16 KB, headers that do not arrive in time) and would answer a bare 400 (or
 * 431, 408) without headers: the answer is written here in the relay's shape with its headers, and the
 * refusal recorded with what is known (the source, the first bytes, Node's reason). A connection already
 * gone (ECONNRESET, or ended mid-request) is only closed.
 */
function clientErrorAnswerer(record: (request: ReceivedRequest, error: RelayError) => void) {
  return (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex): void => {
    // The client is gone (a reset, or the connection ended mid-request): nothing to answer or record.
    if (!socket.writable || error.code === 'ECONNRESET' || error.code === 'HPE_INVALID_EOF_STATE') {
      socket.destroy();
      return;
    }
    const refusal = error.code === 'HPE_HEADER_OVERFLOW' ? headersTooLarge() : clientErrorAsRelayError(error);
    record(unparsedRequest(error.rawPacket, (socket as Socket).remoteAddress), refusal);
    const answer = errorResponse(refusal);
    const body = JSON.stringify(answer.body);
    const headers = {
      ...API_ANSWER_HEADERS,
      ...answer.headers,
      'content-length': String(Buffer.byteLength(body)),
      connection: 'close',
    };
    const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
    socket.end(
      `HTTP/1.1 ${answer.statusCode} ${STATUS_CODES[answer.statusCode]}\r\n${lines.join('')}\r\n${body}`,
    );
  };
}

function send(
  response: ServerResponse,
  statusCode: number,
  headers: Record<string, string>,
  body: string,
): void {
  // The local server's own answers (health, 413, 500) get the API's headers as the Lambda answers do.
  response.writeHead(statusCode, {
    'content-length': Buffer.byteLength(body).toString(),
    ...API_ANSWER_HEADERS,
    ...headers,
  });
  response.end(body);
}

/** The local server, with the first step of npm start's stop. */
export interface LocalServer extends Server {
  /**
   * Stops taking requests (new connections are refused; a request on a kept-alive one is answered 503 with
   * `connection: close`), waits until the requests being handled are answered or `hurry` aborts, then closes
   * every connection (the console's event streams too).
   */
  shutdown(hurry: AbortSignal): Promise<void>;
}

/** The answer to a request that arrives on a kept-alive connection while the relay stops. */
function answerStopping(response: ServerResponse): void {
  send(
    response,
    503,
    { 'content-type': 'application/json', connection: 'close', 'retry-after': '5' },
    JSON.stringify({ error: { code: 'SHUTTING_DOWN', message: 'The relay is stopping' } }),
  );
}

/**
 * The local stand-in for API Gateway: the same routes as the cloud (the management route table,
 * shared/config/management-routes.ts, to the management function; everything else, as under the
 * $default route, to the callback function).
 */
export function createLocalServer(options: LocalServerOptions): LocalServer {
  const handling = new Set<Promise<void>>();
  // Requests being answered and refusals being recorded: a stop waits for both.
  const track = (work: Promise<void>): void => {
    const tracked = work.finally(() => handling.delete(tracked));
    handling.add(tracked);
  };
  const record = refusalRecorder(options, track);
  let stopping = false;
  const server = createServer((request, response) => {
    if (stopping) {
      answerStopping(response);
      return;
    }
    track(
      answerRequest(options, record, request, response).catch((error: unknown) => {
        process.stderr.write(`local server error: ${(error as Error).stack ?? String(error)}\n`);
        response.destroy();
      }),
    );
  });
  server.on('clientError', clientErrorAnswerer(record));
  return Object.assign(server, {
    async shutdown(hurry: AbortSignal): Promise<void> {
      stopping = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // A request answered may be followed by another on its connection: answered 503, and waited for too.
      while (handling.size > 0 && !hurry.aborted) await untilDone(Promise.all(handling), hurry);
      server.closeAllConnections();
      await closed;
    },
  });
}

async function answerRequest(
  options: LocalServerOptions,
  record: (request: ReceivedRequest, error: RelayError) => void,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  try {
    const headerBytes = requestLineAndHeaderBytes(request);
    if (headerBytes > MAX_REQUEST_LINE_AND_HEADER_BYTES) {
      const refusal = headersTooLarge(headerBytes);
      record(receivedOf(request, options), refusal);
      sendAnswer(response, errorResponse(refusal));
      return;
    }
    const path = requestUrl(request.url).pathname;
    if (HEALTH_PATHS.has(path)) {
      // HEAD as GET (Node sends no body for it): a load balancer's or a monitor's probe.
      if (request.method === 'GET' || request.method === 'HEAD') {
        await answerHealth(path, options, response);
        return;
      }
      const refusal = new MethodNotAllowedError(['GET', 'HEAD'], request.method ?? '');
      record(receivedOf(request, options), refusal);
      sendAnswer(response, errorResponse(refusal));
      return;
    }
    if (options.events && (await options.events(path, request, response))) return;
    if (request.method === 'GET' && options.site && (await options.site(path, response))) return;
    const body = await readBody(request);
    if (body === 'too-large') {
      const refusal = bodyTooLarge();
      record(receivedOf(request, options), refusal);
      sendAnswer(response, errorResponse(refusal));
      return;
    }
    // The paths of the management route table, whatever the method: a wrong one is the management
    // function's 405 naming the allowed methods (API Gateway would send it to $default).
    const isManagement = routesAt(path).length > 0;
    const lambda = isManagement ? options.management : options.callback;
    const event = toApiGatewayEvent(request, body, options);
    const result = await lambda(event, lambdaContext(isManagement ? 'relay-management' : 'relay-callback'));
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(result.headers ?? {})) headers[k] = String(v);
    const text = result.isBase64Encoded
      ? Buffer.from(result.body ?? '', 'base64').toString()
      : (result.body ?? '');
    send(response, result.statusCode ?? 200, headers, text);
  } catch (error) {
    // The handlers already turn every error into an answer; reaching here is a bug in the local adapter.
    process.stderr.write(`local server error: ${(error as Error).stack ?? String(error)}\n`);
    if (!response.headersSent)
      send(response, 500, { 'content-type': 'application/json' }, '{"error":{"code":"INTERNAL_ERROR"}}');
  }
}
