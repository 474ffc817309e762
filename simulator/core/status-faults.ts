import type { SimContext } from './context';
import { decideStatusFault, FaultHolder } from './faults';
import type { ProviderName, RequestContext } from './http';

/**
 * Applies `status-slow` and `status-5xx` to a status call. Sources, most specific first: the call's own
 * `X-Sim-Fault`, the transaction's faults (set when it was created, because the relay's poller cannot
 * add headers), then the global scopes. Returns the 5xx code to answer with, if any.
 */
export async function applyStatusFaults(
  sim: SimContext,
  provider: ProviderName,
  ctx: RequestContext,
  txnFaults?: FaultHolder,
): Promise<number | undefined> {
  const requestHolder = Object.keys(ctx.faults).length > 0 ? new FaultHolder(ctx.faults) : undefined;
  const decision = decideStatusFault([requestHolder, txnFaults, ...sim.faults.holdersFor(provider)]);
  if (decision.slowMs) await sim.scheduler.sleep(decision.slowMs);
  return decision.status5xx;
}
