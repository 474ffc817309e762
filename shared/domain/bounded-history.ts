import { rankOf } from './evidence';
import type { ConflictRecord, TransactionRecord } from './transaction';

/**
 * The lists a transaction carries grow with what senders do, so each is bounded, and the bound keeps what
 * a person must see: the first entries (what started it, the first genuine disagreement) are never
 * evicted by a flood; only the latest slots rotate.
 */
export const MAX_CONFLICTS = 20;
const CONFLICT_HEAD = 15;
export const MAX_EVENT_IDS = 64;
const EVENT_HEAD = 16;

function headAndTail<T>(list: readonly T[], max: number, head: number): T[] {
  if (list.length <= max) return [...list];
  return [...list.slice(0, head), ...list.slice(list.length - (max - head))];
}

/** The strength of what a conflict's report said (its last evidence); older records count as strongest. */
function strengthOf(c: ConflictRecord): number {
  const said = c.evidence?.at(-1);
  return said ? rankOf(said) : Number.POSITIVE_INFINITY;
}

/**
 * One record per distinct contradiction: same kind, same reported status, against the same claim, said no
 * more strongly than before. Such a repeat is counted on the record it repeats (`repeats`, `lastAt`,
 * `lastReceiptId`); the very same delivery again is no news at all.
 */
export function withConflict(
  list: readonly ConflictRecord[],
  record: ConflictRecord,
): { conflicts: ConflictRecord[]; fresh: boolean; changed: boolean } {
  const against = record.evidence?.[0]?.claim;
  const strength = strengthOf(record);
  const index = list.findIndex(
    (c) =>
      c.kind === record.kind &&
      c.reportedStatus === record.reportedStatus &&
      c.subject === record.subject &&
      (c.evidence?.[0]?.claim === against || c.evidence === undefined || against === undefined) &&
      strengthOf(c) >= strength,
  );
  if (index === -1)
    return {
      conflicts: headAndTail([...list, record], MAX_CONFLICTS, CONFLICT_HEAD),
      fresh: true,
      changed: true,
    };
  const known = list[index]!;
  // The same delivery again (its receipt; a receipt-less answer, such as a status call's, by its time).
  const same =
    record.receiptId !== undefined
      ? known.receiptId === record.receiptId || known.lastReceiptId === record.receiptId
      : known.at === record.at || known.lastAt === record.at;
  if (same) return { conflicts: [...list], fresh: false, changed: false };
  const repeated: ConflictRecord = {
    ...known,
    repeats: (known.repeats ?? 0) + 1,
    lastAt: record.at,
    ...(record.receiptId ? { lastReceiptId: record.receiptId } : {}),
  };
  return { conflicts: list.map((c, i) => (i === index ? repeated : c)), fresh: false, changed: true };
}

/** The transaction's event ids with these added: an id already listed is not listed twice; bounded. */
export function withEventIds(
  list: TransactionRecord['events'],
  added: readonly { id: string; type: string; at: string }[],
): TransactionRecord['events'] {
  const known = new Set(list.map((e) => e.id));
  const fresh = added.filter((e) => !known.has(e.id) && known.add(e.id));
  return headAndTail([...list, ...fresh], MAX_EVENT_IDS, EVENT_HEAD);
}
