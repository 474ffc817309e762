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
