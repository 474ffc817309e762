import type { DueItem } from './ports';
import { checkTransaction, type ReconcileServices } from './reconcile';

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
  /** Items read from the store during the cycle (index entries; claims return the item with the write). */
  readItems: number;
}

/** One poll cycle: list due items, lease each, ask the provider, feed the answer to the one ingest. */
export async function runPollCycle(
  services: ReconcileServices,
  options: PollCycleOptions,
): Promise<PollCycleResult> {
  const started = Date.now();
  const { store, clock, config, log, metrics } = services;
  const settings = config.reconciliation;
  const result: PollCycleResult = {
    due: 0,
    claimed: 0,
    checked: 0,
    finalized: 0,
    expired: 0,
    errors: 0,
    readItems: 0,
  };
  let listed: Awaited<ReturnType<typeof store.listDue>>;
  try {
    listed = await store.listDue(clock.now().toISOString(), options.maxItems ?? settings.maxItemsPerCycle);
  } catch (error) {
    metrics.count('PollCycleFailures', 1);
    log.error('poll cycle could not read the due index', { error: (error as Error).message });
    throw error;
  }
  result.due = listed.items.length;
  result.readItems = listed.readItems;
  const held = new Map<string, string>();
  // Each account's first item goes alone (a probe): bad credentials or throttling then hold the
  // account's other items for the next cycle instead of failing every one of them.
  const probes = new Map<string, Promise<void>>();
  const queue = [...listed.items];

  const process = async (item: DueItem, account: string) => {
    const claimedAt = clock.now();
    try {
      const tx = await store.claimDue(item, {
        until: new Date(claimedAt.getTime() + settings.leaseSeconds * 1000).toISOString(),
        owner: options.owner,
      });
      if (!tx) return;
      result.claimed++;
      metrics.timing('PickupDelay', Math.max(0, claimedAt.getTime() - Date.parse(item.dueAt)), {
        provider: item.key.provider,
      });
      const checked = await checkTransaction(services, tx);
      if (!(checked.answer.type === 'error' && checked.answer.error === 'unsupported')) result.checked++;
      if (checked.holdAccount) held.set(account, checked.holdAccount);
      for (const event of checked.events) {
        if (event.metadata.type === 'TransactionSucceeded' || event.metadata.type === 'TransactionFailed')
          result.finalized++;
        if (event.metadata.type === 'TransactionExpired') result.expired++;
      }
    } catch (error) {
      // One item's failure never stops the cycle; its lease expires and it comes back.
      result.errors++;
      log.error('status check failed', { ...item.key, error: (error as Error).message });
    }
  };

  const worker = async () => {
    for (let item = queue.shift(); item; item = queue.shift()) {
      if (options.budgetMs !== undefined && Date.now() - started > options.budgetMs) return;
      const account = `${item.key.provider}/${item.key.account}`;
      const probe = probes.get(account);
      if (!probe) {
        const done = process(item, account);
        probes.set(account, done);
        await done;
        continue;
      }
      await probe;
      if (held.has(account)) continue;
      await process(item, account);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, settings.concurrency) }, worker));
  for (const [account, why] of held)
    log.warn('status checks held for the rest of the cycle', { account, why });
  if (result.due > 0) log.info('poll cycle', { ...result, ms: Date.now() - started });
  return result;
}
