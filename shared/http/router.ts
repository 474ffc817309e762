import { timingSafeEqual } from 'node:crypto';
import { accountKey, type CallbackConfig, type ResolvedAccount } from '../config/callback-config';
import {
  MethodNotAllowedError,
  RouteNotFoundError,
  UnauthorizedError,
  UnknownAccountError,
} from '../domain/errors';
import { findProvider } from '../providers/registry';
import type { ProviderModule, ProviderRoute } from '../providers/types';
import { sha256Hex } from '../util/ids';
import type { InboundRequest } from './types';

export interface ResolvedRoute {
  provider: ProviderModule<unknown>;
  account: ResolvedAccount;
  route: ProviderRoute<unknown>;
  params: Record<string, string>;
  /** Request path with the account's path secret replaced by {secret}: what receipts and messages show. */
  storedPath: string;
}

/** Partial knowledge gathered while resolving, so a rejection is recorded with as much context as there was. */
export interface RouteKnowledge {
  provider?: ProviderModule<unknown>;
  account?: ResolvedAccount;
  routeName?: string;
  storedPath?: string;
  /**
   * A refused request's path with the segment where the account's path secret goes hidden, when that
   * segment was wrong: a near miss (one character short, another case) kept as sent would leave anyone who
   * reads the quarantine, the log or the CallbackRejected event one character to guess.
   */
  refusedPath?: string;
  /**
   * The request carried the account's previous path secret (`previousPathSecret`, accepted while a
   * rotation overlaps): the caller logs and counts it, so the operator knows when the old URL is unused.
   */
  previousPathSecret?: boolean;
}

/** Percent-decoded segments; a segment that is not valid percent-encoding is kept as received. */
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

export function secretMatches(expected: string, given: string | undefined): boolean {
  if (given === undefined) return false;
  // Hashing first gives fixed-length inputs, so timingSafeEqual never throws and leaks no length.
  return timingSafeEqual(Buffer.from(sha256Hex(expected), 'hex'), Buffer.from(sha256Hex(given), 'hex'));
}

function shown(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

/**
 * /v1/{provider}/{account}/[{secret}/]{route…}: provider, account, path secret (constant time; while
 * rotating, the previous one too, noted in `known.previousPathSecret`), route and method. Messages never repeat the raw path past the account: it may hold the path secret.
 */
export function resolveRoute(
  config: Pick<CallbackConfig, 'accounts'>,
  request: InboundRequest,
  known: RouteKnowledge,
): ResolvedRoute {
  const segments = decodeSegments(request.path);
  if (segments[0] !== 'v1' || segments.length < 3)
    throw new RouteNotFoundError(`No route for ${request.method} ${shown(request.path)}`);
  const provider = findProvider(segments[1]!);
  if (!provider) throw new RouteNotFoundError(`No provider "${shown(segments[1]!)}"`);
  known.provider = provider;
  const account = config.accounts.get(accountKey(provider.id, segments[2]!));
  if (!account)
    throw new UnknownAccountError(
      `No ${provider.displayName} account "${shown(segments[2]!)}" is configured`,
    );
  known.account = account;
  let rest = segments.slice(3);
  const encoded = (parts: string[]) => parts.map(encodeURIComponent).join('/');
  let storedPath = `/${encoded(segments)}`;
  if (account.pathSecret) {
    // Both compared whatever the first answer, so the time taken does not tell which one matched.
    const current = secretMatches(account.pathSecret, rest[0]);
    const previous =
      account.previousPathSecret !== undefined && secretMatches(account.previousPathSecret, rest[0]);
    if (!current && !previous) {
      // Hidden even when the secret was left out (the segment is then a route's): a MoMo route, {kind},
      // matches any segment, so a missing secret cannot be told from a wrong one.
      known.refusedPath = rest.length
        ? `/${encoded(segments.slice(0, 3))}/{wrong-secret}${rest.length > 1 ? `/${encoded(rest.slice(1))}` : ''}`
        : storedPath;
      throw new UnauthorizedError('Path secret missing or wrong for this account');
    }
    if (!current) known.previousPathSecret = true;
    rest = rest.slice(1);
    storedPath = `/${encoded(segments.slice(0, 3))}/{secret}${rest.length ? `/${encoded(rest)}` : ''}`;
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
    throw new MethodNotAllowedError(
      [...new Set(methodMismatch.flatMap((r) => r.methods))],
      shown(request.method),
    );
  }
  const base = `/v1/${provider.id}/${account.id}${account.pathSecret ? '/{secret}' : ''}`;
  const expected = provider.routes.map((r) => `${base}/${r.path}`).join(', ');
  throw new RouteNotFoundError(
    `No ${provider.displayName} route for ${shown(storedPath)}; expected one of ${expected}`,
  );
}
