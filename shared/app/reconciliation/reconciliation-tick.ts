import { runBadgeCycle } from '../badges/badge-feed';
import { type CallbackHealthOptions, runCallbackHealthCycle } from '../callbacks/callback-health';
import { type PollCycleOptions, type PollCycleResult, runPollCycle } from './poll-cycle';
import type { ReconcileServices } from './reconcile';

/**
 * One reconciliation tick, the same under EventBridge Scheduler (functions/poller) and under `npm start`
 * (local/poller.ts): callback health first, so a silent account's waiting transactions are due for this
 * very cycle (its failure is logged, never fatal), then one poll cycle, which takes its due items from
 * the due index as callback health read it, when it did (one read of the index per tick, not two).
 */
export async function runReconciliationTick(
  services: ReconcileServices,
  options: PollCycleOptions & CallbackHealthOptions,
): Promise<PollCycleResult> {
  const health = await runCallbackHealthCycle(services, options).catch((error: Error) => {
    services.log.error('callback health cycle failed', { error: error.message });
    return undefined;
  });
  return runPollCycle(services, options, health?.dueIndex);
}

/**
 * One badge-feed cycle beside the reconciliation (docs/badges.md), within its own budget: a failure is
 * logged and answered undefined, never thrown, so it cannot stop a poll cycle.
 */
export async function runBadgeTick(
  services: ReconcileServices,
  options: { budgetMs: number },
): Promise<Awaited<ReturnType<typeof runBadgeCycle>> | undefined> {
  try {
    return await runBadgeCycle(services, options);
  } catch (error) {
    services.log.error('badge cycle failed', { error: (error as Error).message });
    return undefined;
  }
}
