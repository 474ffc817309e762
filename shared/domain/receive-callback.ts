import { timingSafeEqual } from 'node:crypto';
import { accountKey, type RelayConfig, type ResolvedAccount } from '../config/schema';
import { errorResponse, statusFor } from '../http/error-mapping';
import type { HttpResponse, InboundRequest } from '../http/types';
import { findProvider } from '../providers/registry';
import type { ProviderModule, ProviderRoute, RouteContext } from '../providers/types';
import { sha256Hex } from '../util/ids';
import type { CallbackServices } from './callback-services';
import {
  MethodNotAllowedError,
  RelayError,
  RouteNotFoundError,
  StorageUnavailableError,
  UnauthorizedError,
  UnknownAccountError,
} from './errors';
import { recordRejection } from './quarantine';
import { parseJsonObjectBody } from './request-body';

export interface CallbackDeps {
  config: RelayConfig;
  services: CallbackServices;
}

interface Resolved {
  provider: ProviderModule<unknown>;
  account: ResolvedAccount;
  route: ProviderRoute<unknown>;
  params: Record<string, string>;
  storedPath: string;
}

function decodeSegments(path: string): string[] {
  return path
    .split('/')
    .filter((s) => s.length > 0)
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    });
}

function matchPattern(pattern: string, segments: string[]): Record<string, string> | undefined {
  const parts = pattern.split('/').filter(Boolean);
  if (parts.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const segment = segments[i]!;
    if (part.startsWith('{') && part.endsWith('}')) params[part.slice(1, -1)] = segment;
    else if (part.toLowerCase() !== segment.toLowerCase()) return undefined;
  }
  return params;
}

function secretMatches(expected: string, given: string | undefined): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(sha256Hex(expected), 'hex');
  const b = Buffer.from(sha256Hex(given), 'hex');
  // Hashing first gives fixed-length inputs, so timingSafeEqual never throws and leaks no length.
  return timingSafeEqual(a, b);
}

/** Partial knowledge gathered while resolving, so a rejection is recorded with as much context as we had. */
interface Known {
  provider?: ProviderModule<unknown>;
  account?: ResolvedAccount;
  routeName?: string;
  storedPath?: string;
}

function resolve(config: RelayConfig, request: InboundRequest, known: Known): Resolved {
  const segments = decodeSegments(request.path);
  if (segments[0] !== 'v1' || segments.length < 3)
    throw new RouteNotFoundError(`No route for ${request.method} ${request.path}`);
  const provider = findProvider(segments[1]!);
  if (!provider) throw new RouteNotFoundError(`No provider "${segments[1]}" (path ${request.path})`);
  known.provider = provider;
  const account = config.accounts.get(accountKey(provider.id, segments[2]!));
  if (!account)
    throw new UnknownAccountError(`No ${provider.displayName} account "${segments[2]}" is configured`);
  known.account = account;
  let rest = segments.slice(3);
  let storedPath = request.path;
  if (account.pathSecret) {
    if (!secretMatches(account.pathSecret, rest[0])) {
      throw new UnauthorizedError('Path secret missing or wrong for this account');
    }
    storedPath = ['', ...segments.slice(0, 3), '{secret}', ...rest.slice(1)].join('/');
    rest = rest.slice(1);
  }
  known.storedPath = storedPath;
  const methodMismatch: ProviderRoute<unknown>[] = [];
  for (const route of provider.routes) {
    const params = matchPattern(route.path, rest);
    if (!params) continue;
    if (!route.methods.includes(request.method as never)) {
      methodMismatch.push(route);
      continue;
    }
    known.routeName = route.name;
    return { provider, account, route, params, storedPath };
  }
  if (methodMismatch.length) {
    known.routeName = methodMismatch[0]!.name;
    throw new MethodNotAllowedError([...new Set(methodMismatch.flatMap((r) => r.methods))], request.method);
  }
  const expected = provider.routes.map((r) => `/v1/${provider.id}/${account.id}/${r.path}`).join(', ');
  throw new RouteNotFoundError(
    `No ${provider.displayName} route for ${request.path}; expected one of ${expected}`,
  );
}

/**
 * The provider-facing pipeline: resolve route and account, check the path secret, size, media type
 * and JSON, then hand over to the provider's route. Every rejection is stored in quarantine before
 * the error answer goes out, so nothing a provider sent is silently lost.
 */
export async function receiveCallback(deps: CallbackDeps, request: InboundRequest): Promise<HttpResponse> {
  const known: Known = {};
  const { config, services } = deps;
  try {
    const resolved = resolve(config, request, known);
    const body = parseJsonObjectBody(request, config.limits.maxBodyBytes);
    const ctx: RouteContext<unknown> = {
      request,
      account: resolved.account,
      params: resolved.params,
      body,
      route: { name: resolved.route.name },
      storedPath: resolved.storedPath,
      verification: { pathSecret: resolved.account.pathSecret ? 'verified' : 'not-configured' },
      services,
      config,
    };
    const response = await resolved.route.handle(ctx);
    services.log.info('callback handled', {
      provider: resolved.provider.id,
      account: resolved.account.id,
      route: resolved.route.name,
      statusCode: response.statusCode,
    });
    return response;
  } catch (error) {
    if (!(error instanceof RelayError)) throw error;
    if (error instanceof StorageUnavailableError) {
      services.log.error('callback not stored: storage unavailable', {
        error: error.message,
        path: known.storedPath,
      });
      return errorResponse(error);
    }
    await recordRejection({ store: services.store, log: services.log }, request, error, {
      provider: known.provider?.id,
      account: known.account?.id,
      routeName: known.routeName,
      storedPath: known.storedPath,
      // Unknown providers/accounts are mostly scanners: recorded, but not raised as a security signal.
      emitEvent: Boolean(known.provider && known.account),
    });
    const statusCode = statusFor(error);
    return known.provider?.formatError?.(error, statusCode, known.routeName) ?? errorResponse(error);
  }
}
