import { describe, expect, it } from 'vitest';
import { wordPressBadgeApi } from '../../../shared/adapters/badges/wordpress-badge-api';
import { MemoryStore } from '../../../shared/adapters/memory/memory-store';
import type { ReconcileServices } from '../../../shared/app/reconciliation/reconcile';
import { parseConfig } from '../../../shared/config/load';
import { LocalPoller } from '../../../local/poller';

const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** A shop that answers nothing until the call is abandoned (a dripping shop). */
function slowShop() {
  const calls: AbortSignal[] = [];
  const pending: ((error: Error) => void)[] = [];
  let called: () => void = () => {};
  const firstCall = new Promise<void>((resolve) => (called = resolve));
  const fetchImpl = (_url: string, init: RequestInit): Promise<Response> => {
    calls.push(init.signal!);
    called();
    return new Promise((_, reject) => {
      pending.push(reject);
      init.signal!.addEventListener('abort', () => reject(init.signal!.reason as Error), { once: true });
    });
  };
  /** Every call waiting fails as a network error would. */
  const fail = () => pending.splice(0).forEach((reject) => reject(new TypeError('fetch failed')));
  return { calls, firstCall, fetchImpl, fail };
}

function services(fetchImpl: ReconcileServices['fetchImpl']) {
  const config = parseConfig({
    management: { bearerToken: 'management-token-0123456789' },
    badges: { shops: { slow: { baseUrl: 'http://shop.test', pollSeconds: 60, timeoutMs: 30_000 } } },
  });
  const store = new MemoryStore();
  const value: ReconcileServices = {
    config,
    store,
    clock: { now: () => new Date() },
    log: silent,
    scrub: (text) => text,
    fetchImpl,
    badgeApi: wordPressBadgeApi({ fetchImpl }),
    statusApi: () => undefined,
    metrics: { count() {}, timing() {}, flush() {} },
  };
  return { services: value, store };
}

describe('local poller: the badge cycle beside reconciliation', () => {
  it('runs reconciliation cycles while a shop has not answered the badge read', async () => {
    // Prepare: a badge budget far longer than the test
    const shop = slowShop();
    const { services: s } = services(shop.fetchImpl);
    const poller = new LocalPoller(s, 1000, 'test', { badgeBudgetMs: 600_000 });
    // Act
    const first = await poller.runOnce();
    await shop.firstCall;
    const second = await poller.runOnce();
    // Assess: both cycles ran; the shop's one read is still waiting, not started again
    expect(first).toBeDefined();
    expect(second).toBeDefined();
    expect(poller.totals.cycles).toBe(2);
    expect(shop.calls).toHaveLength(1);
    expect(shop.calls[0]!.aborted).toBe(false);
    // Cleanup: end the read
    shop.fail();
    await poller.stop();
  });

  it("abandons a shop's read when the badge cycle's own budget runs out, recording a timeout", async () => {
    // Prepare
    const shop = slowShop();
    const { services: s, store } = services(shop.fetchImpl);
    const poller = new LocalPoller(s, 1000, 'test', { badgeBudgetMs: 20 });
    // Act
    await poller.runOnce();
    await shop.firstCall;
    await poller.runBadgeCycle();
    // Assess
    expect(shop.calls[0]!.aborted).toBe(true);
    const failure = await store.getRecord({
      provider: 'badges',
      account: 'slow',
      namespace: 'read-failure',
      id: 'last',
    });
    expect(failure?.data).toMatchObject({ reason: 'timeout' });
    await poller.stop();
  });
});
