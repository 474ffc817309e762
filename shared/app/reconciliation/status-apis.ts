import { accountKey } from '../../config/schema';
import { STATUS_API_FACTORIES } from '../../providers/status-api-registry';
import type { StatusApi } from '../../providers/types';
import type { RelayServices } from '../services';

/**
 * One status API client per account, created on first use and kept (its token cache lives in it).
 * Undefined for an account whose provider has no client or which has no `api` settings. Only the
 * poller and the management API import this (status-api-registry.ts says why).
 */
export function statusApiRegistry(
  services: Pick<RelayServices, 'config' | 'log' | 'fetchImpl'>,
): (provider: string, account: string) => StatusApi | undefined {
  const clients = new Map<string, StatusApi | undefined>();
  return (providerId, accountId) => {
    const id = accountKey(providerId, accountId);
    if (clients.has(id)) return clients.get(id);
    const factory = STATUS_API_FACTORIES[providerId];
    const account = services.config.accounts.get(id);
    const client =
      factory && account
        ? factory(
            {
              provider: providerId,
              id: accountId,
              pathSecret: account.pathSecret,
              settings: account.settings,
            },
            {
              fetch: (services.fetchImpl as typeof fetch | undefined) ?? fetch,
              now: () => Date.now(),
              sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
              log: services.log,
            },
          )
        : undefined;
    clients.set(id, client);
    return client;
  };
}
