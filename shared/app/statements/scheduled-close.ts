import type { StatementActor } from '../../domain/statement';
import { businessDayOf, businessDaySpan } from '../../domain/statement-match';
import { previousDay } from '../../util/time-zone';
import { closeDay } from './close-day';
import { type StatementDeps, statementSettings } from './statement-sink';
import type { AccountDay } from './statement-store';

import { DAYS_CLOSED_METRIC, DAYS_OVERDUE_METRIC } from '../../config/metric-names';
import { CLOSE_DAYS_INPUT } from '../../config/statement-files';

export { CLOSE_DAYS_INPUT, DAYS_CLOSED_METRIC, DAYS_OVERDUE_METRIC };

/** Who closes a day on the schedule: the relay itself (a person closing one names themself). */
const SCHEDULED_CLOSE_ACTOR: StatementActor = { kind: 'system', name: 'scheduled-close' };

/**
 * Days past an account's SLA looked at again on every run beyond the one just due: a run missed (the
 * schedule off for a while, a failure) still closes them later, and an overdue day is counted until it
 * closes. Past that a day is left to a person (POST …/days/{day}/close).
 */
const CLOSE_CATCH_UP_DAYS = 3;

/**
 * Where the relay notes, per account, when its scheduled close first looked at it (its createdAt): the
 * days that ended before are not the relay's to close (a fresh start published DailyClosed, match rate
 * null, for the catch-up days before the relay or the account existed). Kept for good (the record's own
 * lifetime, not the transactions' retention): a marker written again later would skip the days missed
 * while the relay was down, which the catch-up is for. Same rule under EventBridge Scheduler and npm start.
 */
const CLOSE_SINCE_REF = { namespace: 'close-since', id: 'first-run' } as const;
const CLOSE_SINCE_LIFETIME_SECONDS = 100 * 365 * 86_400;

/** When the scheduled close first looked at the account: now on its first run (the first writer wins). */
async function closingSince(
  deps: StatementDeps,
  provider: string,
  account: string,
  now: Date,
): Promise<number> {
  const ref = { provider, account, ...CLOSE_SINCE_REF };
  const found = await deps.store.getRecord(ref);
  if (found) return Date.parse(found.createdAt);
  const { record } = await deps.store.putRecordIfAbsent({
    ...ref,
    data: {},
    createdAt: now.toISOString(),
    lifetimeSeconds: CLOSE_SINCE_LIFETIME_SECONDS,
  });
  return Date.parse(record.createdAt);
}

/**
 * The days that are the relay's to close: those that ended after it first looked at the account, and an
 * earlier one only where it holds the account's transactions of that day (a relay that ran before this
 * marker existed, or whose marker is newer than its data). A fresh start has neither: no DailyClosed for
 * the days before it existed.
 */
async function relaysDays(deps: StatementDeps, days: AccountDay[], now: Date): Promise<AccountDay[]> {
  const first = days[0];
  if (!first) return [];
  const settings = statementSettings(deps.config, first.provider, first.account);
  const since = await closingSince(deps, first.provider, first.account, now);
  const kept: AccountDay[] = [];
  for (const at of days) {
    const { start, end } = businessDaySpan(at.day, settings);
    if (end >= since) kept.push(at);
    else {
      const reader = deps.accountDays ?? deps.store;
      const from = new Date(start).toISOString();
      const seen = await reader.listAccountDay(at.provider, at.account, from, new Date(end).toISOString());
      if (seen.length) kept.push(at);
    }
  }
  return kept;
}

type DayCloseOutcome =
  /** Closed by this run: DailyClosed is in the table's outbox (published once by the stream). */
  | 'closed'
  /** Already closed (by an earlier run, a person, a concurrent run): nothing written. */
  | 'already-closed'
  /** Ended, sources not all in, SLA not passed yet. */
  | 'waiting'
  /** Could not be read or written; tried again on the next run. */
  | 'failed'
  /** The run's budget ran out before this day was looked at. */
  | 'not-reached';

interface DayCloseResult extends AccountDay {
  outcome: DayCloseOutcome;
  /** Its SLA passed and it is still open after this run (waiting, failed or not reached). */
  overdue: boolean;
  error?: string;
}

export interface ScheduledCloseResult {
  days: DayCloseResult[];
  closed: number;
  overdue: number;
}

/**
 * The days an account may close now: every business day that has ended, from the latest back to the
 * first whose SLA passed `CLOSE_CATCH_UP_DAYS` days ago. Oldest first.
 */
export function closableDays(
  deps: Pick<StatementDeps, 'config'>,
  provider: string,
  account: string,
  now: Date,
): AccountDay[] {
  const settings = statementSettings(deps.config, provider, account);
  const today = businessDayOf(now.toISOString(), settings);
  const days: AccountDay[] = [];
  const slaMs = settings.slaSeconds * 1000;
  const catchUpMs = CLOSE_CATCH_UP_DAYS * 86_400_000;
  for (let day = previousDay(today); ; day = previousDay(day)) {
    const { end } = businessDaySpan(day, settings);
    if (end + slaMs + catchUpMs < now.getTime()) break;
    if (end <= now.getTime()) days.unshift({ provider, account, day });
  }
  return days;
}

/**
 * The scheduled close (docs/statements.md#the-close), the same under EventBridge Scheduler (the
 * statements function) and `npm start` (local/day-closer.ts): for every configured account, every ended
 * business day not yet closed is closed once its expected sources are in or its SLA (default T+1) passed,
 * through the one close use case (closeDay): DailyClosed is written with the close in one conditional
 * write, so a re-run, two runs at once or a person closing by hand meanwhile publish it exactly once.
 * One account's failure never stops the others; a day whose SLA passed and is still open afterwards is
 * counted overdue (the DayCloseOverdue ticket watches that count). `budgetMs` stops the run before its
 * invocation's time-out; the days it did not reach are counted, and the next run takes them.
 */
export async function closeDueDays(
  deps: StatementDeps,
  options: { budgetMs?: number; elapsedMs?: () => number } = {},
): Promise<ScheduledCloseResult> {
  const now = deps.clock.now();
  const days: DayCloseResult[] = [];
  // Every account's closes read each day's by-day index entries once (AccountDayStore).
  const accountDays = deps.store.accountDayReaderForRun?.();
  const closing: StatementDeps = accountDays ? { ...deps, accountDays } : deps;
  const outOfTime = () =>
    options.budgetMs !== undefined &&
    options.elapsedMs !== undefined &&
    options.elapsedMs() >= options.budgetMs;
  for (const account of deps.config.accounts.values()) {
    const settings = statementSettings(deps.config, account.provider, account.id);
    let theRelays: AccountDay[];
    try {
      theRelays = await relaysDays(closing, closableDays(deps, account.provider, account.id, now), now);
    } catch (error) {
      // Nothing is closed without knowing since when the account is the relay's; the next run asks again.
      deps.log.error('day close failed', {
        provider: account.provider,
        account: account.id,
        error: (error as Error).message,
      });
      continue;
    }
    for (const at of theRelays) {
      const overdue = now.getTime() >= businessDaySpan(at.day, settings).end + settings.slaSeconds * 1000;
      if (outOfTime()) {
        days.push({ ...at, outcome: 'not-reached', overdue });
        continue;
      }
      try {
        if (await deps.statements.getClose(at)) {
          days.push({ ...at, outcome: 'already-closed', overdue: false });
          continue;
        }
        // Without expected sources only the SLA closes a day: until it passes there is nothing to read.
        if (!overdue && settings.expectedSources.length === 0) {
          days.push({ ...at, outcome: 'waiting', overdue: false });
          continue;
        }
        const report = await closeDay(closing, at, { actor: SCHEDULED_CLOSE_ACTOR });
        // closeDay answers a day closed before this run as closed too (its closedAt is older).
        const outcome: DayCloseOutcome =
          report.state !== 'closed'
            ? 'waiting'
            : Date.parse(report.closedAt!) >= now.getTime()
              ? 'closed'
              : 'already-closed';
        days.push({ ...at, outcome, overdue: outcome === 'waiting' && overdue });
      } catch (error) {
        const message = (error as Error).message;
        deps.log.error('day close failed', { ...at, error: message });
        days.push({ ...at, outcome: 'failed', overdue, error: message });
      }
    }
  }
  const result = {
    days,
    closed: days.filter((d) => d.outcome === 'closed').length,
    overdue: days.filter((d) => d.overdue).length,
  };
  if (result.closed || result.overdue)
    deps.log.info('scheduled close', {
      closed: result.closed,
      overdue: result.overdue,
      overdueDays: days.filter((d) => d.overdue).map((d) => `${d.provider}/${d.account}/${d.day}`),
    });
  return result;
}
