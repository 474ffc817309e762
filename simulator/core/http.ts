import type { IncomingHttpHeaders } from 'node:http';
import type { FaultSet } from './faults';

export type ProviderName = 'momo' | 'airtel' | 'daraja';

/** What a handler answers. `raw` wins over `body` when a handler must control the exact bytes. */
export interface Reply {
  status: number;
  body?: unknown;
  raw?: string;
  headers?: Record<string, string>;
}

/**
 * Thrown by handlers to answer early in the provider's own error format. Handlers throw rather than
 * return so that deep validation helpers can abort without threading replies back up.
 */
export class SimHttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers?: Record<string, string>,
  ) {
    super(`HTTP ${status}: ${typeof body === 'string' ? body : JSON.stringify(body)}`);
    this.name = 'SimHttpError';
  }
}

export class RequestContext {
  params: Record<string, string> = {};

  constructor(
    readonly method: string,
    /** Path with one trailing slash removed, so `/collection/token/` and `/collection/token` match alike. */
    readonly path: string,
    readonly rawPath: string,
    readonly query: URLSearchParams,
    readonly headers: IncomingHttpHeaders,
    readonly rawBody: Buffer,
    /** Faults from the `X-Sim-Fault` header of this request. */
    readonly faults: FaultSet,
    /**
     * The caller's address as the socket saw it (normalised by `normaliseRemoteAddress`); undefined only when
     * the connection is already gone. Gateway checks such as MoMo's IP allow-lists read it.
     */
    readonly remoteAddress: string | undefined,
  ) {}

  get bodyText(): string {
    return this.rawBody.toString('utf8');
  }

  get hasBody(): boolean {
    return this.rawBody.length > 0;
  }

  header(name: string): string | undefined {
    const value = this.headers[name.toLowerCase()];
    return Array.isArray(value) ? value[0] : value;
  }

  /** Parses the body as JSON; `onError` builds the provider-specific error to throw. */
  json(onError: (reason: string) => SimHttpError): unknown {
    if (!this.hasBody) throw onError('request body is empty');
    try {
      return JSON.parse(this.bodyText) as unknown;
    } catch {
      throw onError('request body is not valid JSON');
    }
  }

  bearerToken(): string | undefined {
    const auth = this.header('authorization');
    const match = auth?.match(/^Bearer\s+(.+)$/i);
    return match?.[1]?.trim();
  }

  basicCredentials(): { user: string; password: string } | undefined {
    const auth = this.header('authorization');
    const match = auth?.match(/^Basic\s+(.+)$/i);
    if (!match?.[1]) return undefined;
    const decoded = Buffer.from(match[1].trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return undefined;
    return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
  }
}

/**
 * A server listening on `::` reports IPv4 callers as IPv4-mapped IPv6 (`::ffff:127.0.0.1`); allow-lists are
 * written with plain IPv4 addresses and CIDRs, so the mapped form is unwrapped to match them.
 */
export function normaliseRemoteAddress(address: string | undefined): string | undefined {
  if (!address) return undefined;
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  return mapped?.[1] ?? address;
}

export function json(status: number, body: unknown, headers?: Record<string, string>): Reply {
  return headers ? { status, body, headers } : { status, body };
}
