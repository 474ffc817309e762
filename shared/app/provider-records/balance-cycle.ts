import { BALANCE_FAILURES_METRIC } from '../../config/metric-names';
import { accountKey, providerRecordTimings } from '../../config/schema';
import { AUTHENTICATION_METHODS, type AuthenticationMethod } from '../../domain/evidence';
import type { BalanceSnapshot } from '../../domain/statement';
import type { ReportedBalance, StatusApi } from '../../providers/types';
import { decimalSum } from '../../util/money';
import { factContradiction, factNamespace } from '../transactions/ingest-facts';
import { type BalanceState, balanceStateRef, noteOwnRequest } from './balance-requests';
import { callbackBaseOf, type PullServices, readStates } from './pull-cycle';

/**
 * Balance snapshots (issue 29; docs/pull-and-balances.md): every `balanceIntervalSeconds` each account
 * whose provider has a balance API is asked for it, and each balance it reports goes to the
 * StatementSink (`recordBalance`, source `balance-api`), where the delta between two snapshots meets
 * the relay's finals and fees.
 *
 * MoMo and Airtel answer at once. Daraja's Account Balance answers later, on the account's
 * `balance/result` route, where the relay's fact machinery already records it (AccountBalanceReported,
 * its balances kept on the fact's record): the request's id is stored here, and a later tick reads that
 * record through the provider's `balanceResult` reader and takes the snapshot from it. The stored id is
 * also what tells callback health that the result answers the relay, not the partner (balance-requests.ts). A result that
 * never comes (a queue timeout, a lost callback) is given up after two intervals and counted, never guessed.
 */

const BALANCE_ACTOR = { kind: 'system', name: 'balance-snapshot' } as const;

export interface BalanceAccountResult {
  provider: string;
  account: string;
  outcome: 'recorded' | 'requested' | 'waiting' | 'failed' | 'skipped';
  snapshots: number;
  detail?: string;
}

/**
 * The account's balance per currency: the sum of the wallets it reports. Daraja answers a short code's
 * Working, Utility, Charges Paid… accounts at one instant; money moved between them is no money moved, a
 * payment in or out and its charge move the sum. One snapshot per currency and instant is what the drift
 * compares (a stored snapshot is known by its instant).
 */
function totals(reported: readonly ReportedBalance[]): ReportedBalance[] {
  const byCurrency = new Map<string, ReportedBalance[]>();
  for (const b of reported)
    byCurrency.set(b.currency ?? '', [...(byCurrency.get(b.currency ?? '') ?? []), b]);
  return [...byCurrency.values()].map((group) =>
    group.length === 1
      ? group[0]!
      : {
          balance: decimalSum(...group.map((b) => ({ value: b.balance, sign: 1 as const }))),
          ...(group[0]!.currency ? { currency: group[0]!.currency } : {}),
          subAccount: group.map((b) => b.subAccount ?? '?').join(' + '),
        },
  );
}

export async function runBalanceCycle(services: PullServices): Promise<BalanceAccountResult[]> {
  const results: BalanceAccountResult[] = [];
  const targets = [...services.config.accounts.values()].flatMap((resolved) => {
    const api = services.statusApi(resolved.provider, resolved.id);
    if (!api?.balance) return [];
    const timings = providerRecordTimings(services.config.providerRecords, resolved.provider, resolved.id);
    if (timings.balanceIntervalSeconds <= 0) return [];
    return [
      { provider: resolved.provider, account: resolved.id, api, seconds: timings.balanceIntervalSeconds },
    ];
  });
  const states = await readStates<BalanceState>(
    services.store,
    targets.map((t) => balanceStateRef(t.provider, t.account)),
  ).catch((error: Error) => error);
  for (const { provider, account, api, seconds } of targets) {
    try {
      // A failed read is each account's failure, logged and counted as its own read would have been.
      if (states instanceof Error) throw states;
      const stored = states.get(accountKey(provider, account)) ?? {};
      results.push(await balanceOf(services, { provider, account, stored }, seconds, api));
    } catch (error) {
      services.log.error('balance snapshot failed', {
        provider,
        account,
        error: services.scrub((error as Error).message),
      });
      services.metrics.count(BALANCE_FAILURES_METRIC, 1, { provider, account });
      results.push({ provider, account, outcome: 'failed', snapshots: 0 });
    }
  }
  return results;
}

/** One account's turn of the cycle: its stored state, and the ways the turn can end. */
interface AccountTurn {
  provider: string;
  account: string;
  at: string;
  now: number;
  state: BalanceState;
  save(): Promise<void>;
  recordAll(reported: ReportedBalance[], when: string, authentication: AuthenticationMethod[]): Promise<void>;
  failed(detail: string): Promise<BalanceAccountResult>;
}

function accountTurn(
  services: PullServices,
  { provider, account, stored }: { provider: string; account: string; stored: BalanceState },
): AccountTurn {
  // One series per provider, not per account ($0.30 a month each, issue 28): the alarm takes the
  // maximum over the provider's accounts and the log lines name the account.
  const dims = { provider };
  const nowDate = services.clock.now();
  const at = nowDate.toISOString();
  const state: BalanceState = { ...stored };
  const save = async () => {
    await services.store.putRecord({
      ...balanceStateRef(provider, account),
      data: { ...state },
      createdAt: at,
    });
  };
  const recordAll = async (
    reported: ReportedBalance[],
    when: string,
    authentication: AuthenticationMethod[],
  ) => {
    for (const b of totals(reported)) {
      const snapshot: BalanceSnapshot = {
        provider,
        account,
        source: 'balance-api',
        at: when,
        balance: b.balance,
        ...(b.currency ? { currency: b.currency } : {}),
        ...(b.subAccount ? { subAccount: b.subAccount } : {}),
        authentication,
      };
      await services.statementSink.recordBalance(snapshot, { actor: BALANCE_ACTOR });
    }
    // A log line, not a metric: only failures are alarmed on, and each series is $0.30 a month.
    services.log.info('balance snapshot taken', { provider, account, balances: reported.length });
  };
  const failed = async (detail: string): Promise<BalanceAccountResult> => {
    state.lastError = { at, detail: services.scrub(detail) };
    await save();
    services.metrics.count(BALANCE_FAILURES_METRIC, 1, dims);
    services.log.warn('balance snapshot failed', { provider, account, detail: services.scrub(detail) });
    return { provider, account, outcome: 'failed', snapshots: 0, detail };
  };
  return { provider, account, at, now: nowDate.getTime(), state, save, recordAll, failed };
}

async function balanceOf(
  services: PullServices,
  target: { provider: string; account: string; stored: BalanceState },
  intervalSeconds: number,
  api: StatusApi,
): Promise<BalanceAccountResult> {
  const turn = accountTurn(services, target);
  const { provider, account, state, at, now } = turn;
  const interval = intervalSeconds * services.config.reconciliation.timeScale * 1000;
  if (state.pending) {
    const ended = await pendingBalance(services, turn, api, interval);
    if (ended) return ended;
  }
  if (state.lastRequestedAt && now - Date.parse(state.lastRequestedAt) < interval)
    return { provider, account, outcome: 'skipped', snapshots: 0 };
  state.lastRequestedAt = at;
  const answer = await api.balance!({ callbackBase: callbackBaseOf(services, provider, account) });
  if (answer.type === 'error') return turn.failed(answer.detail);
  if (answer.type === 'requested') {
    noteOwnRequest(state, answer.requestId, at);
    await turn.save();
    return { provider, account, outcome: 'requested', snapshots: 0 };
  }
  await turn.recordAll(answer.balances, at, ['provider-api']);
  state.lastSnapshotAt = at;
  delete state.lastError;
  await turn.save();
  return { provider, account, outcome: 'recorded', snapshots: totals(answer.balances).length };
}

/** The sender checks a fact's delivery passed, as recorded (none on a record written before they were). */
function authenticationOf(recorded: unknown): AuthenticationMethod[] {
  if (!Array.isArray(recorded)) return [];
  return recorded.filter((m): m is AuthenticationMethod => AUTHENTICATION_METHODS.includes(m as never));
}

/**
 * A balance asked earlier that answers later: its result read from the fact its callback recorded (the
 * provider's `balanceResult`), still awaited, or given up after two intervals (then asked again).
 */
async function pendingBalance(
  services: PullServices,
  turn: AccountTurn,
  api: StatusApi,
  interval: number,
): Promise<BalanceAccountResult | undefined> {
  const { provider, account, state } = turn;
  const pending = state.pending!;
  const reader = api.balanceResult;
  const fact = reader
    ? await services.store.getRecord({
        provider,
        account,
        namespace: factNamespace(reader.factNamespace),
        id: pending.requestId,
      })
    : undefined;
  if (fact && reader) {
    delete state.pending;
    const result = reader.read(fact);
    if ('failed' in result)
      return turn.failed(`the balance request ${pending.requestId} was ${result.failed}`);
    // Two results for the request that disagree: one is forged, and nothing tells which (ingest-facts.ts).
    const contradicted = await factContradiction(services.store, turn, {
      namespace: reader.factNamespace,
      id: pending.requestId,
    });
    if (contradicted) return turn.failed(`the balance request's results disagree: ${contradicted}`);
    // Daraja's result came on an unsigned callback: the snapshot says how it was delivered (unconfirmedBalance).
    await turn.recordAll(result.balances, result.at, authenticationOf(fact.data.authentication));
    state.lastSnapshotAt = result.at;
    await turn.save();
    return { provider, account, outcome: 'recorded', snapshots: totals(result.balances).length };
  }
  if (turn.now - Date.parse(pending.at) < 2 * interval)
    return { provider, account, outcome: 'waiting', snapshots: 0 };
  delete state.pending;
  await turn.failed(`no result for the balance request ${pending.requestId} since ${pending.at}`);
  return undefined;
}
