/**
 * Daraja status API client (reconciliation). Token: `GET /oauth/v1/generate?grant_type=client_credentials`
 * with Basic consumerKey:consumerSecret (`expires_in` "3599"). Kind `stk`: STK push query
 * (`POST {prefix}/stkpushquery/v1/query`, Password = base64(shortCode + passkey + timestamp)), answered at
 * once. Other kinds, and a receipt to confirm (StatusQuery.confirmReceipt): transaction status query
 * (`POST {prefix}/transactionstatus/v1/query`), answered on the account's `status/result` route; the check
 * answers `requested` with the alias that result carries.
 */
import {
  accountGuards,
  authorizedCall,
  clip,
  guardedStatusApi,
  basicAuth,
  isRecord,
  joinUrl,
  requestLine,
  requestToken,
  type StatusError,
  statusError,
  textOf,
  TokenBucket,
  TokenCache,
} from '../outbound-http';
import type {
  AccountContext,
  BalanceAnswer,
  BalanceRequest,
  PullTransactionsApi,
  StatusApi,
  StatusApiDeps,
  StatusQuery,
} from '../types';
import {
  classifyPullQuery,
  classifyPullRegistration,
  DARAJA_PULL_WINDOW_SECONDS,
  darajaPullRow,
  pullQueryBody,
  pullRegisterBody,
} from './pull-mapping';
import { REVERSAL_QUESTION, statusQueryKeys, statusQueryOccasion } from './correlation';
import { DARAJA_BALANCE_RESULT } from './facts';
import type { DarajaAccountSettings, DarajaApiSettings } from './schema';
import {
  classifyStatusQuery,
  classifyStkQuery,
  darajaErrorOf,
  darajaTimestamp,
  darajaTokenRejected,
  darajaVerdict,
  describeDarajaMovement,
  stkPassword,
} from './status-mapping';

const FALLBACK_TOKEN_SECONDS = 3599;

/** A timed-out pull call is asked again this many more times (pull reads are idempotent). */
const PULL_TIMEOUT_RETRIES = 2;

/** Kinds the STK push query serves; every other kind goes through the transaction status query. */
const DARAJA_STK_KINDS: readonly string[] = ['stk'];

/** Attributes that may hold the M-Pesa receipt (the transaction status query's TransactionID). */
const RECEIPT_ATTRIBUTES = ['TransactionReceipt', 'ReceiptNo', 'MpesaReceiptNumber', 'TransactionID'];

/** B2C failures carry placeholder TransactionIDs like "NLJ0000000": never a receipt to ask about. */
const PLACEHOLDER = /0{7}$/;

/**
 * What the transaction status query asks about, built only from what the relay may trust
 * (`query.trusted`: the registration, the provider's own status answers, reports authenticated end to
 * end) and the reference itself: the trusted receipt (TransactionID) when there is one; else the
 * reference: a C2B reference is its TransID, the receipt itself; any other (B2C, B2B) is the
 * OriginatorConversationID, which the query accepts "when the transaction id is unknown" (Daraja API docs).
 * A receipt or TransactionID that only an unauthenticated callback (a forged `b2c/result`, a queue-timeout
 * echo) supplied is never asked about: it could name another payment, and its answer would settle this one.
 */
export function statusQueryTarget(query: StatusQuery): {
  TransactionID?: string;
  OriginatorConversationID?: string;
} {
  // A receipt a callback claimed for a payment already SUCCEEDED without one: the answer cannot settle
  // anything (SUCCEEDED is final), it only says whether that receipt is this payment's (amount, payer).
  if (query.confirmReceipt) return { TransactionID: query.confirmReceipt };
  // A held reversal's own receipt: the answer says whether that transaction is a completed reversal.
  if (query.confirmReversal) return { TransactionID: query.confirmReversal };
  // Until the poller fills it, `trusted` may be missing: nothing is trusted then.
  const trusted: Partial<StatusQuery['trusted']> = query.trusted ?? {};
  const receipt = [
    trusted.providerTransactionId,
    ...RECEIPT_ATTRIBUTES.map((name) => trusted.attributes?.[name]),
  ].find((v): v is string => Boolean(v) && !PLACEHOLDER.test(v!));
  if (receipt) return { TransactionID: receipt };
  if (query.kind === 'c2b') return { TransactionID: query.reference };
  return { OriginatorConversationID: query.reference };
}

export interface DarajaStatusApiOptions {
  credentialsCooldownMs?: number;
  random?(): number;
}

export interface DarajaStatusApi extends StatusApi {
  tokenRequests(): number;
  balance: NonNullable<StatusApi['balance']>;
}

export function createDarajaStatusApi(
  account: AccountContext<DarajaAccountSettings>,
  deps: StatusApiDeps,
  options: DarajaStatusApiOptions = {},
): DarajaStatusApi | undefined {
  const api: DarajaApiSettings | undefined = account.settings.api;
  if (!api) return undefined;
  const stkShortCode = api.stkShortCode ?? account.settings.shortCode;
  const partyA = api.partyA ?? account.settings.shortCode;
  const {
    gate,
    bucket: general,
    limit,
  } = accountGuards({
    provider: 'daraja',
    account: account.id,
    api,
    deps,
    credentialsCooldownMs: options.credentialsCooldownMs,
  });
  const stkBucket = new TokenBucket({
    ratePerSecond: api.stkQueriesPerMinute / 60,
    burst: Math.max(1, Math.floor(api.stkQueriesPerMinute)),
    maxWaitMs: Math.min(api.timeoutMs, 2000),
    now: deps.now,
    sleep: deps.sleep,
    what: `daraja/${account.id} STK queries`,
  });
  const stkLimiter = {
    acquire: async (): Promise<StatusError | undefined> => (await stkBucket.acquire()) ?? general.acquire(),
  };
  const callOptions = (what: string) => ({
    timeoutMs: api.timeoutMs,
    classify: (r: { status: number; json: unknown }) => darajaVerdict(r.status, r.json),
    what,
    ...(options.random ? { random: options.random } : {}),
  });
  const tokens = new TokenCache({
    now: deps.now,
    fetchToken: () =>
      requestToken(
        deps,
        {
          method: 'GET',
          url: joinUrl(api.baseUrl, '/oauth/v1/generate?grant_type=client_credentials'),
          headers: {
            authorization: basicAuth(api.consumerKey, api.consumerSecret),
            accept: 'application/json',
          },
        },
        {
          ...callOptions('Daraja token'),
          limiter: general,
          fallbackExpiresInSeconds: FALLBACK_TOKEN_SECONDS,
        },
      ),
  });

  async function post(
    path: string,
    body: Record<string, unknown>,
    what: string,
    limiter: { acquire(): Promise<StatusError | undefined> },
    signal: AbortSignal | undefined,
  ) {
    return authorizedCall({
      deps,
      gate,
      tokens,
      build: (token) => ({
        method: 'POST',
        url: joinUrl(api!.baseUrl, `${api!.pathPrefix}${path}`),
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json',
        },
        body: JSON.stringify(body),
      }),
      tokenRejected: (response) => darajaTokenRejected(response.status, response.json),
      call: { ...callOptions(what), limiter, ...(signal ? { signal } : {}) },
    });
  }

  async function stkQuery(query: StatusQuery, signal?: AbortSignal) {
    if (!api!.passkey || !stkShortCode) {
      return statusError(
        'unsupported',
        `daraja/${account.id} has no api.passkey and STK short code (api.stkShortCode or shortCode): STK pushes cannot be queried`,
      );
    }
    const timestamp = darajaTimestamp(deps.now());
    const result = await post(
      '/stkpushquery/v1/query',
      {
        BusinessShortCode: stkShortCode,
        Password: stkPassword(stkShortCode, api!.passkey, timestamp),
        Timestamp: timestamp,
        CheckoutRequestID: query.reference,
      },
      'Daraja STK query',
      stkLimiter,
      signal,
    );
    const request = requestLine('POST', joinUrl(api!.baseUrl, `${api!.pathPrefix}/stkpushquery/v1/query`), {
      CheckoutRequestID: query.reference,
    });
    if (!result.ok) return { ...result.error, request };
    return {
      ...classifyStkQuery({
        accountId: account.id,
        reference: query.reference,
        httpStatus: result.response.status,
        json: result.response.json,
        garbage: result.response.garbage,
      }),
      request,
    };
  }

  async function transactionStatus(query: StatusQuery, signal?: AbortSignal) {
    if (!api!.initiator || !api!.securityCredential || !partyA) {
      return statusError(
        'unsupported',
        `daraja/${account.id} has no api.initiator, api.securityCredential and PartyA (api.partyA or shortCode): the transaction status query cannot be made`,
      );
    }
    const base = query.callbackBase.replace(/\/+$/, '');
    const tokenKey = statusQueryKeys(account)[0];
    const target = statusQueryTarget(query);
    const result = await post(
      '/transactionstatus/v1/query',
      {
        Initiator: api!.initiator,
        SecurityCredential: api!.securityCredential,
        CommandID: 'TransactionStatusQuery',
        ...target,
        PartyA: partyA,
        IdentifierType: api!.identifierType,
        ResultURL: `${base}/status/result`,
        QueueTimeOutURL: `${base}/status/timeout`,
        Remarks: 'Relay status check',
        // Echoed in the result's ReferenceData: it names the reference asked about, keyed by a secret that
        // is in no URL (correlation.ts statusQueryOccasion; max 100 characters). A correlation aid only:
        // the query record written from this call's answer is what makes the result this query's answer.
        ...(tokenKey
          ? {
              Occasion: statusQueryOccasion({
                secret: tokenKey,
                account: account.id,
                // Kind `reversal`: the answer names the reversal's receipt, not the payment's ids.
                kind: query.confirmReversal ? REVERSAL_QUESTION : query.kind,
                reference: query.reference,
              }),
            }
          : {}),
      },
      'Daraja transaction status query',
      general,
      signal,
    );
    const request = requestLine(
      'POST',
      joinUrl(api!.baseUrl, `${api!.pathPrefix}/transactionstatus/v1/query`),
      target,
    );
    if (!result.ok) return { ...result.error, request };
    return {
      ...classifyStatusQuery({
        httpStatus: result.response.status,
        json: result.response.json,
        garbage: result.response.garbage,
        asked: target,
      }),
      request,
    };
  }

  // The STK query answers no receipt: a receipt to confirm is asked with the transaction status query.
  const check = (query: StatusQuery, signal?: AbortSignal) =>
    DARAJA_STK_KINDS.includes(query.kind) && !query.confirmReceipt && !query.confirmReversal
      ? stkQuery(query, signal)
      : transactionStatus(query, signal);

  /** Balance and pull calls share the account's concurrency cap and credentials gate with `check`. */
  const guarded = <T extends { type: string }>(task: () => Promise<T>): Promise<T> =>
    limit.run(async () => {
      const answer = await task();
      const error = answer as unknown as StatusError;
      return (answer.type === 'error' && error.error === 'credentials' ? gate.refuse(error) : answer) as T;
    });

  /**
   * Account Balance (`POST {prefix}/accountbalance/v1/query`): answered later on the account's
   * `balance/result` route, where the relay's fact machinery records it (AccountBalanceReported); the
   * immediate answer only carries the OriginatorConversationID that result will name.
   */
  async function balance(request: BalanceRequest, signal?: AbortSignal): Promise<BalanceAnswer> {
    if (!api!.initiator || !api!.securityCredential || !partyA) {
      return statusError(
        'unsupported',
        `daraja/${account.id} has no api.initiator, api.securityCredential and PartyA (api.partyA or shortCode): the account balance cannot be asked`,
      );
    }
    const base = request.callbackBase.replace(/\/+$/, '');
    const result = await post(
      '/accountbalance/v1/query',
      {
        Initiator: api!.initiator,
        SecurityCredential: api!.securityCredential,
        CommandID: 'AccountBalance',
        PartyA: partyA,
        IdentifierType: api!.identifierType,
        Remarks: 'Relay balance snapshot',
        QueueTimeOutURL: `${base}/balance/timeout`,
        ResultURL: `${base}/balance/result`,
      },
      'Daraja account balance',
      general,
      signal,
    );
    if (!result.ok) return result.error;
    return classifyBalanceRequest(result.response);
  }

  /**
   * The status toolkit does not repeat a timed-out call (a status check is simply asked again later), but
   * a pull is a read the poller waits for: a timed-out register or query is asked again (both are
   * idempotent: a repeated registration answers 1001), at most PULL_TIMEOUT_RETRIES more times.
   */
  async function retryingTimeouts<T extends { type: string }>(call: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const answer = await call();
      const error = answer as unknown as StatusError;
      if (answer.type !== 'error' || error.error !== 'timeout' || attempt >= PULL_TIMEOUT_RETRIES)
        return answer;
    }
  }

  const pullSettings = api.pull;
  const pullShortCode = pullSettings?.shortCode ?? account.settings.shortCode;
  const pull: PullTransactionsApi | undefined =
    pullSettings && pullShortCode
      ? {
          maxLookBackSeconds: DARAJA_PULL_WINDOW_SECONDS,
          register: (callbackUrl, signal) =>
            retryingTimeouts(() =>
              guarded(async () => {
                const result = await post(
                  '/pulltransactions/v1/register',
                  pullRegisterBody({
                    shortCode: pullShortCode,
                    nominatedNumber: pullSettings.nominatedNumber,
                    callbackUrl,
                  }),
                  'Daraja pull registration',
                  general,
                  signal,
                );
                return result.ok ? classifyPullRegistration(answerOf(result.response)) : result.error;
              }),
            ),
          query: (window, signal) =>
            retryingTimeouts(() =>
              guarded(async () => {
                const result = await post(
                  '/pulltransactions/v1/query',
                  pullQueryBody({ shortCode: pullShortCode, ...window }),
                  'Daraja pull query',
                  general,
                  signal,
                );
                return result.ok ? classifyPullQuery(answerOf(result.response)) : result.error;
              }),
            ),
          toStatementRow: (row, origin) => darajaPullRow(row, origin, account.settings.currency),
        }
      : undefined;

  return guardedStatusApi({ gate, limit }, check, {
    tokenRequests: () => tokens.requests,
    balance: (request: BalanceRequest, signal?: AbortSignal) => guarded(() => balance(request, signal)),
    balanceResult: DARAJA_BALANCE_RESULT,
    describeMovement: describeDarajaMovement,
    ...(pull ? { pull } : {}),
  });
}

const answerOf = (r: { status: number; json: unknown; garbage: boolean }) => ({
  httpStatus: r.status,
  json: r.json,
  garbage: r.garbage,
});

/** The immediate answer to an Account Balance request: accepted (ResponseCode 0) with the id its result will carry. */
function classifyBalanceRequest(response: { status: number; json: unknown }): BalanceAnswer {
  const json = isRecord(response.json) ? response.json : {};
  const code = textOf(json.ResponseCode);
  const requestId = textOf(json.OriginatorConversationID) ?? textOf(json.ConversationID);
  if (response.status === 200 && code === '0' && requestId)
    return {
      type: 'requested',
      requestId,
      detail: clip(textOf(json.ResponseDescription) ?? 'accepted', 160),
    };
  const error = darajaErrorOf(json);
  const detail = `Daraja account balance: HTTP ${response.status}${error ? ` ${error.code}` : code ? ` ResponseCode ${code}` : ''}`;
  if (response.status === 401) return statusError('credentials', detail, { httpStatus: 401 });
  return statusError(response.status >= 500 ? 'unavailable' : 'rejected', detail, {
    httpStatus: response.status,
  });
}
