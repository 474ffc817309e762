import type { ResolvedOptions } from '../options';
import type { Books } from './books';
import type { CallbackSender } from './callbacks';
import type { Scheduler } from './clock';
import type { FaultStore } from './faults';
import type { Logger } from './log';

/** What every provider module gets: options, time, the callback sender and the global faults. */
export interface SimContext {
  opts: ResolvedOptions;
  scheduler: Scheduler;
  sender: CallbackSender;
  faults: FaultStore;
  logger: Logger;
  /** The money every simulated provider moved (books.ts): served as pulls, balances and statements. */
  books: Books;
  /** Runs a task in the background, counted by `whenIdle()`; failures are logged, never thrown. */
  background(task: () => Promise<void>): void;
  /** Runs a task after `ms` real milliseconds, unless the simulator is reset or closed first. */
  later(ms: number, task: () => Promise<void> | void): void;
}

/** Each provider keeps its own in-memory state and exposes it to the admin API through this. */
export interface ProviderState {
  transactions(): unknown[];
  reset(): void;
}
