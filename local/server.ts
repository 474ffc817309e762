import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { lambdaContext, type SourceIpOptions, toApiGatewayEvent } from './lambda-adapter';

type HttpLambda = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>;

export interface LocalServerOptions extends SourceIpOptions {
  callback: HttpLambda;
  management: HttpLambda;
  health: () => Promise<Record<string, unknown>>;
}

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

function send(
  response: ServerResponse,
  statusCode: number,
  headers: Record<string, string>,
  body: string,
): void {
  response.writeHead(statusCode, { 'content-length': Buffer.byteLength(body).toString(), ...headers });
  response.end(body);
}

/**
 * The local stand-in for API Gateway: the same routes as the cloud (management routes to the
 * management function, everything else under the $default route to the callback function).
 */
export function createLocalServer(options: LocalServerOptions): Server {
  return createServer(async (request, response) => {
    try {
      const path = new URL(request.url ?? '/', 'http://localhost').pathname;
      if (path === '/health' && request.method === 'GET') {
        send(response, 200, { 'content-type': 'application/json' }, JSON.stringify(await options.health()));
        return;
      }
      const body = await readBody(request);
      if (body === 'too-large') {
        send(
          response,
          413,
          { 'content-type': 'application/json' },
          JSON.stringify({ message: 'Request Entity Too Large' }),
        );
        return;
      }
      const isManagement = path === '/v1/transactions' || path.startsWith('/v1/transactions/');
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
  });
}
