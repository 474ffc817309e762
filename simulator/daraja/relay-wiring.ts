/**
 * Daraja: every account with a `shortCode` gets its C2B validation and confirmation URLs registered through
 * the simulator's own Daraja API (`c2b/v2/registerurl`, ResponseType Completed), as a partner does on the
 * portal, then its external validation turned on (`PUT /_sim/daraja/c2b/{shortCode}`), as the short code's
 * owner must (Daraja API docs: off by default); callbacks come from 196.201.214.200 (X-Forwarded-For), in
 * the default allow-list. Status API: the simulator's consumer key, the sandbox STK passkey, an initiator.
 */
import { darajaRouteUrl } from '../../shared/providers/daraja';
import { type DarajaAccountSettings, darajaApiSettingsSchema } from '../../shared/providers/daraja/schema';
import { DEFAULTS } from '../options';
import {
  accountsOf,
  type ProviderSimulatorWiring,
  trimSlash,
  type WiredC2bRegistration,
} from '../relay-wiring';

/** The Daraja short code the simulator's STK passkey belongs to (the public sandbox's, as `npm run sim` uses). */
const SIM_STK_SHORT_CODE = Object.keys(DEFAULTS.daraja.passkeys)[0]!;
/** Initiator of the simulated transaction status queries (the simulator checks presence, not value). */
const SIM_INITIATOR = 'testapi';
/** The Daraja sandbox's test MSISDN, nominated for the simulator's Pull Transactions registrations. */
const SIM_PULL_NOMINATED_NUMBER = '254708374149';
const SIM_SECURITY_CREDENTIAL = Buffer.from('sim-initiator-credential').toString('base64');

async function register(
  simUrl: string,
  registrations: WiredC2bRegistration[],
): Promise<WiredC2bRegistration[]> {
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

export const darajaSimulatorWiring: ProviderSimulatorWiring = {
  apiSettings(_config, account, simUrl) {
    const settings = account.settings as Partial<DarajaAccountSettings>;
    return darajaApiSettingsSchema.parse({
      baseUrl: trimSlash(simUrl),
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
  },
  wire(relayUrl, config) {
    const all = accountsOf<DarajaAccountSettings>(config, 'daraja');
    const registrations: WiredC2bRegistration[] = all
      .filter((a) => a.settings.shortCode)
      .map((account) => ({
        account: account.id,
        shortCode: account.settings.shortCode!,
        validationUrl: darajaRouteUrl(relayUrl, account.id, account.pathSecret, 'c2b-validation'),
        confirmationUrl: darajaRouteUrl(relayUrl, account.id, account.pathSecret, 'c2b-confirmation'),
      }));
    return {
      setup: (simUrl) => register(simUrl, registrations),
      describe: (hide) => [
        ...registrations.map(
          (r) =>
            `Daraja   C2B short code ${r.shortCode} → daraja/${r.account} (${hide(trimSlash(r.validationUrl)).replace(/\/c2b\/validation$/, '/c2b/…')})`,
        ),
        ...(all.length
          ? [
              `Daraja   STK, B2C and status callbacks go to the URLs in each request; source IP ${DEFAULTS.daraja.callbackSourceIp}`,
            ]
          : []),
      ],
    };
  },
};
