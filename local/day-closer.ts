import type { RelayMetrics } from '../shared/app/ports';
import {
  DAYS_CLOSED_METRIC,
  DAYS_OVERDUE_METRIC,
  type ScheduledCloseResult,
  closeDueDays,
} from '../shared/app/statements/scheduled-close';
import type { StatementDeps } from '../shared/app/statements/statement-sink';

/** How often `npm start` looks for days to close (EventBridge Scheduler's `dayCloseInterval` in AWS). */
const LOCAL_DAY_CLOSE_INTERVAL_MS = 5 * 60_000;

/**
 * The scheduled close under `npm start` (docs/statements.md#the-close): the same use case as the
 * statements function in AWS, on a timer. The use case reads the time from the injected clock, so tests
 * call runOnce() with a fake one; the timer only says when to look.
 */
export class LocalDayCloser {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<ScheduledCloseResult | undefined> | undefined;

  constructor(
    private readonly deps: StatementDeps & { metrics: RelayMetrics },
    private readonly intervalMs = LOCAL_DAY_CLOSE_INTERVAL_MS,
  ) {}

  start(): void {
    this.stop();
    this.timer = setInterval(() => void this.runOnce(), this.intervalMs);
    this.timer.unref?.();
    // At start too: days that came due while nothing ran close now.
    void this.runOnce();
  }

  /** One run now (or the one in progress); a failure is logged, never thrown. */
  async runOnce(): Promise<ScheduledCloseResult | undefined> {
    this.running ??= (async () => {
      try {
        const result = await closeDueDays(this.deps);
        this.deps.metrics.count(DAYS_OVERDUE_METRIC, result.overdue);
        this.deps.metrics.count(DAYS_CLOSED_METRIC, result.closed);
        return result;
      } catch (error) {
        this.deps.log.error('scheduled close failed', { error: (error as Error).message });
        return undefined;
      } finally {
        this.deps.metrics.flush();
        this.running = undefined;
      }
    })();
    return this.running;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
