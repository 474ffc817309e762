/**
 * The badge API of a shop plugin (REST namespace `cpbw/v1` under the platform's REST root,
 * `wp-json` by default): list, read, create, update and delete badges, and a product search. In-memory,
 * WordPress REST conventions where the plugin's docs are silent (errors, delete answer); see simulator/README.md.
 */
import type { ProviderState, SimContext } from '../core/context';
import { FaultHolder, FaultSpecError } from '../core/faults';
import { json, type Reply, type RequestContext, SimHttpError } from '../core/http';
import type { Router } from '../core/router';
import { searchProducts } from './catalogue';
import { offsetMinutes, wholeSeconds } from './dates';
import { badgeErrors } from './errors';
import { BadgeFaultScope, decideBadgeFaults, GARBAGE_PREFIX, parseBadgeFaults } from './faults';
import { type Badge, BadgeStore, type StoredBadge } from './store';
import { parseCreateBody, parseUpdateBody } from './validation';

export interface BadgesInfo {
  /** e.g. `/wp-json/cpbw/v1`. */
  basePath: string;
  auth: { type: 'none' | 'basic' | 'bearer'; username?: string; password?: string; token?: string };
}

export interface BadgesState extends ProviderState {
  basePath: string;
  info(): BadgesInfo;
  store: BadgeStore;
  faults: BadgeFaultScope;
}

const PREFIX_SEGMENT = /^[A-Za-z0-9._~-]+$/;

const adminError = (status: number, message: string) =>
  new SimHttpError(status, { error: status === 404 ? 'SIM_NOT_FOUND' : 'SIM_BAD_REQUEST', message });

function toReply(e: SimHttpError): Reply {
  return e.headers
    ? { status: e.status, body: e.body, headers: e.headers }
    : { status: e.status, body: e.body };
}

export function createBadges(sim: SimContext, router: Router): BadgesState {
  const o = sim.opts.badges;
  const segments = o.restPrefix.split('/');
  if (o.restPrefix === '' || !segments.every((s) => PREFIX_SEGMENT.test(s)) || segments[0] === '_sim') {
    throw new RangeError(`badges.restPrefix "${o.restPrefix}" must be path segments such as "wp-json"`);
  }
  const offsetMin = offsetMinutes(o.utcOffset);
  const basePath = `/${o.restPrefix}/cpbw/v1`;
  const store = new BadgeStore(offsetMin, o.demoBadges);
  const faults = new BadgeFaultScope(o.faults);

  const collectionUrl = (ctx: RequestContext) =>
    `http://${ctx.header('host') ?? `${sim.opts.host}`}${basePath}/badges`;
  const render = (ctx: RequestContext, b: StoredBadge): Badge => store.render(b, collectionUrl(ctx));

  function checkAuth(ctx: RequestContext): void {
    const auth = o.auth;
    if (auth.type === 'basic') {
      const challenge = 'Basic realm="cpbw"';
      const creds = ctx.basicCredentials();
      if (!creds) throw badgeErrors.notLoggedIn(challenge);
      if (creds.user !== auth.username || creds.password !== auth.password) {
        throw badgeErrors.badCredentials(challenge);
      }
    } else if (auth.type === 'bearer') {
      const token = ctx.bearerToken();
      if (!token) throw badgeErrors.notLoggedIn('Bearer realm="cpbw"');
      if (token !== auth.token)
        throw badgeErrors.badCredentials('Bearer realm="cpbw", error="invalid_token"');
    }
  }

  function createdBy(ctx: RequestContext): string {
    return o.auth.type === 'basic' ? (ctx.basicCredentials()?.user ?? o.createdBy) : o.createdBy;
  }

  function body(ctx: RequestContext): unknown {
    if (!ctx.hasBody) return {};
    return ctx.json((reason) => badgeErrors.invalidJson(reason));
  }

  function found(ctx: RequestContext) {
    const badge = store.get(ctx.params.badge_id ?? '');
    if (!badge) throw badgeErrors.notFound();
    return badge;
  }

  function checkPeriod(from: number, to: number): void {
    if (to < from) {
      throw badgeErrors.invalid({ valid_to: 'valid_to must not be earlier than valid_from' });
    }
  }

  /** Faults (slow, 5xx) first, then authentication, the operation, and the garbage-body fault on its answer. */
  const route = (method: string, pattern: string, handler: (ctx: RequestContext) => Reply) =>
    // The router's owners are the providers and `admin`; badge routes get the generic 405 answer.
    router.add('admin', method, `${basePath}${pattern}`, async (ctx) => {
      const header = ctx.header('x-sim-badge-fault');
      const own = header ? parseBadgeFaults(header) : {};
      const decision = decideBadgeFaults([
        Object.keys(ctx.faults).length > 0 ? new FaultHolder(ctx.faults) : undefined,
        Object.keys(own).length > 0 ? new FaultHolder(own) : undefined,
        faults.current,
      ]);
      if (decision.slowMs) await sim.scheduler.sleep(decision.slowMs);
      let reply: Reply;
      if (decision.status5xx !== undefined) {
        reply = toReply(badgeErrors.serverError(decision.status5xx));
      } else {
        try {
          checkAuth(ctx);
          reply = handler(ctx);
        } catch (e) {
          if (!(e instanceof SimHttpError)) throw e;
          reply = toReply(e);
        }
      }
      if (decision.garbageBody) {
        reply = {
          status: reply.status,
          raw: `${GARBAGE_PREFIX}${reply.body === undefined ? '' : JSON.stringify(reply.body)}`,
          headers: { ...reply.headers, 'content-type': 'application/json; charset=UTF-8' },
        };
      }
      return reply;
    });

  route('GET', '/badges', (ctx) => {
    const list = store.list().map((b) => render(ctx, b));
    return json(200, list, { 'x-wp-total': String(list.length), 'x-wp-totalpages': '1' });
  });

  route('GET', '/badges/:badge_id', (ctx) => json(200, render(ctx, found(ctx))));

  route('POST', '/badges', (ctx) => {
    const input = parseCreateBody(body(ctx), offsetMin);
    if (input.valid_from !== undefined && input.valid_to !== undefined) {
      checkPeriod(input.valid_from, input.valid_to);
    } else if (input.valid_to !== undefined) {
      checkPeriod(wholeSeconds(Date.now()), input.valid_to);
    }
    const badge = store.create(input, createdBy(ctx));
    const rendered = render(ctx, badge);
    return json(201, rendered, { location: rendered._links.self[0]!.href });
  });

  route('PUT', '/badges/:badge_id', (ctx) => {
    const badge = found(ctx);
    const input = parseUpdateBody(body(ctx), offsetMin);
    checkPeriod(input.valid_from ?? badge.validFrom, input.valid_to ?? badge.validTo);
    return json(200, render(ctx, store.update(badge, input)));
  });

  route('DELETE', '/badges/:badge_id', (ctx) => {
    const badge = found(ctx);
    const previous = render(ctx, badge);
    store.delete(badge);
    return json(200, { deleted: true, previous });
  });

  route('GET', '/search/product', (ctx) => {
    const term = ctx.query.get('search');
    if (term === null) throw badgeErrors.missing(['search']);
    return json(200, searchProducts(term));
  });

  // Admin hooks, beside the others under /_sim/ (no auth, no faults).
  router.add('admin', 'GET', '/_sim/badges/faults', () => json(200, faults.snapshot()));
  router.add('admin', 'PUT', '/_sim/badges/faults', (ctx) => {
    const input = ctx.json((reason) => adminError(400, reason)) as { spec?: unknown } | null;
    if (typeof input !== 'object' || input === null || typeof input.spec !== 'string') {
      throw adminError(400, 'expected {"spec": "<faults>"}, e.g. {"spec": "status-5xx-times=2"}');
    }
    try {
      faults.replace(input.spec);
    } catch (e) {
      if (e instanceof FaultSpecError) throw adminError(400, e.message);
      throw e;
    }
    return json(200, faults.snapshot());
  });
  router.add('admin', 'DELETE', '/_sim/badges/faults', () => {
    faults.replace('');
    return json(200, faults.snapshot());
  });
  router.add('admin', 'POST', '/_sim/badges/:badge_id/expire', (ctx) => {
    const badge = store.get(ctx.params.badge_id ?? '');
    if (!badge) throw adminError(404, `no badge with id "${ctx.params.badge_id}"`);
    let inSeconds = 0;
    if (ctx.hasBody) {
      const input = ctx.json((reason) => adminError(400, reason)) as { inSeconds?: unknown } | null;
      const v = typeof input === 'object' && input !== null ? input.inSeconds : undefined;
      if (v !== undefined && (typeof v !== 'number' || !Number.isInteger(v))) {
        throw adminError(
          400,
          'expected {"inSeconds"?: integer} (seconds from now; negative = already expired)',
        );
      }
      inSeconds = v ?? 0;
    }
    store.expire(badge, inSeconds);
    sim.logger.line(`badge ${badge.id} expires in ${inSeconds}s (valid_to moved)`);
    return json(200, render(ctx, badge));
  });

  return {
    basePath,
    store,
    faults,
    info: () => ({
      basePath,
      auth:
        o.auth.type === 'basic'
          ? { type: 'basic', username: o.auth.username, password: o.auth.password }
          : o.auth.type === 'bearer'
            ? { type: 'bearer', token: o.auth.token }
            : { type: 'none' },
    }),
    transactions: () => [],
    reset: () => {
      store.reset();
      faults.resetToInitial();
    },
  };
}
