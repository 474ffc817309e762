import { describe, expect, it } from 'vitest';
import { startTestRelay } from '../helpers/relay';

/** What the test relay (test/helpers/relay.ts) sets apart from `npm start`'s defaults, and what a test can still choose. */
describe('a test relay', () => {
  const raw = {
    accounts: { daraja: { ke: { pathSecret: 'test-relay-path-secret-0123', shortCode: '600638' } } },
  };

  it("spreads its index over 2 shards, fewer queries than the default 4 but still a merge; a test's own count wins", async () => {
    // Prepare, Act
    const plain = await startTestRelay(raw);
    const named = await startTestRelay({ ...raw, reconciliation: { shards: 4, pollIntervalSeconds: 3600 } });
    try {
      // Assess
      expect(plain.config.reconciliation.shards).toBe(2);
      expect(named.config.reconciliation.shards).toBe(4);
      expect(named.config.reconciliation.pollIntervalSeconds).toBe(3600);
    } finally {
      await Promise.all([plain.stop(), named.stop()]);
    }
  });

  describe('closes no day by itself (DAY_CLOSER)', () => {
    /** The marker the close writes on its first run for each account (scheduled-close.ts: CLOSE_SINCE_REF). */
    const marker = { provider: 'daraja', account: 'ke', namespace: 'close-since', id: 'first-run' };

    it('closes at start when the test asks, as npm start does with its poller', async () => {
      // Prepare
      const relay = await startTestRelay(raw, { dayCloser: true });
      try {
        // Act: stop() awaits the run the start began.
        await relay.dayCloser.stop();
        // Assess
        expect(await relay.store.getRecord(marker)).toMatchObject({ namespace: 'close-since' });
      } finally {
        await relay.stop();
      }
    });

    it('runs no close unless the test asks for one', async () => {
      // Prepare
      const relay = await startTestRelay(raw);
      try {
        // Act: stop() would await a run in progress.
        await relay.dayCloser.stop();
        // Assess
        expect(await relay.store.getRecord(marker)).toBeUndefined();
      } finally {
        await relay.stop();
      }
    });
  });
});
