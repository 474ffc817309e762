import { setTimeout as sleep } from 'node:timers/promises';
import { accountKey } from '../../config/schema';
import type { DueItem } from '../ports';
import { checkTransaction, pastItsWindow, type ReconcileServices } from './reconcile';
import { PICKUP_DELAY_METRIC, POLL_CYCLE_FAILURES_METRIC } from '../../config/metric-names';

export interface PollCycleOptions {
  /** Who holds the leases of this cycle (the Lambda request id, the local process id). */
  owner: string;
  /**
   * Stop claiming new items after this many milliseconds (the Lambda's remaining time minus a margin),
   * counted on the services' clock, so a test drives the budget by moving its clock.
   */
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

/**
 * The due index as a step before this cycle read it: every entry, due or not, oldest first, at most
 * `limit` (`listDue` with no upper bound), the dueAt of any entry that step moved already changed.
 */
export interface DueIndexRead {
  items: readonly DueItem[];
  limit: number;
}

/**
 * The due index, read once per cycle; a cycle that cannot read it fails (counted and logged). When the
 * callback health look just read it whole (`already`, at the same limit), the items due now are taken
 * from that read: each shard's page is its oldest entries, so the ones due by now are exactly the page
 * a read bounded by now returns. An entry written between the two reads is found by the next cycle, as
 * one written just after this cycle's own read would be.
 */
async function listDue(services: ReconcileServices, maxItems: number, already?: DueIndexRead) {
  if (already && already.limit === maxItems) {
    const now = services.clock.now().toISOString();
    const items = already.items.filter((i) => i.dueAt <= now).sort((a, b) => a.dueAt.localeCompare(b.dueAt));
    return { items, readItems: 0 };
  }
  try {
    return await services.store.listDue(services.clock.now().toISOString(), maxItems);
  } catch (error) {
    services.metrics.count(POLL_CYCLE_FAILURES_METRIC, 1);
    services.log.error('poll cycle could not read the due index', { error: (error as Error).message });
    throw error;
  }
}

/** The due items by account, in the index's order: each account is a lane. */
function lanesOf(items: readonly DueItem[]): Map<string, DueItem[]> {
  const lanes = new Map<string, DueItem[]>();
  for (const item of items) {
    const account = accountKey(item.key.provider, item.key.account);
    const lane = lanes.get(account);
    if (lane) lane.push(item);
    else lanes.set(account, [item]);
  }
  return lanes;
}

type Hold = NonNullable<Awaited<ReturnType<typeof checkTransaction>>['holdAccount']>;

/** The answer recorded, without a call, for a held account's transaction whose window is over. */
const notAsked = (hold: Hold) => ({
  type: 'error' as const,
  error: hold,
  detail: `not asked: the account's status API answered ${hold} earlier in this poll cycle`,
});

/**
 * A held account makes no call, but its transactions whose window is over still expire now, not one held
 * item a cycle later: a read of the item decides (eventually consistent; the claim re-checks it).
 */
async function windowIsOver(
  services: ReconcileServices,
  item: DueItem,
  now: Date,
  result: PollCycleResult,
): Promise<boolean> {
  const seen = await services.store.getTransaction(item.key);
  result.readItems++;
  return seen !== undefined && pastItsWindow(services, seen, now.toISOString());
}

/** One poll cycle: list due items, lease each, ask the provider, feed the answer to the one ingest. */
export async function runPollCycle(
  services: ReconcileServices,
  options: PollCycleOptions,
  dueIndex?: DueIndexRead,
): Promise<PollCycleResult> {
  const { store, clock, config, log, metrics } = services;
  const started = clock.now().getTime();
  const elapsedMs = () => clock.now().getTime() - started;
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
  const listed = await listDue(services, options.maxItems ?? settings.maxItemsPerCycle, dueIndex);
  result.due = listed.items.length;
  result.readItems = listed.readItems;
  const held = new Map<string, Hold>();
  const overBudget = () => options.budgetMs !== undefined && elapsedMs() > options.budgetMs;

  const process = async (item: DueItem, account: string) => {
    const claimedAt = clock.now();
    const holding = held.get(account);
    try {
      if (holding && !(await windowIsOver(services, item, claimedAt, result))) return;
      const tx = await store.claimDue(item, {
        until: new Date(claimedAt.getTime() + settings.leaseSeconds * 1000).toISOString(),
        owner: options.owner,
      });
      if (!tx) return;
      result.claimed++;
      metrics.timing(PICKUP_DELAY_METRIC, Math.max(0, claimedAt.getTime() - Date.parse(item.dueAt)), {
        provider: item.key.provider,
      });
      const checked = await checkTransaction(services, tx, holding ? { notAsked: notAsked(holding) } : {});
      if (!holding && !(checked.answer.type === 'error' && checked.answer.error === 'unsupported'))
        result.checked++;
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

  // Every account is a lane of its own, so a slow or rate-limited account never holds up another's
  // items. The cycle as a whole has `concurrency` checks in flight at most; each account at most its
  // client's cap (`api.concurrency`), started no faster than its rate (`api.maxRequestsPerSecond`), so
  // a check waits for its account's turn without taking a slot another account could use.
  const slots = new Semaphore(Math.max(1, settings.concurrency));
  const lanes = lanesOf(listed.items);
  const runLane = async (account: string, items: DueItem[]) => {
    const limits = laneLimits(services, account, settings.concurrency);
    const pace = limits.perSecond ? new Pace(limits.perSecond) : undefined;
    const next = async (item: DueItem) => {
      // A held account's items make no call: no turn of its pace to wait for.
      if (!held.has(account)) await pace?.turn();
      if (overBudget()) return;
      await slots.run(() => process(item, account));
    };
    // The account's first item goes alone (a probe): bad credentials or throttling then hold the
    // account's other items for the next cycle instead of failing every one of them.
    const probe = items.shift();
    if (!probe || overBudget()) return;
    await next(probe);
    const worker = async () => {
      for (let item = items.shift(); item; item = items.shift()) {
        if (overBudget()) return;
        await next(item);
      }
    };
    await Promise.all(Array.from({ length: Math.min(limits.concurrency, items.length) }, worker));
  };
  await Promise.all([...lanes].map(([account, items]) => runLane(account, items)));
  for (const [account, why] of held)
    log.warn('status checks held for the rest of the cycle', { account, why });
  if (result.due > 0) log.info('poll cycle', { ...result, ms: elapsedMs() });
  return result;
}

/**
 * One account's share of a cycle, from its status API settings (`api.concurrency`,
 * `api.maxRequestsPerSecond`, which every provider's `api` settings have): the client enforces both
 * anyway; the cycle follows them so that no check waits inside the client while holding a slot of the
 * cycle. An account without `api` settings makes no calls (each look records `error:unsupported`).
 */
function laneLimits(
  services: Pick<ReconcileServices, 'config'>,
  account: string,
  overall: number,
): { concurrency: number; perSecond: number | undefined } {
  const api = (
    services.config.accounts.get(account)?.settings as { api?: Record<string, unknown> } | undefined
  )?.api;
  const concurrency =
    typeof api?.concurrency === 'number' && api.concurrency >= 1 ? api.concurrency : overall;
  const perSecond =
    typeof api?.maxRequestsPerSecond === 'number' && api.maxRequestsPerSecond > 0
      ? api.maxRequestsPerSecond
      : undefined;
  return { concurrency: Math.max(1, Math.min(concurrency, overall)), perSecond };
}

/** At most `max` tasks at once; the others wait in arrival order. */
class Semaphore {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly max: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.max) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      // The slot passes straight to the next waiter.
      if (next) next();
      else this.active--;
    }
  }
}

/**
 * Starts at most `perSecond` checks a second, with the burst the client's token bucket allows
 * (`floor(perSecond)`, at least 1): turns are handed out in order, each waiting for its moment.
 */
class Pace {
  private tokens: number;
  private last = Date.now();
  private readonly burst: number;

  constructor(private readonly perSecond: number) {
    this.burst = Math.max(1, Math.floor(perSecond));
    this.tokens = this.burst;
  }

  async turn(): Promise<void> {
    const now = Date.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.perSecond);
    this.last = now;
    // Reserve now (tokens may go negative) so concurrent callers queue up behind each other.
    this.tokens -= 1;
    if (this.tokens < 0) await sleep(Math.ceil((-this.tokens / this.perSecond) * 1000));
  }
}
