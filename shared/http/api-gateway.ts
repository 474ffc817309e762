import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { API_ANSWER_HEADERS, type HttpResponse, type InboundRequest } from './types';

/** Longest plausible wait between API Gateway and the handler: its integration timeout is 30 s at most. */
const MAX_PLAUSIBLE_WAIT_MS = 30_000;

/** API Gateway HTTP API (payload v2) event → the domain's request. */
export function toInboundRequest(
  event: APIGatewayProxyEventV2,
  receivedAt: Date = new Date(),
): InboundRequest {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(event.headers ?? {})) {
    if (value !== undefined) headers[name.toLowerCase()] = value;
  }
  const query: Record<string, string> = {};
  for (const [name, value] of Object.entries(event.queryStringParameters ?? {})) {
    if (value !== undefined) query[name] = value;
  }
  const body = event.body ?? '';
  // API Gateway's arrival time; an implausible gap (clock skew, a replayed test event) counts as none.
  const arrived = event.requestContext.timeEpoch;
  const waited = typeof arrived === 'number' ? receivedAt.getTime() - arrived : 0;
  return {
    requestId: event.requestContext.requestId,
    method: event.requestContext.http.method.toUpperCase(),
    path: event.rawPath,
    headers,
    query,
    rawBody: Buffer.from(body, event.isBase64Encoded ? 'base64' : 'utf8'),
    sourceIp: event.requestContext.http.sourceIp,
    receivedAt,
    ...(waited > 0 && waited <= MAX_PLAUSIBLE_WAIT_MS ? { waitedMs: waited } : {}),
    ...principalOf(event),
  };
}

/** The authorizer's context: a JWT's claims (Cognito, the console API) or the IAM caller. */
function principalOf(event: APIGatewayProxyEventV2): Pick<InboundRequest, 'principal'> {
  const authorizer = (event.requestContext as { authorizer?: Record<string, unknown> }).authorizer;
  const jwt = authorizer?.jwt as { claims?: Record<string, unknown> } | undefined;
  if (jwt?.claims) return { principal: { kind: 'jwt', claims: jwt.claims } };
  const iam = authorizer?.iam as { userArn?: unknown; callerId?: unknown } | undefined;
  if (iam)
    return {
      principal: {
        kind: 'iam',
        userArn: typeof iam.userArn === 'string' ? iam.userArn : undefined,
        callerId: typeof iam.callerId === 'string' ? iam.callerId : undefined,
      },
    };
  return {};
}

/** The one exit of every Lambda HTTP answer, error answers included: it adds API_ANSWER_HEADERS. */
export function toApiGatewayResult(response: HttpResponse): APIGatewayProxyStructuredResultV2 {
  const body =
    response.body === undefined
      ? ''
      : typeof response.body === 'string'
        ? response.body
        : JSON.stringify(response.body);
  return {
    statusCode: response.statusCode,
    headers: { ...API_ANSWER_HEADERS, ...(response.headers ?? {}) },
    body,
  };
}
