/**
 * What one provider's simulator declares to be pointed at a running relay (local/simulator-wiring.ts
 * iterates the provider registry and looks each provider up in simulator/relay-wirings.ts), and the
 * helpers the per-provider wirings share. The simulator plays the provider: it reads the relay's config
 * and the provider schemas, never the relay's use cases or wiring.
 */
import type { RelayConfig, ResolvedAccount } from '../shared/config/schema';
import type { SimulatorOptions } from './options';

export interface WiredC2bRegistration {
  account: string;
  shortCode: string;
  validationUrl: string;
  confirmationUrl: string;
}

/** One provider's part of the wiring for the relay at `relayUrl`. */
interface WiredProvider {
  /** Simulator options this provider sets (merged in registry order). */
  options?: SimulatorOptions;
  /** Runs once the simulator listens; throws when the simulator refuses a step. */
  setup?(simUrl: string): Promise<WiredC2bRegistration[]>;
  /** Banner lines, one per wired account. */
  describe(hide: (text: string) => string): string[];
}

export interface ProviderSimulatorWiring {
  /** Status API settings pointing one account at the simulator at `simUrl`, parsed by the provider's schema. */
  apiSettings(config: RelayConfig, account: ResolvedAccount, simUrl: string): Record<string, unknown>;
  wire(relayUrl: string, config: RelayConfig): WiredProvider;
}

export function accountsOf<S>(config: RelayConfig, provider: string): (ResolvedAccount & { settings: S })[] {
  return [...config.accounts.values()].filter((a) => a.provider === provider) as (ResolvedAccount & {
    settings: S;
  })[];
}

export const trimSlash = (url: string) => url.replace(/\/$/, '');

/** The callback route of one relay account, path secret included. */
export function relayRouteUrl(relayUrl: string, account: ResolvedAccount, routePath: string): string {
  return `${trimSlash(relayUrl)}/v1/${account.provider}/${account.id}${account.pathSecret ? `/${account.pathSecret}` : ''}/${routePath}`;
}

/** What a banner or a log line shows instead of a path secret. */
export const PATH_SECRET_PLACEHOLDER = '{pathSecret}';

/**
 * Replaces every account's path secret (raw or percent-encoded) with {pathSecret}: the banner and the
 * simulator's log lines say where a callback goes without printing the secret that authorises it
 * (the secret is in the config file, `accounts.<provider>.<id>.pathSecret`).
 */
export function hidePathSecrets(config: RelayConfig): (text: string) => string {
  const needles = new Set<string>();
  for (const account of config.accounts.values()) {
    if (!account.pathSecret) continue;
    needles.add(account.pathSecret);
    needles.add(encodeURIComponent(account.pathSecret));
  }
  const list = [...needles].sort((a, b) => b.length - a.length);
  return (text) => list.reduce((out, needle) => out.split(needle).join(PATH_SECRET_PLACEHOLDER), text);
}
