import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { normalizeIp } from '../shared/util/ip-allowlist';

const TEXT_TYPES = /^(application\/([\w.+-]+\+)?(json|xml|x-www-form-urlencoded)|text\/.*)$/i;

/** The parts of a request target the local server routes by, as API Gateway passes them on. */
export interface RequestTarget {
  /** The path as sent: percent-encoding kept, only literal `.` and `..` segments resolved. */
  pathname: string;
  /** The query as sent, without its `?` (API Gateway's rawQueryString). */
  rawQuery: string;
  searchParams: URLSearchParams;
}

/**
 * RFC 3986's remove_dot_segments, for literal `.` and `..` only. A WHATWG URL also resolves their
 * percent-encoded forms (`%2e%2e`), which API Gateway passes on as a segment like any other: the local
 * server resolving them would route `/v1/transactions/airtel/demo/%2e%2e/check` where AWS does not.
 */
function withoutDotSegments(path: string): string {
  const out: string[] = [];
  const segments = path.split('/').slice(1);
  segments.forEach((segment, i) => {
    const last = i === segments.length - 1;
    if (segment === '.' || segment === '..') {
      if (segment === '..' && out.length > 0) out.pop();
      // A trailing dot segment leaves the directory it names: `/a/b/..` is `/a/`.
      if (last) out.push('');
      return;
    }
    out.push(segment);
  });
  return `/${out.join('/')}`;
}

/**
 * The request target, split by hand rather than parsed as a URL, so that it reaches the handlers as API
 * Gateway passes it: a target like `//x` stays a path (it is not a host), a backslash is not a slash, and
 * encoded dots are not dot segments.
 */
export function requestUrl(target: string | undefined): RequestTarget {
  const raw = (target ?? '/').split('#')[0]!;
  const queryAt = raw.indexOf('?');
  const path = queryAt < 0 ? raw : raw.slice(0, queryAt);
  const rawQuery = queryAt < 0 ? '' : raw.slice(queryAt + 1);
  return {
    pathname: withoutDotSegments(path.startsWith('/') ? path : `/${path}`),
    rawQuery,
    searchParams: new URLSearchParams(rawQuery),
  };
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
 * `196.201.214.200, <caller>`, and the first entry would pass Safaricom's allow-list. A last entry that
 * is not an IP address is ignored: the socket's address is the source IP then. Only a loopback peer (the
 * proxy or tunnel beside `npm start`, or a test) is believed: from any other address the header is the
 * caller's own. The tests and the simulator, with no proxy, send one entry. In AWS, API Gateway's sourceIp
 * is used and this header never is.
 */
export function sourceIpOf(request: IncomingMessage, options: SourceIpOptions): string {
  const peer = (request.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
  // Only a proxy or tunnel on this machine appends the entry: a caller reaching the server over the
  // network (HOST=0.0.0.0) wrote the whole header itself, so its own address is the source IP.
  if (!options.trustForwardedFor || !isLoopback(peer)) return peer;
  const forwarded = request.headers['x-forwarded-for'];
  const entries = (Array.isArray(forwarded) ? forwarded.join(',') : forwarded)?.split(',');
  // Only an address counts: `=1+1` or a script is no source IP, and would be echoed in a 403 and stored.
  return normalizeIp(entries?.at(-1) ?? '') || peer;
}

const isLoopback = (ip: string): boolean => ip === '::1' || /^127\./.test(ip);

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
    rawQueryString: url.rawQuery,
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
