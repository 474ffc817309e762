/**
 * A status API that throttles (429) or refuses the account's credentials holds the account for the rest
 * of a poll cycle after its first item (the probe): no call for the others. A transaction whose window is
 * over still expires at that cycle, with no call, instead of one held item a cycle; the others wait.
 */
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../shared/adapters/memory/memory-store';
import { noMetrics } from '../../../shared/app/ports';
import { runPollCycle } from '../../../shared/app/reconciliation/poll-cycle';
import type { ReconcileServices } from '../../../shared/app/reconciliation/reconcile';
import { registerTransaction } from '../../../shared/app/transactions/register-transaction';
import { parseConfig } from '../../../shared/config/load';
import type { StatusAnswer } from '../../../shared/providers/types';

const START = Date.parse('2026-11-23T10:00:00.000Z');
const WINDOW_SECONDS = 600;
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const reference = (i: number) => `aaaaaaaa-4b7d-4e2a-9c3b-${String(i).padStart(12, '0')}`;

/** `ended` MoMo payments registered at START, `open` ones registered five minutes later. */
async function world(answer: StatusAnswer, counts: { ended: number; open: number }) {
  let now = START;
  const store = new MemoryStore();
  const asked: string[] = [];
  const services: ReconcileServices = {
    config: parseConfig({
      management: { bearerToken: 'a-long-enough-token' },
      reconciliation: { windowSeconds: WINDOW_SECONDS },
      accounts: {
        momo: {
          a: {
            pathSecret: 'momo-path-secret-0123',
            api: {
              baseUrl: 'https://sandbox.momodeveloper.mtn.com',
              apiUser: '11111111-2222-4333-8444-555555555555',
              apiKey: 'test-api-key',
              collectionSubscriptionKey: 'test-subscription-key',
              maxRequestsPerSecond: 1000,
              concurrency: 4,
            },
          },
        },
      },
    }),
    store,
    clock: { now: () => new Date(now) },
    log: silent,
    scrub: (s) => s,
    statusApi: () => ({
      async check(query) {
        asked.push(query.reference);
        return answer;
      },
    }),
    metrics: noMetrics,
  };
  const register = (i: number) =>
    registerTransaction(services, {
      provider: 'momo',
      account: 'a',
      kind: 'requesttopay',
      reference: reference(i),
      amount: '100',
      currency: 'EUR',
    });
  for (let i = 0; i < counts.ended; i++) await register(i);
  now = START + 300_000;
  for (let i = counts.ended; i < counts.ended + counts.open; i++) await register(i);
  const statuses = async () =>
    Promise.all(
      Array.from(
        { length: counts.ended + counts.open },
        async (_, i) =>
          (await store.getTransaction({ provider: 'momo', account: 'a', reference: reference(i) }))?.status,
      ),
    );
  /** One cycle just after the first payments' window, then nothing more. */
  const cycleAfterWindow = async () => {
    now = START + (WINDOW_SECONDS + 1) * 1000;
    return runPollCycle(services, { owner: 'p1' });
  };
  return { store, asked, statuses, cycleAfterWindow };
}

describe('an account held by its status API at the end of a window', () => {
  it.each([
    ['throttled', { type: 'error', error: 'throttled', detail: 'HTTP 429', httpStatus: 429 }],
    ['credentials', { type: 'error', error: 'credentials', detail: 'HTTP 401', httpStatus: 401 }],
  ] as const)(
    '%s: every payment whose window is over expires in that one cycle, with one call (the probe)',
    async (_, answer) => {
      // Prepare
      const w = await world(answer, { ended: 40, open: 0 });
      // Act
      const result = await w.cycleAfterWindow();
      // Assess
      expect(await w.statuses()).toEqual(Array(40).fill('EXPIRED'));
      expect(result.expired).toBe(40);
      expect(w.asked).toHaveLength(1);
      const tx = await w.store.getTransaction({ provider: 'momo', account: 'a', reference: reference(7) });
      expect(tx?.reconcile?.recent.at(-1)?.detail).toContain('not asked');
    },
  );

  it('leaves the held account’s payments whose window is still open as they were: no call, no write', async () => {
    // Prepare: one payment past its window (the probe), three still in theirs, all due now.
    const w = await world(
      { type: 'error', error: 'throttled', detail: 'HTTP 429', httpStatus: 429 },
      { ended: 1, open: 3 },
    );
    const before = await Promise.all(
      [1, 2, 3].map((i) =>
        w.store.getTransaction({ provider: 'momo', account: 'a', reference: reference(i) }),
      ),
    );
    // Act
    await w.cycleAfterWindow();
    // Assess
    expect(w.asked).toEqual([reference(0)]);
    expect(await w.statuses()).toEqual(['EXPIRED', 'PENDING', 'PENDING', 'PENDING']);
    const after = await Promise.all(
      [1, 2, 3].map((i) =>
        w.store.getTransaction({ provider: 'momo', account: 'a', reference: reference(i) }),
      ),
    );
    expect(after.map((tx) => tx?.revision)).toEqual(before.map((tx) => tx?.revision));
  });
});
