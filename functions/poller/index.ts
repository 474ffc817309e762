import type { Context } from 'aws-lambda';
import middy from '@middy/core';
import { runBadgeCycle } from '../../shared/app/badge-feed';
import { runCallbackHealthCycle } from '../../shared/app/callback-health';
import { runPollCycle } from '../../shared/app/poll-cycle';
import { lambdaMiddlewares } from '../../shared/runtime/lambda-middleware';
import { lambdaReconcileServices } from '../../shared/runtime/lambda';

const { services } = await lambdaReconcileServices('relay-poller');

/**
 * Invoked by EventBridge Scheduler: one poll cycle, stopping to claim work well before the timeout, and
 * beside it one cycle of the badge feed (docs/badges.md). A failure of one never stops the other; a
 * failed poll cycle still fails the invocation (as before), a failed badge cycle is logged.
 */
export const handler = middy(async (_event: unknown, context: Context) => {
  const budgetMs = Math.max(1_000, context.getRemainingTimeInMillis() - 15_000);
  // Callback health first (docs/reconciliation.md#callback-health); its failure is logged, never fatal.
  await runCallbackHealthCycle(services).catch((error: Error) =>
    services.log.error('callback health cycle failed', { error: error.message }),
  );
  const [poll, badges] = await Promise.allSettled([
    runPollCycle(services, { owner: context.awsRequestId, budgetMs }),
    runBadgeCycle(services, { budgetMs }),
  ]);
  if (badges.status === 'rejected')
    services.log.error('badge cycle failed', { error: (badges.reason as Error).message });
  if (poll.status === 'rejected') throw poll.reason;
  return badges.status === 'fulfilled' ? { ...poll.value, badgeEvents: badges.value.events } : poll.value;
}).use(lambdaMiddlewares());
