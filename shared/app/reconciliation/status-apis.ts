import { accountKey } from '../../config/schema';
import { STATUS_API_FACTORIES } from '../../providers/status-api-registry';
import type { StatusApi } from '../../providers/types';
import type { RelayServices } from '../services';

/**
 * One status API client per account, created on first use and kept (its token cache lives in it) until
 * the account's settings change: a refreshed secret (rotated credentials) brings a new settings object,
 * and with it a new client.
 * Undefined for an account whose provider has no client or which has no `api` settings. Only the
 * poller and the management API import this (status-api-registry.ts says why).
 */
export function statusApiRegistry(
  services: Pick<RelayServices, 'config' | 'log' | 'fetchImpl'>,
): (provider: string, account: string) => StatusApi | undefined {
  const clients = new Map<string, { settings: unknown; client: StatusApi | undefined }>();
  return (providerId, accountId) => {
    const id = accountKey(providerId, accountId);
    const account = services.config.accounts.get(id);
    const cached = clients.get(id);
    if (cached && cached.settings === account?.settings) return cached.client;
    const factory = STATUS_API_FACTORIES[providerId];
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
    clients.set(id, { settings: account?.settings, client });
    return client;
  };
}
