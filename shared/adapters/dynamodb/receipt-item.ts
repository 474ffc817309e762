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
 * a better one is a new version beside this one, never an edit of it. Kept deflated (raw deflate, level 9,
 * base64: 1.3 KB less in every bundle that stores receipts); its text, Daraja's results, C2B and STK
 * bodies, Airtel's and MoMo's, the receipt's fields and API Gateway's headers, is in
 * test/unit/adapters/item-dictionaries.test.ts, which holds these bytes to it.
 */
export const RECEIPT_DICTIONARIES: Readonly<Record<number, Buffer>> = {
  1: inflateRawSync(
    Buffer.from(
      'rVZRj+I2EP4r0TyeQrmje32IdA9LgBPaXZYStlV1OiFjD8RdY6e2w12Oy3+v7DhLoKDbVn2Lx9+MP898/uAACzSlsJAcwtey' +
        'KhCSt3FYpop1lyM0FBJY5hgZ1HtOMdL4V4nGRtxEhVYUjUEWmZK6r00pRPUTxPCo+ZZLYpVOldyjNsRyJacjSABi+Efs9uNq' +
        '8HbwC8Sw1EQaQrvohsmcaLJDi9ocub/EIPl0gDusHNVjgdudKqWFGH4jokRI6vgCaIEUedFBARxxw0G6QMoLjtJOzQK33FjU' +
        'yNLSWLVD3cn64zQtzYneopkTzm4pdTxu94QLshY4KSUzl1h5KnvUc6JtNS/XgtMZ2eFlap0rpGpXCLTIRsTikl/LGA7SJ8sF' +
        't9WrGQ0H6e9KP3O5fXXKCNfcBvSQCCLpFTrXp5OWWqOkVSfvbpzBf2zUVHLLiUV22pkzxr5UGNrlOkHS4lShF6GpRhZK/ojd' +
        '8fBXjTqzxJZdgi+zP2kPMUr6h/2jeg30MmzibsvN9caFpzNTVwZ8TQRBUlEAfL8bZ9+7On18udTZyZ9r5wYbdOrAEbGksYIQ' +
        'mFrcuUBT5dcSS/8YVGmfFved43NrC5P0+1DXdX3odqPxQpiTKhpyIVo7ao3ILzylBLp2FZTsMcPScInGZLnSwUx9mAuxwM2s' +
        '3K2dW7nQVO4Vp9gNPertWdOac3OumdfICZ2HbJqNZo7L+xuIYcK1sV5EzS5nTOBxfU+Ou/UBhopVrlnGPqdEiDWhz275gJrm' +
        'RNpFY/Ivhp0jfVblSfiLWaWPK/iffzhaMg9oCQsTbgb76QCB/yXnCFsPBRrS6rLp7Jk2A7BtcCfUEYIz0mOim3UHN8+VxPPi' +
        'g/c39WcnKAg9iqirLwSyaF1FpfHgURbZRpI+4jBS2WjtmkNojgwOYI803OU5a0awQ2PINgzTeBtY0UZfywxiIFxbFKudklit' +
        'miSn7g2XRFJ+aluhJH61qCUR7Zp0dExbD/arglROowconAqnLDyUoMC4DTc99mj8V2j90L2dz58pe3JZSCB7StNxlk2e3GvW' +
        'jXMlB6Avr6zTo7qOYXI7vR87i56PZ6Pp7KPPas3CH38AhqwssLEMf7TNIYH+/l0fYsiRsPCHg1CKhevNm/4b1yq/7KGkinG5' +
        'hQS233gRRww3otEOVdKitD2BcutrdmK2aQgpCsGp/xfU/7Ox4VyZMACnjx7ZYjuQrz2y+yZ7VhOKPT/fhVL2w7ue39so/YVo' +
        'hsx9tQnHYKG0K3Nz8/P5hlZWtZ7oprH2vgBQ/w0=',
      'base64',
    ),
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
    dictionary: RECEIPT_DICTIONARIES[DICTIONARY_VERSION],
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
  const dictionary = RECEIPT_DICTIONARIES[bytes[0]!];
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
