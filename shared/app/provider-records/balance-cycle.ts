import { BALANCE_FAILURES_METRIC } from '../../config/metric-names';
import { providerRecordTimings } from '../../config/schema';
import type { BalanceSnapshot } from '../../domain/statement';
import type { BalanceAnswer, BalanceRequest, ReportedBalance } from '../../providers/types';
import { decimalSum, toDecimalString } from '../../util/money';
import { callbackBaseOf, type PullServices } from './pull-cycle';

/**
 * Balance snapshots (issue 29; docs/pull-and-balances.md): every `balanceIntervalSeconds` each account
 * whose provider has a balance API is asked for it, and each balance it reports goes to the
 * StatementSink (`recordBalance`, source `balance-api`), where the delta between two snapshots meets
 * the relay's finals and fees.
 *
 * MoMo and Airtel answer at once. Daraja's Account Balance answers later, on the account's
 * `balance/result` route, where the relay's fact machinery already records it (AccountBalanceReported,
 * its balances kept on the fact's record): the request's OriginatorConversationID is stored here, and
 * a later tick reads that record and takes the snapshot from it. A result that never comes (a queue
 * timeout, a lost callback) is given up after two intervals and counted, never guessed.
 */

const BALANCE_STATE_NAMESPACE = 'balance-state';
const STATE_ID = 'state';
/** Daraja's balance results are facts under this namespace (shared/providers/daraja/facts.ts). */
const DARAJA_BALANCE_FACT_NAMESPACE = 'fact:account-balance';

const BALANCE_ACTOR = { kind: 'system', name: 'balance-snapshot' } as const;

interface BalanceState {
  lastRequestedAt?: string;
  lastSnapshotAt?: string;
  pending?: { requestId: string; at: string };
  lastError?: { at: string; detail: string };
}

export interface BalanceAccountResult {
  provider: string;
  account: string;
  outcome: 'recorded' | 'requested' | 'waiting' | 'failed' | 'skipped';
  snapshots: number;
  detail?: string;
}

const stateRef = (provider: string, account: string) => ({
  provider,
  account,
  namespace: BALANCE_STATE_NAMESPACE,
  id: STATE_ID,
});

/** Daraja's BOCompletedTime (yyyyMMddHHmmss, East Africa Time) as ISO 8601; undefined when it is not one. */
function darajaCompletedTime(value: unknown): string | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(String(value ?? ''));
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  return new Date(Date.UTC(y, mo - 1, d, h, mi, s) - 3 * 3600_000).toISOString();
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
  for (const resolved of services.config.accounts.values()) {
    const api = services.statusApi(resolved.provider, resolved.id);
    if (!api?.balance) continue;
    const timings = providerRecordTimings(services.config.providerRecords, resolved.provider, resolved.id);
    if (timings.balanceIntervalSeconds <= 0) continue;
    try {
      results.push(
        await balanceOf(services, resolved.provider, resolved.id, timings.balanceIntervalSeconds, (r) =>
          api.balance!(r),
        ),
      );
    } catch (error) {
      services.log.error('balance snapshot failed', {
        provider: resolved.provider,
        account: resolved.id,
        error: services.scrub((error as Error).message),
      });
      services.metrics.count(BALANCE_FAILURES_METRIC, 1, {
        provider: resolved.provider,
        account: resolved.id,
      });
      results.push({ provider: resolved.provider, account: resolved.id, outcome: 'failed', snapshots: 0 });
    }
  }
  return results;
}

async function balanceOf(
  services: PullServices,
  provider: string,
  account: string,
  intervalSeconds: number,
  ask: (request: BalanceRequest) => Promise<BalanceAnswer>,
): Promise<BalanceAccountResult> {
  // One series per provider, not per account ($0.30 a month each, issue 28): the alarm takes the
  // maximum over the provider's accounts and the log lines name the account.
  const dims = { provider };
  const nowDate = services.clock.now();
  const now = nowDate.getTime();
  const at = nowDate.toISOString();
  const interval = intervalSeconds * services.config.reconciliation.timeScale * 1000;
  const record = await services.store.getRecord(stateRef(provider, account), { consistent: true });
  const state: BalanceState = { ...((record?.data as BalanceState | undefined) ?? {}) };
  const save = () =>
    services.store.putRecord({ ...stateRef(provider, account), data: { ...state }, createdAt: at });
  const recordAll = async (reported: ReportedBalance[], when: string) => {
    for (const b of totals(reported)) {
      const snapshot: BalanceSnapshot = {
        provider,
        account,
        source: 'balance-api',
        at: when,
        balance: b.balance,
        ...(b.currency ? { currency: b.currency } : {}),
        ...(b.subAccount ? { subAccount: b.subAccount } : {}),
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

  if (state.pending) {
    const pending = state.pending;
    const fact = await services.store.getRecord({
      provider,
      account,
      namespace: DARAJA_BALANCE_FACT_NAMESPACE,
      id: pending.requestId,
    });
    const kept = fact?.data.kept as { accounts?: unknown; completedTime?: unknown } | undefined;
    if (fact && fact.data.event === 'AccountBalanceReported' && Array.isArray(kept?.accounts)) {
      const balances = (kept.accounts as { name?: unknown; currency?: unknown; current?: unknown }[]).flatMap(
        (a) => {
          const balance = toDecimalString(String(a.current ?? ''));
          return balance === undefined
            ? []
            : [{ balance, currency: String(a.currency ?? ''), subAccount: String(a.name ?? '') }];
        },
      );
      const when = darajaCompletedTime(kept.completedTime) ?? fact.createdAt;
      await recordAll(balances, when);
      delete state.pending;
      state.lastSnapshotAt = when;
      await save();
      return { provider, account, outcome: 'recorded', snapshots: totals(balances).length };
    }
    if (fact) {
      delete state.pending;
      return failed(`the balance request ${pending.requestId} was answered ${String(fact.data.event)}`);
    }
    if (now - Date.parse(pending.at) < 2 * interval)
      return { provider, account, outcome: 'waiting', snapshots: 0 };
    delete state.pending;
    await failed(`no result for the balance request ${pending.requestId} since ${pending.at}`);
  }

  if (state.lastRequestedAt && now - Date.parse(state.lastRequestedAt) < interval)
    return { provider, account, outcome: 'skipped', snapshots: 0 };
  state.lastRequestedAt = at;
  const answer = await ask({ callbackBase: callbackBaseOf(services, provider, account) });
  if (answer.type === 'error') return failed(answer.detail);
  if (answer.type === 'requested') {
    state.pending = { requestId: answer.requestId, at };
    await save();
    return { provider, account, outcome: 'requested', snapshots: 0 };
  }
  await recordAll(answer.balances, at);
  state.lastSnapshotAt = at;
  delete state.lastError;
  await save();
  return { provider, account, outcome: 'recorded', snapshots: totals(answer.balances).length };
}
