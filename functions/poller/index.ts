import type { Context } from 'aws-lambda';
import middy from '@middy/core';
import { runProviderRecordsTick } from '../../shared/app/provider-records/tick';
import { runBadgeTick, runReconciliationTick } from '../../shared/app/reconciliation/reconciliation-tick';
import { lambdaMiddlewares } from '../../shared/runtime/lambda-middleware';
import { lambdaReconcileServices } from '../../shared/runtime/lambda';
import { parseSilenceAlarms, SILENCE_ALARMS_ENV } from '../../shared/config/silence-alarms';

const { services } = await lambdaReconcileServices('relay-poller');
/** The provider silence tickets' periods, set by the construct beside the alarms that read the metric. */
const providerSilenceSeconds = parseSilenceAlarms(process.env[SILENCE_ALARMS_ENV]);

/**
 * Invoked by EventBridge Scheduler: one poll cycle, stopping to claim work well before the timeout, and
 * beside it one cycle of the badge feed (docs/badges.md). A failure of one never stops the other; a
 * failed poll cycle still fails the invocation (as before), a failed badge cycle is logged.
 */
export const handler = middy(async (_event: unknown, context: Context) => {
  const budgetMs = Math.max(1_000, context.getRemainingTimeInMillis() - 15_000);
  // Both run to their end (a failed poll cycle still fails the invocation, after the badge cycle).
  // The pulls and balance snapshots (docs/pull-and-balances.md) ride the same schedule: each account is
  // asked only when its own interval has passed; their tick never throws.
  const [poll, badges] = await Promise.allSettled([
    runReconciliationTick(services, { owner: context.awsRequestId, budgetMs, providerSilenceSeconds }),
    runBadgeTick(services, { budgetMs }),
    runProviderRecordsTick(services),
  ]);
  if (poll.status === 'rejected') throw poll.reason;
  // The heartbeat is this invocation ending without an error: the poller's own Lambda metrics
  // (invocations − errors, infra/monitoring.ts), so no custom series bills all month for it.
  const badgeEvents = badges.status === 'fulfilled' ? badges.value?.events : undefined;
  return badgeEvents === undefined ? poll.value : { ...poll.value, badgeEvents };
}).use(lambdaMiddlewares());
