import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { TransactionKey } from '../../domain/transaction';
import { ACCOUNT_DAY_INDEX, DAY_INDEX, DUE_INDEX, TX_SK } from './table';

/**
 * How a transaction item is laid out in the table (docs/table-design.md#the-transaction-item).
 *
 * DynamoDB bills a write 1 unit per started KB of the larger of the item's before and after images, and
 * stores every byte for the whole retention. Written plainly, a first callback's transaction is ~2 KB:
 * its history (transitions that repeat their evidence, the event list, the events of the latest write
 * naming the fields they share) is most of it, and it takes the write to 2 units, a third with an orphan.
 * So only what DynamoDB itself reads stays a plain attribute: the keys and index keys, what the
 * byAccountDay index projects (status, amount, providerTransactionId), the revision and updatedAt the
 * conditions and the stream compare, the TTL, `reconcile` (the poller's lease updates it in place) and
 * the outbox's event ids (the stream's filter matches them). Everything else goes, as JSON, deflated
 * into one binary attribute, `h`: the repeats (evidence in its transitions, event ids and times, field
 * names) cost the deflate a back-reference each. provider, account and reference are the pk's.
 *
 * Only this adapter sees the layout: `widenTransactionItem` gives back the plain item every reader
 * expects, and an item written before the compact layout (no `h`) is read as it is.
 */
const HISTORY_ATTRIBUTE = 'h';

/**
 * The deflate's preset dictionary: the strings a transaction's history repeats from item to item (field
 * names, statuses, event types, the orphan note), so a first callback's history costs its own values
 * only (~300 B instead of ~670 B deflated without it). Frozen: `h`'s first byte names the dictionary
 * it was written with, and an item keeps that one forever. A better dictionary is a new version beside
 * this one, never an edit of it.
 */
const DICTIONARIES: Readonly<Record<number, Buffer>> = {
  1: Buffer.from(
    '"status-api","statement","poll","manual","buffer","registration","authenticated":true,"authentication":["path-secret","source-ip","signature"],' +
      '"TransactionAmbiguous","TransactionFailed","TransactionExpired","TransactionEscalated","TransactionConflict","TransactionReversed","C2BValidationDecided",' +
      '"AMBIGUOUS","FAILED","EXPIRED","reason":{"code":"","message":"","providerCode":""},"metadata":{},"trusted":{"providerTransactionId":"","attributes":{}},' +
      '"reconcile":{"checks":0,"recent":[]},"reversals":[],"transfer","b2c","stk","c2b","disbursement","collection",' +
      '{"kind":"requesttopay","registered":false,"msisdn":"","externalId":"","party":{"idType":"MSISDN","id":""},"attributes":{},"reconcileUntil":"2026-01-01T00:00:00.000Z",' +
      '"transitions":[{"from":"PENDING","to":"SUCCEEDED","at":"2026-01-01T00:00:00.000Z","origin":"callback","receiptId":"","evidence":' +
      '{"source":"callback","claim":"SUCCEEDED","authenticated":false,"authentication":[],"conclusive":true,"at":"2026-01-01T00:00:00.000Z","providerCode":null,"description":null,"amount":{"value":"","currency":""},"receiptId":""}}],' +
      '"conflicts":[],"events":[{"id":"","type":"CallbackOrphaned","at":"2026-01-01T00:00:00.000Z"},{"id":"","type":"TransactionSucceeded","at":"2026-01-01T00:00:00.000Z"}],' +
      '"evidence":[{"source":"callback","claim":"SUCCEEDED","authenticated":false,"authentication":[],"conclusive":true,"at":"2026-01-01T00:00:00.000Z","providerCode":null,"description":null,"amount":{"value":"","currency":""},"receiptId":""}],' +
      '"receipts":{"kept":1,"bytes":0,"dropped":0,"droppedBytes":0},' +
      '"outbox":[{"data":{"status":"PENDING","reason":null,"receivedAt":"2026-01-01T00:00:00.000Z","note":"callback for a transaction nobody registered; stored and applied"},' +
      '"fromItem":"@correlationId,provider,account,kind,reference,providerTransactionId,externalId,amount,party","metadata":{"version":"1","type":"CallbackOrphaned","occurredAt":"2026-01-01T00:00:00.000Z","origin":"callback"}},' +
      '{"data":{"reason":null,"receivedAt":"2026-01-01T00:00:00.000Z"},"fromItem":"@correlationId,provider,account,kind,reference,providerTransactionId,externalId,status,amount,party,evidence",' +
      '"metadata":{"version":"1","type":"TransactionSucceeded","occurredAt":"2026-01-01T00:00:00.000Z","origin":"callback"}}]}',
    'utf8',
  ),
};
/** The dictionary new items are written with. */
const DICTIONARY_VERSION = 1;

/** Attributes DynamoDB reads (keys, indexes, conditions, TTL, the stream's filter): never deflated. */
const PLAIN = new Set<string>([
  'pk',
  'sk',
  DUE_INDEX.partitionKey,
  DUE_INDEX.sortKey,
  DAY_INDEX.partitionKey,
  DAY_INDEX.sortKey,
  ACCOUNT_DAY_INDEX.partitionKey,
  ACCOUNT_DAY_INDEX.sortKey,
  ...ACCOUNT_DAY_INDEX.projected,
  'status',
  'revision',
  'updatedAt',
  'expiresAt',
  'reconcile',
  'outbox',
]);

/** Plain attributes of the wide item the compact one derives: the key's parts (from pk) and the item type. */
const DERIVED = new Set(['provider', 'account', 'reference', 'itemType']);
const ITEM_TYPE = 'transaction';

/** Inverse of transactionPk; provider and account ids never contain '#', a reference may. */
export function keyOfPk(pk: string): TransactionKey | undefined {
  const match = /^TX#([^#]+)#([^#]+)#(.+)$/s.exec(pk);
  return match ? { provider: match[1]!, account: match[2]!, reference: match[3]! } : undefined;
}

interface OutboxEntry {
  metadata?: { id?: unknown } & Record<string, unknown>;
  [name: string]: unknown;
}

/**
 * The compact item of a wide one (the plain layout, its outbox already compacted by domain/outbox.ts).
 * The outbox keeps only each event's id as an attribute (the stream filter's `metadata.id`); the rest
 * of each event rides in `h`, matched back by position.
 */
export function compactTransactionItem(wide: Record<string, unknown>): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  const history: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(wide)) {
    if (value === undefined || DERIVED.has(name)) continue;
    if (name === 'outbox') continue;
    if (PLAIN.has(name)) item[name] = value;
    else history[name] = value;
  }
  const outbox = (wide.outbox ?? []) as OutboxEntry[];
  item.outbox = outbox.map((entry) => ({ metadata: { id: entry.metadata?.id } }));
  if (outbox.length)
    history.outbox = outbox.map(({ metadata, ...event }) => {
      const { id: _id, ...rest } = metadata ?? {};
      return { ...event, metadata: rest };
    });
  const deflated = deflateRawSync(Buffer.from(JSON.stringify(history), 'utf8'), {
    level: 9,
    dictionary: DICTIONARIES[DICTIONARY_VERSION],
  });
  item[HISTORY_ATTRIBUTE] = new Uint8Array(Buffer.concat([Buffer.of(DICTIONARY_VERSION), deflated]));
  return item;
}

/**
 * The deflated history of a compact transaction item: a Uint8Array from the SDK, or base64 text in a
 * stream record Lambda delivers as JSON (its binary attributes are base64 there); undefined otherwise.
 */
function packedHistory(item: Record<string, unknown> | undefined): Buffer | undefined {
  if (item?.sk !== TX_SK) return undefined;
  const packed = item[HISTORY_ATTRIBUTE];
  if (packed instanceof Uint8Array) return Buffer.from(packed);
  if (typeof packed === 'string') return Buffer.from(packed, 'base64');
  return undefined;
}

/**
 * The plain (wide) item of a stored transaction item, whichever layout it was written in: the item as
 * it is when it is not a compact transaction item (old layout, receipts, every other item).
 */
export function widenTransactionItem<T extends Record<string, unknown> | undefined>(item: T): T {
  const packed = packedHistory(item);
  if (!packed) return item;
  const { [HISTORY_ATTRIBUTE]: _packed, outbox: ids, ...plain } = item as Record<string, unknown>;
  const dictionary = DICTIONARIES[packed[0]!];
  if (!dictionary)
    throw new Error(`transaction item ${String(plain.pk)}: unknown history dictionary ${packed[0]}`);
  const history = JSON.parse(inflateRawSync(packed.subarray(1), { dictionary }).toString('utf8')) as Record<
    string,
    unknown
  >;
  const { outbox: events, ...rest } = history as { outbox?: OutboxEntry[] };
  const key = keyOfPk(String(plain.pk));
  // The poller's lease empties the outbox attribute in place (`h` keeps the last write's events): the
  // attribute says how many events the item still carries.
  const outbox = ((ids ?? []) as OutboxEntry[]).map((entry, i) => {
    const event = events?.[i] ?? {};
    return { ...event, metadata: { ...(event.metadata ?? {}), id: entry.metadata?.id } };
  });
  return {
    ...plain,
    ...(key ?? {}),
    itemType: ITEM_TYPE,
    ...rest,
    outbox,
  } as unknown as T;
}
