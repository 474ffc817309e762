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
 * this one, never an edit of it. Kept deflated (raw deflate, level 9, base64: 1.2 KB less in every bundle
 * that stores transactions); its text is in test/unit/adapters/item-dictionaries.test.ts, which holds these
 * bytes to it.
 */
export const TRANSACTION_DICTIONARIES: Readonly<Record<number, Buffer>> = {
  1: inflateRawSync(
    Buffer.from(
      '3VVNbxs3EP0rwpypYq1DD5tLbUkJBCROENlFEUOHWXIkE6LILT8EC8L+92LIlaytWztokEsBHcjh7My892ZGECLGFMbYahDA' +
        'F9qRjSCgdcaAgB3ahHxo0npNHgR42ugQPUbtLAjAFB/JRi0xkoI6+kQDI3vVD9BifBwHkp44eHDJSxrrls96YzEmT7AScOfR' +
        'BpT81fWu0ZvkUoCB+T1qQ2pomz+12r8wBokmFzUwT51dGy3j0PqV9uRD9p1Obn5Ho1UufUZSq2y+/nSz+HD/+X4JAt5fLz7O' +
        'ZyBg/seXxdd88oSBkR5BOkVQA3NHIeCmv7Te7bUiP+2fO36PqDAi1MdOQPQpZAqPZ9+LAheqhMEYvW5SpMBfdZxYOiu1oZz7' +
        'keQ2QF1lOwtZP6yyE8NDE/jOqdCGomYzkVn4LQiQkwYEKB2a5MOpD6QzhmQR+whbbbkQT38mCjG6Fg/nliCWoF6jCSRgF3RQ' +
        'ttRMT5G8RXPC0KKPBy5Xq7tDy2x8Wi6Ws1sQoFXPzRDnBcx7G7WBGibV5NdxdTWuru6qqs6/X6qq+gY9PM0lM94jrL3bQQ1f' +
        '5rezxe0HdnBQw/J+Op3PZ1k9jK9HdF5vNKORaEyDcguFYN3GEyhixazMMpT2HrpLg3r397TD2empezE8K1bBSpOC3tN5xN4o' +
        'edhvNhkjQFGQXrclbDHhziVukyPs0aS+V2Xynqw89FoMkHZdKScPUd9PtCcbC9e6pyMWYac9AZ99+4g2D9LrhXfiRYyLKVgm' +
        'KYnU98RZXUry8D/XZHU28LjAltoI9ZWA5pAHqBKgvGtbBvR8vukfOwEuxcY9ZZ76hQTlj2EwNqcdV6rMCfekrt8AbV28pH20' +
        'dn6Eo/gs6si6xqnD6HmLvBuF6DypEVo1wrY1mhSD5kFeRGLJfpPOezJYdqM4MStQSiZP8KISntbEpJH4x40qnheTKJyLspoG' +
        'qxl4dWZ14OrVxnYya/QmIS+XScddf0r3X1j+udyUVhhQJM6z9R1c/csA/whfq+4v',
      'base64',
    ),
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
    dictionary: TRANSACTION_DICTIONARIES[DICTIONARY_VERSION],
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
  const dictionary = TRANSACTION_DICTIONARIES[packed[0]!];
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
