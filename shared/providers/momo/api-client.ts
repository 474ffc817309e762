/**
 * MoMo status API client (reconciliation): Collection and Disbursement tokens (`POST /{product}/token/`,
 * Basic apiUser:apiKey + the product's subscription key; each product has its own key and token) and the
 * status GET of each kind with `X-Target-Environment`. Classification is status-mapping.ts (pure).
 */
import {
  accountGuards,
  authorizedCall,
  guardedStatusApi,
  basicAuth,
  type HttpResponse,
  isRecord,
  joinUrl,
  requestLine,
  requestToken,
  statusError,
  textOf,
  TokenCache,
} from '../outbound-http';
import { toDecimalString } from '../../util/money';
import type {
  AccountContext,
  BalanceAnswer,
  BalanceRequest,
  ReportedBalance,
  StatusApi,
  StatusApiDeps,
  StatusQuery,
} from '../types';
import type { MomoAccountSettings, MomoApiSettings, MomoKind } from './schema';
import {
  classifyMomoStatus,
  unclearWhenServerError,
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

/** The status path and product of one kind, `api.paths` first (`null`: none on this account). */
function momoStatusTarget(
  api: Pick<MomoApiSettings, 'paths'>,
  kind: string,
): { product: MomoProduct; path: string } | undefined {
  const known = MOMO_STATUS_PATHS[kind as MomoKind];
  const configured = api.paths?.[kind as MomoKind];
  if (!known || configured === null) return undefined;
  if (configured) return { product: productOfPath(configured, known.product), path: configured };
  return known.path ? { product: known.product, path: known.path } : undefined;
}

function keyPair(primary: string | undefined, secondary: string | undefined): string[] {
  return primary ? (secondary ? [primary, secondary] : [primary]) : [];
}

/**
 * The gateway refused the `Ocp-Apim-Subscription-Key` itself (MoMo Open API docs: 401 `ACCESS DENIED DUE TO INVALID
 * SUBSCRIPTION KEY`; Azure APIM's sentence "Access denied due to invalid subscription key…", also with 403
 * for a key of an inactive subscription), not the API user's credentials (`login_failed`) or the caller's IP.
 */
function isSubscriptionKeyRefusal(response: Pick<HttpResponse, 'status' | 'json'>): boolean {
  if (response.status !== 401 && response.status !== 403) return false;
  const json = response.json;
  if (!json || typeof json !== 'object') return false;
  return Object.values(json as Record<string, unknown>).some(
    (value) => typeof value === 'string' && /subscription key/i.test(value),
  );
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
  const keys: Record<MomoProduct, string[]> = {
    collection: keyPair(api.collectionSubscriptionKey, api.collectionSecondarySubscriptionKey),
    disbursement: keyPair(api.disbursementSubscriptionKey, api.disbursementSecondarySubscriptionKey),
    remittance: keyPair(api.remittanceSubscriptionKey, api.remittanceSecondarySubscriptionKey),
  };
  /** Which of a product's keys is in use: the primary until MoMo refuses it, then the secondary. */
  const active: Record<MomoProduct, number> = { collection: 0, disbursement: 0, remittance: 0 };
  const subscriptionKey = (product: MomoProduct): string | undefined => keys[product][active[product]];
  /**
   * MoMo refused the product's key in use: switch to its other key (primary ↔ secondary) when there is
   * one. Returns whether it switched; one info line says so (key names only, never values).
   */
  function switchKey(product: MomoProduct, what: string): boolean {
    if (keys[product].length < 2) return false;
    const from = active[product];
    active[product] = 1 - from;
    deps.log.info('MoMo refused a subscription key; trying the other key of the product', {
      provider: 'momo',
      account: account.id,
      product,
      refused: from === 0 ? 'primary' : 'secondary',
      what,
    });
    return true;
  }
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
    const what = `MoMo ${product} token`;
    /** One token request with the key in use; `refusedKey` tells whether MoMo refused that key. */
    async function tokenWithActiveKey() {
      let last: HttpResponse | undefined;
      const outcome = await requestToken(
        deps,
        {
          method: 'POST',
          url: joinUrl(api!.baseUrl, `/${product}/token/`),
          // MoMo Open API docs: the token operation takes no body.
          headers: {
            authorization: basicAuth(api!.apiUser, api!.apiKey),
            'ocp-apim-subscription-key': subscriptionKey(product) ?? '',
            accept: 'application/json',
          },
        },
        {
          ...callOptions(what),
          // The refusal's body says whose fault it is: kept to tell a refused key from refused credentials.
          classify: (response) => {
            last = response;
            return verdict(response);
          },
          fallbackExpiresInSeconds: FALLBACK_TOKEN_SECONDS,
        },
      );
      return { outcome, refusedKey: !outcome.ok && last !== undefined && isSubscriptionKeyRefusal(last) };
    }
    return new TokenCache({
      now: deps.now,
      fetchToken: async () => {
        const first = await tokenWithActiveKey();
        if (!first.refusedKey || !switchKey(product, what)) return first.outcome;
        return (await tokenWithActiveKey()).outcome;
      },
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
    if (!subscriptionKey(target.product)) {
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
          // The key in use when the request is built: a refused key switches before the repeat.
          'ocp-apim-subscription-key': subscriptionKey(target.product) ?? '',
          accept: 'application/json',
        },
      }),
      // A 401 on the GET is the token. A subscription key refusal (a key revoked after the token was
      // issued) switches to the product's other key, then the token is renewed and the GET repeated once.
      tokenRejected: (response) =>
        (isSubscriptionKeyRefusal(response) && switchKey(target.product, `MoMo ${query.kind} status`)) ||
        response.status === 401,
      call: { ...callOptions(`MoMo ${query.kind} status`), ...(signal ? { signal } : {}) },
    });
    const request = requestLine('GET', url);
    if (!result.ok) return { ...unclearWhenServerError(result.error), request };
    return {
      ...classifyMomoStatus({
        accountId: account.id,
        kind: query.kind,
        reference,
        httpStatus: result.response.status,
        json: result.response.json,
        garbage: result.response.garbage,
      }),
      request,
    };
  }

  /**
   * GetAccountBalance (`GET /{product}/v1_0/account/balance`, MoMo Open API docs) of every product the
   * account has a subscription key for: collection and disbursement are separate wallets, each its own
   * snapshot (`subAccount`). One product failing fails the whole answer: no half snapshot.
   */
  async function balance(_request: BalanceRequest, signal?: AbortSignal): Promise<BalanceAnswer> {
    const products = (['collection', 'disbursement'] as const).filter((p) => subscriptionKey(p));
    if (!products.length)
      return statusError(
        'unsupported',
        `momo/${account.id} has no collection or disbursement subscription key`,
      );
    const balances: ReportedBalance[] = [];
    for (const product of products) {
      const result = await authorizedCall({
        deps,
        gate,
        tokens: tokens[product],
        build: (token) => ({
          method: 'GET',
          url: joinUrl(api!.baseUrl, `/${product}/v1_0/account/balance`),
          headers: {
            authorization: `Bearer ${token}`,
            'x-target-environment': targetEnvironment,
            'ocp-apim-subscription-key': subscriptionKey(product) ?? '',
            accept: 'application/json',
          },
        }),
        tokenRejected: (response) =>
          (isSubscriptionKeyRefusal(response) && switchKey(product, `MoMo ${product} balance`)) ||
          response.status === 401,
        call: { ...callOptions(`MoMo ${product} balance`), ...(signal ? { signal } : {}) },
      });
      if (!result.ok) return result.error;
      const body = isRecord(result.response.json) ? result.response.json : {};
      const value = textOf(body.availableBalance);
      const amount = value === undefined ? undefined : toDecimalString(value);
      if (result.response.status !== 200 || amount === undefined)
        return statusError(
          result.response.status === 200
            ? 'garbage'
            : result.response.status >= 500
              ? 'unavailable'
              : 'rejected',
          `MoMo ${product} balance: HTTP ${result.response.status}${momoErrorCode(body) ? ` ${momoErrorCode(body)}` : ''}`,
          { httpStatus: result.response.status },
        );
      balances.push({
        balance: amount,
        subAccount: product,
        ...(textOf(body.currency) ? { currency: textOf(body.currency) } : {}),
      });
    }
    return { type: 'balances', balances };
  }

  return guardedStatusApi({ gate, limit }, check, {
    tokenRequests: (product: MomoProduct) => tokens[product].requests,
    balance: (request: BalanceRequest, signal?: AbortSignal) => limit.run(() => balance(request, signal)),
  });
}
