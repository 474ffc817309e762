/**
 * MoMo OAuth2 consent flow (MoMo Open API docs: bc-authorize, CreateOauth2Token, GetUserInfoWithConsent, the
 * "OAuth2 consent flow (MSISDN)" triggers and the `all_info` scope), on the collection, disbursement and
 * remittance prefixes alike.
 *
 * MTN's docs give paths, headers and response fields but not methods or request parameters; these follow
 * MTN's live API (OpenID CIBA, poll mode):
 * - `POST /{product}/v1_0/bc-authorize`, Bearer access token of that product, form body
 *   `login_hint=ID:<msisdn>/MSISDN` (or `ID:<e-mail>/EMAIL`), `scope=<space-separated>`,
 *   `access_type=offline|online` (default offline), optional `consent_valid_in=<seconds>`;
 *   200 `{auth_req_id, interval, expires_in}`. With `X-Callback-Url` the consumer's answer is pinged there
 *   as `POST {auth_req_id}` (CIBA ping mode).
 * - `POST /{product}/oauth2/token/`, Basic API user credentials, form body
 *   `grant_type=urn:openid:params:grant-type:ciba&auth_req_id=<id>` or
 *   `grant_type=refresh_token&refresh_token=<token>`; 200 the consent token, errors 400/401
 *   `{error, error_description}` (RFC 6749 / CIBA codes).
 * - `GET /{product}/oauth2/v1_0/userinfo` with the consent token as Bearer.
 */
import { randomUUID } from 'node:crypto';
import type { SimContext } from '../core/context';
import { json, type Reply, type RequestContext } from '../core/http';
import { jwtLikeToken } from '../core/tokens';
import { type MomoAuth, type MomoProduct, MOMO_PRODUCTS } from './auth';
import { ALL_INFO_SCOPE, type ConsentGrant, consentOutcome } from './consent-triggers';
import { momoError, momoErrors, oauthError } from './errors';
import { checkCallbackUrl } from './operations';
import type { RouteAdder } from './spelling';

const CIBA_GRANT_TYPE = 'urn:openid:params:grant-type:ciba';
/** bc-authorize `interval`: seconds a polling client waits between token calls. */
const BC_AUTHORIZE_INTERVAL_SECONDS = 5;
/** bc-authorize `expires_in`: provider seconds (scaled by `timeScale`) until an unredeemed request dies. */
const BC_AUTHORIZE_EXPIRES_IN_SECONDS = 3600;
/** Consent validity when bc-authorize has no `consent_valid_in` (MTN's docs name a default, not its value). */
const DEFAULT_CONSENT_VALID_SECONDS = 365 * 24 * 60 * 60;

/**
 * OpenID Connect scope groups for scopes other than `all_info`: each listed scope adds its claims to the
 * always-present `sub`.
 */
const SCOPE_CLAIMS: Readonly<Record<string, readonly string[]>> = {
  profile: [
    'name',
    'given_name',
    'family_name',
    'middle_name',
    'gender',
    'locale',
    'birthdate',
    'updated_at',
  ],
  email: ['email', 'email_verified'],
  phone: ['phone_number', 'phone_number_verified'],
  address: ['address'],
};

function parseForm(ctx: RequestContext): URLSearchParams {
  const text = ctx.bodyText.trim();
  // Lenient on purpose: some clients send the same parameters as JSON.
  if (text.startsWith('{')) {
    try {
      const obj = JSON.parse(text) as Record<string, unknown>;
      return new URLSearchParams(
        Object.entries(obj).map(([k, v]): [string, string] => [
          k,
          typeof v === 'string' ? v : JSON.stringify(v),
        ]),
      );
    } catch {
      throw momoErrors.badRequest('The request body is neither a form nor JSON.');
    }
  }
  return new URLSearchParams(text);
}

export class MomoConsent {
  private readonly grants = new Map<string, ConsentGrant>();
  private readonly byRefreshToken = new Map<string, ConsentGrant>();

  constructor(
    private readonly sim: SimContext,
    private readonly auth: MomoAuth,
  ) {}

  reset(): void {
    this.grants.clear();
    this.byRefreshToken.clear();
  }

  register(router: RouteAdder): void {
    for (const product of MOMO_PRODUCTS) {
      router.add('momo', 'POST', `/${product}/v1_0/bc-authorize`, (ctx) => this.bcAuthorize(ctx, product));
      router.add('momo', 'POST', `/${product}/oauth2/token`, (ctx) => this.token(ctx, product));
      router.add('momo', 'GET', `/${product}/oauth2/v1_0/userinfo`, (ctx) => this.userInfo(ctx, product));
    }
  }

  // ---- bc-authorize ---------------------------------------------------------------------------------

  private bcAuthorize(ctx: RequestContext, product: MomoProduct): Reply {
    const user = this.auth.authenticate(ctx, product);
    const callbackUrl = ctx.header('x-callback-url');
    if (callbackUrl !== undefined) checkCallbackUrl(callbackUrl, user.providerCallbackHost);
    const form = parseForm(ctx);
    const loginHint = form.get('login_hint') ?? '';
    const hint = /^ID:([^/]+)\/(MSISDN|EMAIL)$/i.exec(loginHint);
    if (!hint) throw momoErrors.badRequest('login_hint must be ID:<msisdn>/MSISDN or ID:<e-mail>/EMAIL.');
    const consumerId = hint[1]!;
    const consumerIdType = hint[2]!.toUpperCase() as 'MSISDN' | 'EMAIL';
    if (consumerIdType === 'MSISDN' && !/^\d{5,15}$/.test(consumerId))
      throw momoErrors.badRequest('login_hint does not carry an MSISDN.');
    const scope = (form.get('scope') ?? '').trim();
    if (!scope) throw momoErrors.badRequest('scope is required.');
    const accessType = form.get('access_type') ?? 'offline';
    if (accessType !== 'online' && accessType !== 'offline')
      throw momoErrors.badRequest('access_type must be online or offline.');
    const validIn = form.get('consent_valid_in');
    if (validIn !== null && !/^[1-9]\d*$/.test(validIn))
      throw momoErrors.badRequest('consent_valid_in must be a positive number of seconds.');

    const outcome = consentOutcome(consumerIdType, consumerId, this.sim.opts.momo.sandboxMsisdnBase);
    if (outcome === 'AccountHolderNotFound') {
      throw momoError(
        404,
        'ACCOUNT_HOLDER_NOT_FOUND',
        'The account holder named by login_hint was not found.',
      );
    }
    const now = Date.now();
    const grant: ConsentGrant = {
      authReqId: randomUUID(),
      apiUserId: user.id,
      product,
      loginHint,
      consumerId,
      consumerIdType,
      scope,
      accessType,
      outcome,
      createdAt: now,
      // Sandbox consumers answer at once, so a client may call the token endpoint straight away; only the
      // ConsentPending row makes it poll (for `approvalDelayMs`, real time).
      approvedAt: outcome === 'ConsentPending' ? now + this.sim.opts.approvalDelayMs : now,
      authReqExpiresAt: now + this.sim.scheduler.scaled(BC_AUTHORIZE_EXPIRES_IN_SECONDS * 1000),
      consentValidSeconds: validIn === null ? DEFAULT_CONSENT_VALID_SECONDS : Number(validIn),
      redeemed: false,
      refreshToken: undefined,
    };
    this.grants.set(grant.authReqId, grant);
    // ConsentExpired: the consumer never answers, so there is nothing to ping.
    if (callbackUrl !== undefined && outcome !== 'ConsentExpired') this.ping(grant, callbackUrl);
    return json(200, {
      auth_req_id: grant.authReqId,
      interval: BC_AUTHORIZE_INTERVAL_SECONDS,
      expires_in: BC_AUTHORIZE_EXPIRES_IN_SECONDS,
    });
  }

  private ping(grant: ConsentGrant, url: string): void {
    this.sim.later(Math.max(0, grant.approvedAt - Date.now()), async () => {
      await this.sim.sender.deliver(
        {
          provider: 'momo',
          kind: 'bc-authorize',
          reference: grant.authReqId,
          url,
          method: 'POST',
          body: JSON.stringify({ auth_req_id: grant.authReqId }),
          sourceIp: this.sim.opts.momo.callbackSourceIp,
          summary: `${grant.authReqId.slice(0, 8)} ${grant.outcome === 'ConsentRejected' ? 'rejected' : 'answered'}`,
        },
        {},
      );
    });
  }

  // ---- token ----------------------------------------------------------------------------------------

  private token(ctx: RequestContext, product: MomoProduct): Reply {
    this.auth.checkSourceIp(ctx, product);
    this.auth.checkSubscriptionKey(ctx, product);
    const user = this.auth.basicUser(ctx);
    const env = ctx.header('x-target-environment');
    if (!env) throw momoErrors.badRequest('Header X-Target-Environment is required.');
    if (env !== this.sim.opts.momo.targetEnvironment) throw momoErrors.targetEnvironment();
    const form = parseForm(ctx);
    const grantType = form.get('grant_type');
    if (grantType === CIBA_GRANT_TYPE) return this.redeem(ctx, user.id, product, form.get('auth_req_id'));
    if (grantType === 'refresh_token') return this.refresh(ctx, user.id, product, form.get('refresh_token'));
    if (!grantType) throw oauthError(400, 'invalid_request', 'grant_type is required.');
    throw oauthError(400, 'unsupported_grant_type', `grant_type ${grantType} is not supported.`);
  }

  private redeem(
    ctx: RequestContext,
    apiUserId: string,
    product: MomoProduct,
    authReqId: string | null,
  ): Reply {
    if (!authReqId) throw oauthError(400, 'invalid_request', 'auth_req_id is required.');
    const grant = this.grants.get(authReqId);
    if (!grant || grant.apiUserId !== apiUserId || grant.product !== product)
      throw oauthError(400, 'invalid_grant', 'auth_req_id is unknown.');
    if (grant.redeemed || grant.outcome === 'ConsentAlreadyUsed')
      throw oauthError(400, 'invalid_grant', 'The authentication request has already been used.');
    const now = Date.now();
    if (grant.outcome === 'ConsentExpired' || now >= grant.authReqExpiresAt)
      throw oauthError(400, 'expired_token', 'The authentication request has expired; start a new one.');
    if (grant.outcome === 'ConsentRejected')
      throw oauthError(400, 'access_denied', 'The consumer rejected the consent request.');
    if (grant.outcome === 'ConsentRevoked')
      throw oauthError(400, 'invalid_grant', 'The consumer has revoked the consent.');
    if (now < grant.approvedAt)
      throw oauthError(400, 'authorization_pending', 'The consumer has not answered yet; poll again later.');
    grant.redeemed = true;
    if (grant.accessType === 'offline') {
      grant.refreshToken = randomUUID();
      this.byRefreshToken.set(grant.refreshToken, grant);
    }
    return this.issue(ctx, grant, now);
  }

  private refresh(
    ctx: RequestContext,
    apiUserId: string,
    product: MomoProduct,
    refreshToken: string | null,
  ): Reply {
    if (!refreshToken) throw oauthError(400, 'invalid_request', 'refresh_token is required.');
    const grant = this.byRefreshToken.get(refreshToken);
    if (!grant || grant.apiUserId !== apiUserId || grant.product !== product)
      throw oauthError(400, 'invalid_grant', 'refresh_token is unknown.');
    const now = Date.now();
    if (grant.outcome === 'ConsentExpiredRefreshToken' || this.refreshSecondsLeft(grant, now) <= 0)
      throw oauthError(
        400,
        'invalid_grant',
        'The refresh token has expired; the consumer must consent again.',
      );
    return this.issue(ctx, grant, now);
  }

  private refreshSecondsLeft(grant: ConsentGrant, now: number): number {
    if (grant.outcome === 'ConsentExpiredRefreshToken') return 0;
    const end = grant.createdAt + this.sim.scheduler.scaled(grant.consentValidSeconds * 1000);
    // Announced in provider seconds, so undo the time scale.
    return Math.max(0, Math.floor((end - now) / this.sim.scheduler.timeScale / 1000));
  }

  private issue(ctx: RequestContext, grant: ConsentGrant, now: number): Reply {
    const ttl = this.sim.opts.momo.tokenTtlSeconds;
    const iat = Math.floor(now / 1000);
    const accessToken = jwtLikeToken({
      sub: grant.consumerId,
      client_id: grant.apiUserId,
      scope: grant.scope,
      iat,
      exp: iat + ttl,
    });
    this.auth.tokens.issue(
      accessToken,
      { apiUserId: grant.apiUserId, product: grant.product, consent: grant },
      ttl * 1000,
      this.auth.tokenFaultHolders(ctx),
    );
    const body: Record<string, unknown> = {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: ttl,
      scope: grant.scope,
    };
    if (grant.refreshToken) {
      body.refresh_token = grant.refreshToken;
      body.refresh_token_expired_in = this.refreshSecondsLeft(grant, now);
    }
    return json(200, body);
  }

  // ---- user info ------------------------------------------------------------------------------------

  private userInfo(ctx: RequestContext, product: MomoProduct): Reply {
    const { token } = this.auth.authenticateToken(ctx, product);
    const grant = token.consent;
    if (!grant) {
      throw oauthError(401, 'invalid_token', 'User info needs an OAuth2 consent token from /oauth2/token.');
    }
    if (grant.outcome === 'ConsentDeletedScope') {
      throw oauthError(403, 'insufficient_scope', 'The consumer deleted a scope this consent was given for.');
    }
    const full = this.fullUserInfo(grant);
    const scopes = grant.scope.split(/\s+/);
    if (scopes.includes(ALL_INFO_SCOPE)) return json(200, full);
    const claims = new Set(['sub', ...scopes.flatMap((s) => SCOPE_CLAIMS[s] ?? [])]);
    return json(200, Object.fromEntries(Object.entries(full).filter(([k]) => claims.has(k))));
  }

  private fullUserInfo(grant: ConsentGrant): Record<string, unknown> {
    const msisdn = grant.consumerIdType === 'MSISDN' ? grant.consumerId : '46733123999';
    const email = grant.consumerIdType === 'EMAIL' ? grant.consumerId : 'sand.box@sandbox.momo';
    return {
      sub: grant.consumerId,
      name: 'Sand Box',
      given_name: 'Sand',
      family_name: 'Box',
      middle_name: 'Momo',
      email,
      email_verified: true,
      gender: 'male',
      locale: 'sv-SE',
      phone_number: msisdn,
      phone_number_verified: true,
      address: 'Sandbox Street 1, 111 22 Stockholm',
      status: 'ACTIVE',
      active: true,
      birthdate: '1976-08-13',
      credit_score: '720',
      country_of_birth: 'SE',
      region_of_birth: 'Stockholm',
      city_of_birth: 'Stockholm',
      occupation: 'Engineer',
      employer_name: 'Sandbox AB',
      identification_type: 'PASS',
      identification_value: 'P1234567',
      updated_at: Math.floor(grant.createdAt / 1000),
    };
  }
}
