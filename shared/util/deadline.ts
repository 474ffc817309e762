export type Late = { late: true };

/** The promise's value, or `{ late: true }` once `ms` have passed (the promise itself goes on). */
export function within<T>(promise: Promise<T>, ms: number): Promise<T | Late> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<Late>((resolve) => {
    timer = setTimeout(() => resolve({ late: true }), Math.max(0, ms));
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

export function isLate(value: unknown): value is Late {
  return typeof value === 'object' && value !== null && (value as Late).late === true;
}

/**
 * The promise's value, or a rejection with `reason()` as soon as `signal` aborts (for a call that may
 * ignore its signal: the caller stops waiting, the call itself goes on and its outcome is absorbed).
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal, reason: () => Error): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(reason());
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
