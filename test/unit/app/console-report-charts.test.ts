/**
 * The report's chart arithmetic (shared/app/console/console-report.ts, issue 30 item 10): problems counted
 * on the day they happened, not by the status a transaction has now; time to final from provider evidence
 * with resolutions by hand apart; every histogram bin present, the empty ones at 0.
 */
import { describe, expect, it } from 'vitest';
import { chartsOf, STATUS_CALL_BINS } from '../../../shared/app/console/console-report';
import type { TransactionRecord } from '../../../shared/domain/transaction';

type Step = { to: string; at: string; origin?: string };

/** The fields the charts read, as the store keeps them; the rest of a record plays no part here. */
function record(
  provider: string,
  createdAt: string,
  steps: Step[],
  extra: { checks?: number; conflicts?: string[] } = {},
): TransactionRecord {
  let from = 'PENDING';
  const transitions = steps.map((s) => {
    const t = { from, to: s.to, at: s.at, origin: s.origin ?? 'callback', receiptId: undefined };
    from = s.to;
    return t;
  });
  return {
    key: { provider, account: 'demo', reference: `${provider}-${createdAt}` },
    createdAt,
    status: from,
    transitions,
    conflicts: (extra.conflicts ?? []).map((at) => ({
      kind: 'STATUS',
      reportedStatus: 'FAILED',
      at,
      origin: 'poll',
      receiptId: undefined,
      detail: 'the status API said otherwise',
    })),
    ...(extra.checks !== undefined ? { reconcile: { checks: extra.checks } } : {}),
  } as unknown as TransactionRecord;
}

const RANGE = { from: '2026-11-24T00:00:00.000Z', to: '2026-11-26T23:59:59.999Z' };

describe('the console report charts', () => {
  it('counts an expiry on the day it happened even when the transaction was resolved later, and conflicts on their own day', () => {
    // Prepare: expired on the 24th, resolved by hand on the 25th; ambiguous on the 25th, still so;
    // a conflict on the 26th of a transaction created on the 24th.
    const records = [
      record('airtel', '2026-11-24T10:00:00.000Z', [
        { to: 'EXPIRED', at: '2026-11-24T10:15:00.000Z' },
        { to: 'FAILED', at: '2026-11-25T09:00:00.000Z', origin: 'manual' },
      ]),
      record('daraja', '2026-11-24T23:59:00.000Z', [{ to: 'AMBIGUOUS', at: '2026-11-25T00:01:00.000Z' }]),
      record('momo', '2026-11-24T08:00:00.000Z', [{ to: 'SUCCEEDED', at: '2026-11-24T08:00:30.000Z' }], {
        conflicts: ['2026-11-26T12:00:00.000Z'],
      }),
    ];
    // Act
    const charts = chartsOf(records, RANGE);
    // Assess
    expect(charts.problemsPerDay).toEqual([
      { day: '2026-11-24', expired: 1, ambiguous: 0, conflicts: 0 },
      { day: '2026-11-25', expired: 0, ambiguous: 1, conflicts: 0 },
      { day: '2026-11-26', expired: 0, ambiguous: 0, conflicts: 1 },
    ]);
    // Finals on the day they were reached, by who settled them.
    expect(charts.finalsByOriginPerDay).toEqual([
      { day: '2026-11-24', byOrigin: { callback: 1 } },
      { day: '2026-11-25', byOrigin: { manual: 1 } },
      { day: '2026-11-26', byOrigin: {} },
    ]);
  });

  it('measures time to final from provider evidence only, and the resolutions by hand apart', () => {
    // Prepare: two MoMo payments settled by callback after 10 s and 30 s; one resolved by hand after 23 h.
    const records = [
      record('momo', '2026-11-25T10:00:00.000Z', [{ to: 'SUCCEEDED', at: '2026-11-25T10:00:10.000Z' }]),
      record('momo', '2026-11-25T11:00:00.000Z', [
        { to: 'FAILED', at: '2026-11-25T11:00:30.000Z', origin: 'poll' },
      ]),
      record('momo', '2026-11-25T12:00:00.000Z', [
        { to: 'EXPIRED', at: '2026-11-25T12:15:00.000Z' },
        { to: 'SUCCEEDED', at: '2026-11-26T11:00:00.000Z', origin: 'manual' },
      ]),
    ];
    // Act
    const charts = chartsOf(records, RANGE);
    // Assess
    expect(charts.timeToFinalByProvider).toEqual({ momo: { count: 2, p50Ms: 10_000, p90Ms: 30_000 } });
    expect(charts.manualResolutionsByProvider).toEqual({
      momo: { count: 1, p50Ms: 23 * 3_600_000, p90Ms: 23 * 3_600_000 },
    });
  });

  it('draws every status-call bin in order, the empty ones at 0, and 10 or more in one', () => {
    // Prepare
    const records = [0, 2, 2, 13, 10].map((checks, i) =>
      record('momo', `2026-11-25T0${i}:00:00.000Z`, [], { checks }),
    );
    // Act
    const { statusCallsPerTransaction } = chartsOf(records, RANGE);
    // Assess
    expect(Object.keys(statusCallsPerTransaction)).toEqual([...STATUS_CALL_BINS]);
    expect(statusCallsPerTransaction).toEqual({
      '0': 1,
      '1': 0,
      '2': 2,
      '3': 0,
      '4': 0,
      '5': 0,
      '6': 0,
      '7': 0,
      '8': 0,
      '9': 0,
      '10+': 2,
    });
  });

  it('counts a payment final when first heard of as 0 s to final, never a negative time', () => {
    // Prepare: a Daraja STK callback that beat its registration (the orphan, created and settled at once,
    // adopted later), and one whose final report carries a time a moment before its creation (another clock).
    const records = [
      record('daraja', '2026-11-25T10:00:00.000Z', [{ to: 'SUCCEEDED', at: '2026-11-25T10:00:00.000Z' }]),
      record('momo', '2026-11-25T10:00:00.500Z', [{ to: 'SUCCEEDED', at: '2026-11-25T10:00:00.000Z' }]),
    ];
    // Act
    const charts = chartsOf(records, RANGE);
    // Assess: both providers are in the chart, at 0 s (the console draws a 0 there, not nothing).
    expect(charts.timeToFinalByProvider).toEqual({
      daraja: { count: 1, p50Ms: 0, p90Ms: 0 },
      momo: { count: 1, p50Ms: 0, p90Ms: 0 },
    });
  });
});
