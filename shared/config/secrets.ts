import { findProvider } from '../providers/registry';
import { createScrubber, type Scrubber } from '../util/redact';
import type { CallbackConfig, ResolvedAccount } from './callback-config';
import type { RelayConfig } from './schema';

/**
 * Every value read from an account's secrets (`callbackSecretId`, `apiSecretId`), whatever its key: all of them are scrubbed,
 * not only the ones its provider calls secret. Kept beside the account object (not in it) so that
 * logging an account cannot print them a second time.
 */
const secretStoreValues = new WeakMap<ResolvedAccount, readonly string[]>();

/** Records the values an account's settings received from its secret (config loading calls this). */
export function registerSecretValues(account: ResolvedAccount, values: readonly string[]): void {
  secretStoreValues.set(account, [...(secretStoreValues.get(account) ?? []), ...values]);
}

/**
 * A config whose secrets are scrubbed: the whole config, or the callback path's sections (its other
 * sections' secrets, the webhook and badge credentials, are read only by the functions that parse them).
 */
type ScrubbedConfig = CallbackConfig & Partial<Pick<RelayConfig, 'destinations' | 'badges'>>;

/**
 * Every secret value the config holds: path secrets, the bearer token, the edge's origin secrets,
 * providers' keys and tokens, and everything merged in from accounts' secrets.
 */
export function configuredSecrets(config: ScrubbedConfig): string[] {
  const secrets: (string | undefined)[] = [
    config.management.bearerToken,
    config.management.searchKey,
    ...(config.management.tokens ?? []).map((t) => t.token),
    ...(config.edge?.originVerifySecrets ?? []),
  ];
  for (const destination of Object.values(config.destinations ?? {}))
    secrets.push(...destination.signingSecrets);
  for (const { auth } of Object.values(config.badges?.shops ?? {}))
    secrets.push('password' in auth ? auth.password : 'token' in auth ? auth.token : undefined);
  for (const account of config.accounts.values()) {
    secrets.push(account.pathSecret, account.previousPathSecret);
    secrets.push(...(findProvider(account.provider)?.secrets?.(account.settings as never) ?? []));
    secrets.push(...(secretStoreValues.get(account) ?? []));
  }
  return [...new Set(secrets.filter((s): s is string => typeof s === 'string' && s.length > 0))];
}

/**
 * Removes every configured secret from messages, logs, events and quarantine. Built from the values the
 * config holds now: a process whose secrets are refreshed builds it again (shared/runtime/lambda.ts).
 */
export function secretScrubber(config: ScrubbedConfig): Scrubber {
  return createScrubber(configuredSecrets(config));
}
