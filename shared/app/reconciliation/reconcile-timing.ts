import type { RelayConfig } from '../../config/schema';
import {
  type CheckSchedule,
  scheduleFor as scheduleFrom,
  type ScheduleOverrides,
} from '../../domain/reconcile-schedule';
import { findProvider } from '../../providers/registry';

export type ReconciliationSettings = RelayConfig['reconciliation'];

export interface ReconcileTiming {
  schedule: CheckSchedule;
  timeScale: number;
  /** The window, scaled (the config's global `windowSeconds` wins over the per-kind default). */
  windowSeconds: number;
  /** Delay of the first status check, scaled. */
  firstCheckSeconds: number;
}

/**
 * The status-check schedule of one provider and kind: the provider's own (its timings, through the
 * registry), then the config's overrides; unscaled.
 */
export function scheduleFor(
  provider: string,
  kind: string,
  overrides: ScheduleOverrides = {},
): CheckSchedule {
  return scheduleFrom(findProvider(provider)?.timings.checkSchedules, provider, kind, overrides);
}

/** The schedule of one provider and kind under the config's overrides and time scale. */
export function reconcileTiming(
  settings: ReconciliationSettings,
  provider: string,
  kind: string,
): ReconcileTiming {
  const schedule = scheduleFor(provider, kind, settings.schedules);
  const timeScale = settings.timeScale;
  return {
    schedule,
    timeScale,
    windowSeconds: settings.windowSeconds ?? schedule.windowSeconds * timeScale,
    firstCheckSeconds: schedule.firstCheckSeconds * timeScale,
  };
}
