/**
 * Points the provider simulator at a running relay, so that the simulator's callbacks land on the relay's
 * configured accounts: used by `npm start -- --simulator`, by `npm run sim` (to find the Airtel app of an
 * account) and by the relay + simulator end-to-end tests.
 *
 * - MoMo: the simulator's API user gets `providerCallbackHost` = the host of the relay's public base URL,
 *   so the `X-Callback-Url` the relay hands out at registration is accepted; its target environment and
 *   currency are those of the first MoMo account.
 * - Airtel: one simulator app per relay Airtel account, whose callback URL is that account's callback
 *   route, signed with the account's `callbackKey` and a hash recipe the account accepts.
 * - Daraja: every account with a `shortCode` gets its C2B validation and confirmation URLs registered
 *   through the simulator's own Daraja API (`c2b/v2/registerurl`, ResponseType Completed), as a partner
 *   does on the portal, then its external validation turned on (`PUT /_sim/daraja/c2b/{shortCode}`), as the
 *   short code's owner must (Daraja API docs: off by default); callbacks come from 196.201.214.200
 *   (X-Forwarded-For), in the default allow-list.
 *
 * - Status APIs (`pointPartnerUrlsAtSimulator`): every account without its own `api` settings gets `api`
 *   settings pointing at the simulator with the simulator's default credentials (MoMo API user and
 *   subscription keys, the account's Airtel app, Daraja consumer key, the sandbox STK passkey and an
 *   initiator), so the relay's reconciliation poller checks status against the simulator. The partner's
 *   side (`npm run sim`) uses the simulator as the provider API too.
 */
import type { RelayConfig, ResolvedAccount } from '../shared/config/schema';
import { darajaRouteUrl } from '../shared/providers/daraja';
import { type AirtelAccountSettings, airtelApiSettingsSchema } from '../shared/providers/airtel/schema';
import { type DarajaAccountSettings, darajaApiSettingsSchema } from '../shared/providers/daraja/schema';
import { type MomoAccountSettings, momoApiSettingsSchema } from '../shared/providers/momo/schema';
import type { AirtelHashRecipe } from '../simulator/airtel/hash';
import { type AirtelAppSeed, DEFAULTS, type SimulatorOptions } from '../simulator/options';

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

/** Hash recipes the simulator can sign with, in the order the wiring prefers them. */
const SIM_RECIPES: readonly AirtelHashRecipe[] = [
  'stringify-without-hash',
  'stringify-transaction',
  'raw-without-hash',
  'header-hex',
];

function accountsOf<S>(config: RelayConfig, provider: string): (ResolvedAccount & { settings: S })[] {
  return [...config.accounts.values()].filter((a) => a.provider === provider) as (ResolvedAccount & {
    settings: S;
  })[];
}

const trimSlash = (url: string) => url.replace(/\/$/, '');

/**
 * The simulator app (client id) that stands for a relay Airtel account: the simulator's default app for
 * the first account, `sim-airtel-<account>` for the others.
 */
export function airtelClientIdFor(config: RelayConfig, accountId: string): string {
  const first = accountsOf(config, 'airtel')[0];
  return !first || first.id === accountId ? DEFAULTS.airtel.apps[0].clientId : `sim-airtel-${accountId}`;
}

/** The callback route of one relay account, path secret included. */
function relayRouteUrl(relayUrl: string, account: ResolvedAccount, routePath: string): string {
  return `${trimSlash(relayUrl)}/v1/${account.provider}/${account.id}${account.pathSecret ? `/${account.pathSecret}` : ''}/${routePath}`;
}

/** What a banner or a log line shows instead of a path secret. */
const PATH_SECRET_PLACEHOLDER = '{pathSecret}';

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

/** The Daraja short code the simulator's STK passkey belongs to (the public sandbox's, as `npm run sim` uses). */
const SIM_STK_SHORT_CODE = Object.keys(DEFAULTS.daraja.passkeys)[0]!;
/** Initiator of the simulated transaction status queries (the simulator checks presence, not value). */
const SIM_INITIATOR = 'testapi';
/** The Daraja sandbox's test MSISDN, nominated for the simulator's Pull Transactions registrations. */
const SIM_PULL_NOMINATED_NUMBER = '254708374149';
const SIM_SECURITY_CREDENTIAL = Buffer.from('sim-initiator-credential').toString('base64');

/**
 * Status API settings that point one account at the simulator at `simUrl`, with the simulator's default
 * credentials: parsed by the provider's schema, so every default (timeouts, rates) is in place.
 */
export function simulatorApiSettings(
  config: RelayConfig,
  account: ResolvedAccount,
  simUrl: string,
): Record<string, unknown> | undefined {
  const baseUrl = trimSlash(simUrl);
  switch (account.provider) {
    case 'momo': {
      const user = DEFAULTS.momo.apiUsers[0];
      return momoApiSettingsSchema.parse({
        baseUrl,
        apiUser: user.id,
        apiKey: user.apiKey,
        collectionSubscriptionKey: DEFAULTS.momo.collectionSubscriptionKeys.primary,
        disbursementSubscriptionKey: DEFAULTS.momo.disbursementSubscriptionKeys.primary,
      });
    }
    case 'airtel': {
      const settings = account.settings as Partial<AirtelAccountSettings>;
      const defaults = DEFAULTS.airtel.apps[0];
      const clientId = airtelClientIdFor(config, account.id);
      return airtelApiSettingsSchema.parse({
        baseUrl,
        clientId,
        // The same secret simulatorWiring gives the account's app.
        clientSecret: clientId === defaults.clientId ? defaults.clientSecret : `${clientId}-secret`,
        country: settings.country ?? 'UG',
        currency: settings.currency ?? 'UGX',
      });
    }
    case 'daraja': {
      const settings = account.settings as Partial<DarajaAccountSettings>;
      return darajaApiSettingsSchema.parse({
        baseUrl,
        consumerKey: DEFAULTS.daraja.consumerKey,
        consumerSecret: DEFAULTS.daraja.consumerSecret,
        pathPrefix: '/mpesa',
        passkey: DEFAULTS.daraja.passkeys[SIM_STK_SHORT_CODE as keyof typeof DEFAULTS.daraja.passkeys],
        stkShortCode: SIM_STK_SHORT_CODE,
        initiator: SIM_INITIATOR,
        securityCredential: SIM_SECURITY_CREDENTIAL,
        partyA: settings.shortCode ?? '600638',
        // The real sandbox allows about 5 STK queries a minute; the local simulator has no such limit,
        // and on simulated time (× 0.02) 5 a minute would hold a ledger run for minutes.
        stkQueriesPerMinute: 600,
        // The simulator serves the Pull Transactions API from its books (docs/pull-and-balances.md).
        pull: { nominatedNumber: SIM_PULL_NOMINATED_NUMBER },
      });
    }
    default:
      return undefined;
  }
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

interface WiredC2bRegistration {
  account: string;
  shortCode: string;
  validationUrl: string;
  confirmationUrl: string;
}

export interface SimulatorWiring {
  /** Options for `createSimulator`; add port, host, timeScale and log as needed. */
  options: SimulatorOptions;
  /**
   * Runs once the simulator listens: registers each Daraja account's C2B URLs for its short code through
   * the simulator's Daraja API, exactly as a partner registers them, and turns external validation on for
   * that short code. Throws when a registration is refused.
   */
  setup(simUrl: string): Promise<WiredC2bRegistration[]>;
  /** One line per wired account, for a banner. */
  describe(): string[];
}

/** What the simulator needs so that its callbacks reach the accounts of the relay listening at `relayUrl`. */
export function simulatorWiring(relayUrl: string, config: RelayConfig): SimulatorWiring {
  const momoAccounts = accountsOf<MomoAccountSettings>(config, 'momo');
  const airtelAccounts = accountsOf<AirtelAccountSettings>(config, 'airtel');
  const darajaAccounts = accountsOf<DarajaAccountSettings>(config, 'daraja').filter(
    (a) => a.settings.shortCode,
  );
  const callbackHost = new URL(config.publicBaseUrl).hostname;
  const firstMomo = momoAccounts[0]?.settings;

  const airtelApps: AirtelAppSeed[] = airtelAccounts.map((account) => {
    const s = account.settings;
    const recipe = SIM_RECIPES.find((r) => s.hashRecipes.includes(r)) ?? 'stringify-without-hash';
    const defaults = DEFAULTS.airtel.apps[0];
    const clientId = airtelClientIdFor(config, account.id);
    return {
      clientId,
      clientSecret: clientId === defaults.clientId ? defaults.clientSecret : `${clientId}-secret`,
      callbackUrl: relayRouteUrl(relayUrl, account, 'callback'),
      callbackAuth: s.hashMode !== 'off',
      callbackKey: s.callbackKey ?? defaults.callbackKey,
      hashRecipe: recipe,
      messageSigning: true,
    };
  });

  const options: SimulatorOptions = {
    momo: {
      apiUsers: DEFAULTS.momo.apiUsers.map((u) => ({ ...u, providerCallbackHost: callbackHost })),
      ...(firstMomo?.targetEnvironment ? { targetEnvironment: firstMomo.targetEnvironment } : {}),
      ...(firstMomo?.currency ? { currency: firstMomo.currency } : {}),
    },
    // Without an Airtel account the simulator keeps its default app (callbacks then go nowhere).
    ...(airtelApps.length ? { airtel: { apps: airtelApps } } : {}),
  };

  const registrations: WiredC2bRegistration[] = darajaAccounts.map((account) => ({
    account: account.id,
    shortCode: account.settings.shortCode!,
    validationUrl: darajaRouteUrl(relayUrl, account.id, account.pathSecret, 'c2b-validation'),
    confirmationUrl: darajaRouteUrl(relayUrl, account.id, account.pathSecret, 'c2b-confirmation'),
  }));

  async function setup(simUrl: string): Promise<WiredC2bRegistration[]> {
    if (registrations.length === 0) return [];
    const base = trimSlash(simUrl);
    const basic = Buffer.from(`${DEFAULTS.daraja.consumerKey}:${DEFAULTS.daraja.consumerSecret}`).toString(
      'base64',
    );
    const tokenResponse = await fetch(`${base}/oauth/v1/generate?grant_type=client_credentials`, {
      headers: { authorization: `Basic ${basic}` },
    });
    const token = ((await tokenResponse.json()) as { access_token?: string }).access_token;
    if (!tokenResponse.ok || !token)
      throw new Error(`simulator refused the Daraja token request (HTTP ${tokenResponse.status})`);
    for (const r of registrations) {
      const response = await fetch(`${base}/mpesa/c2b/v2/registerurl`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          ShortCode: r.shortCode,
          ResponseType: 'Completed',
          ConfirmationURL: r.confirmationUrl,
          ValidationURL: r.validationUrl,
        }),
      });
      if (!response.ok) {
        throw new Error(
          `simulator refused the C2B URLs of daraja/${r.account} (HTTP ${response.status}): ${await response.text()}`,
        );
      }
      // External validation is off on a short code until its owner turns it on (Daraja API docs).
      const validation = await fetch(`${base}/_sim/daraja/c2b/${r.shortCode}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ externalValidation: true }),
      });
      if (!validation.ok) {
        throw new Error(
          `simulator refused to turn on C2B validation for daraja/${r.account} (HTTP ${validation.status}): ${await validation.text()}`,
        );
      }
    }
    return registrations;
  }

  function describe(): string[] {
    const lines: string[] = [];
    const hide = hidePathSecrets(config);
    if (momoAccounts.length) {
      lines.push(
        `MoMo     API user ${DEFAULTS.momo.apiUsers[0].id}, providerCallbackHost ${callbackHost}: callbacks go to the X-Callback-Url the relay hands out (momo/${momoAccounts.map((a) => a.id).join(', momo/')})`,
      );
    }
    for (const app of airtelApps) {
      lines.push(`Airtel   app ${app.clientId} → ${hide(app.callbackUrl ?? '')} (hash ${app.hashRecipe})`);
    }
    for (const r of registrations) {
      lines.push(
        `Daraja   C2B short code ${r.shortCode} → daraja/${r.account} (${hide(trimSlash(r.validationUrl)).replace(/\/c2b\/validation$/, '/c2b/…')})`,
      );
    }
    if (darajaAccounts.length || accountsOf(config, 'daraja').length) {
      lines.push(
        `Daraja   STK, B2C and status callbacks go to the URLs in each request; source IP ${DEFAULTS.daraja.callbackSourceIp}`,
      );
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
