/**
 * Daraja Pull Transactions API (C2B, per short code), pure: the request bodies and what an answer means.
 * Register: `POST {prefix}/pulltransactions/v1/register` {ShortCode, RequestType "Pull", NominatedNumber,
 * CallBackURL} → ResponseCode `1000` registered, `1001` already registered (both fine). Query:
 * `POST {prefix}/pulltransactions/v1/query` {ShortCode, StartDate, EndDate ("YYYY-MM-DD HH:mm:ss", East
 * Africa Time), OffSetValue} → ResponseCode `1000` with `Response` rows {transactionId, trxDate, msisdn,
 * sender, transactiontype, billreference, amount, organizationname}. The API reaches 48 h back only.
 *
 * The trap (provider notes; an ERPNext integration lost child-paybill pulls to it): Safaricom answers
 * HTTP 200 when a pull FAILS, with ResponseCode `1001` — the same code as "no transactions". Only an
 * answer that also carries the empty transaction list (`Response: [[]]`, or `Transaction: "[[]]"`) is
 * "nothing"; any other 200 that is not `1000` with rows is a failure, never an empty window.
 */
import type { StatementRowKind } from '../../domain/statement';
import { maskMsisdn } from '../../util/mask';
import { toDecimalString } from '../../util/money';
import { clip, isRecord, statusError, textOf } from '../outbound-http';
import type { PullAnswer, PulledRow, PullRegistrationAnswer, StatementRowDraft } from '../types';
import { darajaInfra } from './infra';
import { darajaErrorOf } from './status-mapping';

/** The API reaches back this far (Daraja API docs: "transactions of the last 48 hours"). */
export const DARAJA_PULL_WINDOW_SECONDS = darajaInfra.pullApi.lookBackSeconds;

/** Daraja's clock is East Africa Time (UTC+3, no daylight saving). */
const EAT_OFFSET_MS = 3 * 3600_000;

/** "YYYY-MM-DD HH:mm:ss" in East Africa Time, the StartDate/EndDate format. */
export function darajaPullDate(iso: string): string {
  const d = new Date(Date.parse(iso) + EAT_OFFSET_MS);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}`;
}

/**
 * A row's `trxDate` as ISO 8601 UTC. Seen as ISO with a zone ("2020-08-05T10:13:00Z", "…+03:00"), as
 * "YYYY-MM-DD HH:mm:ss" and as "YYYYMMDDHHmmss" (both East Africa Time, the platform's clock). Undefined
 * when it is none of these: such a row is refused, never dated by guesswork.
 */
export function parseDarajaTrxDate(value: unknown): string | undefined {
  const text = textOf(value);
  if (!text) return undefined;
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(text)) {
    const ms = Date.parse(text);
    return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
  }
  const m =
    /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})$/.exec(text) ??
    /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(text);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  const ms = Date.UTC(y, mo - 1, d, h, mi, s) - EAT_OFFSET_MS;
  const back = new Date(ms + EAT_OFFSET_MS);
  // 2026-02-30 would roll over silently: a date that does not read back is not a date.
  if (back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d) return undefined;
  return new Date(ms).toISOString();
}

export function pullRegisterBody(input: { shortCode: string; nominatedNumber: string; callbackUrl: string }) {
  return {
    ShortCode: input.shortCode,
    RequestType: 'Pull',
    NominatedNumber: input.nominatedNumber,
    CallBackURL: input.callbackUrl,
  };
}

export function pullQueryBody(input: { shortCode: string; from: string; to: string; offset: number }) {
  return {
    ShortCode: input.shortCode,
    StartDate: darajaPullDate(input.from),
    EndDate: darajaPullDate(input.to),
    OffSetValue: String(input.offset),
  };
}

const codeOf = (json: Record<string, unknown>) => textOf(json.ResponseCode) ?? textOf(json.ResponseStatus);
const descriptionOf = (json: Record<string, unknown>) =>
  clip(textOf(json.ResponseDescription) ?? textOf(json.ResponseMessage) ?? textOf(json.errorMessage), 160);

/** An HTTP error answer (4xx/5xx with Daraja's errorCode) as the error the poller backs off on. */
function httpFailure(what: string, httpStatus: number, json: unknown) {
  const error = darajaErrorOf(json);
  const said = error ? ` ${error.code}${error.message ? ` ${clip(error.message, 80)}` : ''}` : '';
  const detail = `${what}: HTTP ${httpStatus}${said}`;
  if (httpStatus === 401 || error?.code === '401.001' || error?.code === '400.003.01')
    return statusError('credentials', detail, { httpStatus });
  if (httpStatus === 429) return statusError('throttled', detail, { httpStatus });
  // 400.001 invalid short code, 404 no pull product on the app: the account's setup, not a passing fault.
  if (httpStatus >= 400 && httpStatus < 500) return statusError('rejected', detail, { httpStatus });
  return statusError('unavailable', detail, { httpStatus });
}

export function classifyPullRegistration(input: {
  httpStatus: number;
  json: unknown;
  garbage: boolean;
}): PullRegistrationAnswer {
  const what = 'Daraja pull registration';
  if (input.httpStatus !== 200) return httpFailure(what, input.httpStatus, input.json);
  if (!isRecord(input.json) || input.garbage)
    return statusError('garbage', `${what}: HTTP 200 without a JSON object`, { httpStatus: 200 });
  const code = codeOf(input.json);
  if (code === '1000' || code === '1001')
    return {
      type: 'registered',
      code,
      detail: descriptionOf(input.json) || (code === '1000' ? 'registered' : 'already registered'),
      alreadyRegistered: code === '1001',
    };
  return statusError(
    'rejected',
    `${what}: ResponseCode ${code ?? '(none)'} ${descriptionOf(input.json)}`.trim(),
    { httpStatus: 200 },
  );
}

/** `Response` (or `Transaction`) as a flat list of rows: `[[{…}]]`, `[{…}]`, or the text "[[]]". */
function rowsOf(value: unknown): PulledRow[] | undefined {
  let list = value;
  if (typeof list === 'string') {
    try {
      list = JSON.parse(list) as unknown;
    } catch {
      return undefined;
    }
  }
  if (!Array.isArray(list)) return undefined;
  const flat = list.flatMap((item: unknown) => (Array.isArray(item) ? (item as unknown[]) : [item]));
  return flat.every(isRecord) ? (flat as PulledRow[]) : undefined;
}

export function classifyPullQuery(input: {
  httpStatus: number;
  json: unknown;
  garbage: boolean;
}): PullAnswer {
  const what = 'Daraja pull query';
  if (input.httpStatus !== 200) return httpFailure(what, input.httpStatus, input.json);
  if (!isRecord(input.json) || input.garbage)
    return statusError('garbage', `${what}: HTTP 200 without a JSON object`, { httpStatus: 200 });
  const json = input.json;
  const code = codeOf(json);
  const rows = rowsOf(json.Response ?? json.Transaction ?? json.Transactions);
  const description = descriptionOf(json);
  if (code === '1000' && rows && rows.length > 0) return { type: 'rows', rows };
  // "No transactions" is 1001 (or a 1000 page past the end) WITH the empty list: both must be there.
  if ((code === '1001' || code === '1000') && rows && rows.length === 0)
    return { type: 'empty', detail: description || 'no transactions' };
  // 1001 without the list, 1000 without rows, another code: the pull failed, whatever the HTTP status says.
  return statusError(
    'unavailable',
    `${what}: failed inside HTTP 200 (ResponseCode ${code ?? '(none)'}${description ? `: ${description}` : ''}${rows ? '' : ', no transaction list'})`,
    { httpStatus: 200 },
  );
}

/**
 * What a row's `transactiontype` says it is ("c2b-pay-bill-debit", "c2b-buy-goods-debit", a reversal…).
 * The pull API lists C2B payments into the short code; a reversal row is money going back out.
 */
function kindOf(type: string | undefined): StatementRowKind {
  const t = (type ?? '').toLowerCase();
  if (t.includes('reversal')) return 'reversal';
  if (t.includes('charge') || t.includes('fee')) return 'fee';
  if (t.startsWith('c2b') || t === '' || t.includes('pay')) return 'payment';
  return 'other';
}

/**
 * One pull row in the relay's shape: the receipt (transactionId) is the key the matcher joins on (the
 * C2B transaction's TransID); the payer's number is masked here, before the row goes anywhere.
 */
export function darajaPullRow(
  row: PulledRow,
  origin: { ref: string; row: number },
  currency: string,
): StatementRowDraft | undefined {
  const providerId = textOf(row.transactionId) ?? textOf(row.TransactionId) ?? textOf(row.TransID);
  const time = parseDarajaTrxDate(row.trxDate ?? row.TrxDate);
  const amount = toDecimalString(textOf(row.amount) ?? textOf(row.Amount) ?? '');
  if (!providerId || !time || amount === undefined) return undefined;
  const kind = kindOf(textOf(row.transactiontype) ?? textOf(row.transactionType));
  const negative = amount.startsWith('-');
  const magnitude = negative ? amount.slice(1) : amount;
  const out = kind === 'reversal' || negative;
  const counterparty = maskMsisdn(textOf(row.msisdn) ?? textOf(row.MSISDN));
  const externalId = textOf(row.billreference) ?? textOf(row.billReference);
  return {
    providerId,
    time,
    amountIn: out ? '0' : magnitude,
    amountOut: out ? magnitude : '0',
    currency,
    kind,
    status: 'COMPLETED',
    ...(externalId ? { externalId } : {}),
    ...(counterparty ? { counterparty } : {}),
    origin,
  };
}
