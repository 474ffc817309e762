import type { ProviderRecordStore, ReadOptions } from '../ports';

/**
 * The balance snapshots' record of one account (`balance-state/state`): written by the balance cycle
 * (balance-cycle.ts), and read by callback health to tell the answers to the relay's own balance requests
 * from the partner's (callback-health.ts). Both arrive on the same route; only the ids the provider gave
 * when it accepted the relay's request, recorded here, tell them apart.
 */
export interface BalanceState {
  lastRequestedAt?: string;
  lastSnapshotAt?: string;
  /** The request whose result the next tick looks for. */
  pending?: { requestId: string; at: string };
  /**
   * The ids of the latest requests answered later (newest last, at most OWN_REQUESTS_KEPT): a result
   * naming one answers the relay, even repeated, or late after its request was given up and asked again.
   */
  ownRequestIds?: string[];
  lastError?: { at: string; detail: string };
}

const OWN_REQUESTS_KEPT = 3;

export const balanceStateRef = (provider: string, account: string) => ({
  provider,
  account,
  namespace: 'balance-state',
  id: 'state',
});

/** Notes in the state that the provider accepted a request it answers later under `requestId`. */
export function noteOwnRequest(state: BalanceState, requestId: string, at: string): void {
  state.pending = { requestId, at };
  const kept = (state.ownRequestIds ?? []).filter((id) => id !== requestId);
  state.ownRequestIds = [...kept, requestId].slice(-OWN_REQUESTS_KEPT);
}

/**
 * Whether `requestId` (the id a balance result or queue timeout names) is one the balance snapshots
 * asked with. A record written before `ownRequestIds` existed names its request only as `pending`.
 */
export async function isOwnBalanceRequest(
  store: Pick<ProviderRecordStore, 'getRecord'>,
  key: { provider: string; account: string; requestId: string },
  options: ReadOptions = {},
): Promise<boolean> {
  const record = await store.getRecord(balanceStateRef(key.provider, key.account), options);
  const state = record?.data as BalanceState | undefined;
  return (
    state?.pending?.requestId === key.requestId || state?.ownRequestIds?.includes(key.requestId) === true
  );
}
