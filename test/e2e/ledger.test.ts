import { describe, expect, it } from 'vitest';
import { dynamoEndpoint } from '../helpers/dynamo';
import { runLedger } from '../../scripts/ledger/run';

/**
 * The run waits, idle, for the status checks that settle the dropped callbacks and for the never-final
 * transactions' windows to end: the poller here runs twice as fast as npm start's with the simulator
 * (0.02, a cycle every second), and the windows are 5 s (10 s before: the run's longest wait).
 */
const RECONCILIATION = { timeScale: 0.01, pollIntervalSeconds: 0.5 };
const WINDOW_SECONDS = 5;

describe('npm run ledger (self-starting)', () => {
  it('drives transactions of every provider with drops, duplicates and status 5xx, and the ledger balances', async () => {
    // Prepare: a small run; the seed fixes the draws (every flow, some dropped, repeated, 5xx, never final).
    const notes: string[] = [];

    // Act: relay + simulator started in-process as `npm start -- --simulator` does (the DynamoDB Local of
    // the test run instead of a second JVM).
    const result = await runLedger({
      transactions: 12,
      drop: 0.5,
      duplicate: 0.3,
      status5xx: 0.3,
      neverFinal: 0.15,
      failure: 0.3,
      expiresInSeconds: WINDOW_SECONDS,
      concurrency: 6,
      seed: 2,
      maxWaitMs: 45_000,
      marginMs: 10_000,
      lingerMs: 2000,
      adminToken: 'demo-admin-token',
      dynamoEndpoint: dynamoEndpoint(),
      reconciliation: RECONCILIATION,
      onNote: (line) => notes.push(line),
      onProgress: (line) => notes.push(line),
    });

    // Assess
    const { ledger, facts } = result;
    expect(result.balanced, `${notes.join('\n')}\n${result.text}`).toBe(true);
    expect(Object.keys(facts.byFlow).sort()).toEqual(['airtel pay', 'daraja b2c', 'daraja stk', 'momo pay']);
    expect(facts.faults.drop).toBeGreaterThan(0);
    expect(facts.faults.duplicate).toBeGreaterThan(0);
    expect(facts.faults.status5xx).toBeGreaterThan(0);
    expect(facts.faults.neverFinal).toBeGreaterThan(0);
    expect(ledger.registered).toBe(12);
    expect(ledger.succeeded + ledger.failed + ledger.expired).toBe(12);
    expect(ledger.expired).toBe(facts.faults.neverFinal);
    expect(ledger).toMatchObject({ duplicates: [], lost: [], open: [], wrongOutcome: [] });
    expect(ledger.byOrigin.poll).toBeGreaterThanOrEqual(facts.faults.drop);
    expect(result.text).toContain('✔ the ledger balances: 12 registered, 12 final, 0 duplicates, 0 lost');
  }, 60_000);
});
