import type { Context } from 'aws-lambda';
import middy from '@middy/core';
import { runPollCycle } from '../../shared/app/reconcile';
import { lambdaMiddlewares } from '../../shared/runtime/lambda-middleware';
import { lambdaReconcileServices } from '../../shared/runtime/lambda';

const { services } = await lambdaReconcileServices('relay-poller');

/** Invoked by EventBridge Scheduler: one poll cycle, stopping to claim work well before the timeout. */
export const handler = middy(async (_event: unknown, context: Context) =>
  runPollCycle(services, {
    owner: context.awsRequestId,
    budgetMs: Math.max(1_000, context.getRemainingTimeInMillis() - 15_000),
  }),
).use(lambdaMiddlewares());
