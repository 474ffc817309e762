import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { ReceiptSummary, StoredReceiptView } from '../../app/ports';
import { RECEIPT_SK_PREFIX } from './table';
import { keyOfPk } from './transaction-item';

/**
 * How a receipt item is laid out in the table (docs/table-design.md#the-receipt-item).
 *
 * A receipt is written at every first callback and kept `retention.receiptDays`. Written plainly, the
 * headers API Gateway passes on (host, x-forwarded-*, x-amzn-trace-id, user-agent…), the path and the body
 * put a Daraja result (a 0.8–1 KB body) over 1 KB: two write units where one would do. So only what
 * DynamoDB itself reads, what a repeat updates and what a history page lists stay plain attributes
 * (itemType, routeName, method, sourceIp, verification, the times, `deliveries`, `bodyBytes`,
 * `bodyDropped`, the TTL); the dedupe key, the path, the headers and the body go, as JSON deflated with
 * a preset dictionary, into one binary attribute, `r`. The receipt id is the sk's, provider, account
 * and reference the pk's.
 *
 * Only this adapter sees the layout: `widenReceiptItem` gives back the plain item, and an item written
 * before the compact layout (a plain `body`) is read as it is.
 */
export const RECEIPT_PACKED_ATTRIBUTE = 'r';

/**
 * The deflate's preset dictionary: what receipts repeat from item to item (the headers API Gateway passes
 * on, the field names of MoMo's, Airtel's and Daraja's callback bodies), so a receipt costs about its own
 * values. Frozen like the transaction item's: `r`'s first byte names the dictionary it was written with;
 * a better one is a new version beside this one, never an edit of it.
 */
const DICTIONARIES: Readonly<Record<number, Buffer>> = {
  1: Buffer.from(
    // Daraja: B2C/B2B/reversal/balance/status results, C2B confirmation and validation, STK.
    '{"Result":{"ResultType":0,"ResultCode":0,"ResultDesc":"The service request is processed successfully.","OriginatorConversationID":"","ConversationID":"AG_2026","TransactionID":"",' +
      '"ResultParameters":{"ResultParameter":[{"Key":"TransactionAmount","Value":},{"Key":"TransactionReceipt","Value":""},{"Key":"B2CRecipientIsRegisteredCustomer","Value":"Y"},' +
      '{"Key":"B2CChargesPaidAccountAvailableFunds","Value":},{"Key":"ReceiverPartyPublicName","Value":""},{"Key":"TransactionCompletedDateTime","Value":""},' +
      '{"Key":"B2CUtilityAccountAvailableFunds","Value":},{"Key":"B2CWorkingAccountAvailableFunds","Value":},{"Key":"DebitAccountBalance","Value":""},{"Key":"Amount","Value":},' +
      '{"Key":"Currency","Value":"KES"},{"Key":"ReceiverPartyPublicName","Value":""},{"Key":"InitiatedTime","Value":},{"Key":"DebitPartyCharges","Value":""},' +
      '{"Key":"OriginalTransactionID","Value":""},{"Key":"CreditPartyPublicName","Value":""},{"Key":"DebitPartyName","Value":""},{"Key":"TransactionStatus","Value":"Completed"},' +
      '{"Key":"ReasonType","Value":""},{"Key":"TransactionReason","Value":""},{"Key":"FinalisedTime","Value":},{"Key":"ReceiptNo","Value":""},{"Key":"AccountBalance","Value":"Working Account|KES|"},' +
      '{"Key":"BOCompletedTime","Value":}]},"ReferenceData":{"ReferenceItem":{"Key":"QueueTimeoutURL","Value":"https://"}}}}' +
      '{"TransactionType":"Pay Bill","TransID":"","TransTime":"2026","TransAmount":"","BusinessShortCode":"","BillRefNumber":"","InvoiceNumber":"","OrgAccountBalance":"",' +
      '"ThirdPartyTransID":"","MSISDN":"254","FirstName":"","MiddleName":"","LastName":""}' +
      '{"Body":{"stkCallback":{"MerchantRequestID":"","CheckoutRequestID":"ws_CO_","ResultCode":0,"ResultDesc":"The service request is processed successfully.",' +
      '"CallbackMetadata":{"Item":[{"Name":"Amount","Value":},{"Name":"MpesaReceiptNumber","Value":""},{"Name":"Balance"},{"Name":"TransactionDate","Value":2026},{"Name":"PhoneNumber","Value":254}]}}}}' +
      '"Request cancelled by user","DS timeout user cannot be reached"' +
      // Airtel, MoMo.
      '{"transaction":{"id":"","message":"","status_code":"TS","airtel_money_id":""}}' +
      '{"financialTransactionId":"","externalId":"","amount":"","currency":"","payer":{"partyIdType":"MSISDN","partyId":""},"payee":{"partyIdType":"MSISDN","partyId":""},' +
      '"payerMessage":"","payeeNote":"","status":"SUCCESSFUL","reason":{"code":"","message":""}},"FAILED","PENDING","referenceId":""' +
      // The receipt's own fields and the headers API Gateway passes on.
      '{"dedupeKey":"","path":"/v1/","headers":{"accept":"*/*","accept-encoding":"gzip, deflate","content-length":"","content-type":"application/json",' +
      '"host":"","user-agent":"","x-amzn-trace-id":"Root=1-","x-forwarded-for":"","x-forwarded-port":"443","x-forwarded-proto":"https"},"body":""}',
    'utf8',
  ),
};
/** The dictionary new receipts are written with. */
const DICTIONARY_VERSION = 1;

/** What goes into `r`: what a receipt keeps from its first delivery that only a reader of the whole receipt needs. */
interface PackedReceipt {
  dedupeKey: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

export function packReceipt(packed: PackedReceipt): Uint8Array {
  const deflated = deflateRawSync(Buffer.from(JSON.stringify(packed), 'utf8'), {
    level: 9,
    dictionary: DICTIONARIES[DICTIONARY_VERSION],
  });
  return new Uint8Array(Buffer.concat([Buffer.of(DICTIONARY_VERSION), deflated]));
}

function unpack(pk: unknown, packed: unknown): PackedReceipt | undefined {
  const bytes =
    packed instanceof Uint8Array
      ? Buffer.from(packed)
      : typeof packed === 'string'
        ? Buffer.from(packed, 'base64')
        : undefined;
  if (!bytes) return undefined;
  const dictionary = DICTIONARIES[bytes[0]!];
  if (!dictionary) throw new Error(`receipt item ${String(pk)}: unknown dictionary ${bytes[0]}`);
  return JSON.parse(inflateRawSync(bytes.subarray(1), { dictionary }).toString('utf8')) as PackedReceipt;
}

/** The packed part of a compact receipt item, undefined for an item in the plain layout (or no receipt). */
export function packedReceiptOf(item: Record<string, unknown> | undefined): PackedReceipt | undefined {
  if (!isReceiptItem(item) || typeof item.body === 'string') return undefined;
  return unpack(item.pk, item[RECEIPT_PACKED_ATTRIBUTE]);
}

const isReceiptItem = (item: Record<string, unknown> | undefined): item is Record<string, unknown> =>
  typeof item?.sk === 'string' && item.sk.startsWith(RECEIPT_SK_PREFIX);

/**
 * The plain (wide) receipt item of a stored one, whichever layout it was written in. An item written
 * plainly that a repeat delivery reached after the upgrade carries both: its plain attributes win (its
 * body may have been dropped since).
 */
export function widenReceiptItem<T extends Record<string, unknown> | undefined>(item: T): T {
  if (!isReceiptItem(item)) return item;
  const { [RECEIPT_PACKED_ATTRIBUTE]: packed, ...plain } = item;
  const unpacked = typeof plain.body === 'string' ? undefined : unpack(plain.pk, packed);
  return {
    ...keyOfPk(String(plain.pk)),
    receiptId: String(plain.sk).slice(RECEIPT_SK_PREFIX.length),
    ...unpacked,
    ...plain,
  } as unknown as T;
}

/**
 * The receipt as the store's readers answer it, from its plain item (widened, or read with a projection
 * of the summary's attributes): the summary a history page lists, or with `whole` the receipt itself (its
 * path, headers and body too). The key order is the documented answer's (docs/management-api.md), the
 * summary's keys in the same order as the whole receipt's.
 */
export function receiptViewOf(item: Record<string, unknown>, part: 'summary'): ReceiptSummary;
export function receiptViewOf(item: Record<string, unknown>, part: 'whole'): StoredReceiptView;
export function receiptViewOf(
  item: Record<string, unknown>,
  part: 'summary' | 'whole',
): ReceiptSummary | StoredReceiptView {
  const whole = part === 'whole';
  return {
    // A compact receipt's id is its sk's; one in the plain layout also has it plain.
    receiptId: String(item.receiptId ?? String(item.sk).slice(RECEIPT_SK_PREFIX.length)),
    routeName: String(item.routeName),
    method: String(item.method),
    ...(whole
      ? { path: String(item.path ?? ''), headers: (item.headers as Record<string, string>) ?? {} }
      : {}),
    sourceIp: String(item.sourceIp),
    firstReceivedAt: String(item.firstReceivedAt),
    lastReceivedAt: String(item.lastReceivedAt),
    deliveries: Number(item.deliveries ?? 1),
    verification: (item.verification as Record<string, unknown>) ?? {},
    bodyBytes: Number(item.bodyBytes ?? 0),
    ...(item.bodyDropped === true ? { bodyDropped: true } : {}),
    ...(whole ? { body: String(item.body ?? '') } : {}),
  };
}
