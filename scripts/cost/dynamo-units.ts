/**
 * DynamoDB's own arithmetic for what an item costs, from AWS's published rules rather than DynamoDB
 * Local's ConsumedCapacity (which counts neither index writes nor the larger of the before and after
 * images): "Item sizes and formats", "Write request units" and "Provisioned throughput considerations
 * for global secondary indexes" in the DynamoDB developer guide.
 */
import type { AttributeValue, CreateTableCommandInput } from '@aws-sdk/client-dynamodb';

/** A write request unit covers an item of up to 1 KB; bigger items take one more per started KB. */
export const WRITE_UNIT_BYTES = 1024;
/** A read request unit covers a strongly consistent read of up to 4 KB (half a unit when eventual). */
export const READ_UNIT_BYTES = 4096;
/** Storage is billed with 100 bytes of indexing overhead per item (table and each index entry). */
export const STORAGE_OVERHEAD_BYTES = 100;

const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');

/**
 * A number's size: one byte per two significant digits, plus one (leading and trailing zeros trimmed).
 */
export function numberBytes(text: string): number {
  const digits = text
    .replace(/^[-+]/, '')
    .replace(/[eE].*$/, '')
    .replace('.', '');
  const significant = digits.replace(/^0+/, '').replace(/0+$/, '');
  return Math.ceil(Math.max(1, significant.length) / 2) + 1;
}

/** The size of one attribute value (without its name). */
export function valueBytes(value: AttributeValue): number {
  if (value.S !== undefined) return utf8(value.S);
  if (value.N !== undefined) return numberBytes(value.N);
  if (value.B !== undefined) return value.B.byteLength;
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.SS !== undefined) return value.SS.reduce((n, s) => n + utf8(s), 0);
  if (value.NS !== undefined) return value.NS.reduce((n, s) => n + numberBytes(s), 0);
  if (value.BS !== undefined) return value.BS.reduce((n, b) => n + b.byteLength, 0);
  // Lists and maps: 3 bytes of their own, and 1 byte for each element besides its size (and name).
  if (value.L !== undefined) return 3 + value.L.reduce((n, v) => n + 1 + valueBytes(v), 0);
  if (value.M !== undefined)
    return 3 + Object.entries(value.M).reduce((n, [name, v]) => n + 1 + utf8(name) + valueBytes(v), 0);
  throw new Error(`unknown attribute value type: ${Object.keys(value).join(', ')}`);
}

/** An item's size as DynamoDB counts it for capacity: every attribute's name and value. */
export function itemBytes(item: Record<string, AttributeValue> | undefined): number {
  if (!item) return 0;
  return Object.entries(item).reduce((n, [name, value]) => n + utf8(name) + valueBytes(value), 0);
}

/** Write units of writing `bytes`: 1 per KB, rounded up; a delete of an absent item still costs 1. */
export const writeUnitsOf = (bytes: number) => Math.max(1, Math.ceil(bytes / WRITE_UNIT_BYTES));

/** A global secondary index: its key attributes and what it projects. */
export interface IndexShape {
  readonly name: string;
  readonly keys: readonly string[];
  /** The table's key attributes, always projected. */
  readonly tableKeys: readonly string[];
  readonly projection: 'KEYS_ONLY' | 'ALL' | { readonly include: readonly string[] };
}

/** The index entry an item makes (undefined when the item lacks one of the index's keys: sparse). */
export function indexEntry(
  item: Record<string, AttributeValue> | undefined,
  index: IndexShape,
): Record<string, AttributeValue> | undefined {
  if (!item || index.keys.some((key) => item[key] === undefined)) return undefined;
  if (index.projection === 'ALL') return item;
  const names = new Set([
    ...index.keys,
    ...index.tableKeys,
    ...(index.projection === 'KEYS_ONLY' ? [] : index.projection.include),
  ]);
  return Object.fromEntries(Object.entries(item).filter(([name]) => names.has(name)));
}

const sameValue = (a: AttributeValue | undefined, b: AttributeValue | undefined) =>
  JSON.stringify(a) === JSON.stringify(b);

/**
 * Write units one index takes for a write that turns `before` into `after`: none when the item is in
 * the index neither before nor after, or its entry is unchanged; one put when it enters or its
 * projected attributes change; one delete when it leaves; a delete and a put when a key changes.
 */
export function indexWriteUnits(
  before: Record<string, AttributeValue> | undefined,
  after: Record<string, AttributeValue> | undefined,
  index: IndexShape,
): number {
  const old = indexEntry(before, index);
  const next = indexEntry(after, index);
  if (!old && !next) return 0;
  if (!old) return writeUnitsOf(itemBytes(next));
  if (!next) return writeUnitsOf(itemBytes(old));
  if (index.keys.some((key) => !sameValue(old[key], next[key])))
    return writeUnitsOf(itemBytes(old)) + writeUnitsOf(itemBytes(next));
  const changed = Object.keys({ ...old, ...next }).some((name) => !sameValue(old[name], next[name]));
  return changed ? writeUnitsOf(itemBytes(next)) : 0;
}

/**
 * Write units of one PutItem/UpdateItem/DeleteItem: the larger of the item's before and after sizes,
 * 1 KB rounded up, plus every index it touches.
 */
export function writeUnits(
  before: Record<string, AttributeValue> | undefined,
  after: Record<string, AttributeValue> | undefined,
  indexes: readonly IndexShape[],
): { table: number; indexes: number; total: number } {
  const table = writeUnitsOf(Math.max(itemBytes(before), itemBytes(after)));
  const index = indexes.reduce((n, i) => n + indexWriteUnits(before, after, i), 0);
  return { table, indexes: index, total: table + index };
}

/** Bytes an item bills for storage: its size, 100 B of overhead, and each index entry it makes. */
export function storedBytes(
  item: Record<string, AttributeValue> | undefined,
  indexes: readonly IndexShape[],
): number {
  if (!item) return 0;
  return indexes.reduce(
    (n, index) => {
      const entry = indexEntry(item, index);
      return entry ? n + itemBytes(entry) + STORAGE_OVERHEAD_BYTES : n;
    },
    itemBytes(item) + STORAGE_OVERHEAD_BYTES,
  );
}

/** The global secondary indexes of a table definition (shared/adapters/dynamodb/table.ts's). */
export function indexShapes(input: CreateTableCommandInput): IndexShape[] {
  const tableKeys = (input.KeySchema ?? []).map((k) => k.AttributeName!);
  return (input.GlobalSecondaryIndexes ?? []).map((index) => ({
    name: index.IndexName!,
    keys: (index.KeySchema ?? []).map((k) => k.AttributeName!),
    tableKeys,
    projection:
      index.Projection?.ProjectionType === 'ALL'
        ? 'ALL'
        : index.Projection?.ProjectionType === 'INCLUDE'
          ? { include: index.Projection.NonKeyAttributes ?? [] }
          : 'KEYS_ONLY',
  }));
}

/**
 * What a write did to an item, by attribute name: the attributes it had before (none when the write created
 * it), those it has after, and those whose value the write set, changed or removed. Enough to apply the
 * GSI rules to any index definition without the values (`npm run cost` prices a template's indexes this way).
 */
export interface ItemChange {
  readonly before: readonly string[];
  readonly after: readonly string[];
  readonly changed: readonly string[];
}

/** The change a write made, read from the item's images. */
export function itemChange(
  before: Record<string, AttributeValue> | undefined,
  after: Record<string, AttributeValue> | undefined,
): ItemChange {
  const names = (item: typeof before) => Object.keys(item ?? {}).sort();
  return {
    before: names(before),
    after: names(after),
    changed: [...new Set([...names(before), ...names(after)])]
      .filter((name) => !sameValue(before?.[name], after?.[name]))
      .sort(),
  };
}

/**
 * indexWriteUnits by attribute names: an entry put when the item gets the index's keys, deleted when it
 * loses them, deleted and put when a key changes, rewritten when a projected attribute changes; each
 * entry of `entryBytes` (the index's measured entry; 1 unit below 1 KB).
 */
export function indexWriteUnitsOfChange(change: ItemChange, index: IndexShape, entryBytes: number): number {
  const has = (names: readonly string[]) => index.keys.every((key) => names.includes(key));
  const was = has(change.before);
  const is = has(change.after);
  const entry = writeUnitsOf(entryBytes);
  if (!was && !is) return 0;
  if (was !== is) return entry;
  if (index.keys.some((key) => change.changed.includes(key))) return 2 * entry;
  const projected =
    index.projection === 'ALL'
      ? change.changed
      : index.projection === 'KEYS_ONLY'
        ? []
        : change.changed.filter((name) =>
            (index.projection as { include: readonly string[] }).include.includes(name),
          );
  return projected.length > 0 ? entry : 0;
}
