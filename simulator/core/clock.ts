/** Where the simulator reads the time and sets its timers; `realClock` unless a test injects another. */
export interface SimClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realClock: SimClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * A clock that only moves when told to (`advance`), for tests: a payer answers, a window closes, exactly
 * when the test says so, however slow the machine is. Timers due within the advanced span fire in order;
 * each fired timer's task gets a turn of the event loop before the next one fires, so follow-up timers it
 * sets within the span fire too.
 */
export class ManualClock implements SimClock {
  private time: number;
  private nextId = 1;
  private readonly timers = new Map<number, { at: number; fn: () => void }>();

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.timers.set(id, { at: this.time + Math.max(0, ms), fn });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }

  /** Timers not yet fired. */
  get pendingTimers(): number {
    return this.timers.size;
  }

  /** Moves the time forward by `ms`, firing every timer that falls due on the way. */
  async advance(ms: number): Promise<void> {
    const target = this.time + ms;
    for (;;) {
      let due: [number, { at: number; fn: () => void }] | undefined;
      for (const entry of this.timers) {
        if (entry[1].at <= target && (!due || entry[1].at < due[1].at)) due = entry;
      }
      if (!due) break;
      this.timers.delete(due[0]);
      this.time = Math.max(this.time, due[1].at);
      due[1].fn();
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    this.time = target;
  }
}

/**
 * Time for the simulator. Provider business durations (MoMo's 5-minute approval window, Airtel's TA)
 * go through `scaled()` so tests can compress minutes into milliseconds; every timer is tracked so that
 * `close()` and `/_sim/reset` leave nothing running and `whenIdle()` can tell tests when all is sent.
 */
export class Scheduler {
  private readonly timers = new Map<unknown, () => void>();
  private pending = 0;
  private idleWaiters: (() => void)[] = [];

  constructor(
    readonly timeScale: number,
    readonly clock: SimClock = realClock,
  ) {
    if (!(timeScale > 0)) throw new RangeError('timeScale must be a positive number');
  }

  /** The simulator's current time (epoch ms) on its clock. */
  now(): number {
    return this.clock.now();
  }

  /** Real milliseconds for a duration expressed in provider time. */
  scaled(providerMs: number): number {
    return Math.max(0, Math.round(providerMs * this.timeScale));
  }

  /** Resolves `true` after `ms`, or `false` early if the scheduler is cleared meanwhile. */
  sleep(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = this.clock.setTimeout(() => {
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
      this.clock.clearTimeout(timer);
      cancel();
    }
    this.timers.clear();
  }
}
