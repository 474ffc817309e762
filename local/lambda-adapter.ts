import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';

const TEXT_TYPES = /^(application\/([\w.+-]+\+)?(json|xml|x-www-form-urlencoded)|text\/.*)$/i;

/**
 * The request target as a URL. Appended to the origin rather than resolved against it, so that a
 * target like `//x` stays a path (API Gateway passes it as rawPath) instead of becoming a host.
 */
export function requestUrl(target: string | undefined): URL {
  const raw = target ?? '/';
  try {
    return new URL(`http://localhost${raw.startsWith('/') ? raw : `/${raw}`}`);
  } catch {
    return new URL('http://localhost/');
  }
}

export function lambdaContext(functionName: string): Context {
  const awsRequestId = randomUUID();
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => 30_000,
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}

export interface SourceIpOptions {
  /** Without API Gateway in front, X-Forwarded-For is the only way for tests and the simulator to set the source IP. */
  trustForwardedFor: boolean;
}

/**
 * The source IP under `npm start`: with `trustForwardedFor`, the LAST X-Forwarded-For entry, the one the
 * proxy or tunnel in front of the local server appended (the address it saw). The entries before it are
 * whatever the client wrote: `x-forwarded-for: 196.201.214.200` sent through a tunnel arrives as
 * `196.201.214.200, <caller>`, and the first entry would pass Safaricom's allow-list. The tests and the
 * simulator, with no proxy, send one entry. In AWS, API Gateway's sourceIp is used and this header never is.
 */
export function sourceIpOf(request: IncomingMessage, options: SourceIpOptions): string {
  const forwarded = request.headers['x-forwarded-for'];
  const entries = (Array.isArray(forwarded) ? forwarded.join(',') : forwarded)?.split(',');
  const last = entries?.at(-1)?.trim();
  if (options.trustForwardedFor && last) return last;
  return (request.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
}

/** Node HTTP request + body → the API Gateway HTTP API (payload v2.0) event Lambda would get. */
export function toApiGatewayEvent(
  request: IncomingMessage,
  body: Buffer,
  options: SourceIpOptions & { pathParameters?: Record<string, string> },
): APIGatewayProxyEventV2 {
  const url = requestUrl(request.url);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  const cookies = headers.cookie ? headers.cookie.split(';').map((c) => c.trim()) : undefined;
  delete headers.cookie;
  const query: Record<string, string> = {};
  for (const [k, v] of url.searchParams) query[k] = query[k] ? `${query[k]},${v}` : v;
  const contentType = headers['content-type']?.split(';')[0]?.trim() ?? '';
  const text = body.toString('utf8');
  // API Gateway passes text bodies as-is and base64-encodes the rest; do the same.
  const asText =
    body.length === 0 ||
    (TEXT_TYPES.test(contentType) && Buffer.from(text, 'utf8').equals(body)) ||
    (!contentType && Buffer.from(text, 'utf8').equals(body));
  const now = new Date();
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: url.pathname,
    rawQueryString: url.search.replace(/^\?/, ''),
    cookies,
    headers,
    queryStringParameters: Object.keys(query).length ? query : undefined,
    pathParameters: options.pathParameters,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: (headers.host ?? 'localhost').split('.')[0] ?? 'localhost',
      http: {
        method: (request.method ?? 'GET').toUpperCase(),
        path: url.pathname,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: sourceIpOf(request, options),
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: '$default',
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    body: body.length === 0 ? undefined : asText ? text : body.toString('base64'),
    isBase64Encoded: !asText,
  };
}
