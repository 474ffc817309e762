import { accountKey, providerRecordTimings } from '../../config/schema';
import type { StatementRow, StatementSink } from '../../domain/statement';
import type { PullTransactionsApi, StatusApi } from '../../providers/types';
import type { RelayLogger, RelayMetrics, RelayStore } from '../ports';
import type { RelayServices } from '../services';

/**
 * The scheduled pull of a provider's own record of money moved (Daraja Pull Transactions, issue 29;
 * docs/pull-and-balances.md). Every poller tick looks at each account with a pull API; a due one is
 * registered once (`1000` registered and `1001` already registered both stand, stored), then asked for
 * the last `pullLookBackSeconds` (overlapping the previous pull, so a row the provider posts late is
 * still caught; the sink makes a row seen twice change nothing) up to `pullGraceSeconds` before now (a
 * C2B row is listed before its confirmation reaches the relay: pulled in that gap it would be a false
 * "no callback ever came"; the next pull's overlap reads it), page by page with OffSetValue, and the
 * rows are handed to the StatementSink as source `pull-api`. A pull is good only when every page was
 * answered and the last said "no more": a failure answered HTTP 200 is a failure, never "nothing".
 *
 * After an outage the window reaches back to the last good pull (never past the provider's own limit),
 * so the rows of the gap are fetched as soon as the API answers again.
 */

/** Provider records of the pull's state: one per account. */
const PULL_STATE_NAMESPACE = 'pull-state';
const STATE_ID = 'state';

import { PULL_AGE_METRIC, PULL_FAILURES_METRIC } from '../../config/metric-names';
export { PULL_AGE_METRIC, PULL_FAILURES_METRIC };

/** The actor the pull's rows are ingested as. */
const PULL_ACTOR = { kind: 'system', name: 'daraja-pull' } as const;

/** Stay this far inside the provider's look-back: a window at its very edge may lose its first rows. */
const WINDOW_EDGE_MARGIN_SECONDS = 300;

export interface PullState {
  registeredAt?: string;
  registration?: { code: string; detail: string };
  /** When this relay first tried to pull the account: the age of an account never pulled well. */
  firstAttemptAt?: string;
  lastAttemptAt?: string;
  lastGoodPullAt?: string;
  lastGoodWindow?: { from: string; to: string; pages: number; rows: number };
  lastError?: { at: string; detail: string };
  consecutiveFailures?: number;
}

export interface PullServices extends Pick<RelayServices, 'config' | 'clock' | 'log' | 'scrub'> {
  store: Pick<RelayStore, 'getRecord' | 'getRecords' | 'putRecord'>;
  statusApi(provider: string, account: string): StatusApi | undefined;
  metrics: RelayMetrics;
  statementSink: StatementSink;
}

export interface PullAccountResult {
  provider: string;
  account: string;
  /** `skipped`: not due yet. */
  outcome: 'pulled' | 'failed' | 'skipped';
  rows: number;
  pages: number;
  ageSeconds: number;
  detail?: string;
}

const stateRef = (provider: string, account: string) => ({
  provider,
  account,
  namespace: PULL_STATE_NAMESPACE,
  id: STATE_ID,
});

export async function readPullState(
  store: Pick<RelayStore, 'getRecord'>,
  provider: string,
  account: string,
): Promise<PullState> {
  const record = await store.getRecord(stateRef(provider, account), { consistent: true });
  return (record?.data as PullState | undefined) ?? {};
}

/** The callback base of an account (path secret included), as the status queries build it. */
export function callbackBaseOf(services: Pick<RelayServices, 'config'>, provider: string, account: string) {
  const resolved = services.config.accounts.get(`${provider}/${account}`);
  const base = services.config.publicBaseUrl.replace(/\/$/, '');
  return `${base}/v1/${provider}/${account}${resolved?.pathSecret ? `/${resolved.pathSecret}` : ''}`;
}

/** Seconds since the account's last good pull (since its first attempt when it never had one). */
function ageSeconds(state: PullState, now: number): number {
  const since = state.lastGoodPullAt ?? state.firstAttemptAt;
  return since ? Math.max(0, Math.round((now - Date.parse(since)) / 1000)) : 0;
}

/** The accounts with a pull API, in config order. */
function pullAccounts(services: Pick<PullServices, 'config' | 'statusApi'>) {
  const found: { provider: string; account: string; pull: PullTransactionsApi }[] = [];
  for (const resolved of services.config.accounts.values()) {
    const pull = services.statusApi(resolved.provider, resolved.id)?.pull;
    if (pull) found.push({ provider: resolved.provider, account: resolved.id, pull });
  }
  return found;
}

/**
 * The stored records of these refs by `provider/account` (each ref is one account's), read at once in
 * one strongly consistent batch: a cycle's turn must see the previous cycle's write, or it would ask
 * again. One request a cycle instead of one an account; a cycle that finds no account due writes nothing.
 */
export async function readStates<T>(
  store: Pick<RelayStore, 'getRecords'>,
  refs: readonly { provider: string; account: string; namespace: string; id: string }[],
): Promise<Map<string, T>> {
  const records = refs.length > 0 ? await store.getRecords(refs, { consistent: true }) : [];
  return new Map(records.map((r) => [accountKey(r.provider, r.account), r.data as T]));
}

export async function runPullCycle(services: PullServices): Promise<PullAccountResult[]> {
  const results: PullAccountResult[] = [];
  const targets = pullAccounts(services);
  const states = await readStates<PullState>(
    services.store,
    targets.map((t) => stateRef(t.provider, t.account)),
  ).catch((error: Error) => error);
  for (const target of targets) {
    try {
      // A failed read is each account's failure, logged and counted as its own read would have been.
      if (states instanceof Error) throw states;
      results.push(
        await pullAccount(services, target, states.get(accountKey(target.provider, target.account)) ?? {}),
      );
    } catch (error) {
      // One account's storage or sink failure must not stop the others' pulls.
      services.log.error('pull failed', {
        provider: target.provider,
        account: target.account,
        error: services.scrub((error as Error).message),
      });
      services.metrics.count(PULL_FAILURES_METRIC, 1, { provider: target.provider });
      results.push({ ...target, outcome: 'failed', rows: 0, pages: 0, ageSeconds: 0 });
    }
  }
  return results;
}

/**
 * The age of an account's last good pull, written once it reaches half the provider's earliest ticket
 * threshold (the smallest `pullTicketAfterSeconds` of its accounts, what its alarms compare with; scaled
 * like every timing): written every tick, the series billed $0.30 a month per provider for a graph of
 * small numbers (issue 28). No data is OK for the pull alarms; the poller's heartbeat pages when the
 * poller stops. One series per provider, not per account: the alarm takes the maximum over the
 * provider's accounts and the log lines name the account.
 */
function reportAge(services: PullServices, provider: string, age: number): void {
  const { config } = services;
  const ticketAfter = Math.min(
    ...[...config.accounts.values()]
      .filter((a) => a.provider === provider)
      .map((a) => providerRecordTimings(config.providerRecords, provider, a.id).pullTicketAfterSeconds),
  );
  if (age >= (ticketAfter * config.reconciliation.timeScale) / 2)
    services.metrics.count(PULL_AGE_METRIC, age, { provider });
}

/** A failed pull: the last good pull stands; the failure is kept, counted and logged. */
async function pullFailed(
  services: PullServices,
  target: { provider: string; account: string },
  when: { state: PullState; next: PullState; at: string; now: number },
  detail: string,
): Promise<PullAccountResult> {
  const { provider, account } = target;
  const { state, next, at, now } = when;
  const dims = { provider };
  const failed: PullState = {
    ...next,
    lastError: { at, detail: services.scrub(detail) },
    consecutiveFailures: (state.consecutiveFailures ?? 0) + 1,
  };
  await save(services, provider, account, failed, at);
  const age = ageSeconds(failed, now);
  services.metrics.count(PULL_FAILURES_METRIC, 1, dims);
  reportAge(services, provider, age);
  services.log.warn('pull failed; the last good pull stands', {
    provider,
    account,
    detail: services.scrub(detail),
    lastGoodPullAt: state.lastGoodPullAt ?? null,
    ageSeconds: age,
  });
  return { provider, account, outcome: 'failed', rows: 0, pages: 0, ageSeconds: age, detail };
}

/**
 * A pull's window. It starts the look-back before now or, after a gap, before the last good window's
 * end (so it always reaches back past that end: no row falls between two windows), within the
 * provider's limit. It ends the grace before now: younger rows wait for the next pull.
 */
function pullWindow(
  state: PullState,
  now: number,
  ms: { maxBack: number; lookBack: number; grace: number },
): { from: string; to: string } {
  const lastTo = state.lastGoodWindow ? Date.parse(state.lastGoodWindow.to) : now;
  const from = Math.max(now - ms.maxBack, Math.min(now - ms.lookBack, lastTo - ms.lookBack));
  return { from: new Date(from).toISOString(), to: new Date(now - ms.grace).toISOString() };
}

/** A page of pulled rows as statement rows; a row the provider's mapping cannot read is logged and left out. */
function statementRowsOf(
  services: PullServices,
  target: { provider: string; account: string; pull: PullTransactionsApi },
  page: Parameters<PullTransactionsApi['toStatementRow']>[0][],
  ref: string,
  offset: number,
): StatementRow[] {
  const { provider, account, pull } = target;
  const rows: StatementRow[] = [];
  page.forEach((raw, index) => {
    const draft = pull.toStatementRow(raw, { ref, row: index + 1 });
    if (draft) rows.push({ ...draft, provider, account, source: 'pull-api' });
    else
      services.log.warn('pull row without a receipt, a date or an amount: left out', {
        provider,
        account,
        offset,
        row: index + 1,
      });
  });
  return rows;
}

async function pullAccount(
  services: PullServices,
  target: { provider: string; account: string; pull: PullTransactionsApi },
  state: PullState,
): Promise<PullAccountResult> {
  const { provider, account, pull } = target;
  const timings = providerRecordTimings(services.config.providerRecords, provider, account);
  const scale = services.config.reconciliation.timeScale;
  const nowDate = services.clock.now();
  const now = nowDate.getTime();
  const at = nowDate.toISOString();
  const interval = timings.pullIntervalSeconds * scale * 1000;
  if (state.lastAttemptAt && now - Date.parse(state.lastAttemptAt) < interval) {
    const age = ageSeconds(state, now);
    reportAge(services, provider, age);
    return { provider, account, outcome: 'skipped', rows: 0, pages: 0, ageSeconds: age };
  }
  const next: PullState = { ...state, firstAttemptAt: state.firstAttemptAt ?? at, lastAttemptAt: at };
  const fail = (detail: string) => pullFailed(services, target, { state, next, at, now }, detail);

  if (!state.registeredAt) {
    const answer = await pull.register(`${callbackBaseOf(services, provider, account)}/pull/callback`);
    if (answer.type === 'error') return fail(answer.detail);
    next.registeredAt = at;
    next.registration = { code: answer.code, detail: answer.detail };
    services.log.info('pull registered', { provider, account, code: answer.code });
  }

  const window = pullWindow(state, now, {
    maxBack: (pull.maxLookBackSeconds - WINDOW_EDGE_MARGIN_SECONDS) * scale * 1000,
    lookBack: timings.pullLookBackSeconds * scale * 1000,
    grace: services.config.providerRecords.pullGraceSeconds * scale * 1000,
  });
  const { from, to } = window;
  let offset = 0;
  let pages = 0;
  let rowsTaken = 0;
  for (;;) {
    if (pages >= services.config.providerRecords.pullMaxPages)
      return fail(`more than ${pages} pages in ${from}..${to}: the rest waits for the next pull`);
    const answer = await pull.query({ ...window, offset });
    pages++;
    if (answer.type === 'error') return fail(answer.detail);
    if (answer.type === 'empty') break;
    const rows = statementRowsOf(
      services,
      target,
      answer.rows,
      `pull ${from}..${to} offset ${offset}`,
      offset,
    );
    if (rows.length) await services.statementSink.ingestRows(rows, { actor: PULL_ACTOR });
    rowsTaken += rows.length;
    offset += answer.rows.length;
  }
  const good: PullState = {
    ...next,
    lastGoodPullAt: at,
    lastGoodWindow: { ...window, pages, rows: rowsTaken },
    consecutiveFailures: 0,
  };
  await save(services, provider, account, good, at);
  // A log line, not a metric: rows per pull are read when asked, and each series is $0.30 a month.
  services.log.info('pull good', { provider, account, rows: rowsTaken, pages });
  return { provider, account, outcome: 'pulled', rows: rowsTaken, pages, ageSeconds: 0 };
}

async function save(services: PullServices, provider: string, account: string, state: PullState, at: string) {
  await services.store.putRecord({
    ...stateRef(provider, account),
    data: state as Record<string, unknown>,
    createdAt: at,
  });
}

/** Logs what a cycle did, one line per account that was due. */
export function logPullResults(log: RelayLogger, results: readonly PullAccountResult[]): void {
  for (const r of results)
    if (r.outcome === 'pulled')
      log.info('pulled', { provider: r.provider, account: r.account, rows: r.rows, pages: r.pages });
}
