import type { Clock } from '../../shared/app/ports';
import type { Scheduler } from '../../shared/app/delivery/ports';

/**
 * A clock and a scheduler a test drives: `advance(ms)` moves time and runs every task that came due, in
 * order, so retry schedules of hours run in no time and never depend on the machine's speed.
 */
export class DrivenTime implements Clock, Scheduler {
  private nowMs: number;
  private readonly tasks: { at: number; seq: number; task: () => void }[] = [];
  private seq = 0;

  constructor(start = Date.now()) {
    this.nowMs = start;
  }

  now(): Date {
    return new Date(this.nowMs);
  }

  after(delayMs: number, task: () => void): void {
    this.tasks.push({ at: this.nowMs + delayMs, seq: this.seq++, task });
  }

  /** Delays of the tasks waiting, from now (what the engine scheduled). */
  pendingDelays(): number[] {
    return this.tasks.map((t) => t.at - this.nowMs).sort((a, b) => a - b);
  }

  advance(ms: number): void {
    const target = this.nowMs + ms;
    for (;;) {
      this.tasks.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.tasks[0];
      if (!next || next.at > target) break;
      this.tasks.shift();
      this.nowMs = next.at;
      next.task();
    }
    this.nowMs = target;
  }
}
