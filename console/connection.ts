/**
 * Whether the console can reach the relay, as every request finds out. A request that gets no answer (the
 * relay stopped, the network gone) turns the state to `unreachable`: a banner says so and the relay is
 * asked again with back-off (1 s, 2 s, 4 s … at most 30 s) until it answers; then the state is `ok` again
 * and the page shows the current view anew, without a reload. A refused sign-in turns it to `signed-out`.
 * No DOM here: main.ts draws the banner from the state.
 */

type Reachability = 'ok' | 'unreachable' | 'signed-out';

/** No answer from the relay (a network error, or a gateway with no relay behind it). */
export class RelayUnreachableError extends Error {
  override name = 'RelayUnreachableError';
}

/** The first retry, the factor between retries, and the longest wait between two. */
export const BACKOFF = { firstMs: 1000, factor: 2, maxMs: 30_000 } as const;

/** The wait before retry number `attempt` (0-based): doubling from BACKOFF.firstMs, capped at maxMs. */
export function backoffMs(attempt: number): number {
  return Math.min(BACKOFF.maxMs, BACKOFF.firstMs * BACKOFF.factor ** Math.max(0, attempt));
}

export interface ReachabilityView {
  state: Reachability;
  /** When the relay stopped answering (ISO), while unreachable. */
  since: string | null;
  /** When the next attempt is made (epoch ms), while unreachable. */
  nextAttemptAt: number | null;
  attempts: number;
}

type Listener = (view: ReachabilityView, previous: Reachability) => void;

const listeners = new Set<Listener>();
let view: ReachabilityView = { state: 'ok', since: null, nextAttemptAt: null, attempts: 0 };
let timer: ReturnType<typeof setTimeout> | undefined;
/** Asks the relay whether it answers: true when it does, throws RelayUnreachableError when not. */
let probe: () => Promise<boolean> = () => Promise.resolve(true);

export function configureProbe(ask: () => Promise<boolean>): void {
  probe = ask;
}

export function onReachability(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function set(next: ReachabilityView): void {
  const previous = view.state;
  view = next;
  for (const listener of listeners) listener(view, previous);
}

/** An answer came (any HTTP status): the relay is there. */
export function reportAnswered(): void {
  if (view.state !== 'unreachable') return;
  if (timer) clearTimeout(timer);
  timer = undefined;
  set({ state: 'ok', since: null, nextAttemptAt: null, attempts: 0 });
}

/** No answer: the banner shows and the retries start (once, however many requests failed). */
export function reportUnreachable(): void {
  if (view.state === 'unreachable') return;
  schedule({ state: 'unreachable', since: new Date().toISOString(), nextAttemptAt: null, attempts: 0 });
}

export function reportSignedOut(): void {
  if (timer) clearTimeout(timer);
  timer = undefined;
  set({ state: 'signed-out', since: null, nextAttemptAt: null, attempts: 0 });
}

/** Signed in again: nothing to show. */
export function reportSignedIn(): void {
  if (view.state === 'signed-out') set({ state: 'ok', since: null, nextAttemptAt: null, attempts: 0 });
}

function schedule(next: ReachabilityView): void {
  const wait = backoffMs(next.attempts);
  set({ ...next, nextAttemptAt: Date.now() + wait });
  if (timer) clearTimeout(timer);
  timer = setTimeout(() => void attempt(), wait);
}

/** One retry now (also the banner's "Retry now"). */
export async function retryNow(): Promise<void> {
  if (view.state !== 'unreachable') return;
  if (timer) clearTimeout(timer);
  timer = undefined;
  await attempt();
}

async function attempt(): Promise<void> {
  timer = undefined;
  try {
    await probe();
    // The probe's own answer has reported it (reportAnswered); a probe that answered without going
    // through the API helper still ends the outage.
    reportAnswered();
  } catch (error) {
    if (!(error instanceof RelayUnreachableError)) {
      // Any other failure is an answer (a 401 shows the sign-in, a 500 the view's error).
      reportAnswered();
      return;
    }
    if (view.state === 'unreachable') schedule({ ...view, attempts: view.attempts + 1 });
  }
}
