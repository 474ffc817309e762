/**
 * MoMo: the simulator's API user gets `providerCallbackHost` = the host of the relay's public base URL, so
 * the `X-Callback-Url` the relay hands out at registration is accepted; its target environment and currency
 * are those of the first MoMo account. Status API: the simulator's API user and subscription keys, and the
 * cash transfer's status path the simulator serves.
 */
import type { MomoAccountSettings } from '../../shared/providers/momo/schema';
import { momoApiSettingsSchema } from '../../shared/providers/momo/schema';
import { DEFAULTS } from '../options';
import { accountsOf, type ProviderSimulatorWiring, trimSlash } from '../relay-wiring';

export const momoSimulatorWiring: ProviderSimulatorWiring = {
  apiSettings(_config, _account, simUrl) {
    const user = DEFAULTS.momo.apiUsers[0];
    return momoApiSettingsSchema.parse({
      baseUrl: trimSlash(simUrl),
      apiUser: user.id,
      apiKey: user.apiKey,
      collectionSubscriptionKey: DEFAULTS.momo.collectionSubscriptionKeys.primary,
      disbursementSubscriptionKey: DEFAULTS.momo.disbursementSubscriptionKeys.primary,
      // MoMo's docs give a cash transfer no status GET, so the relay asks none by default and hands an
      // unsigned FAILED to a person (docs/reconciliation.md#verify-before-trusting). The simulator serves
      // one: a deployment that has it configures it the same way.
      paths: { cashtransfer: '/disbursement/v2_0/cashtransfer/{ref}' },
    });
  },
  wire(_relayUrl, config) {
    const accounts = accountsOf<MomoAccountSettings>(config, 'momo');
    const callbackHost = new URL(config.publicBaseUrl).hostname;
    const first = accounts[0]?.settings;
    return {
      // Set with or without a MoMo account, as the simulator's API user must accept the relay's host.
      options: {
        momo: {
          apiUsers: DEFAULTS.momo.apiUsers.map((u) => ({ ...u, providerCallbackHost: callbackHost })),
          ...(first?.targetEnvironment ? { targetEnvironment: first.targetEnvironment } : {}),
          ...(first?.currency ? { currency: first.currency } : {}),
        },
      },
      describe: () =>
        accounts.length
          ? [
              `MoMo     API user ${DEFAULTS.momo.apiUsers[0].id}, providerCallbackHost ${callbackHost}: callbacks go to the X-Callback-Url the relay hands out (momo/${accounts.map((a) => a.id).join(', momo/')})`,
            ]
          : [],
    };
  },
};
