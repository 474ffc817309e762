/**
 * Airtel: one simulator app per relay Airtel account, whose callback URL is that account's callback route,
 * signed with the account's `callbackKey` and a hash recipe the account accepts. Status API: the account's
 * app.
 */
import type { RelayConfig } from '../../shared/config/schema';
import { type AirtelAccountSettings, airtelApiSettingsSchema } from '../../shared/providers/airtel/schema';
import { type AirtelAppSeed, DEFAULTS } from '../options';
import { accountsOf, type ProviderSimulatorWiring, relayRouteUrl, trimSlash } from '../relay-wiring';
import type { AirtelHashRecipe } from './hash';

/** Hash recipes the simulator can sign with, in the order the wiring prefers them. */
const SIM_RECIPES: readonly AirtelHashRecipe[] = [
  'stringify-without-hash',
  'stringify-transaction',
  'raw-without-hash',
  'header-hex',
];

/**
 * The simulator app (client id) that stands for a relay Airtel account: the simulator's default app for
 * the first account, `sim-airtel-<account>` for the others.
 */
export function airtelClientIdFor(config: RelayConfig, accountId: string): string {
  const first = accountsOf(config, 'airtel')[0];
  return !first || first.id === accountId ? DEFAULTS.airtel.apps[0].clientId : `sim-airtel-${accountId}`;
}

/** The secret of an app: the default app's own, `<clientId>-secret` for the others. */
function clientSecretOf(clientId: string): string {
  const defaults = DEFAULTS.airtel.apps[0];
  return clientId === defaults.clientId ? defaults.clientSecret : `${clientId}-secret`;
}

export const airtelSimulatorWiring: ProviderSimulatorWiring = {
  apiSettings(config, account, simUrl) {
    const settings = account.settings as Partial<AirtelAccountSettings>;
    const clientId = airtelClientIdFor(config, account.id);
    return airtelApiSettingsSchema.parse({
      baseUrl: trimSlash(simUrl),
      clientId,
      // The same secret wire() gives the account's app.
      clientSecret: clientSecretOf(clientId),
      country: settings.country ?? 'UG',
      currency: settings.currency ?? 'UGX',
    });
  },
  wire(relayUrl, config) {
    const apps: AirtelAppSeed[] = accountsOf<AirtelAccountSettings>(config, 'airtel').map((account) => {
      const s = account.settings;
      const recipe = SIM_RECIPES.find((r) => s.hashRecipes.includes(r)) ?? 'stringify-without-hash';
      const clientId = airtelClientIdFor(config, account.id);
      return {
        clientId,
        clientSecret: clientSecretOf(clientId),
        callbackUrl: relayRouteUrl(relayUrl, account, 'callback'),
        callbackAuth: s.hashMode !== 'off',
        callbackKey: s.callbackKey ?? DEFAULTS.airtel.apps[0].callbackKey,
        hashRecipe: recipe,
        messageSigning: true,
      };
    });
    return {
      // Without an Airtel account the simulator keeps its default app (callbacks then go nowhere).
      ...(apps.length ? { options: { airtel: { apps } } } : {}),
      describe: (hide) =>
        apps.map(
          (app) => `Airtel   app ${app.clientId} → ${hide(app.callbackUrl ?? '')} (hash ${app.hashRecipe})`,
        ),
    };
  },
};
