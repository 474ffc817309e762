import { maskMsisdnsIn } from '../util/mask';
import type { RelayConfig } from '../config/schema';
import { type Actor, hasRole, highestRole, type Role, SHARED_TOKEN_ID } from '../domain/actor';
import type { ManagementRoute } from '../config/management-routes';
import { ActorRequiredError, ForbiddenRoleError, UnauthorizedError } from '../domain/errors';
import { secretMatches } from './router';
import { hasControlCharacters, hasFormatCharacters } from '../util/text';
import type { InboundRequest } from './types';

/**
 * The shared `management.bearerToken` names nobody: it reads as this admin (kept so existing scripts keep
 * working; named tokens are how people sign in, docs/roles-and-audit.md#named-tokens). A person's action
 * with it must name the person (ACTOR_HEADER).
 */
const SHARED_TOKEN_ACTOR: Actor = {
  id: SHARED_TOKEN_ID,
  name: 'bearer-token (shared)',
  email: null,
  role: 'admin',
  via: 'token',
};

/** The header that names the person acting with the shared bearer token (docs/roles-and-audit.md#the-shared-token). */
const ACTOR_HEADER = 'x-relay-actor';
/**
 * A person's name as the audit log shows it: 1 to 64 printable characters, a letter or digit among them.
 * The one control-character rule, and no format characters on top (a bidi override would disguise a name).
 */
const isPersonName = (name: string) =>
  name.length <= 64 &&
  !hasControlCharacters(name) &&
  !hasFormatCharacters(name) &&
  /[\p{L}\p{N}]/u.test(name);

/**
 * The shared token's actor: the person its `X-Relay-Actor` names (`<name> (shared token)`: said by the
 * caller, not proven, as anyone holding the token may say any name), else the token itself.
 */
function sharedTokenActor(headers: Record<string, string>): Actor {
  const given = headers[ACTOR_HEADER]?.trim();
  if (!given) return SHARED_TOKEN_ACTOR;
  if (!isPersonName(given))
    throw new ActorRequiredError(
      `${ACTOR_HEADER} must be a person's name: 1 to 64 printable characters, a letter or digit among them`,
      { details: { header: ACTOR_HEADER } },
    );
  // The token's own name names nobody (as a named token may not be called so).
  if (given.toLowerCase() === SHARED_TOKEN_ID)
    throw new ActorRequiredError(
      `${ACTOR_HEADER} must name the person acting, not the shared token ("${SHARED_TOKEN_ID}")`,
      { details: { header: ACTOR_HEADER } },
    );
  // Free text the caller typed, shown to everyone (the audit log, approvals, a destination's pause): a
  // phone number in it is masked as in every answer.
  const name = maskMsisdnsIn(given);
  return {
    id: `${SHARED_TOKEN_ACTOR.id}:${name}`,
    name: `${name} (shared token)`,
    email: null,
    role: SHARED_TOKEN_ACTOR.role,
    via: 'token',
  };
}

/**
 * A person's action (every POST but a partner's registration, which a system makes, and every export: who
 * took which rows out) names the person: the shared token without `X-Relay-Actor` is refused (400
 * ACTOR_REQUIRED) before anything changes. Reads may stay anonymous; every other sign-in names someone already.
 */
export function requireNamedPerson(
  actor: Actor,
  route: Pick<ManagementRoute, 'method' | 'partner' | 'what' | 'path'>,
  query: Readonly<Record<string, string | undefined>> = {},
): void {
  const isExport = route.method === 'GET' && query.format === 'csv';
  if (actor !== SHARED_TOKEN_ACTOR || route.partner || (route.method === 'GET' && !isExport)) return;
  throw new ActorRequiredError(
    `${isExport ? `An export (GET ${route.path}?format=csv)` : route.what} is a person's action and the shared bearer token names nobody: send ${ACTOR_HEADER}: <your name>, or sign in with a named token (docs/roles-and-audit.md#the-shared-token)`,
    { details: { header: ACTOR_HEADER } },
  );
}

/** Claims of a Cognito token as API Gateway passes them: arrays arrive as "[a b]" strings. */
function groupsOf(claim: unknown): string[] {
  if (Array.isArray(claim)) return claim.filter((g): g is string => typeof g === 'string');
  if (typeof claim !== 'string') return [];
  return claim
    .replace(/^\[|\]$/g, '')
    .split(/[\s,]+/)
    .filter(Boolean);
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.length > 0 ? value.slice(0, 256) : undefined;

/**
 * Who is calling the management API (docs/roles-and-audit.md): a Cognito user (the console API's JWT
 * authorizer: subject, e-mail, the highest of their groups viewer/operator/admin, viewer without one),
 * an IAM principal (admin: IAM policy already decided what it may call), or locally a named token (its
 * name and role) or the shared bearer token (the person its X-Relay-Actor names, if any). Throws
 * UnauthorizedError when nobody is signed in.
 */
export function authenticate(
  config: RelayConfig,
  request: Pick<InboundRequest, 'headers' | 'principal'>,
): Actor {
  const principal = request.principal;
  if (principal?.kind === 'jwt') {
    const { claims } = principal;
    const sub = text(claims.sub);
    if (!sub) throw new UnauthorizedError('The sign-in token names no subject');
    const email = text(claims.email) ?? null;
    return {
      id: sub,
      name: email ?? text(claims.username) ?? text(claims['cognito:username']) ?? sub,
      email,
      role: highestRole(groupsOf(claims['cognito:groups'])) ?? 'viewer',
      via: 'cognito',
    };
  }
  if (principal?.kind === 'iam') {
    const id = principal.userArn ?? principal.callerId ?? 'iam';
    return { id, name: id, email: null, role: 'admin', via: 'iam' };
  }
  // In the cloud API Gateway authorizes (IAM or Cognito) before the function runs; it always says who.
  if (config.management.auth !== 'bearer')
    throw new UnauthorizedError('The request carries no authorizer context');
  const header = request.headers.authorization ?? '';
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  if (!match)
    throw new UnauthorizedError('Missing bearer token: send Authorization: Bearer <token>', {
      challenge: 'Bearer',
    });
  const given = match[1]!;
  // Every token is compared (constant time each, no early exit), so the time says nothing of which matched.
  let found: Actor | undefined;
  for (const token of config.management.tokens ?? []) {
    if (token.token !== undefined && secretMatches(token.token, given) && !found)
      found = { id: token.name, name: token.name, email: null, role: token.role, via: 'token' };
  }
  const shared = config.management.bearerToken;
  const isShared = shared !== undefined && secretMatches(shared, given);
  if (!found && !isShared)
    throw new UnauthorizedError('Bearer token is not valid', { challenge: 'Bearer error="invalid_token"' });
  return found ?? sharedTokenActor(request.headers);
}

/** Refuses (403, naming the role needed) an actor whose role is below `role`. */
export function requireRole(actor: Actor, role: Role, what: string): void {
  if (!hasRole(actor, role))
    throw new ForbiddenRoleError(`${what} needs the ${role} role; ${actor.name} has ${actor.role}`, {
      details: { requiredRole: role, role: actor.role },
    });
}
