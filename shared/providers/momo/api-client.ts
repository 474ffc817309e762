/**
 * MoMo status API client (reconciliation): Collection and Disbursement tokens (`POST /{product}/token/`,
 * Basic apiUser:apiKey + the product's subscription key; each product has its own key and token) and the
 * status GET of each kind with `X-Target-Environment`. Classification is status-mapping.ts (pure).
 */
import {
  accountGuards,
  authorizedCall,
  basicAuth,
  type HttpResponse,
  joinUrl,
  requestToken,
  statusError,
  TokenCache,
} from '../http';
import type { AccountContext, StatusApi, StatusApiDeps, StatusQuery } from '../types';
import type { MomoAccountSettings, MomoApiSettings, MomoKind } from './schema';
import {
  classifyMomoStatus,
  MOMO_ACCOUNT_ERRORS,
  MOMO_STATUS_PATHS,
  type MomoProduct,
  momoErrorCode,
  productOfPath,
} from './status-mapping';

/** MoMo tokens say `expires_in` 3600; a token without it is kept this long. */
const FALLBACK_TOKEN_SECONDS = 300;

export interface MomoStatusApiOptions {
  /** Seconds a refused credential holds the account (default 60). */
  credentialsCooldownMs?: number;
  /** Jitter source, for tests. */
  random?(): number;
}

export interface MomoStatusApi extends StatusApi {
  /** Token requests made per product (tests, diagnostics). */
  tokenRequests(product: MomoProduct): number;
}

/** The status path and product of one kind, `api.paths` first. */
export function momoStatusTarget(
  api: Pick<MomoApiSettings, 'paths'>,
  kind: string,
): { product: MomoProduct; path: string } | undefined {
  const known = MOMO_STATUS_PATHS[kind as MomoKind];
  if (!known) return undefined;
  const configured = api.paths?.[kind as MomoKind];
  if (configured) return { product: productOfPath(configured, known.product), path: configured };
  return known.path ? { product: known.product, path: known.path } : undefined;
}

/** 5xx NOT_ALLOWED… is the account's configuration, not an outage: not worth retrying. */
function verdict(response: HttpResponse) {
  if (response.status === 429) return 'throttled' as const;
  if (response.status >= 500) {
    const code = momoErrorCode(response.json);
    return code && MOMO_ACCOUNT_ERRORS.has(code) ? ('ok' as const) : ('retry' as const);
  }
  return 'ok' as const;
}

export function createMomoStatusApi(
  account: AccountContext<MomoAccountSettings>,
  deps: StatusApiDeps,
  options: MomoStatusApiOptions = {},
): MomoStatusApi | undefined {
  const api = account.settings.api;
  if (!api) return undefined;
  const targetEnvironment = account.settings.targetEnvironment;
  const subscriptionKey = (product: MomoProduct) =>
    ({
      collection: api.collectionSubscriptionKey,
      disbursement: api.disbursementSubscriptionKey,
      remittance: api.remittanceSubscriptionKey,
    })[product];
  const {
    gate,
    bucket: bucket,
    limit,
  } = accountGuards({
    provider: 'momo',
    account: account.id,
    api,
    deps,
    credentialsCooldownMs: options.credentialsCooldownMs,
  });
  const callOptions = (what: string) => ({
    timeoutMs: api.timeoutMs,
    limiter: bucket,
    classify: verdict,
    what,
    ...(options.random ? { random: options.random } : {}),
  });

  const tokens: Record<MomoProduct, TokenCache> = {
    collection: tokenCache('collection'),
    disbursement: tokenCache('disbursement'),
    remittance: tokenCache('remittance'),
  };
  function tokenCache(product: MomoProduct): TokenCache {
    return new TokenCache({
      now: deps.now,
      fetchToken: () =>
        requestToken(
          deps,
          {
            method: 'POST',
            url: joinUrl(api!.baseUrl, `/${product}/token/`),
            // Seed 000: the token operation takes no body.
            headers: {
              authorization: basicAuth(api!.apiUser, api!.apiKey),
              'ocp-apim-subscription-key': subscriptionKey(product) ?? '',
              accept: 'application/json',
            },
          },
          { ...callOptions(`MoMo ${product} token`), fallbackExpiresInSeconds: FALLBACK_TOKEN_SECONDS },
        ),
    });
  }

  async function check(query: StatusQuery, signal?: AbortSignal) {
    const target = momoStatusTarget(api!, query.kind);
    if (!target) {
      return statusError(
        'unsupported',
        `MoMo has no known status path for kind ${query.kind}; set accounts.momo.${account.id}.api.paths.${query.kind}`,
      );
    }
    const key = subscriptionKey(target.product);
    if (!key) {
      return statusError(
        'unsupported',
        `momo/${account.id} has no ${target.product}SubscriptionKey in its api settings`,
      );
    }
    const reference = query.reference.toLowerCase();
    const url = joinUrl(api!.baseUrl, target.path.replace('{ref}', encodeURIComponent(reference)));
    const result = await authorizedCall({
      deps,
      gate,
      tokens: tokens[target.product],
      build: (token) => ({
        method: 'GET',
        url,
        headers: {
          authorization: `Bearer ${token}`,
          'x-target-environment': targetEnvironment,
          'ocp-apim-subscription-key': key,
          accept: 'application/json',
        },
      }),
      // A 401 on the GET is the token (a wrong subscription key fails the token call first).
      tokenRejected: (response) => response.status === 401,
      call: { ...callOptions(`MoMo ${query.kind} status`), ...(signal ? { signal } : {}) },
    });
    if (!result.ok) return result.error;
    const answer = classifyMomoStatus({
      accountId: account.id,
      kind: query.kind,
      reference,
      httpStatus: result.response.status,
      json: result.response.json,
      garbage: result.response.garbage,
    });
    if (answer.type === 'error' && answer.error === 'credentials') return gate.refuse(answer);
    return answer;
  }

  return {
    check: (query, signal) => limit.run(() => check(query, signal)),
    tokenRequests: (product) => tokens[product].requests,
  };
}
