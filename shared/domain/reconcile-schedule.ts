/**
 * When the poller asks a provider for a transaction's status, per provider and kind: a first check
 * shortly after the provider's usual callback time, then backing off, then a long tail (hourly, then
 * daily) until the reconciliation window ends. Pure; each provider declares its defaults, the config may
 * override any field.
 */
export interface CheckSchedule {
  /** Seconds after creation of the first status check. */
  firstCheckSeconds: number;
  /** Gaps between later checks, in order; the last one repeats until `dailyAfterSeconds`. */
  backoffSeconds: readonly number[];
  /** From this age on, one check a day. */
  dailyAfterSeconds: number;
  /** The reconciliation window: a PENDING transaction past it becomes EXPIRED. */
  windowSeconds: number;
}

const DAY = 86_400;

/**
 * The schedule of a kind no provider declared one for. Each provider declares its own, from its timing
 * (shared/providers/<id>/timings.ts, read through the registry by shared/app/reconciliation/reconcile-timing.ts).
 */
const DEFAULT_CHECK_SCHEDULE: CheckSchedule = {
  firstCheckSeconds: 300,
  backoffSeconds: [300, 600, 1800, 3600],
  dailyAfterSeconds: DAY,
  windowSeconds: 3 * DAY,
};

export type ScheduleOverrides = Readonly<
  Record<string, Readonly<Record<string, Partial<CheckSchedule> | undefined>> | undefined>
>;

/**
 * The schedule of one provider and kind: the provider's defaults (`defaults`, by kind, `*` for the rest),
 * then the config's `*` and per-kind overrides.
 */
export function scheduleFor(
  defaults: Readonly<Record<string, CheckSchedule>> | undefined,
  provider: string,
  kind: string,
  overrides: ScheduleOverrides = {},
): CheckSchedule {
  const base = defaults?.[kind] ?? defaults?.['*'] ?? DEFAULT_CHECK_SCHEDULE;
  return { ...base, ...overrides[provider]?.['*'], ...overrides[provider]?.[kind] };
}

const addSeconds = (iso: string, seconds: number) => new Date(Date.parse(iso) + seconds * 1000).toISOString();

/**
 * When to check next, after `checksDone` checks. `timeScale` < 1 shortens every delay (the local
 * simulator's business time runs faster). Never later than the window's end while the window is open,
 * so the expiry happens on time and carries the last answer.
 */
export function nextCheckAt(input: {
  schedule: CheckSchedule;
  createdAt: string;
  reconcileUntil: string;
  checksDone: number;
  now: string;
  timeScale: number;
}): string {
  const { schedule, createdAt, checksDone, now, timeScale } = input;
  const ageSeconds = (Date.parse(now) - Date.parse(createdAt)) / 1000;
  let next: string;
  if (checksDone === 0) {
    next = addSeconds(createdAt, schedule.firstCheckSeconds * timeScale);
    if (next < now) next = now;
  } else {
    const steps = schedule.backoffSeconds;
    const gap =
      ageSeconds >= schedule.dailyAfterSeconds * timeScale
        ? DAY
        : (steps[Math.min(checksDone - 1, steps.length - 1)] ?? 3600);
    // At least a second between checks, of the relay's time: scaled like every other delay.
    next = addSeconds(now, Math.max(1, gap) * timeScale);
  }
  return now < input.reconcileUntil && next > input.reconcileUntil ? input.reconcileUntil : next;
}

/**
 * Whether a transaction belongs in the due index: open with a next check, or final but asked to be
 * checked again (a report after the verdict: `reconcile.recheckUntil`; a held reversal to ask about:
 * `heldReversals`, domain/held-reversal.ts). A held reversal waiting for its ask keeps the payment due at
 * its own time when a write dropped the schedule's (a receipt adopted ends the recheck it was due for).
 */
export function dueAtOf(tx: {
  status: string;
  reconcile?: { dueAt?: string; recheckUntil?: string };
  heldReversals?: readonly { state: string; dueAt: string }[];
}): string | undefined {
  const final = tx.status === 'SUCCEEDED' || tx.status === 'FAILED' || tx.status === 'EXPIRED';
  const due = tx.reconcile?.dueAt;
  if (!final || tx.reconcile?.recheckUntil) return due;
  const asking = tx.heldReversals?.filter((h) => h.state === 'asking').map((h) => h.dueAt) ?? [];
  return asking.length ? (due ?? asking.sort()[0]) : undefined;
}
