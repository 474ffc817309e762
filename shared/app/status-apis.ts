import { accountKey } from '../config/schema';
import { findProvider } from '../providers/registry';
import type { StatusApi } from '../providers/types';
import type { RelayServices } from './services';

/**
 * One status API client per account, created on first use and kept (its token cache lives in it).
 * Undefined for an account whose provider has no client or which has no `api` settings.
 */
export function statusApiRegistry(
  services: Pick<RelayServices, 'config' | 'log' | 'fetchImpl'>,
): (provider: string, account: string) => StatusApi | undefined {
  const clients = new Map<string, StatusApi | undefined>();
  return (providerId, accountId) => {
    const id = accountKey(providerId, accountId);
    if (clients.has(id)) return clients.get(id);
    const provider = findProvider(providerId);
    const account = services.config.accounts.get(id);
    const client =
      provider?.statusApi && account
        ? provider.statusApi(
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
