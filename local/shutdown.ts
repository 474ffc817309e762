/**
 * How long `npm start`'s stop waits, at most, for the work in flight (requests being answered, a poll cycle,
 * the stream pump's batch, webhook attempts) before it closes the stores anyway: each of them is bounded by
 * its own timeouts, but a stalled DynamoDB Local or endpoint must not hold Ctrl-C for minutes.
 */
export const STOP_WAIT_MS = 10_000;

/** Resolves when `work` settles (its failure is the work's own to report) or `hurry` aborts, whichever comes first. */
export async function untilDone(work: Promise<unknown>, hurry: AbortSignal): Promise<void> {
  if (hurry.aborted) return;
  let onAbort = () => {};
  const hurried = new Promise<void>((resolve) => {
    onAbort = resolve;
    hurry.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([
      work.then(
        () => undefined,
        () => undefined,
      ),
      hurried,
    ]);
  } finally {
    hurry.removeEventListener('abort', onAbort);
  }
}

export interface StopSignalsOptions {
  /** The ordered stop; `hurry` aborts on a second signal: stop waiting for the work in flight. */
  stop: (signal: string, hurry: AbortSignal) => Promise<void>;
  exit: (code: number) => void;
  write: (line: string) => void;
  /** Where the signals come from (the process; a test's emitter). */
  on: (signal: 'SIGINT' | 'SIGTERM', listener: () => void) => void;
}

/**
 * SIGINT (Ctrl-C) and SIGTERM stop `npm start` in order, once: a second signal while it stops does not start
 * another stop (nor exit before DynamoDB Local is stopped, which would leave its JVM running); it tells the
 * stop to wait no longer for the work in flight. A stop that fails is said, and the exit code is 1.
 */
export function stopOnSignals(options: StopSignalsOptions): void {
  const hurry = new AbortController();
  let stopping = false;
  const onSignal = (signal: string) => {
    if (stopping) {
      if (hurry.signal.aborted) return;
      hurry.abort();
      options.write(`${signal} again: not waiting for the work in flight; stopping DynamoDB Local…\n`);
      return;
    }
    stopping = true;
    options.stop(signal, hurry.signal).then(
      () => options.exit(0),
      (error: unknown) => {
        options.write(`Stop failed: ${(error as Error).stack ?? String(error)}\n`);
        options.exit(1);
      },
    );
  };
  options.on('SIGINT', () => onSignal('SIGINT'));
  options.on('SIGTERM', () => onSignal('SIGTERM'));
}
