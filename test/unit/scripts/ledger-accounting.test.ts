import { describe, expect, it } from 'vitest';
import { account, type LedgerEntry, percentile } from '../../../scripts/ledger/accounting';
import { formatLedger, progressLine, type RunFacts } from '../../../scripts/ledger/format';
import type { EventEnvelope } from '../../../shared/domain/events';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const HOUR = 3_600_000;
const MARGIN = { marginMs: 15_000 };

function entry(
  reference: string,
  expected: LedgerEntry['expected'],
  extra: Partial<LedgerEntry> = {},
): LedgerEntry {
  return {
    key: `momo/demo/${reference}`,
    label: `${reference} test`,
    expected,
    viaPoll: false,
    startedAt: T0,
    windowEndsAt: T0 + HOUR,
    ...extra,
  };
}

let ids = 0;
function event(
  type: string,
  reference: string,
  options: { origin?: string; atMs?: number; id?: string; late?: boolean } = {},
): EventEnvelope {
  return {
    metadata: {
      id: options.id ?? `id-${++ids}`,
      version: '1',
      type,
      occurredAt: new Date(T0 + (options.atMs ?? 1000)).toISOString(),
      correlationId: `momo:demo:${reference}`,
      origin: options.origin ?? 'callback',
    },
    data: {
      provider: 'momo',
      account: 'demo',
      reference,
      status: 'x',
      ...(options.late ? { lateResolution: true } : {}),
    },
  } as unknown as EventEnvelope;
}

describe('ledger accounting', () => {
  it('balances when each transaction has exactly its expected final event', () => {
    // Prepare
    const entries = [
      entry('a', 'SUCCEEDED', { viaPoll: true }),
      entry('b', 'FAILED'),
      entry('c', 'EXPIRED', { windowEndsAt: T0 + 20_000 }),
    ];
    const events = [
      event('TransactionAmbiguous', 'a', { atMs: 400 }),
      event('TransactionSucceeded', 'a', { origin: 'poll', atMs: 7000 }),
      event('TransactionFailed', 'b', { atMs: 500 }),
      event('TransactionExpired', 'c', { origin: 'poll', atMs: 20_500 }),
    ];
    // Act
    const ledger = account(entries, events, T0 + 30_000, { ...MARGIN, runEnded: true });
    // Assess
    expect(ledger).toMatchObject({
      registered: 3,
      succeeded: 1,
      failed: 1,
      expired: 1,
      open: [],
      lost: [],
      duplicates: [],
      wrongOutcome: [],
      problems: [],
      balanced: true,
      byOrigin: { callback: 1, poll: 2 },
      timeToFinal: { p50: 500, p95: 7000, max: 7000, count: 2 },
    });
  });

  it('names a transaction with two final events as a duplicate, after deduplicating by metadata.id', () => {
    const entries = [entry('a', 'SUCCEEDED'), entry('b', 'SUCCEEDED')];
    const events = [
      event('TransactionSucceeded', 'a', { id: 'same' }),
      event('TransactionSucceeded', 'a', { id: 'same' }), // the same fact delivered twice: one event
      event('TransactionSucceeded', 'b', { id: 'b1' }),
      event('TransactionFailed', 'b', { id: 'b2', origin: 'poll' }),
    ];
    const ledger = account(entries, events, T0 + 10_000, MARGIN);
    expect(ledger.repeatedLines).toBe(1);
    expect(ledger.duplicates).toEqual(['momo/demo/b']);
    expect(ledger.problems).toEqual([
      'duplicate: momo/demo/b (b test): 2 final events: TransactionSucceeded (callback, id b1), TransactionFailed (poll, id b2)',
    ]);
    expect(ledger.balanced).toBe(false);
  });

  it('counts a flagged late resolution after EXPIRED apart, not as a duplicate', () => {
    const entries = [entry('a', 'EXPIRED', { relay: { status: 'FAILED', statusChecks: 3 } })];
    const events = [
      event('TransactionExpired', 'a', { origin: 'poll', atMs: 20_000 }),
      event('TransactionFailed', 'a', { atMs: 30_000, late: true }),
    ];
    const ledger = account(entries, events, T0 + 40_000, { ...MARGIN, runEnded: true });
    expect(ledger).toMatchObject({ expired: 1, lateResolutions: 1, duplicates: [], balanced: true });
    expect(ledger.statusCalls).toEqual({ total: 3, perTransaction: 3, max: 3, read: 1 });
    // Without the flag, a second final event is a duplicate.
    const unflagged = account(
      entries,
      [events[0]!, event('TransactionFailed', 'a', { atMs: 30_000 })],
      T0 + 40_000,
      MARGIN,
    );
    expect(unflagged.duplicates).toEqual(['momo/demo/a']);
  });

  it('names a transaction lost when its window ended (+ margin) without a final event', () => {
    const entries = [
      entry('gone', 'EXPIRED', { windowEndsAt: T0 + 20_000, relay: { status: 'PENDING', statusChecks: 2 } }),
      entry('waiting', 'SUCCEEDED'),
    ];
    // Within the margin: still open, not lost.
    expect(account(entries, [], T0 + 30_000, MARGIN)).toMatchObject({
      open: ['momo/demo/gone', 'momo/demo/waiting'],
      lost: [],
      problems: [],
      balanced: false,
    });
    const ledger = account(entries, [], T0 + 36_000, MARGIN);
    expect(ledger.lost).toEqual(['momo/demo/gone']);
    expect(ledger.open).toEqual(['momo/demo/waiting']);
    expect(ledger.problems).toEqual([
      'lost: momo/demo/gone (gone test): no final event, its window ended 2026-01-01T00:00:20.000Z; the relay says PENDING',
    ]);
  });

  it('names transactions still open when the run ended', () => {
    const ledger = account([entry('a', 'FAILED')], [], T0 + 5000, { ...MARGIN, runEnded: true });
    expect(ledger.problems).toEqual([
      'still open: momo/demo/a (a test): no final event when the run ended (expected FAILED; window until 2026-01-01T01:00:00.000Z)',
    ]);
    expect(ledger.balanced).toBe(false);
  });

  it('names a wrong outcome, a dropped callback finalized by a callback, and a relay that disagrees', () => {
    const entries = [
      entry('a', 'SUCCEEDED'),
      entry('b', 'FAILED', { viaPoll: true }),
      entry('c', 'SUCCEEDED', { relay: { status: 'FAILED', statusChecks: 1 } }),
    ];
    const events = [
      event('TransactionFailed', 'a'),
      event('TransactionFailed', 'b', { origin: 'callback' }),
      event('TransactionSucceeded', 'c', { origin: 'poll' }),
    ];
    const ledger = account(entries, events, T0 + 10_000, { ...MARGIN, runEnded: true });
    expect(ledger.problems).toEqual([
      'wrong outcome: momo/demo/a (a test): expected SUCCEEDED, got TransactionFailed (callback)',
      'wrong origin: momo/demo/b (b test): expected from a status check (origin poll), got TransactionFailed from a callback',
      'relay disagrees: momo/demo/c (c test): the events say SUCCEEDED, GET says FAILED',
    ]);
    expect(ledger.balanced).toBe(false);
  });

  it('ignores events of other transactions and non-final events', () => {
    const ledger = account(
      [entry('a', 'SUCCEEDED')],
      [
        event('TransactionSucceeded', 'other'),
        event('TransactionAmbiguous', 'a'),
        event('TransactionSucceeded', 'a'),
      ],
      T0 + 10_000,
      MARGIN,
    );
    expect(ledger).toMatchObject({ succeeded: 1, duplicates: [], balanced: true });
  });

  it('takes nearest-rank percentiles', () => {
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 50)).toBe(5);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 95)).toBe(10);
    expect(percentile([], 50)).toBe(0);
  });
});

describe('ledger printing', () => {
  const facts: RunFacts = {
    planned: 2,
    notStarted: [],
    faults: { drop: 1, duplicate: 0, status5xx: 0, neverFinal: 0 },
    byFlow: { 'momo pay': 2 },
    initiateMs: 100,
    waitMs: 7000,
    seed: 1,
  };

  it('says it balances, with the equation', () => {
    const ledger = account(
      [entry('a', 'SUCCEEDED'), entry('b', 'FAILED')],
      [event('TransactionSucceeded', 'a'), event('TransactionFailed', 'b', { origin: 'poll' })],
      T0 + 10_000,
      { ...MARGIN, runEnded: true },
    );
    const text = formatLedger(ledger, facts);
    expect(text).toContain('✔ balance         2 = 1 succeeded + 1 failed + 0 expired');
    expect(text).toContain('origins         callback 1, poll 1');
    expect(text).toContain('✔ the ledger balances: 2 registered, 2 final, 0 duplicates, 0 lost');
    expect(progressLine(ledger, 12_300)).toBe(
      'registered 2 · final 2 (succeeded 1, failed 1, expired 0) · still open 0 · 12.3 s',
    );
    const open = account([entry('a', 'SUCCEEDED')], [], T0 + 1000, MARGIN);
    expect(progressLine(open, 1000, { 'daraja stk': 1, 'momo pay': 0 })).toBe(
      'registered 1 · final 0 (succeeded 0, failed 0, expired 0) · still open 1 (daraja stk 1) · 1.0 s',
    );
  });

  it('lists every problem, transactions that could not be started first', () => {
    const ledger = account([entry('a', 'SUCCEEDED')], [], T0 + 10_000, { ...MARGIN, runEnded: true });
    const text = formatLedger(ledger, { ...facts, notStarted: ['#2 momo pay: HTTP 500'] });
    expect(text).toContain('✖ the ledger does not balance (2 problems):');
    expect(text).toContain('  - not started: #2 momo pay: HTTP 500');
    expect(text).toContain('  - still open: momo/demo/a');
  });
});
