import middy from '@middy/core';
import { registerFromEvent } from '../../shared/app/transactions/register-transaction';
import { lambdaMiddlewares } from '../../shared/runtime/lambda-middleware';
import { lambdaServices } from '../../shared/runtime/lambda';
import { statusFor } from '../../shared/http/error-mapping';

const { services } = await lambdaServices('relay-transaction-initiated');

/**
 * `TransactionInitiated` events from the partner's services (an EventBridge rule): the same use case as
 * `POST /v1/transactions`. A refused registration is audited, counted and dropped (retrying cannot fix it); an
 * outage throws, so Lambda's asynchronous retries run and then the function's dead-letter queue keeps
 * the event (EventBridge's own retries cover delivery only).
 */
export const handler = middy(async (event: { detail?: unknown; id?: string; source?: string }) =>
  registerFromEvent({ ...services, statusOf: statusFor }, event),
).use(lambdaMiddlewares());
