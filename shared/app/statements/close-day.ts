import { buildEvent } from '../../domain/events';
import type {
  BreakCategory,
  DailyCloseReport,
  StatementBreak,
  StatementSource,
  StoredStatementRow,
} from '../../domain/statement';
import { businessDayOf, businessDaySpan, matchRate, newBreak, rowAmount } from '../../domain/statement-match';
import type { AccountDayEntry } from '../ports';
import type { StatementDayAnswer, StatementDaySummary, StatementDaysAnswer } from '../management-answers';
import { toCsv } from '../../util/csv';
import { decimalSum } from '../../util/money';
import { nextDay, previousDay } from '../../util/time-zone';
import type { StatementActor } from '../../domain/statement';
import { balanceDriftsOfDay, type StatementDeps, statementSettings } from './statement-sink';
import type { AccountDay } from './statement-store';

/** Breaks a DailyClosed event carries at most (breakCount says how many in all; the endpoint lists all). */
const MAX_BREAKS_IN_EVENT = 100;

const PAIRED: ReadonlySet<string> = new Set(['matched', 'settled']);

const sum = (values: string[]) =>
  values.length ? decimalSum(...values.map((value) => ({ value, sign: 1 as const }))) : '0';

/**
 * The relay's transactions of an account whose day time (dayTimeOf: the money moved by the row that opened
 * it, its final verdict, or its creation while open) falls in [start, end): one or two index queries, bounded
 * by the account and the day, whatever the table holds.
 */
function transactionsOfDay(
  deps: StatementDeps,
  at: AccountDay,
  span: { start: number; end: number },
): Promise<AccountDayEntry[]> {
  return (deps.accountDays ?? deps.store).listAccountDay(
    at.provider,
    at.account,
    new Date(span.start).toISOString(),
    new Date(span.end).toISOString(),
  );
}

/**
 * The business day as the provider's records and the relay's verdicts add it up (docs/statements.md#the-close):
 * counts and amounts by verdict, rows matched and not, fees, late resolutions, the match rate, and every
 * break with its age. Breaks this reading finds (missing at the provider after the SLA, a payment credited
 * twice) are stored. When every expected source is in, or the SLA passed, the day closes: DailyClosed is
 * published once (`close`: false only reads). Only a close by a named person retires a stored break that
 * no longer holds (docs/statements.md#a-break-that-no-longer-holds): retiring is a judgement someone
 * answers for, so a read or the scheduled close only marks it (`noLongerHolds`).
 */
export async function closeDay(
  deps: StatementDeps,
  at: AccountDay,
  options: { actor: StatementActor; close?: boolean },
): Promise<DailyCloseReport> {
  const retiring = options.close !== false && options.actor.kind === 'person';
  const settings = statementSettings(deps.config, at.provider, at.account);
  const span = businessDaySpan(at.day, settings);
  const now = deps.clock.now();
  const rowsOfDays = await rowsAround(deps, at);
  const rows = rowsOfDays.get(at.day)!;
  // A row and its transaction on either side of midnight are a pair (time tolerance): the neighbours' rows count.
  const paired = new Set(
    [...rowsOfDays.values()]
      .flat()
      .filter((r) => r.reference && r.kind === 'payment')
      .map((r) => r.reference!),
  );
  const transactions = await transactionsOfDay(deps, at, span);
  const slaPassed = now.getTime() >= span.end + settings.slaSeconds * 1000;
  const base = { provider: at.provider, account: at.account, day: at.day, detectedAt: now.toISOString() };
  const loneSuccesses = transactions.filter(
    (tx) => tx.status === 'SUCCEEDED' && !paired.has(tx.key.reference),
  );
  const found = [
    ...(slaPassed ? missingAtProvider(base, loneSuccesses, settings.slaSeconds) : []),
    ...duplicateCredits(base, rows),
  ];
  // The balance is judged once the day's records are in (its fee rows, the rows that date each payment).
  // Only an ended day's can be: the morning's first pull row is not the day's record of money moved.
  const sourcesIn =
    now.getTime() >= span.end &&
    settings.expectedSources.length > 0 &&
    settings.expectedSources.every((s) => rows.some((r) => r.source === s));
  if (slaPassed || sourcesIn) found.push(...(await balanceDriftsOfDay(deps, at, span, rowsOfDays)));
  // What this reading judged: a stored break of these categories it no longer finds is retired.
  const judged = new Set<BreakCategory>(['duplicate-credit']);
  if (slaPassed) judged.add('missing-at-provider');
  if (slaPassed || sourcesIn) judged.add('balance-drift');
  const breaks = await reconcileBreaks(deps, at, found, judged, options.actor, retiring);
  const closedBecause = sourcesIn ? 'sources-in' : slaPassed ? 'sla-passed' : null;
  const report: DailyCloseReport = {
    provider: at.provider,
    account: at.account,
    day: at.day,
    timeZone: settings.timeZone,
    state: 'open',
    closedAt: null,
    closedBecause,
    ...dayTally(rows, transactions, loneSuccesses.length),
    breaks: breaks.map((b) => ({
      ...b,
      ageSeconds: Math.max(0, Math.floor((now.getTime() - Date.parse(b.detectedAt)) / 1000)),
    })),
    retired: await deps.statements.listRetiredBreaks(at),
  };
  return closeOnce(deps, at, report, { ...options, closedBecause, at: now.toISOString() });
}

/** The day's rows and its neighbours', read once: the balance's intervals reuse them. */
async function rowsAround(deps: StatementDeps, at: AccountDay): Promise<Map<string, StoredStatementRow[]>> {
  const rowsOfDays = new Map<string, StoredStatementRow[]>();
  for (const day of [previousDay(at.day), at.day, nextDay(at.day)])
    rowsOfDays.set(day, await deps.statements.listRows({ ...at, day }));
  return rowsOfDays;
}

type BreakBase = Pick<StatementBreak, 'provider' | 'account' | 'day' | 'detectedAt'>;

/** After the SLA: each success the relay published that no row of the provider's shows. */
function missingAtProvider(
  base: BreakBase,
  loneSuccesses: readonly AccountDayEntry[],
  slaSeconds: number,
): StatementBreak[] {
  return loneSuccesses.map((tx) =>
    newBreak({
      ...base,
      subject: tx.key.reference,
      category: 'missing-at-provider',
      reference: tx.key.reference,
      ...(tx.providerTransactionId ? { providerId: tx.providerTransactionId } : {}),
      ...(tx.amount ? { amount: tx.amount.value } : {}),
      detail: `the relay published SUCCEEDED for ${tx.key.reference}; no row in the provider's records ${slaSeconds} s after the day ended`,
    }),
  );
}

/** One transaction credited by more than one payment row of the day (the extra rows' amount). */
function duplicateCredits(base: BreakBase, rows: readonly StoredStatementRow[]): StatementBreak[] {
  const byReference = new Map<string, StoredStatementRow[]>();
  for (const row of rows)
    if (row.kind === 'payment' && row.reference && (PAIRED.has(row.effect) || row.effect === 'conflict'))
      byReference.set(row.reference, [...(byReference.get(row.reference) ?? []), row]);
  return [...byReference]
    .filter(([, credits]) => new Set(credits.map((r) => r.providerId)).size > 1)
    .map(([reference, credits]) =>
      newBreak({
        ...base,
        subject: `${reference}#duplicate`,
        category: 'duplicate-credit',
        reference,
        providerId: credits.map((r) => r.providerId).join(' '),
        amount: sum(credits.slice(1).map(rowAmount)),
        detail: `${credits.length} payment rows (${credits.map((r) => r.providerId).join(', ')}) for one transaction`,
      }),
    );
}

/** The day added up: its sources, the relay's verdicts, its rows by what they are, the match rate. */
function dayTally(
  rows: readonly StoredStatementRow[],
  transactions: readonly AccountDayEntry[],
  loneSuccesses: number,
): Pick<DailyCloseReport, 'sources' | 'verdicts' | 'rows' | 'lateResolutions' | 'matchRate'> {
  const payments = rows.filter((r) => r.kind === 'payment' && r.effect !== 'not-a-payment');
  const matched = payments.filter((r) => PAIRED.has(r.effect)).length;
  const fees = rows.filter((r) => r.kind === 'fee');
  const feeAmounts = [...fees.map(rowAmount), ...rows.filter((r) => r.fee).map((r) => r.fee!)];
  const verdicts: DailyCloseReport['verdicts'] = {};
  for (const tx of transactions) {
    const entry = verdicts[tx.status] ?? { count: 0, amount: '0' };
    verdicts[tx.status] = {
      count: entry.count + 1,
      amount: tx.amount
        ? decimalSum({ value: entry.amount, sign: 1 }, { value: tx.amount.value, sign: 1 })
        : entry.amount,
    };
  }
  return {
    sources: [...new Set(rows.map((r) => r.source))].sort() as StatementSource[],
    verdicts,
    rows: {
      payments: payments.length,
      matched,
      unmatched: payments.length - matched,
      fees: { count: fees.length, amount: sum(feeAmounts) },
      reversals: rows.filter((r) => r.kind === 'reversal').length,
      other: rows.filter((r) => r.kind === 'other' || r.effect === 'not-a-payment').length,
      amountIn: sum(rows.map((r) => r.amountIn)),
      amountOut: sum(rows.map((r) => r.amountOut)),
    },
    lateResolutions: rows.filter((r) => r.effect === 'settled').length,
    matchRate: matchRate(matched, payments.length - matched, loneSuccesses),
  };
}

/**
 * A day closed already answers as closed; else, when it may close now, it is closed once: the close and
 * its DailyClosed event written together, a concurrent close's answer taken when that one won.
 */
async function closeOnce(
  deps: StatementDeps,
  at: AccountDay,
  report: DailyCloseReport,
  options: {
    actor: StatementActor;
    close?: boolean;
    closedBecause: DailyCloseReport['closedBecause'];
    at: string;
  },
): Promise<DailyCloseReport> {
  const { closedBecause, at: nowIso } = options;
  const stored = await deps.statements.getClose(at);
  if (stored)
    return { ...report, state: 'closed', closedAt: stored.closedAt, closedBecause: stored.closedBecause };
  if (!closedBecause || options.close === false) return report;
  const closed: DailyCloseReport = { ...report, state: 'closed', closedAt: nowIso };
  const event = buildEvent(
    'DailyClosed',
    `${at.provider}:${at.account}:day-${at.day}`,
    'closed',
    // The contract's origins: a person's close is manual; the scheduled close is the relay's own (poll).
    options.actor.kind === 'person' ? 'manual' : 'poll',
    nowIso,
    dailyClosedData(closed, closedBecause, nowIso),
  );
  const written = await deps.statements.putClose(at, { report: closed, outbox: [event] });
  if (!written) {
    const first = await deps.statements.getClose(at);
    return {
      ...report,
      state: 'closed',
      closedAt: first?.closedAt ?? nowIso,
      closedBecause: first?.closedBecause ?? closedBecause,
    };
  }
  deps.log.info('day closed', {
    provider: at.provider,
    account: at.account,
    day: at.day,
    closedBecause,
    by: options.actor.name,
  });
  return closed;
}

/** Why a break this reading no longer finds no longer holds, by what the reading looked at. */
const NO_LONGER: Partial<Record<BreakCategory, (b: StatementBreak) => string>> = {
  'missing-at-provider': (b) =>
    `the provider's records show a row for ${b.reference ?? b.providerId ?? 'it'} now, or it is no longer a success of this day`,
  'duplicate-credit': () => 'no longer two payment rows for one transaction',
  'balance-drift': () =>
    "the interval adds up now: the records that explain it came in, or the relay's finals changed",
};

/** The same difference found again with the same money: the stored break still holds as it is. */
const sameBreak = (a: StatementBreak, b: StatementBreak) =>
  a.amount === b.amount &&
  a.expected === b.expected &&
  a.actual === b.actual &&
  a.providerId === b.providerId &&
  a.reference === b.reference;

/**
 * The day's stored breaks brought in line with this reading (docs/statements.md#a-break-that-no-longer-holds):
 * a break of a category it judged that it no longer finds, or finds with other money (a drift of another
 * amount), no longer holds. A close by a named person (`retiring`) retires it: moves it to the day's retired
 * breaks with who closed the day and why, never deleted. Any other reading (a GET of the day, the days
 * list, the scheduled close) keeps it and marks it `noLongerHolds` with why, for that person to confirm. A
 * break found again as it is stays as it is (its age counts from when it was first found); one found for
 * the first time, or anew with other money once the old one is retired, is stored. Answers the day's
 * breaks, oldest first.
 */
async function reconcileBreaks(
  deps: StatementDeps,
  at: AccountDay,
  found: readonly StatementBreak[],
  judged: ReadonlySet<BreakCategory>,
  actor: StatementActor,
  retiring: boolean,
): Promise<(StatementBreak & { noLongerHolds?: string })[]> {
  const retiredAt = deps.clock.now().toISOString();
  const foundNow = new Map(found.map((b) => [b.id, b]));
  const holding = new Map<string, StatementBreak & { noLongerHolds?: string }>();
  for (const stored of await deps.statements.listBreaks(at)) {
    const again = foundNow.get(stored.id);
    if (!judged.has(stored.category) || (again && sameBreak(stored, again))) {
      holding.set(stored.id, stored);
      continue;
    }
    const because = again
      ? `found again with other money: ${again.detail}`
      : (NO_LONGER[stored.category]?.(stored) ?? 'no longer found');
    if (!retiring) {
      holding.set(stored.id, { ...stored, noLongerHolds: because });
      continue;
    }
    if (await deps.statements.retireBreak({ ...stored, retiredAt, retiredBy: actor, because }))
      deps.log.info('break retired', {
        provider: at.provider,
        account: at.account,
        day: at.day,
        break: stored.id,
        category: stored.category,
        because,
        by: actor.name,
      });
  }
  for (const b of found) {
    if (holding.has(b.id)) continue;
    await deps.statements.putBreak(b);
    holding.set(b.id, b);
  }
  return [...holding.values()].sort((a, b) => a.detectedAt.localeCompare(b.detectedAt));
}

/** Business days a list reads at most (a month). */
const MAX_LISTED_DAYS = 31;

/** One line of the days list: the day's state, match rate and how many breaks wait. */
type DaySummary = StatementDaySummary;

// The console reads the day's report through this answer type: the report must keep fitting it.
const _fitsTheAnswer = (report: DailyCloseReport): StatementDayAnswer => report;
void _fitsTheAnswer;

/**
 * An account's business days from `from` to `to` (inclusive, newest first; default: the 7 days up to today
 * in the provider's time zone), each as it adds up now (docs/statements.md#the-close). Each day reads its
 * own rows and its own account-day index partition: the list costs days × one day.
 */
export async function listDays(
  deps: StatementDeps,
  input: { provider: string; account: string; from?: string; to?: string },
): Promise<StatementDaysAnswer> {
  const settings = statementSettings(deps.config, input.provider, input.account);
  const to = input.to ?? businessDayOf(deps.clock.now().toISOString(), settings);
  let from = input.from;
  if (!from) {
    from = to;
    for (let n = 1; n < 7; n++) from = previousDay(from);
  }
  const days: string[] = [];
  for (let day = to; day >= from && days.length < MAX_LISTED_DAYS; day = previousDay(day)) days.push(day);
  const summaries: DaySummary[] = [];
  for (const day of days) {
    const report = await closeDay(
      deps,
      { provider: input.provider, account: input.account, day },
      { actor: { kind: 'system', name: 'read' }, close: false },
    );
    summaries.push({
      day,
      state: report.state,
      closedAt: report.closedAt,
      payments: report.rows.payments,
      matched: report.rows.matched,
      fees: report.rows.fees.count,
      lateResolutions: report.lateResolutions,
      breaks: report.breaks.length,
      matchRate: report.matchRate,
    });
  }
  return { provider: input.provider, account: input.account, timeZone: settings.timeZone, days: summaries };
}

/** DailyClosed's data (schemas/events/DailyClosed.json). */
function dailyClosedData(
  report: DailyCloseReport,
  closedBecause: 'sources-in' | 'sla-passed',
  closedAt: string,
) {
  return {
    provider: report.provider,
    account: report.account,
    day: report.day,
    timeZone: report.timeZone,
    closedAt,
    closedBecause,
    sources: report.sources,
    verdicts: report.verdicts,
    rows: report.rows,
    lateResolutions: report.lateResolutions,
    matchRate: report.matchRate,
    breakCount: report.breaks.length,
    breaks: report.breaks.slice(0, MAX_BREAKS_IN_EVENT).map((b) => ({
      id: b.id,
      category: b.category,
      detectedAt: b.detectedAt,
      ageSeconds: b.ageSeconds,
      ...(b.providerId ? { providerId: b.providerId } : {}),
      ...(b.reference ? { reference: b.reference } : {}),
      ...(b.amount ? { amount: b.amount } : {}),
      ...(b.expected ? { expected: b.expected } : {}),
      ...(b.actual ? { actual: b.actual } : {}),
      detail: b.detail,
      ...(b.resolution ? { resolution: b.resolution } : {}),
    })),
  };
}

/** The day as CSV (docs/statements.md#the-close): a summary line, then one line per break. */
export function closeCsv(report: DailyCloseReport): string {
  const lines = [
    [
      'provider',
      'account',
      'day',
      'state',
      'matched',
      'toMatch',
      'matchRate',
      'payments',
      'fees',
      'feeAmount',
      'lateResolutions',
      'breaks',
    ],
    [
      report.provider,
      report.account,
      report.day,
      report.state,
      report.matchRate.matched,
      report.matchRate.toMatch,
      report.matchRate.rate,
      report.rows.payments,
      report.rows.fees.count,
      report.rows.fees.amount,
      report.lateResolutions,
      report.breaks.length,
    ],
    [],
    ['break', 'category', 'ageSeconds', 'providerId', 'reference', 'amount', 'expected', 'actual', 'detail'],
    ...report.breaks.map((b) => [
      b.id,
      b.category,
      b.ageSeconds,
      b.providerId,
      b.reference,
      b.amount,
      b.expected,
      b.actual,
      b.detail,
    ]),
  ];
  const [columns = [], ...rows] = lines;
  return toCsv(columns, rows);
}
