import type { DestinationConfig } from '../../config/schema';
import { webhookSecretSchema } from '../../config/schema';
import type { Actor } from '../../domain/actor';
import { EVENT_TYPES } from '../../domain/event-envelope';
import {
  DeliveryPathUnavailableError,
  DestinationNotFoundError,
  SchemaValidationError,
} from '../../domain/errors';
import { assumedRoles, shownTarget } from '../../destinations/registry';
import type { Clock } from '../ports';
import type {
  DestinationDeliveriesAnswer,
  DestinationView,
  DestinationsAnswer,
  ReplayAnswer,
  TransactionDeliveriesAnswer,
} from '../management-answers';
import {
  ATTEMPT_OUTCOMES,
  type AttemptOutcome,
  type DeliveryLog,
  type DeliverySelector,
  type DestinationState,
  type DestinationStateStore,
  MAX_SELECTOR_DAYS,
} from './ports';

/** Attempts per page of a destination's log: 50 unless asked, at most 200. */
const DEFAULT_DELIVERY_PAGE = 50;
const MAX_DELIVERY_PAGE = 200;
/** How long the replaced secret still signs after a rotation unless asked: a day; at most a week. */
const DEFAULT_ROTATION_WINDOW_HOURS = 24;
const MAX_ROTATION_WINDOW_HOURS = 168;
/** A transaction's deliveries shown at most (its few events times retries; a bound, not a page). */
const MAX_TRANSACTION_ATTEMPTS = 500;
const DAY_MS = 86_400_000;
const SECRET_REF = /^[A-Za-z0-9/_+=.@:-]{1,2048}$/;

/**
 * What the destination routes use (docs/management-api.md#webhook-destinations): the config's
 * destinations, the delivery log, the destination states every delivery path reads, and what this runtime
 * can do beyond them (send a replay, read a secret reference, wake its engine after a resume).
 */
export interface DeliveryAdmin {
  destinations: Readonly<Record<string, DestinationConfig>>;
  log: DeliveryLog;
  states: DestinationStateStore;
  /** Sends a replay (npm start's engine); absent: a dry run counts, a real replay is refused (503). */
  replay?: (
    destination: string,
    selector: DeliverySelector,
    options: { dryRun: false; actor: string },
  ) => Promise<{ count: number }>;
  /** Reads a secret by its reference (docs/webhooks.md#rotating-a-secret); absent: rotation is refused. */
  resolveSecret?: (secretRef: string) => Promise<string>;
  /** A destination was resumed: the local engine sends what it held at once. */
  onResumed?: (destination: string) => void;
}

/** A secret reference: `env:NAME` (npm start only) or a Secrets Manager secret id. */
export function secretRefResolver(options: {
  runtime: 'local' | 'aws';
  env?: (name: string) => string | undefined;
  readSecret?: (secretId: string) => Promise<string>;
}): (secretRef: string) => Promise<string> {
  return async (secretRef) => {
    if (secretRef.startsWith('env:')) {
      // In AWS an environment variable sits in the function's configuration: not a place for a secret.
      if (options.runtime !== 'local') throw new Error('env: references are for npm start only');
      const value = options.env?.(secretRef.slice(4));
      if (value === undefined) throw new Error(`${secretRef} is not set`);
      return value.trim();
    }
    if (!options.readSecret) throw new Error('no secret store on this runtime');
    const text = (await options.readSecret(secretRef)).trim();
    // The Secrets Manager shape of docs/webhooks.md, or the bare secret.
    if (text.startsWith('{')) return String((JSON.parse(text) as { signingSecret?: unknown }).signingSecret);
    return text;
  };
}

function configOf(admin: DeliveryAdmin, id: string): DestinationConfig {
  const config = Object.hasOwn(admin.destinations, id) ? admin.destinations[id] : undefined;
  if (!config) throw new DestinationNotFoundError(`No destination "${id.slice(0, 64)}" in the relay config`);
  return config;
}

function view(
  id: string,
  config: DestinationConfig,
  state: DestinationState,
  nowMs: number,
): DestinationView {
  return {
    id,
    type: config.type,
    // Its type's safe form: an https URL's scheme, host and path (user info and query may hold a credential), an SQS queue's ARN.
    url: shownTarget(config),
    // Who the relay acts as at the partner (their trust policy names it): one role per destination at most.
    role: assumedRoles({ [id]: config })[0] ?? null,
    filter: config.filter,
    ratePerSecond: config.ratePerSecond,
    concurrency: config.concurrency,
    state: state.disabled ? 'disabled' : state.paused ? 'paused' : 'active',
    pausedBy: state.pausedBy ?? null,
    pausedAt: state.pausedAt ?? null,
    disabledReason: state.disabledReason ?? null,
    disabledAt: state.disabledAt ?? null,
    failureStreak: state.consecutiveFailures,
    lastAttempt: state.lastAttemptAt
      ? { at: state.lastAttemptAt, status: state.lastStatus ?? null, outcome: state.lastOutcome ?? 'unknown' }
      : null,
    rotation: state.rotation
      ? {
          rotatedAt: state.rotation.rotatedAt,
          rotatedBy: state.rotation.rotatedBy,
          windowEndsAt: state.rotation.windowEndsAt,
          bothSigning: nowMs < Date.parse(state.rotation.windowEndsAt),
        }
      : null,
  };
}

/** GET /v1/destinations: every configured destination with its state, by name. */
export async function listDestinations(admin: DeliveryAdmin, clock: Clock): Promise<DestinationsAnswer> {
  const nowMs = clock.now().getTime();
  const ids = Object.keys(admin.destinations).sort();
  const states = await Promise.all(ids.map((id) => admin.states.get(id)));
  return { destinations: ids.map((id, i) => view(id, admin.destinations[id]!, states[i]!, nowMs)) };
}

/** POST /v1/destinations/{id}/pause: deliveries wait (none is dropped) until a resume. */
export async function pauseDestination(
  admin: DeliveryAdmin,
  clock: Clock,
  id: string,
  actor: Actor,
): Promise<DestinationView> {
  const config = configOf(admin, id);
  const now = clock.now();
  return view(id, config, await admin.states.pause(id, actor.name, now.toISOString()), now.getTime());
}

/** POST /v1/destinations/{id}/resume: clears a pause or a disabling (410, failures) and the streak. */
export async function resumeDestination(
  admin: DeliveryAdmin,
  clock: Clock,
  id: string,
): Promise<DestinationView> {
  const config = configOf(admin, id);
  const state = await admin.states.resume(id);
  admin.onResumed?.(id);
  return view(id, config, state, clock.now().getTime());
}

function bodyKeys(body: Record<string, unknown>, allowed: readonly string[]): void {
  const unknown = Object.keys(body).filter((key) => !allowed.includes(key));
  if (unknown.length)
    throw new SchemaValidationError(
      `Unknown field ${unknown[0]!.slice(0, 40)}; allowed: ${allowed.join(', ')}`,
      {
        details: { field: unknown[0]!.slice(0, 40) },
      },
    );
}

/**
 * POST /v1/destinations/{id}/rotate `{secretRef, windowHours?}`: the secret the reference names signs
 * first from now on; the one it replaces still signs for the window, so a receiver that has not yet
 * switched verifies too. The reference is read before it is accepted; its value is never answered.
 */
export async function rotateSecret(
  admin: DeliveryAdmin,
  clock: Clock,
  id: string,
  body: Record<string, unknown>,
  actor: Actor,
): Promise<DestinationView> {
  const config = configOf(admin, id);
  bodyKeys(body, ['secretRef', 'windowHours']);
  const { secretRef, windowHours = DEFAULT_ROTATION_WINDOW_HOURS } = body;
  if (typeof secretRef !== 'string' || !SECRET_REF.test(secretRef))
    throw new SchemaValidationError(
      'secretRef: a reference to the new secret (env:NAME under npm start, or a Secrets Manager secret id), never the secret itself',
      { details: { field: 'secretRef' } },
    );
  if (typeof windowHours !== 'number' || !(windowHours > 0 && windowHours <= MAX_ROTATION_WINDOW_HOURS))
    throw new SchemaValidationError(
      `windowHours: a number of hours above 0, at most ${MAX_ROTATION_WINDOW_HOURS}`,
      {
        details: { field: 'windowHours' },
      },
    );
  if (!admin.resolveSecret)
    throw new DeliveryPathUnavailableError('This runtime cannot read secret references');
  let secret: string;
  try {
    secret = await admin.resolveSecret(secretRef);
  } catch (cause) {
    throw new SchemaValidationError(
      `secretRef: could not be read (${(cause as Error).message.slice(0, 120)})`,
      {
        cause,
        details: { field: 'secretRef' },
      },
    );
  }
  // The value is checked, never echoed: a wrong reference may point at some other secret.
  if (!webhookSecretSchema.safeParse(secret).success)
    throw new SchemaValidationError('secretRef: does not hold a Standard Webhooks secret (whsec_ + base64)', {
      details: { field: 'secretRef' },
    });
  const current = await admin.states.get(id);
  const now = clock.now();
  const state = await admin.states.rotate(id, {
    secretRef,
    ...(current.rotation ? { previousSecretRef: current.rotation.secretRef } : {}),
    rotatedAt: now.toISOString(),
    rotatedBy: actor.name,
    windowEndsAt: new Date(now.getTime() + windowHours * 3_600_000).toISOString(),
  });
  return view(id, config, state, now.getTime());
}

function isoParam(name: string, value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const ms = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}(T[\d:.]+Z)?$/.test(value) || Number.isNaN(ms))
    throw new SchemaValidationError(`${name}: an ISO time (2026-11-29T05:00:00Z) or day`, {
      details: { parameter: name },
    });
  return ms;
}

function range(from: number | undefined, to: number | undefined, nowMs: number, what: string) {
  const end = to ?? nowMs;
  const start = from ?? end - DAY_MS;
  if (start > end)
    throw new SchemaValidationError(`${what}: from is after to`, { details: { parameter: 'from' } });
  if (end - start > MAX_SELECTOR_DAYS * DAY_MS)
    throw new SchemaValidationError(`${what}: at most ${MAX_SELECTOR_DAYS} days`, {
      details: { parameter: 'from' },
    });
  return { from: new Date(start).toISOString(), to: new Date(end).toISOString() };
}

/** GET /v1/destinations/{id}/deliveries?from=&to=&outcome=&limit=&cursor=: newest first, one bounded page. */
export async function destinationDeliveries(
  admin: DeliveryAdmin,
  clock: Clock,
  id: string,
  query: Record<string, string | undefined>,
): Promise<DestinationDeliveriesAnswer> {
  configOf(admin, id);
  const unknown = Object.keys(query).find((k) => !['from', 'to', 'outcome', 'limit', 'cursor'].includes(k));
  if (unknown)
    throw new SchemaValidationError(
      `Unknown parameter ${unknown.slice(0, 40)}; allowed: from, to, outcome, limit, cursor`,
      {
        details: { parameter: unknown.slice(0, 40) },
      },
    );
  const { from, to } = range(
    isoParam('from', query.from),
    isoParam('to', query.to),
    clock.now().getTime(),
    'from..to',
  );
  const outcome = query.outcome || undefined;
  if (outcome !== undefined && !(ATTEMPT_OUTCOMES as readonly string[]).includes(outcome))
    throw new SchemaValidationError(`outcome: one of ${ATTEMPT_OUTCOMES.join(', ')}`, {
      details: { parameter: 'outcome' },
    });
  const limit = query.limit ? Number(query.limit) : DEFAULT_DELIVERY_PAGE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_DELIVERY_PAGE)
    throw new SchemaValidationError(`limit: a whole number from 1 to ${MAX_DELIVERY_PAGE}`, {
      details: { parameter: 'limit' },
    });
  const page = await admin.log.attemptsOf(id, {
    from,
    to,
    limit,
    ...(outcome ? { outcome: outcome as AttemptOutcome } : {}),
    ...(query.cursor ? { cursor: query.cursor } : {}),
  });
  return { destination: id, from, to, attempts: page.attempts, ...(page.next ? { next: page.next } : {}) };
}

/** GET /v1/transactions/{provider}/{account}/{reference}/deliveries: each event's attempts per destination. */
export async function transactionDeliveries(
  admin: DeliveryAdmin,
  key: { provider: string; account: string; reference: string },
): Promise<TransactionDeliveriesAnswer> {
  const correlationId = `${key.provider}:${key.account}:${key.reference}`;
  const [events, attempts] = await Promise.all([
    admin.log.events({ correlationId }),
    admin.log.attempts({ correlationId }),
  ]);
  const groups = new Map<string, TransactionDeliveriesAnswer['deliveries'][number]>();
  for (const attempt of attempts.slice(-MAX_TRANSACTION_ATTEMPTS)) {
    const event = events.find((e) => e.eventId === attempt.eventId);
    const groupKey = `${attempt.eventId}#${attempt.destination}`;
    let group = groups.get(groupKey);
    if (!group) {
      group = {
        eventId: attempt.eventId,
        eventType: event?.eventType ?? 'unknown',
        occurredAt: event?.occurredAt ?? attempt.at,
        destination: attempt.destination,
        attempts: [],
      };
      groups.set(groupKey, group);
    }
    group.attempts.push(attempt);
  }
  return { correlationId, deliveries: [...groups.values()] };
}

/**
 * POST /v1/destinations/{id}/replay `{dryRun, transaction | from+to, eventType?}`: the logged events the
 * selector matches, re-sent to this destination with their original webhook-id. `dryRun` (the default)
 * only counts them, so a person sees the number before sending.
 */
export async function replayDeliveries(
  admin: DeliveryAdmin,
  id: string,
  body: Record<string, unknown>,
  actor: Actor,
): Promise<ReplayAnswer> {
  configOf(admin, id);
  bodyKeys(body, ['dryRun', 'transaction', 'eventType', 'from', 'to']);
  const dryRun = body.dryRun ?? true;
  if (typeof dryRun !== 'boolean')
    throw new SchemaValidationError('dryRun: true (count only, the default) or false (send)', {
      details: { field: 'dryRun' },
    });
  const selector: DeliverySelector = {};
  if (body.transaction !== undefined) {
    const t = body.transaction as Record<string, unknown> | null;
    if (
      typeof t !== 'object' ||
      t === null ||
      !['provider', 'account', 'reference'].every(
        (k) => typeof t[k] === 'string' && (t[k] as string).length > 0,
      )
    )
      throw new SchemaValidationError('transaction: {"provider", "account", "reference"}', {
        details: { field: 'transaction' },
      });
    selector.correlationId = `${t.provider as string}:${t.account as string}:${t.reference as string}`;
  }
  if (body.eventType !== undefined) {
    if (typeof body.eventType !== 'string' || !(EVENT_TYPES as readonly string[]).includes(body.eventType))
      throw new SchemaValidationError('eventType: one of the event types of docs/events.md', {
        details: { field: 'eventType' },
      });
    selector.eventType = body.eventType;
  }
  if (body.from !== undefined || body.to !== undefined) {
    const from = isoParam('from', typeof body.from === 'string' ? body.from : String(body.from ?? ''));
    const to = isoParam('to', typeof body.to === 'string' ? body.to : String(body.to ?? ''));
    if (from === undefined || to === undefined)
      throw new SchemaValidationError('from and to: both, as ISO times', { details: { field: 'from' } });
    Object.assign(selector, range(from, to, to, 'from..to'));
  }
  if (selector.correlationId === undefined && selector.from === undefined)
    throw new SchemaValidationError(
      'Name a transaction, or a time range (from and to), optionally with an eventType',
      {
        details: { field: 'transaction' },
      },
    );
  if (dryRun) {
    const events = await admin.log.events(selector);
    return { destination: id, dryRun: true, count: events.length, selector };
  }
  if (!admin.replay)
    throw new DeliveryPathUnavailableError('This runtime cannot send replays yet; a dry run counts');
  const { count } = await admin.replay(id, selector, { dryRun: false, actor: actor.name });
  return { destination: id, dryRun: false, count, selector };
}
