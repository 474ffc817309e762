import type { StatementSink } from '../../domain/statement';
import type { ReconcileServices } from '../reconciliation/reconcile';
import { runBalanceCycle, type BalanceAccountResult } from './balance-cycle';
import { logPullResults, type PullAccountResult, runPullCycle } from './pull-cycle';

export interface ProviderRecordsTickResult {
  pulls: PullAccountResult[];
  balances: BalanceAccountResult[];
}

/**
 * The pulls and balance snapshots of one poller tick, the same under EventBridge Scheduler
 * (functions/poller) and under `npm start` (local/poller.ts): each account is looked at every tick and
 * asked only when its own interval has passed, so the poller's schedule is the one clock. Without a
 * StatementSink wired there is nowhere for rows to go: nothing is asked (a row pulled and dropped would
 * be counted as a good pull). Failures are logged and answered undefined, never thrown: a pull cannot
 * stop the settlement of a payment.
 */
export async function runProviderRecordsTick(
  services: ReconcileServices & { statementSink?: StatementSink },
): Promise<ProviderRecordsTickResult | undefined> {
  const sink = services.statementSink;
  if (!sink) return undefined;
  const withSink = { ...services, statementSink: sink };
  try {
    const pulls = await runPullCycle(withSink);
    logPullResults(services.log, pulls);
    const balances = await runBalanceCycle(withSink);
    return { pulls, balances };
  } catch (error) {
    services.log.error('provider records tick failed', { error: services.scrub((error as Error).message) });
    return undefined;
  }
}
