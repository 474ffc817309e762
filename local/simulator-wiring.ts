/**
 * Points the provider simulator at a running relay, so that the simulator's callbacks land on the relay's
 * configured accounts: used by `npm start -- --simulator`, by `npm run sim` (to find the Airtel app of an
 * account) and by the relay + simulator end-to-end tests.
 *
 * Each provider in the relay's registry (shared/providers/registry.ts) is looked up in the simulator's
 * registry (simulator/relay-wirings.ts), which declares how that provider's simulator is pointed at a relay
 * (simulator/<provider>/relay-wiring.ts: MoMo's callback host, Airtel's apps, Daraja's C2B registrations);
 * a provider the simulator does not play is skipped, with a banner line saying so.
 *
 * - Status APIs (`pointPartnerUrlsAtSimulator`): every account without its own `api` settings gets `api`
 *   settings pointing at the simulator with the simulator's default credentials (its provider's
 *   `apiSettings`), so the relay's reconciliation poller checks status against the simulator. The partner's
 *   side (`npm run sim`) uses the simulator as the provider API too.
 */
import type { RelayConfig, ResolvedAccount } from '../shared/config/schema';
import type { DarajaAccountSettings } from '../shared/providers/daraja/schema';
import { PROVIDERS } from '../shared/providers/registry';
import type { SimulatorOptions } from '../simulator/options';
import {
  accountsOf,
  hidePathSecrets,
  PATH_SECRET_PLACEHOLDER,
  trimSlash,
  type WiredC2bRegistration,
} from '../simulator/relay-wiring';
import { findSimulatorWiring } from '../simulator/relay-wirings';

export { airtelClientIdFor } from '../simulator/airtel/relay-wiring';
export { hidePathSecrets } from '../simulator/relay-wiring';

export const DEFAULT_SIM_PORT = 4010;
/** `npm start`'s port when neither --port nor PORT says otherwise. */
export const DEFAULT_RELAY_PORT = 3000;

export class LocalPortError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LocalPortError';
  }
}

function portFromEnv(name: 'PORT' | 'SIM_PORT', raw: string | undefined, flag: string): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  const port = Number(raw);
  if (port === 0)
    throw new LocalPortError(
      `${name}=0: npm start picked a free port; pass its URL with ${flag} (npm start's banner prints the command)`,
    );
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new LocalPortError(`${name} must be a port number, got "${raw}"`);
  return port;
}

/**
 * Where the scripts that talk to `npm start -- --simulator` find it (`npm run sim`): the `--relay`/`--sim`
 * flag, else the port npm start itself reads (PORT, SIM_PORT) on the host it prints, else the defaults.
 */
export function localRelayAndSimulator(
  flags: { relay?: string; sim?: string },
  env: NodeJS.ProcessEnv = process.env,
): { relayUrl: string; simUrl: string } {
  return {
    relayUrl:
      flags.relay ?? `http://localhost:${portFromEnv('PORT', env.PORT, '--relay') ?? DEFAULT_RELAY_PORT}`,
    simUrl:
      flags.sim ?? `http://127.0.0.1:${portFromEnv('SIM_PORT', env.SIM_PORT, '--sim') ?? DEFAULT_SIM_PORT}`,
  };
}

/** Path prefix of the simulator's own endpoints; a partner URL under it follows the simulator's port. */
const SIM_PATH_PREFIX = '/_sim/';

/**
 * Status API settings that point one account at the simulator at `simUrl`, with the simulator's default
 * credentials: parsed by the provider's schema, so every default (timeouts, rates) is in place. Undefined
 * for a provider the simulator does not play.
 */
export function simulatorApiSettings(
  config: RelayConfig,
  account: ResolvedAccount,
  simUrl: string,
): Record<string, unknown> | undefined {
  return findSimulatorWiring(account.provider)?.apiSettings(config, account, simUrl);
}

/**
 * A copy of the config pointed at the simulator running at `simUrl`: C2B partner URLs on a simulator
 * endpoint (`/_sim/...`, e.g. the demo's `/_sim/never-answers`) follow its port, and every account without
 * its own `api` settings gets status API settings for the simulator (simulatorApiSettings), so the
 * relay's poller checks status against it. An account's own `api` settings are kept as they are.
 */
export function pointPartnerUrlsAtSimulator(config: RelayConfig, simUrl: string): RelayConfig {
  const sim = new URL(simUrl);
  const accounts = new Map<string, ResolvedAccount>();
  for (const [key, account] of config.accounts) {
    let settings = account.settings as Omit<Partial<DarajaAccountSettings>, 'api'> & { api?: unknown };
    const partner = account.provider === 'daraja' ? settings.c2b?.partner : undefined;
    if (partner && new URL(partner.url).pathname.startsWith(SIM_PATH_PREFIX)) {
      const url = new URL(partner.url);
      url.protocol = sim.protocol;
      url.host = sim.host;
      settings = { ...settings, c2b: { ...settings.c2b!, partner: { ...partner, url: url.toString() } } };
    }
    if (settings.api === undefined) {
      const api = simulatorApiSettings(config, account, simUrl);
      if (api) settings = { ...settings, api };
    }
    accounts.set(key, settings === account.settings ? account : { ...account, settings });
  }
  return { ...config, accounts };
}

export interface SimulatorWiring {
  /** Options for `createSimulator`; add port, host, timeScale and log as needed. */
  options: SimulatorOptions;
  /**
   * Runs once the simulator listens: each wired provider's setup, in registry order (Daraja registers its
   * accounts' C2B URLs and turns external validation on). Throws when the simulator refuses a step.
   */
  setup(simUrl: string): Promise<WiredC2bRegistration[]>;
  /** One line per wired account, for a banner. */
  describe(): string[];
}

/** The banner line of a registered provider the simulator does not play, when the config has accounts of it. */
export function noSimulatorLine(providerId: string, accountIds: readonly string[]): string {
  return `${providerId.padEnd(8)} no simulator for this provider: ${accountIds.map((id) => `${providerId}/${id}`).join(', ')} get no simulated callbacks`;
}

/** What the simulator needs so that its callbacks reach the accounts of the relay listening at `relayUrl`. */
export function simulatorWiring(relayUrl: string, config: RelayConfig): SimulatorWiring {
  // Registry order: the banner lists the providers as the registry does.
  const wired = PROVIDERS.map((provider) => {
    const wiring = findSimulatorWiring(provider.id);
    return { id: provider.id, part: wiring?.wire(relayUrl, config) };
  });
  const options: SimulatorOptions = Object.assign({}, ...wired.map((w) => w.part?.options ?? {}));

  async function setup(simUrl: string): Promise<WiredC2bRegistration[]> {
    const done: WiredC2bRegistration[] = [];
    for (const { part } of wired) if (part?.setup) done.push(...(await part.setup(simUrl)));
    return done;
  }

  function describe(): string[] {
    const lines: string[] = [];
    const hide = hidePathSecrets(config);
    for (const { id, part } of wired) {
      if (part) {
        lines.push(...part.describe(hide));
        continue;
      }
      const unplayed = accountsOf(config, id).map((a) => a.id);
      if (unplayed.length) lines.push(noSimulatorLine(id, unplayed));
    }
    const polled = [...config.accounts.values()].filter(
      (a) => (a.settings as { api?: { baseUrl?: string } }).api?.baseUrl,
    );
    if (polled.length) {
      lines.push(
        `Status   the poller asks ${polled.map((a) => `${a.provider}/${a.id} → ${(a.settings as { api: { baseUrl: string } }).api.baseUrl}`).join(', ')}`,
      );
    }
    if ([...config.accounts.values()].some((a) => a.pathSecret)) {
      lines.push(
        `Secrets  ${PATH_SECRET_PLACEHOLDER} stands for the account's path secret: see accounts.<provider>.<id>.pathSecret in the config file`,
      );
    }
    return lines;
  }

  return { options, setup, describe };
}

/**
 * With the simulator, reconciliation runs on simulated business time too: every check delay and window
 * × 0.02 (MoMo's first check after 6 s instead of 5 min, windows of 1.4 h instead of 3 days) and a
 * cycle every second, unless the config chose its own values.
 */
const SIMULATOR_RECONCILE_SCALE = 0.02;

export function withSimulatorReconciliation(config: RelayConfig): RelayConfig {
  const r = config.reconciliation;
  return {
    ...config,
    reconciliation: {
      ...r,
      timeScale: r.timeScale === 1 ? SIMULATOR_RECONCILE_SCALE : r.timeScale,
      pollIntervalSeconds: r.pollIntervalSeconds === 5 ? 1 : r.pollIntervalSeconds,
    },
  };
}

/** The demo shop `npm start -- --simulator` reads: the simulator's badge API (cpbw/v1). */
export const SIMULATOR_BADGE_SHOP = 'demo';

/**
 * With the simulator and no shop configured, the badge feed reads the simulator's badge API as shop
 * `demo`, every 2 s (`npm run sim -- badge create` then shows its event within seconds).
 */
export function withSimulatorBadgeShop(config: RelayConfig, simUrl: string): RelayConfig {
  if (Object.keys(config.badges.shops).length > 0) return config;
  return {
    ...config,
    badges: {
      ...config.badges,
      shops: {
        [SIMULATOR_BADGE_SHOP]: {
          baseUrl: trimSlash(simUrl),
          restPrefix: 'wp-json',
          auth: { type: 'none' },
          pollSeconds: 2,
          timeoutMs: 2_000,
        },
      },
    },
  };
}
