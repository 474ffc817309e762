import { findProvider } from '../providers/registry';
import { createScrubber, type Scrubber } from '../util/redact';
import type { RelayConfig } from './schema';

/** Every secret value the config holds: path secrets, the bearer token, providers' keys and tokens. */
export function configuredSecrets(config: RelayConfig): string[] {
  const secrets: (string | undefined)[] = [config.management.bearerToken];
  for (const account of config.accounts.values()) {
    secrets.push(account.pathSecret);
    secrets.push(...(findProvider(account.provider)?.secrets?.(account.settings as never) ?? []));
  }
  return secrets.filter((s): s is string => typeof s === 'string' && s.length > 0);
}

/** Built once per process: removes every configured secret from messages, logs, events and quarantine. */
export function secretScrubber(config: RelayConfig): Scrubber {
  return createScrubber(configuredSecrets(config));
}
