/**
 * Airtel status API client (reconciliation): OAuth client credentials (`POST /auth/oauth2/token`, JSON
 * body; `expires_in` a string) and the transaction enquiry `GET /standard/v1/payments/{id}` with
 * `X-Country` / `X-Currency`. Classification is status-mapping.ts (pure).
 */
import {
  accountGuards,
  authorizedCall,
  guardedStatusApi,
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
  StatusApi,
  StatusApiDeps,
  StatusQuery,
} from '../types';
import type { AirtelAccountSettings, AirtelApiSettings } from './schema';
import { classifyAirtelEnquiry } from './status-mapping';

/** Airtel's example says "180"; a token without `expires_in` is kept this long. */
const FALLBACK_TOKEN_SECONDS = 120;

/**
 * Enquiry per kind (`{id}` = the partner transaction id, the reference). Payment: the Airtel Money Open API documentation's transaction
 * enquiry. Refund: Airtel's refund status enquiry (the simulator serves it), keyed by the
 * partner's own id for the refund (`transaction.id` of the refund request). Disbursement: only `api.paths`.
 */
const AIRTEL_ENQUIRY_PATHS: Readonly<Record<string, string | undefined>> = {
  payment: '/standard/v1/payments/{id}',
  refund: '/standard/v1/payments/refund/{id}',
};

/** The kind's enquiry: `api.paths` first (`null`: none on this account), else the default. */
function airtelEnquiryPath(api: Pick<AirtelApiSettings, 'paths'>, kind: string): string | undefined {
  const configured = api.paths?.[kind as keyof NonNullable<AirtelApiSettings['paths']>];
  return configured === null ? undefined : (configured ?? AIRTEL_ENQUIRY_PATHS[kind]);
}

export interface AirtelStatusApiOptions {
  credentialsCooldownMs?: number;
  random?(): number;
}

export interface AirtelStatusApi extends StatusApi {
  tokenRequests(): number;
}

export function createAirtelStatusApi(
  account: AccountContext<AirtelAccountSettings>,
  deps: StatusApiDeps,
  options: AirtelStatusApiOptions = {},
): AirtelStatusApi | undefined {
  const api = account.settings.api;
  if (!api) return undefined;
  const country = api.country ?? account.settings.country ?? '';
  const currency = api.currency ?? account.settings.currency ?? '';
  const {
    gate,
    bucket: bucket,
    limit,
  } = accountGuards({
    provider: 'airtel',
    account: account.id,
    api,
    deps,
    credentialsCooldownMs: options.credentialsCooldownMs,
  });
  const callOptions = (what: string) => ({
    timeoutMs: api.timeoutMs,
    limiter: bucket,
    what,
    ...(options.random ? { random: options.random } : {}),
  });
  const tokens = new TokenCache({
    now: deps.now,
    fetchToken: () =>
      requestToken(
        deps,
        {
          method: 'POST',
          url: joinUrl(api.baseUrl, '/auth/oauth2/token'),
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify({
            client_id: api.clientId,
            client_secret: api.clientSecret,
            grant_type: 'client_credentials',
          }),
        },
        { ...callOptions('Airtel token'), fallbackExpiresInSeconds: FALLBACK_TOKEN_SECONDS },
      ),
  });

  async function check(query: StatusQuery, signal?: AbortSignal) {
    const path = airtelEnquiryPath(api!, query.kind);
    if (!path) {
      return statusError(
        'unsupported',
        `Airtel has no known enquiry for kind ${query.kind}; set accounts.airtel.${account.id}.api.paths.${query.kind}`,
      );
    }
    const url = joinUrl(api!.baseUrl, path.replace('{id}', encodeURIComponent(query.reference)));
    const result = await authorizedCall({
      deps,
      gate,
      tokens,
      build: (token) => ({
        method: 'GET',
        url,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          'x-country': country,
          'x-currency': currency,
        },
      }),
      tokenRejected: (response) => response.status === 401,
      call: { ...callOptions(`Airtel ${query.kind} enquiry`), ...(signal ? { signal } : {}) },
    });
    const request = requestLine('GET', url);
    if (!result.ok) return { ...result.error, request };
    return {
      ...classifyAirtelEnquiry({
        accountId: account.id,
        kind: query.kind,
        reference: query.reference,
        httpStatus: result.response.status,
        json: result.response.json,
        garbage: result.response.garbage,
      }),
      request,
    };
  }

  /**
   * The wallet balance (`GET /standard/v1/users/balance`, Airtel Money Open API docs): `data.balance` is a
   * string, with thousands commas in some answers ("1,000.00"); `status.success` must be true.
   */
  async function balance(_request: BalanceRequest, signal?: AbortSignal): Promise<BalanceAnswer> {
    const result = await authorizedCall({
      deps,
      gate,
      tokens,
      build: (token) => ({
        method: 'GET',
        url: joinUrl(api!.baseUrl, '/standard/v1/users/balance'),
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          'x-country': country,
          'x-currency': currency,
        },
      }),
      tokenRejected: (response) => response.status === 401,
      call: { ...callOptions('Airtel balance'), ...(signal ? { signal } : {}) },
    });
    if (!result.ok) return result.error;
    const body = isRecord(result.response.json) ? result.response.json : {};
    const data = isRecord(body.data) ? body.data : {};
    const status = isRecord(body.status) ? body.status : {};
    const raw = textOf(data.balance);
    const amount = raw === undefined ? undefined : toDecimalString(raw.replace(/,/g, ''));
    if (result.response.status !== 200 || status.success === false || amount === undefined)
      return statusError(
        result.response.status === 200
          ? 'garbage'
          : result.response.status >= 500
            ? 'unavailable'
            : 'rejected',
        `Airtel balance: HTTP ${result.response.status}${textOf(status.response_code) ? ` ${textOf(status.response_code)}` : ''}`,
        { httpStatus: result.response.status },
      );
    const answered = textOf(data.currency) ?? currency;
    return { type: 'balances', balances: [{ balance: amount, ...(answered ? { currency: answered } : {}) }] };
  }

  return guardedStatusApi({ gate, limit }, check, {
    tokenRequests: () => tokens.requests,
    balance: (request: BalanceRequest, signal?: AbortSignal) => limit.run(() => balance(request, signal)),
  });
}
