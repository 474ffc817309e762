/**
 * Who took a manual action (docs/roles-and-audit.md): the person (a Cognito user in AWS, a named token
 * locally) or the IAM principal, and the role the relay granted them. Every manual action names one.
 */

/** Least to most: each role may do everything the roles before it may. */
export const ROLES = ['viewer', 'operator', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** How the actor was authenticated. */
type ActorVia = 'token' | 'cognito' | 'iam';

export interface Actor {
  /** Stable id: the Cognito subject, the token's name, the IAM principal's ARN. */
  id: string;
  /** What a person reads: the e-mail (Cognito), the token's name, the IAM principal. */
  name: string;
  email: string | null;
  role: Role;
  via: ActorVia;
}

/** What the history, the evidence and the events keep of an actor. */
export type ActorRef = Pick<Actor, 'id' | 'name' | 'email' | 'role' | 'via'>;

export function actorRef(actor: Actor): ActorRef {
  return { id: actor.id, name: actor.name, email: actor.email, role: actor.role, via: actor.via };
}

/** The actor's role is `role` or above it. */
export function hasRole(actor: Pick<Actor, 'role'>, role: Role): boolean {
  return ROLES.indexOf(actor.role) >= ROLES.indexOf(role);
}

/** The highest role among `names` (e.g. Cognito groups); undefined when none is a role. */
export function highestRole(names: readonly string[]): Role | undefined {
  let best: Role | undefined;
  for (const name of names) {
    const role = ROLES.find((r) => r === name);
    if (role && (!best || ROLES.indexOf(role) > ROLES.indexOf(best))) best = role;
  }
  return best;
}

/**
 * The id of the shared `management.bearerToken` (locally), alone or as `bearer-token:<typed name>`: one
 * secret many people may hold, so the name is the caller's word, never proven.
 */
export const SHARED_TOKEN_ID = 'bearer-token';

/**
 * The relay vouches for who this is: a Cognito user, an IAM principal or a named token. Not the shared
 * token, whatever name its caller types (a four-eyes decision needs two people the relay can tell apart).
 */
export function vouchedFor(actor: Pick<Actor, 'id' | 'via'>): boolean {
  return !(
    actor.via === 'token' &&
    (actor.id === SHARED_TOKEN_ID || actor.id.startsWith(`${SHARED_TOKEN_ID}:`))
  );
}

/** The same person: the same id by the same way of signing in. */
export function sameActor(a: Pick<Actor, 'id' | 'via'>, b: Pick<Actor, 'id' | 'via'>): boolean {
  return a.id === b.id && a.via === b.via;
}
