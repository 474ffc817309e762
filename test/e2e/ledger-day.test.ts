import { describe, expect, it } from 'vitest';
import { dynamoEndpoint } from '../helpers/dynamo';
import { runLedgerDay } from '../../scripts/ledger/day';

/**
 * The day's traffic waits, idle, for the status checks that settle the dropped callbacks and for the
 * never-final transactions' windows to end: the poller here runs twice as fast as npm start's with the
 * simulator (0.02, a cycle every second), and the windows are 5 s (10 s before: the longest wait). The
 * pace no longer decides the close: after the traffic the run alone pulls (scripts/ledger/day.ts), where
 * the relay's scheduled pull, twice as frequent here, once took a C2B row before its confirmation.
 */
const RECONCILIATION = { timeScale: 0.01, pollIntervalSeconds: 0.5 };
const WINDOW_SECONDS = 5;

describe('npm run ledger:day (self-starting)', () => {
  // Two seeds: two days of other draws. A balance snapshot every 6 s (600 s × the poller's 0.01) checks
  // the balance while money moves: the drifts the faults leave must each be explained from the books.
  // The two days run at once: each starts its own relay, simulator and tables, and spends most of its
  // time waiting (status checks, windows), so they share those waits (25.5 s one after the other, 17 s).
  it.concurrent.each([7, 29])(
    'closes a faulty day (seed %i) from the statements and the pull with every break explained by an injected fault',
    async (seed) => {
      // Prepare: a small day; every 3rd row missing so the few rows still lose some, the seed fixes the draws.
      const notes: string[] = [];

      // Act
      const result = await runLedgerDay({
        transactions: 30,
        c2b: 8,
        drop: 0.5,
        duplicate: 0.3,
        status5xx: 0.3,
        neverFinal: 0.1,
        failure: 0.3,
        expiresInSeconds: WINDOW_SECONDS,
        books: { missingEvery: 3, duplicateEvery: 4, lateEvery: 5, feePercent: 1 },
        concurrency: 6,
        seed,
        balanceIntervalSeconds: 600,
        maxWaitMs: 60_000,
        marginMs: 10_000,
        lingerMs: 2000,
        adminToken: 'demo-admin-token',
        dynamoEndpoint: dynamoEndpoint(),
        reconciliation: RECONCILIATION,
        onNote: (line) => notes.push(line),
      });

      // Assess
      const story = `${notes.join('\n')}\n${result.text}`;
      expect(result.unexplained, story).toBe(0);
      expect(result.verdictsBalanced, story).toBe(true);
      expect(result.days.length, story).toBeGreaterThan(0);
      expect(
        result.days.every((d) => d.state === 'closed'),
        story,
      ).toBe(true);
      expect(result.matchRate.toMatch, story).toBeGreaterThan(0);
      // Every fault kind was injected; the ones that leave money unaccounted for each explain a break.
      for (const kind of Object.keys(result.faults) as (keyof typeof result.faults)[])
        expect(result.faults[kind].injected, `${kind}\n${story}`).toBeGreaterThan(0);
      expect(result.faults['missing-row'].breaks, story).toBeGreaterThan(0);
      expect(result.faults['callback-dropped'].breaks, story).toBeGreaterThan(0);
      // A balance drift needs a payment the relay never heard of whose row is also left out or dated late:
      // which payment a fault hits follows the order the transactions land in, so a run may have none.
      for (const category of new Set(result.breaks.map((b) => b.category)))
        expect(['missing-at-provider', 'missing-in-relay', 'balance-drift'], story).toContain(category);
      // The balance's drifts are explained by the rows the faults left out or dated late, to the cent.
      const drifts = result.breaks.filter((b) => b.category === 'balance-drift');
      expect(
        drifts.every((b) => b.fault === 'missing-row' || b.fault === 'late-row'),
        story,
      ).toBe(true);
      expect(result.text).toContain('✓ every break explained by an injected fault');
    },
    300_000,
  );
});
