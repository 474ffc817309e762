import type { ReportDraft } from '../../domain/transaction';
import type { Reason } from '../../domain/reasons';
import type { TransactionStatus } from '../../domain/status';
import type { Money, Party } from '../../domain/transaction';
import { HASHED_MSISDN_ID_TYPE, isHashedMsisdn, maskMsisdn } from '../../util/mask';
import { toDecimalString } from '../../util/money';
import {
  canonicalDarajaCode,
  type DarajaResultContext,
  mapDarajaCode,
  mapDarajaTransactionStatus,
} from './mapping';
import type { C2BPayload, DarajaResult, StkCallback, TimeoutEcho, TimeoutResult } from './schema';

export const DARAJA = 'daraja';

/** M-Pesa on Daraja is Kenya's: its numbers written nationally (0708374149) are Kenyan. */
export const DARAJA_COUNTRY = 'KE';
/**
 * Kenya's calling code, as shared/util/msisdn.ts's table has it (a unit test holds them equal): that
 * module's table and hashing stay out of the callback bundle (infra/bundling.ts ceilings).
 */
export const KENYA_CALLING_CODE = '254';

/**
 * A number as Daraja writes it (254708374149, or national with the trunk 0: 0708374149) in its
 * international digits, so a party is one number however it came and is masked as every MSISDN is
 * (2547*****149); the rule of shared/util/msisdn.ts normalizeMsisdn for the digits Daraja sends.
 */
function internationalMsisdn(digits: string): string {
  return digits.startsWith('0') ? KENYA_CALLING_CODE + digits.replace(/^0+/, '') : digits;
}

/** Key/value items (CallbackMetadata.Item, ResultParameter, ReferenceItem) with every value of a repeated key kept. */
export type Params = ReadonlyMap<string, readonly string[]>;

function scalarText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  // A parsed body's value: a string, a number or a boolean as its text, an object or an array as its JSON.
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

export function collectParams(
  items: readonly { Key?: string; Name?: string; Value?: unknown }[] | undefined,
): Params {
  const params = new Map<string, string[]>();
  for (const item of items ?? []) {
    const name = item.Key ?? item.Name;
    const value = scalarText(item.Value);
    // Items without a Value (Balance, TransactionReason) say nothing; they are tolerated and skipped.
    if (!name || value === undefined) continue;
    params.set(name, [...(params.get(name) ?? []), value]);
  }
  return params;
}

export function first(params: Params, ...names: string[]): string | undefined {
  for (const name of names) {
    const value = params.get(name)?.[0];
    if (value !== undefined && value !== '') return value;
  }
  return undefined;
}

/** First value under its key, further values of a repeated key under `Key#2`, `Key#3`… — nothing is lost. */
export function paramAttributes(params: Params): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const [name, values] of params) {
    values.forEach((value, i) => {
      attributes[i === 0 ? name : `${name}#${i + 1}`] = value;
    });
  }
  return attributes;
}

function compact(record: Record<string, string | null | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(record)) if (v !== undefined && v !== null && v !== '') out[k] = v;
  return out;
}

function money(value: string | undefined, currency: string): Money | undefined {
  if (value === undefined) return undefined;
  const decimal = toDecimalString(value);
  return decimal === undefined ? undefined : { value: decimal, currency };
}

const MSISDN = /^\+?(\d{10,15})$/;

function msisdnParty(value: string | undefined): Party | undefined {
  const match = value ? MSISDN.exec(value.trim()) : null;
  return match ? { idType: 'MSISDN', id: internationalMsisdn(match[1]!) } : undefined;
}

/** A public name with a phone number in it, either way round: "254708374149 - John Doe", "John Doe - 254708374149". */
const NUMBER_FIRST = /^\s*\+?(\d{10,15})\s*-\s*(.*?)\s*$/s;
const NUMBER_LAST = /^\s*(.*?)\s*-\s*\+?(\d{10,15})\s*$/s;

interface PublicName {
  /**
   * The MSISDN in international digits, when the value names a phone number, in either form
   * ("0790123456 - JOHN DOE" gives 254790123456; "600310 - Safaricom333", a short code, names none).
   */
  msisdn: string | undefined;
  /**
   * The value with its phone number replaced by the mask of its international form, the name kept as it
   * came, in the order it came ("2547*****456 - JOHN DOE"); unchanged when it names none.
   */
  masked: string;
}

/**
 * Daraja's `ReceiverPartyPublicName` (and the status result's party names) is "number - name" in its docs, but
 * results also arrive as "name - number", and with the number in national form ("0722000000 - Jane"): each
 * gives the international MSISDN, and each keeps its order and its name with the number masked.
 */
function readPublicName(value: string): PublicName {
  const first = NUMBER_FIRST.exec(value)?.[1];
  const written = first ?? NUMBER_LAST.exec(value)?.[2];
  if (!written) return { msisdn: undefined, masked: value };
  const at = first ? value.indexOf(written) : value.lastIndexOf(written);
  const msisdn = internationalMsisdn(written);
  return { msisdn, masked: `${value.slice(0, at)}${maskMsisdn(msisdn)!}${value.slice(at + written.length)}` };
}

function partyFromPublicName(...values: (string | undefined)[]): Party | undefined {
  for (const value of values) {
    const msisdn = value === undefined ? undefined : readPublicName(value).msisdn;
    if (msisdn) return { idType: 'MSISDN', id: msisdn };
  }
  return undefined;
}

/**
 * The public names (the B2C receiver's, a status result's debit and credit parties, and their Public
 * variants wherever a result carries them: keys ending in PartyName or PartyPublicName) carry the
 * customer's number: stored masked, whichever way round and in whichever form it came.
 */
const PUBLIC_NAME_KEY = /Party(?:Public)?Name(?:#\d+)?$/;

function maskPublicNames(attributes: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(attributes))
    out[key] = PUBLIC_NAME_KEY.test(key) ? readPublicName(value).masked : value;
  return out;
}

/** Placeholder TransactionIDs like "NLJ0000000" name no transaction. */
function realTransactionId(value: string | null | undefined): string | undefined {
  return value && !/0{7}$/.test(value) ? value : undefined;
}

/**
 * A result's reason when its code maps to one (a failure, a timeout), else the provider's code and words
 * for the evidence all the same (a success: ResultCode 0 and its ResultDesc).
 */
function reasonFor(
  code: string,
  message: string | null | undefined,
  context: DarajaResultContext,
): Pick<ReportDraft, 'reason' | 'said'> {
  const mapped = mapDarajaCode(code, message, context);
  return mapped.reason
    ? { reason: { code: mapped.reason, message: message ?? undefined, providerCode: String(code) } }
    : { reason: undefined, said: { providerCode: String(code), description: message ?? undefined } };
}

/** STK push result (`Body.stkCallback`), correlated by CheckoutRequestID. */
export function normalizeStk(accountId: string, currency: string, body: StkCallback): ReportDraft {
  const cb = body.Body.stkCallback;
  const items = collectParams(cb.CallbackMetadata?.Item);
  const mapped = mapDarajaCode(cb.ResultCode, cb.ResultDesc, 'stk');
  const receipt = first(items, 'MpesaReceiptNumber', 'WalletReceiptNumber');
  return {
    key: { provider: DARAJA, account: accountId, reference: cb.CheckoutRequestID },
    kind: 'stk',
    status: mapped.status,
    ...reasonFor(cb.ResultCode, cb.ResultDesc, 'stk'),
    providerTransactionId: receipt,
    externalId: undefined,
    amount: money(first(items, 'Amount'), currency),
    party: msisdnParty(first(items, 'PhoneNumber')),
    attributes: compact({ ...paramAttributes(items), MerchantRequestID: cb.MerchantRequestID }),
  };
}

function resultIds(result: {
  OriginatorConversationID?: string | null;
  ConversationID?: string | null;
  TransactionID?: string | null;
}) {
  return compact({
    OriginatorConversationID: result.OriginatorConversationID,
    ConversationID: result.ConversationID,
    TransactionID: result.TransactionID,
  });
}

/**
 * B2C (and B2B) result posted to ResultURL. `ResultType` 1 ("waiting for further messages") is not final
 * yet. B2B names its amount `Amount` and its receipt only in `TransactionID`.
 */
export function normalizeB2cResult(
  accountId: string,
  currency: string,
  reference: string,
  result: DarajaResult,
  kind: 'b2c' | 'b2b' = 'b2c',
): ReportDraft {
  const params = collectParams(result.ResultParameters?.ResultParameter);
  const mapped = mapDarajaCode(result.ResultCode, result.ResultDesc, 'b2c');
  const waiting = String(result.ResultType ?? '0').trim() === '1';
  const status = waiting ? 'PENDING' : mapped.status;
  return {
    key: { provider: DARAJA, account: accountId, reference },
    kind,
    status,
    ...reasonFor(result.ResultCode, result.ResultDesc, 'b2c'),
    // Only a success moved money: a failed result's TransactionID can look like a receipt (Daraja's own
    // failure sample carries "SG722NMVXQ") but names no payment, so it stays an attribute only.
    providerTransactionId:
      mapped.status === 'SUCCEEDED'
        ? (first(params, 'TransactionReceipt') ?? realTransactionId(result.TransactionID))
        : undefined,
    externalId: undefined,
    amount: money(first(params, 'TransactionAmount', 'Amount'), currency),
    party: partyFromPublicName(first(params, 'ReceiverPartyPublicName')),
    attributes: { ...maskPublicNames(paramAttributes(params)), ...resultIds(result) },
  };
}

/**
 * Transaction-status result. `ResultCode` is about the query: non-zero means the query failed and says
 * nothing about the transaction (PENDING: no change; the receipt is kept). With 0, the transaction's
 * state is `TransactionStatus`.
 */
export function normalizeStatusResult(
  accountId: string,
  currency: string,
  reference: string,
  result: DarajaResult,
): ReportDraft {
  const params = collectParams(result.ResultParameters?.ResultParameter);
  const code = canonicalDarajaCode(result.ResultCode);
  const transactionStatus = first(params, 'TransactionStatus');
  let status: TransactionStatus;
  let reason: Reason | undefined;
  if (code !== '0') {
    status = 'PENDING';
    reason = {
      code: mapDarajaCode(code, result.ResultDesc, 'status').reason ?? 'UNKNOWN',
      message: result.ResultDesc ?? undefined,
      providerCode: code,
    };
  } else {
    const mapped = mapDarajaTransactionStatus(transactionStatus ?? '');
    status = mapped.status;
    reason = mapped.reason
      ? {
          code: mapped.reason,
          message: `TransactionStatus ${transactionStatus ?? '(missing)'}`,
          providerCode: transactionStatus,
        }
      : undefined;
  }
  const [debitParty, secondDebitParty] = params.get('DebitPartyName') ?? [];
  return {
    key: { provider: DARAJA, account: accountId, reference },
    kind: 'status',
    status,
    reason,
    // A success's own words, its TransactionStatus as its code (as a failure's reason has it).
    ...(reason
      ? {}
      : { said: { providerCode: transactionStatus ?? code, description: result.ResultDesc ?? undefined } }),
    providerTransactionId: first(params, 'ReceiptNo') ?? realTransactionId(result.TransactionID),
    externalId: undefined,
    amount: money(first(params, 'Amount'), currency),
    party: partyFromPublicName(first(params, 'CreditPartyName'), debitParty, secondDebitParty),
    attributes: {
      ...maskPublicNames(paramAttributes(params)),
      ...compact({
        StatusQueryOriginatorConversationID: result.OriginatorConversationID,
        StatusQueryConversationID: result.ConversationID,
        StatusQueryResultCode: code,
      }),
    },
  };
}

export type TimeoutNotice = { shape: 'result'; result: TimeoutResult } | { shape: 'echo'; echo: TimeoutEcho };

/** A queue timeout is not a failure: the outcome is unknown until a result or status query says otherwise. */
export function normalizeTimeout(
  accountId: string,
  currency: string,
  kind: 'b2c' | 'b2b' | 'status',
  reference: string,
  notice: TimeoutNotice,
): ReportDraft {
  const result = notice.shape === 'result' ? notice.result : undefined;
  const echo = notice.shape === 'echo' ? notice.echo : undefined;
  const code = result?.ResultCode;
  return {
    key: { provider: DARAJA, account: accountId, reference },
    kind,
    status: 'AMBIGUOUS',
    reason: {
      code: 'TIMED_OUT',
      message: result?.ResultDesc ?? 'the request timed out in the Daraja queue',
      providerCode: code ? canonicalDarajaCode(code) : 'QUEUE_TIMEOUT',
    },
    providerTransactionId: undefined,
    externalId: undefined,
    amount: money(echo?.Amount ?? undefined, currency),
    party: msisdnParty(echo?.PartyB ?? undefined),
    attributes: compact({
      ...resultIds(result ?? echo!),
      TimeoutShape: notice.shape,
      CommandID: echo?.CommandID,
    }),
  };
}

function payerName(payload: C2BPayload): string | undefined {
  const name = [payload.FirstName, payload.MiddleName, payload.LastName]
    .map((p) => p?.trim())
    .filter(Boolean)
    .join(' ');
  return name || undefined;
}

/** C2B confirmation: the payment completed. Keyed by TransID (the M-Pesa receipt), kind `c2b`. */
export function normalizeC2bConfirmation(
  accountId: string,
  currency: string,
  payload: C2BPayload,
): ReportDraft {
  return {
    key: { provider: DARAJA, account: accountId, reference: payload.TransID },
    kind: 'c2b',
    status: 'SUCCEEDED',
    reason: undefined,
    providerTransactionId: payload.TransID,
    externalId: payload.BillRefNumber?.trim() || undefined,
    amount: money(payload.TransAmount, currency),
    // Daraja masks the MSISDN (25470****149) or, since 2025, sends its SHA-256 (HASHED_MSISDN_ID_TYPE): kept
    // as it arrived, a hash under its own idType, never as a number to notify.
    party: payload.MSISDN
      ? { idType: isHashedMsisdn(payload.MSISDN) ? HASHED_MSISDN_ID_TYPE : 'MSISDN', id: payload.MSISDN }
      : undefined,
    attributes: compact({
      TransactionType: payload.TransactionType,
      TransTime: payload.TransTime,
      BusinessShortCode: payload.BusinessShortCode,
      BillRefNumber: payload.BillRefNumber,
      InvoiceNumber: payload.InvoiceNumber,
      OrgAccountBalance: payload.OrgAccountBalance,
      ThirdPartyTransID: payload.ThirdPartyTransID,
      PayerName: payerName(payload),
    }),
  };
}
