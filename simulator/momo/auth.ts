/**
 * MoMo gateway checks and credentials: subscription keys per product, the disbursement/remittance IP
 * allow-lists, sandbox provisioning of API users and keys, Basic → Bearer tokens per product, and the
 * `X-Target-Environment` check.
 */
import * as z from 'zod';
import type { SimContext } from '../core/context';
import { FaultHolder } from '../core/faults';
import { json, type RequestContext } from '../core/http';
import { hex, UUID_V4 } from '../core/ids';
import type { RouteAdder } from './spelling';
import { jwtLikeToken, TokenStore } from '../core/tokens';
import type { ConsentGrant } from './consent-triggers';
import { momoErrors } from './errors';
import { ipAllowed } from './ip-allow-list';

export type MomoProduct = 'collection' | 'disbursement' | 'remittance';
export const MOMO_PRODUCTS: readonly MomoProduct[] = ['collection', 'disbursement', 'remittance'];

export interface ApiUser {
  id: string;
  providerCallbackHost: string;
  /** Only the latest key works: the sandbox replaces a lost key by creating a new one. */
  apiKey: string | undefined;
}

export interface MomoTokenData {
  apiUserId: string;
  product: MomoProduct;
  /** Set on OAuth2 consent tokens (`/oauth2/token`): the consumer's consent they act under. */
  consent?: ConsentGrant;
}

const CreateApiUserBody = z.object({ providerCallbackHost: z.string().min(1) });

export class MomoAuth {
  readonly users = new Map<string, ApiUser>();
  readonly tokens = new TokenStore<MomoTokenData>(() => this.sim.scheduler.now());

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
    const accepted = (product === 'any' ? MOMO_PRODUCTS : [product]).flatMap((p) => {
      const keys = this.subscriptionKeys(p);
      return [keys.primary, keys.secondary];
    });
    if (!given || !accepted.includes(given)) throw momoErrors.subscriptionKey();
  }

  private subscriptionKeys(product: MomoProduct): { primary: string; secondary: string } {
    const o = this.sim.opts.momo;
    if (product === 'collection') return o.collectionSubscriptionKeys;
    if (product === 'disbursement') return o.disbursementSubscriptionKeys;
    return o.remittanceSubscriptionKeys;
  }

  /**
   * MoMo Open API docs: "Disbursement calls come from allow-listed public IP addresses; others get 403 FORBIDDEN IP".
   * The gateway refuses before it looks at keys or tokens. The caller's address is the socket's; the
   * simulator's `X-Sim-Source-Ip` header overrides it, because every test and local client connects from
   * loopback and could not otherwise play a caller outside (or inside) a list.
   */
  checkSourceIp(ctx: RequestContext, product: MomoProduct): void {
    const o = this.sim.opts.momo;
    const list =
      product === 'disbursement'
        ? o.disbursementAllowList
        : product === 'remittance'
          ? o.remittanceAllowList
          : [];
    if (list.length === 0) return;
    // No address means the connection is gone; 'unknown' matches no list entry, so the call is refused.
    const ip = ctx.header('x-sim-source-ip')?.trim() || ctx.remoteAddress || 'unknown';
    if (!ipAllowed(ip, list)) throw momoErrors.forbiddenIp(ip);
  }

  /** Subscription key, Bearer token of the same product, then `X-Target-Environment`. */
  authenticate(ctx: RequestContext, product: MomoProduct): ApiUser {
    return this.authenticateToken(ctx, product).user;
  }

  /** As `authenticate`, also returning what the token carries (a consent token's consent). */
  authenticateToken(ctx: RequestContext, product: MomoProduct): { user: ApiUser; token: MomoTokenData } {
    this.checkSourceIp(ctx, product);
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
    return { user, token: found.data };
  }

  /** Basic credentials of an API user with a current key (token endpoints). */
  basicUser(ctx: RequestContext): ApiUser {
    const creds = ctx.basicCredentials();
    const user = creds ? this.users.get(creds.user) : undefined;
    if (!creds || !user?.apiKey || user.apiKey !== creds.password) throw momoErrors.loginFailed();
    return user;
  }

  /** Fault holders a new token takes its `token-expire-early` from. */
  tokenFaultHolders(ctx: RequestContext): (FaultHolder | undefined)[] {
    return [
      Object.keys(ctx.faults).length ? new FaultHolder(ctx.faults) : undefined,
      ...this.sim.faults.holdersFor('momo'),
    ];
  }

  register(router: RouteAdder): void {
    for (const prefix of ['', '/v1_0']) {
      router.add('momo', 'POST', `${prefix}/apiuser`, (ctx) => this.createApiUser(ctx));
      router.add('momo', 'POST', `${prefix}/apiuser/:id/apikey`, (ctx) => this.createApiKey(ctx));
      router.add('momo', 'GET', `${prefix}/apiuser/:id`, (ctx) => this.getApiUser(ctx));
    }
    for (const product of MOMO_PRODUCTS) {
      router.add('momo', 'POST', `/${product}/token`, (ctx) => this.createToken(ctx, product));
    }
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
    this.checkSourceIp(ctx, product);
    this.checkSubscriptionKey(ctx, product);
    // MoMo Open API docs: a body sent to an operation that takes none is a 400.
    if (ctx.hasBody) throw momoErrors.badRequest('This operation takes no request body.');
    const user = this.basicUser(ctx);
    const ttl = this.sim.opts.momo.tokenTtlSeconds;
    const now = Math.floor(Date.now() / 1000);
    const token = jwtLikeToken({ sub: user.id, product, iat: now, exp: now + ttl });
    this.tokens.issue(token, { apiUserId: user.id, product }, ttl * 1000, this.tokenFaultHolders(ctx));
    return json(200, { access_token: token, token_type: 'access_token', expires_in: ttl });
  }
}
