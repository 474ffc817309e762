/**
 * MoMo gateway checks and credentials: subscription keys per product, sandbox provisioning of API users
 * and keys, Basic → Bearer tokens per product, and the `X-Target-Environment` check.
 */
import * as z from 'zod';
import type { SimContext } from '../core/context';
import { FaultHolder } from '../core/faults';
import { json, type RequestContext } from '../core/http';
import { hex, UUID_V4 } from '../core/ids';
import type { Router } from '../core/router';
import { jwtLikeToken, TokenStore } from '../core/tokens';
import { momoErrors } from './errors';

export type MomoProduct = 'collection' | 'disbursement';

export interface ApiUser {
  id: string;
  providerCallbackHost: string;
  /** Only the latest key works: the sandbox replaces a lost key by creating a new one. */
  apiKey: string | undefined;
}

export interface MomoTokenData {
  apiUserId: string;
  product: MomoProduct;
}

const CreateApiUserBody = z.object({ providerCallbackHost: z.string().min(1) });

export class MomoAuth {
  readonly users = new Map<string, ApiUser>();
  readonly tokens = new TokenStore<MomoTokenData>();

  constructor(private readonly sim: SimContext) {
    this.seedUsers();
  }

  private seedUsers(): void {
    for (const u of this.sim.opts.momo.apiUsers) {
      this.users.set(u.id, { id: u.id, providerCallbackHost: u.providerCallbackHost, apiKey: u.apiKey });
    }
  }

  reset(): void {
    this.users.clear();
    this.seedUsers();
  }

  /** The secondary key is accepted as well: clients fall back to it when the primary fails. */
  checkSubscriptionKey(ctx: RequestContext, product: MomoProduct | 'any'): void {
    const given = ctx.header('ocp-apim-subscription-key');
    const { collectionSubscriptionKeys: c, disbursementSubscriptionKeys: d } = this.sim.opts.momo;
    const accepted =
      product === 'collection'
        ? [c.primary, c.secondary]
        : product === 'disbursement'
          ? [d.primary, d.secondary]
          : [c.primary, c.secondary, d.primary, d.secondary];
    if (!given || !accepted.includes(given)) throw momoErrors.subscriptionKey();
  }

  /** Subscription key, Bearer token of the same product, then `X-Target-Environment`. */
  authenticate(ctx: RequestContext, product: MomoProduct): ApiUser {
    this.checkSubscriptionKey(ctx, product);
    const token = ctx.bearerToken();
    if (ctx.faults.tokenExpireEarlyMs !== undefined) this.tokens.expire(token);
    const found = this.tokens.lookup(token);
    if (!found.ok) throw momoErrors.invalidToken(found.reason);
    if (found.data.product !== product) throw momoErrors.invalidToken('unknown');
    const user = this.users.get(found.data.apiUserId);
    if (!user) throw momoErrors.invalidToken('unknown');
    const env = ctx.header('x-target-environment');
    if (!env) throw momoErrors.badRequest('Header X-Target-Environment is required.');
    if (env !== this.sim.opts.momo.targetEnvironment) throw momoErrors.targetEnvironment();
    return user;
  }

  register(router: Router): void {
    for (const prefix of ['', '/v1_0']) {
      router.add('momo', 'POST', `${prefix}/apiuser`, (ctx) => this.createApiUser(ctx));
      router.add('momo', 'POST', `${prefix}/apiuser/:id/apikey`, (ctx) => this.createApiKey(ctx));
      router.add('momo', 'GET', `${prefix}/apiuser/:id`, (ctx) => this.getApiUser(ctx));
    }
    router.add('momo', 'POST', '/collection/token', (ctx) => this.createToken(ctx, 'collection'));
    router.add('momo', 'POST', '/disbursement/token', (ctx) => this.createToken(ctx, 'disbursement'));
  }

  private createApiUser(ctx: RequestContext) {
    this.checkSubscriptionKey(ctx, 'any');
    const id = ctx.header('x-reference-id');
    if (!id || !UUID_V4.test(id)) throw momoErrors.badRequest('X-Reference-Id must be a UUID version 4.');
    const parsed = CreateApiUserBody.safeParse(
      ctx.json(() => momoErrors.badRequest('A JSON body is required.')),
    );
    if (!parsed.success) throw momoErrors.badRequest('providerCallbackHost is required.');
    if (this.users.has(id)) throw momoErrors.conflict();
    this.users.set(id, { id, providerCallbackHost: parsed.data.providerCallbackHost, apiKey: undefined });
    return { status: 201 };
  }

  private createApiKey(ctx: RequestContext) {
    this.checkSubscriptionKey(ctx, 'any');
    const user = this.users.get(ctx.params.id ?? '');
    if (!user) throw momoErrors.notFound();
    user.apiKey = hex(16);
    return json(201, { apiKey: user.apiKey });
  }

  private getApiUser(ctx: RequestContext) {
    this.checkSubscriptionKey(ctx, 'any');
    const user = this.users.get(ctx.params.id ?? '');
    if (!user) throw momoErrors.notFound();
    return json(200, {
      providerCallbackHost: user.providerCallbackHost,
      targetEnvironment: this.sim.opts.momo.targetEnvironment,
    });
  }

  private createToken(ctx: RequestContext, product: MomoProduct) {
    this.checkSubscriptionKey(ctx, product);
    // Seed 000: a body sent to an operation that takes none is a 400.
    if (ctx.hasBody) throw momoErrors.badRequest('This operation takes no request body.');
    const creds = ctx.basicCredentials();
    const user = creds ? this.users.get(creds.user) : undefined;
    if (!creds || !user?.apiKey || user.apiKey !== creds.password) throw momoErrors.loginFailed();
    const ttl = this.sim.opts.momo.tokenTtlSeconds;
    const now = Math.floor(Date.now() / 1000);
    const token = jwtLikeToken({ sub: user.id, product, iat: now, exp: now + ttl });
    const holders = [
      Object.keys(ctx.faults).length ? new FaultHolder(ctx.faults) : undefined,
      ...this.sim.faults.holdersFor('momo'),
    ];
    this.tokens.issue(token, { apiUserId: user.id, product }, ttl * 1000, holders);
    return json(200, { access_token: token, token_type: 'access_token', expires_in: ttl });
  }
}
