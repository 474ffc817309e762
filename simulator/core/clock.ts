/**
 * Time for the simulator. Provider business durations (MoMo's 5-minute approval window, Airtel's TA)
 * go through `scaled()` so tests can compress minutes into milliseconds; every timer is tracked so that
 * `close()` and `/_sim/reset` leave nothing running and `whenIdle()` can tell tests when all is sent.
 */
export class Scheduler {
  private readonly timers = new Map<NodeJS.Timeout, () => void>();
  private pending = 0;
  private idleWaiters: (() => void)[] = [];

  constructor(readonly timeScale: number) {
    if (!(timeScale > 0)) throw new RangeError('timeScale must be a positive number');
  }

  /** Real milliseconds for a duration expressed in provider time. */
  scaled(providerMs: number): number {
    return Math.max(0, Math.round(providerMs * this.timeScale));
  }

  /** Resolves `true` after `ms`, or `false` early if the scheduler is cleared meanwhile. */
  sleep(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        resolve(true);
      }, ms);
      this.timers.set(timer, () => resolve(false));
    });
  }

  /** Runs `task` in the background and counts it until it settles, for `whenIdle()`. */
  run(task: () => Promise<void>, onError: (error: unknown) => void): void {
    this.pending++;
    task()
      .catch(onError)
      .finally(() => {
        this.pending--;
        if (this.pending === 0) {
          const waiters = this.idleWaiters;
          this.idleWaiters = [];
          for (const w of waiters) w();
        }
      });
  }

  /** Runs `task` after `ms`; cancelled by `clear()`. */
  after(ms: number, task: () => Promise<void> | void, onError: (error: unknown) => void): void {
    this.run(async () => {
      if (await this.sleep(ms)) await task();
    }, onError);
  }

  /** Resolves when no background task is pending (timers waiting, callbacks in flight). */
  whenIdle(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  get pendingTasks(): number {
    return this.pending;
  }

  /** Cancels every timer; sleeping tasks wake up with `false` and stop. */
  clear(): void {
    for (const [timer, cancel] of this.timers) {
      clearTimeout(timer);
      cancel();
    }
    this.timers.clear();
  }
}
