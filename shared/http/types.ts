/** What the domain sees of an HTTP request, independent of API Gateway's event shape. */
export interface InboundRequest {
  requestId: string;
  method: string;
  /** Path as received, e.g. /v1/momo/demo/requesttopay/<uuid>. */
  path: string;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  query: Record<string, string>;
  rawBody: Buffer;
  sourceIp: string;
  receivedAt: Date;
  /**
   * How long the request waited before the handler saw it (API Gateway, a Lambda cold start): it counts
   * against the provider's ack budget. Absent locally (the server hands the request over at once).
   */
  waitedMs?: number;
  /**
   * How long the function has left to answer (Lambda's remaining time when the request reached the
   * handler): long work answers in time (a statement import stops and says where to go on). Absent locally.
   */
  remainingMs?: number;
  /**
   * Who API Gateway's authorizer let through (the management API in AWS): a Cognito JWT's claims (the
   * console API) or the IAM principal. Absent locally and on the public routes.
   */
  principal?:
    | { kind: 'jwt'; claims: Record<string, unknown> }
    | { kind: 'iam'; userArn: string | undefined; callerId: string | undefined };
}

export interface HttpResponse {
  statusCode: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/**
 * Headers of every answer the relay's API gives (management, console reads, callbacks, errors alike),
 * added where an answer leaves: `toApiGatewayResult` (every Lambda HTTP answer) and the local server.
 * `no-store`: answers carry transactions and verdicts that no browser or proxy should keep; `nosniff`: a
 * body is only ever the type it is declared as (a refused request's echo never runs as a script); the
 * policy, `DENY` and `no-referrer`: an answer opened in a browser (the execute-api URL, a CSV, an error
 * echoing what was sent) runs nothing, loads nothing, is framed by no page and names no URL onwards.
 */
export const API_ANSWER_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'content-security-policy':
    "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

export function json(statusCode: number, body: unknown, headers: Record<string, string> = {}): HttpResponse {
  return { statusCode, body, headers: { 'content-type': 'application/json', ...headers } };
}
