import { describe, expect, it } from 'vitest';
import {
  MAX_CONFLICTS,
  MAX_EVENT_IDS,
  withConflict,
  withEventIds,
} from '../../../shared/domain/bounded-history';
import type { ConflictRecord } from '../../../shared/domain/transaction';

const conflict = (n: number): ConflictRecord => ({
  // 40 distinct contradictions: each contradicts a claim of its own (its first evidence).
  kind: 'STATUS',
  reportedStatus: 'FAILED',
  at: `2026-11-21T10:00:${String(n % 60).padStart(2, '0')}.000Z`,
  origin: 'callback',
  receiptId: `r${n}`,
  detail: `conflict ${n}`,
  evidence: [
    {
      source: 'callback',
      claim: `CLAIM${n}` as never,
      authenticated: false,
      authentication: [],
      conclusive: false,
      at: '2026-11-21T10:00:00.000Z',
      providerCode: null,
      description: null,
      amount: null,
      receiptId: null,
    },
  ],
});

describe('bounded transaction history', () => {
  it('keeps the first conflicts whatever comes after, and at most MAX_CONFLICTS', () => {
    // Prepare
    let list: ConflictRecord[] = [];

    // Act
    for (let n = 0; n < 40; n++) list = withConflict(list, conflict(n)).conflicts;

    // Assess
    expect(list).toHaveLength(MAX_CONFLICTS);
    expect(list.slice(0, 15).map((c) => c.detail)).toEqual(
      Array.from({ length: 15 }, (_, n) => `conflict ${n}`),
    );
    expect(list.at(-1)!.detail).toBe('conflict 39');
  });

  it('lists an event id once, and at most MAX_EVENT_IDS ids, the first ones kept', () => {
    // Prepare
    const event = (n: number) => ({
      id: `e${n}`,
      type: 'TransactionConflict',
      at: '2026-11-21T10:00:00.000Z',
    });
    let list = withEventIds([], [event(0), event(0)]);

    // Act
    for (let n = 1; n < 200; n++) list = withEventIds(list, [event(n), event(0)]);

    // Assess
    expect(list).toHaveLength(MAX_EVENT_IDS);
    expect(list[0]!.id).toBe('e0');
    expect(list.filter((e) => e.id === 'e0')).toHaveLength(1);
    expect(list.at(-1)!.id).toBe('e199');
  });
});
