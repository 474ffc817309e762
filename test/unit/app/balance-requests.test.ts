/**
 * The balance snapshots' record of the relay's own balance requests (shared/app/provider-records/balance-requests.ts),
 * as callback health reads it to leave the answers to them out of "heard from the provider".
 */
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../shared/adapters/memory/memory-store';
import { CallbackTracker } from '../../../shared/app/callbacks/callback-health';
import {
  type BalanceState,
  balanceStateRef,
  isOwnBalanceRequest,
  noteOwnRequest,
} from '../../../shared/app/provider-records/balance-requests';
import { parseConfig } from '../../../shared/config/load';

const AT = '2026-11-23T10:00:00.000Z';
const key = (requestId: string) => ({ provider: 'daraja', account: 'demo', requestId });

async function stored(state: BalanceState) {
  const store = new MemoryStore();
  await store.putRecord({ ...balanceStateRef('daraja', 'demo'), data: { ...state }, createdAt: AT });
  return store;
}

describe('the record of the relay’s own balance requests', () => {
  it('keeps the latest three request ids, the newest pending', async () => {
    // Prepare, act: four requests accepted in turn.
    const state: BalanceState = {};
    for (const id of ['oc-1', 'oc-2', 'oc-3', 'oc-4']) noteOwnRequest(state, id, AT);
    const store = await stored(state);

    // Assess: the oldest is forgotten, the three after it are the relay's own; an unknown id is not.
    expect(state.pending).toEqual({ requestId: 'oc-4', at: AT });
    const own = await Promise.all(
      ['oc-1', 'oc-2', 'oc-3', 'oc-4', 'partner-1'].map((id) => isOwnBalanceRequest(store, key(id))),
    );
    expect(own).toEqual([false, true, true, true, false]);
  });

  it('reads a record written before the ids were kept: its pending request is the relay’s own', async () => {
    const store = await stored({ lastRequestedAt: AT, pending: { requestId: 'oc-9', at: AT } });

    expect(await isOwnBalanceRequest(store, key('oc-9'))).toBe(true);
    expect(await isOwnBalanceRequest(store, key('oc-8'))).toBe(false);
    expect(await isOwnBalanceRequest(new MemoryStore(), key('oc-9'))).toBe(false);
  });

  it('counts a balance answer as a callback when the record cannot be read, and never fails it', async () => {
    // Prepare: a store whose reads fail (its writes work).
    const store = await stored({ pending: { requestId: 'oc-1', at: AT } });
    store.getRecord = () => Promise.reject(new Error('throttled'));
    const config = parseConfig({
      management: { bearerToken: 'a-long-enough-token' },
      accounts: { daraja: { demo: { pathSecret: 'daraja-path-secret-0123456789' } } },
    });
    const warnings: string[] = [];
    const log = { debug() {}, info() {}, warn: (m: string) => void warnings.push(m), error() {} };
    const tracker = new CallbackTracker(store, config, log);

    // Act: the relay's own balance result arrives.
    await tracker.noteReceipt({
      key: { provider: 'daraja', account: 'demo', reference: 'oc-1' },
      routeName: 'balance-result',
      receivedAt: AT,
    });

    // Assess: noted as before the relay told them apart, and said so.
    expect(tracker.writes).toBe(1);
    expect(warnings).toEqual(['could not tell whose balance request a balance answer is for']);
  });
});
