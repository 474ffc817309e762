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
});
