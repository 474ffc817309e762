import type { PollCycleResult } from '../shared/app/reconciliation/poll-cycle';
import type { ReconcileServices } from '../shared/app/reconciliation/reconcile';
import { runProviderRecordsTick } from '../shared/app/provider-records/tick';
import { runBadgeTick, runReconciliationTick } from '../shared/app/reconciliation/reconciliation-tick';

/**
 * The reconciliation poller inside `npm start`: a cycle starts every `reconciliation.pollIntervalSeconds`,
 * never two at once (in AWS, EventBridge Scheduler invokes the poller function instead). Intervals run
 * from start to start, and a cycle stops taking new items once an interval has passed (the items it
 * left are still due, and the next cycle starts at once): a busy cycle, or one slow account, does not
 * push every other account's next look a whole interval further. A failed cycle is logged and the
 * next one runs on time: the leases make a half-done cycle safe to repeat.
 *
 * The pulls and balance snapshots of the provider's own records (docs/pull-and-balances.md) run beside it
 * the same way, one at a time.
 *
 * The badge feed (docs/badges.md) is started on the same ticks but never awaited by them: it runs beside
 * the reconciliation cycles, one at a time, within its own time budget (`badgeBudgetMs`, by default the
 * interval; every shop call is abandoned when it passes), so a slow or dripping shop cannot hold the
 * settlement of a payment.
 */
export class LocalPoller {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<PollCycleResult | undefined> | undefined;
  private badges: Promise<void> | undefined;
  private records: Promise<void> | undefined;
  private readonly badgeBudgetMs: number;
  private stopped = true;
  /** Totals since start, for the banner and tests. */
  readonly totals = { cycles: 0, claimed: 0, checked: 0, finalized: 0, expired: 0, errors: 0 };

  constructor(
    private readonly services: ReconcileServices,
    private readonly intervalMs: number,
    private readonly owner = `local-${process.pid}`,
    options: { badgeBudgetMs?: number } = {},
  ) {
    this.badgeBudgetMs = options.badgeBudgetMs ?? Math.max(1000, intervalMs);
  }

  start(): void {
    this.stopped = false;
    this.schedule();
  }

  private schedule(delayMs = this.intervalMs): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      const started = Date.now();
      void this.runOnce().finally(() => this.schedule(Math.max(0, this.intervalMs - (Date.now() - started))));
    }, delayMs);
    this.timer.unref?.();
  }

  /** One cycle now (or the one in progress). */
  async runOnce(): Promise<PollCycleResult | undefined> {
    if (this.running) return this.running;
    this.runBadgeCycle();
    this.runProviderRecordsCycle();
    this.running = (async () => {
      try {
        const result = await runReconciliationTick(this.services, {
          owner: this.owner,
          budgetMs: Math.max(1000, this.intervalMs),
        });
        this.totals.cycles++;
        for (const key of ['claimed', 'checked', 'finalized', 'expired', 'errors'] as const)
          this.totals[key] += result[key];
        return result;
      } catch (error) {
        this.totals.errors++;
        this.services.log.error('poll cycle failed', { error: (error as Error).message });
        return undefined;
      } finally {
        this.services.metrics.flush();
      }
    })();
    try {
      return await this.running;
    } finally {
      this.running = undefined;
    }
  }

  /**
   * Starts a badge cycle unless one is running; returns the one running. Its failure is logged and never
   * stops the poller; it is not awaited by the reconciliation cycle.
   */
  runBadgeCycle(): Promise<void> {
    if (this.badges) return this.badges;
    const run = (async () => {
      try {
        await runBadgeTick(this.services, { budgetMs: this.badgeBudgetMs });
      } finally {
        this.services.metrics.flush();
      }
    })();
    this.badges = run.finally(() => {
      this.badges = undefined;
    });
    return this.badges;
  }

  /**
   * Starts the pulls and balance snapshots (issue 29, docs/pull-and-balances.md) unless they are running;
   * beside the reconciliation like the badge feed, so a slow provider API cannot hold a settlement. Each
   * account is asked only when its own interval has passed; the tick never throws.
   */
  runProviderRecordsCycle(): Promise<void> {
    if (this.records) return this.records;
    const run = (async () => {
      try {
        await runProviderRecordsTick(this.services);
      } finally {
        this.services.metrics.flush();
      }
    })();
    this.records = run.finally(() => {
      this.records = undefined;
    });
    return this.records;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await Promise.all([this.running?.catch(() => undefined), this.badges, this.records]);
  }
}
