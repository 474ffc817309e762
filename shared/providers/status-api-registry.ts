import { createAirtelStatusApi } from './airtel/api-client';
import { createDarajaStatusApi } from './daraja/api-client';
import { createMomoStatusApi } from './momo/api-client';
import type { AccountContext, StatusApi, StatusApiDeps } from './types';

/** Creates an account's status API client, or undefined when the account has no `api` settings. */
export type StatusApiFactory = (
  account: AccountContext<unknown>,
  deps: StatusApiDeps,
) => StatusApi | undefined;

/**
 * The providers' status API clients, one line per provider that has one. Kept apart from the provider
 * definitions (registry.ts) on purpose: the callback path never calls a provider, and leaving the API
 * clients and their HTTP toolkit out of the callback, buffer-consumer and transaction-initiated
 * bundles saves about 21 KB each (their budget is 500 KB). Only the poller and the management API
 * (check now) import this file.
 */
export const STATUS_API_FACTORIES: Readonly<Record<string, StatusApiFactory>> = {
  momo: createMomoStatusApi as StatusApiFactory,
  airtel: createAirtelStatusApi as StatusApiFactory,
  daraja: createDarajaStatusApi as StatusApiFactory,
};
