/**
 * Daraja status calls in relay vocabulary (pure): the STK push query (synchronous) and the transaction
 * status query (asynchronous: its result arrives on `status/result`). Only the known final codes settle;
 * "being processed", `400.002.02`, `4999` and unknown codes are `pending`, never FAILED (provider notes:
 * early queries answer those before the real code).
 */
import type { ReportDraft } from '../../domain/transaction';
import { clip, isRecord, type StatusError, statusError, textOf } from '../outbound-http/types';
import type { MovementDescription, StatusAnswer } from '../types';
import { STATUS_QUERY } from './correlation';
import { canonicalDarajaCode, DARAJA_STK_CODES, mapDarajaCode } from './mapping';
import { DARAJA } from './normalize';

/**
 * STK ResultCodes that are final: every code of the M-Pesa Express result-code table (DARAJA_STK_CODES, one
 * list for the callback and the query).
 */
const DARAJA_STK_FINAL_CODES: ReadonlySet<string> = new Set(Object.keys(DARAJA_STK_CODES));

/** 500.001.1001 means "being processed" only with that message; otherwise it is wrong credentials. */
const STILL_PROCESSING = /being processed|under processing|still processing/i;

/** Platform error codes and what a status call makes of them. */
const DARAJA_ERROR_CODES: Readonly<
  Record<string, 'pending' | 'token' | 'throttled' | 'unavailable' | 'rejected'>
> = {
  // Early STK queries: the CheckoutRequestID is not known yet / the platform has no answer yet.
  '400.002.02': 'pending',
  '4999': 'pending',
  '400.003.01': 'token',
  // "Invalid Access Token" with HTTP 404, as Daraja answers a token it does not accept (integrators' records).
  '404.001.03': 'token',
  '500.003.03': 'throttled',
  '500.003.02': 'throttled',
  '500.003.1001': 'unavailable',
  '404.003.01': 'rejected',
  // "Resource not found": the wrong endpoint (check baseUrl), in integrators' error tables; never "pending".
  '404.001.01': 'rejected',
  '404.001.04': 'rejected',
  '400.002.05': 'rejected',
  '400.003.02': 'rejected',
};

export interface DarajaError {
  code: string;
  message: string | undefined;
}

/** `{requestId, errorCode, errorMessage}` of a refused call. */
export function darajaErrorOf(json: unknown): DarajaError | undefined {
  if (!isRecord(json)) return undefined;
  const code = textOf(json.errorCode);
  return code ? { code: canonicalDarajaCode(code), message: textOf(json.errorMessage) } : undefined;
}

/** The token itself was refused (400.003.01 or 404.001.03 "Invalid Access Token", any HTTP status). */
export function darajaTokenRejected(httpStatus: number, json: unknown): boolean {
  const code = darajaErrorOf(json)?.code;
  return httpStatus === 401 || (code !== undefined && DARAJA_ERROR_CODES[code] === 'token');
}

/** Retry policy: throttling codes back off, "being processed"/credentials are answers, other 5xx are retried. */
export function darajaVerdict(httpStatus: number, json: unknown): 'ok' | 'retry' | 'throttled' {
  const error = darajaErrorOf(json);
  const role = error ? DARAJA_ERROR_CODES[error.code] : undefined;
  if (httpStatus === 429 || role === 'throttled') return 'throttled';
  if (error?.code === '500.001.1001') return 'ok';
  if (httpStatus >= 500) return 'retry';
  return 'ok';
}

/** yyyyMMddHHmmss in East Africa Time (UTC+3, no daylight saving), as the STK Password wants. */
export function darajaTimestamp(nowMs: number): string {
  const d = new Date(nowMs + 3 * 3600_000);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}`;
}

/** base64(shortCode + passkey + timestamp) (Daraja API docs: M-Pesa Express request `Password`). */
export function stkPassword(shortCode: string, passkey: string, timestamp: string): string {
  return Buffer.from(`${shortCode}${passkey}${timestamp}`).toString('base64');
}

interface Input {
  accountId: string;
  reference: string;
  httpStatus: number;
  json: unknown;
  garbage: boolean;
}

/** A platform error on either status call; `what` names the call. */
function classifyError(error: DarajaError, httpStatus: number, what: string, stk: boolean): StatusAnswer {
  const label = `${error.code}${error.message ? ` ${clip(error.message, 60)}` : ''}`;
  if (error.code === '500.001.1001') {
    if (stk && error.message && STILL_PROCESSING.test(error.message))
      return { type: 'pending', providerCode: error.code, detail: `${what}: ${label}` };
    // The same code says "Wrong credentials" / "Merchant does not exist": the account's settings.
    return statusError('credentials', `${what}: ${label}`, { httpStatus });
  }
  const role = DARAJA_ERROR_CODES[error.code];
  if (role === 'pending' && stk)
    return { type: 'pending', providerCode: error.code, detail: `${what}: ${label}` };
  if (role === 'throttled') return statusError('throttled', `${what}: ${label}`, { httpStatus });
  if (role === 'unavailable') return statusError('unavailable', `${what}: ${label}`, { httpStatus });
  if (role === 'token') return statusError('rejected', `${what}: ${label} (token refused)`, { httpStatus });
  if (role === 'rejected' || role === 'pending')
    return statusError('rejected', `${what}: ${label}`, { httpStatus });
  // Unknown codes are never FAILED: a 5xx is an outage, anything else is treated as not final yet.
  if (httpStatus >= 500)
    return statusError('unavailable', `${what}: HTTP ${httpStatus} ${label}`, { httpStatus });
  return {
    type: 'pending',
    providerCode: error.code,
    detail: `${what}: unknown code ${label}, treated as not final`,
  };
}

function httpError(httpStatus: number, what: string): StatusError {
  if (httpStatus === 429) return statusError('throttled', `${what}: HTTP 429`, { httpStatus });
  if (httpStatus >= 500) return statusError('unavailable', `${what}: HTTP ${httpStatus}`, { httpStatus });
  if (httpStatus === 401 || httpStatus === 403)
    return statusError('credentials', `${what}: HTTP ${httpStatus}`, { httpStatus });
  return statusError('rejected', `${what}: HTTP ${httpStatus}`, { httpStatus });
}

/**
 * STK push query answer: ResultCode 0 → SUCCEEDED; a final failure code (DARAJA_STK_FINAL_CODES) →
 * FAILED with the callback's reason mapping; any other ResultCode → `pending`. Errors per classifyError.
 */
export function classifyStkQuery(input: Input): StatusAnswer {
  const what = 'Daraja STK query';
  if (input.garbage)
    return statusError('garbage', `${what}: the answer is not JSON`, { httpStatus: input.httpStatus });
  const error = darajaErrorOf(input.json);
  if (error) return classifyError(error, input.httpStatus, what, true);
  if (input.httpStatus !== 200) return httpError(input.httpStatus, what);
  const body = isRecord(input.json) ? input.json : {};
  const rawCode = textOf(body.ResultCode);
  if (rawCode === undefined) {
    const responseCode = textOf(body.ResponseCode);
    if (responseCode !== undefined && responseCode !== '0')
      return {
        type: 'pending',
        providerCode: responseCode,
        detail: `${what}: ResponseCode ${clip(responseCode, 20)} without a ResultCode`,
      };
    return statusError('garbage', `${what}: the answer has no ResultCode`, { httpStatus: input.httpStatus });
  }
  const code = canonicalDarajaCode(rawCode);
  const desc = textOf(body.ResultDesc);
  const label = `ResultCode ${code}${desc ? ` ${clip(desc, 80)}` : ''}`;
  if (!DARAJA_STK_FINAL_CODES.has(code))
    return { type: 'pending', providerCode: code, detail: `${what}: ${label} (not a final code)` };
  const mapped = mapDarajaCode(code, desc, 'stk');
  const merchantRequestId = textOf(body.MerchantRequestID);
  const draft: ReportDraft = {
    key: { provider: DARAJA, account: input.accountId, reference: input.reference },
    kind: 'stk',
    status: mapped.status,
    reason: mapped.reason ? { code: mapped.reason, message: desc, providerCode: code } : undefined,
    providerTransactionId: undefined,
    externalId: undefined,
    amount: undefined,
    party: undefined,
    attributes: {
      StkQueryResultCode: code,
      ...(merchantRequestId ? { MerchantRequestID: merchantRequestId } : {}),
    },
  };
  return { type: 'report', draft, providerCode: code, detail: `${what}: ${label}` };
}

/**
 * Transaction status query answer: accepted (ResponseCode 0) → `requested`, with the alias the result
 * will carry (its ConversationID, else its OriginatorConversationID, under STATUS_QUERY) and what the
 * query asked about. The result itself arrives on `status/result`.
 */
export function classifyStatusQuery(
  input: Omit<Input, 'accountId' | 'reference'> & {
    /** The ids the query named (statusQueryTarget): recorded with the alias, the result compared with them. */
    asked: Readonly<Record<string, string>>;
  },
): StatusAnswer {
  const what = 'Daraja transaction status query';
  if (input.garbage)
    return statusError('garbage', `${what}: the answer is not JSON`, { httpStatus: input.httpStatus });
  const error = darajaErrorOf(input.json);
  if (error) return classifyError(error, input.httpStatus, what, false);
  if (input.httpStatus !== 200) return httpError(input.httpStatus, what);
  const body = isRecord(input.json) ? input.json : {};
  const responseCode = textOf(body.ResponseCode);
  if (responseCode !== '0') {
    return statusError(
      'rejected',
      `${what}: ResponseCode ${clip(responseCode ?? '(none)', 20)}${textOf(body.ResponseDescription) ? ` ${clip(textOf(body.ResponseDescription), 60)}` : ''}`,
      { httpStatus: input.httpStatus },
    );
  }
  const id = textOf(body.ConversationID) ?? textOf(body.OriginatorConversationID);
  if (!id)
    return statusError('garbage', `${what}: accepted without a ConversationID`, {
      httpStatus: input.httpStatus,
    });
  return {
    type: 'requested',
    detail: `${what} accepted (ConversationID ${clip(id, 60)}); the result arrives on status/result`,
    alias: { namespace: STATUS_QUERY, id, asked: input.asked },
  };
}

/**
 * What a transaction status result (normalize.ts normalizeStatusResult) says of the movement it is about,
 * for a held reversal's answer (StatusApi.describeMovement): its ReasonType and TransactionStatus, or the
 * ResultDesc of a query that failed. Daraja documents no ReasonType list: a reversal is a ReasonType with
 * the word in it.
 */
export function describeDarajaMovement(draft: ReportDraft): MovementDescription {
  const { ReasonType, TransactionStatus, StatusQueryResultCode } = draft.attributes ?? {};
  const providerCode = StatusQueryResultCode ?? '';
  const words =
    providerCode === '0'
      ? `TransactionStatus ${TransactionStatus ?? '(none)'}, ReasonType ${ReasonType ?? '(none)'}`
      : (draft.reason?.message ?? 'the query failed');
  return {
    movementType: ReasonType,
    isReversal: /revers/i.test(ReasonType ?? ''),
    words: words.slice(0, 200),
    providerCode,
  };
}
