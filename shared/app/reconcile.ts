import type { StatusApi } from '../providers/types';
import type { RelayMetrics } from './ports';
import type { RelayServices } from './services';

/** What the poller needs beyond the relay's services: status API clients and metrics. */
export interface ReconcileServices extends RelayServices {
  /** The status API client of one account (cached per account), undefined when it has no `api` settings. */
  statusApi(provider: string, account: string): StatusApi | undefined;
  metrics: RelayMetrics;
}

export interface PollCycleOptions {
  /** Who holds the leases of this cycle (the Lambda request id, the local process id). */
  owner: string;
  /** Stop claiming new items after this many milliseconds (the Lambda's remaining time minus a margin). */
  budgetMs?: number;
  /** At most this many items per cycle. */
  maxItems?: number;
}

export interface PollCycleResult {
  /** Items the due index listed. */
  due: number;
  /** Items this poller leased (others were taken by another poller or moved on). */
  claimed: number;
  /** Status calls made. */
  checked: number;
  finalized: number;
  expired: number;
  errors: number;
  /** Items read from the store during the cycle (index entries + transactions). */
  readItems: number;
}

/** One poll cycle: list due items, lease each, ask the provider, feed the answer to the one ingest. */
export async function runPollCycle(
  _services: ReconcileServices,
  _options: PollCycleOptions,
): Promise<PollCycleResult> {
  throw new Error('runPollCycle: not wired yet');
}
