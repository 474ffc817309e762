import { isIP } from 'node:net';
import { InvalidCallbackUrlError } from '../../domain/errors';
import { isUuid } from '../../util/ids';
import type { AccountContext, RegistrationRules } from '../types';
import { MOMO_KINDS, MOMO_SANDBOX_ENVIRONMENT, type MomoAccountSettings } from './schema';

/**
 * The X-Callback-Url the relay hands out, checked as MoMo will check it (MoMo Open API docs, Callback), so a
 * registration fails now with a clear 400 instead of MoMo refusing the request later with 500
 * INVALID_CALLBACK_URL_HOST (or, in production, never calling back over plain http):
 * - the host is a host name, never an IP address;
 * - when the account names its API user's `providerCallbackHost`, the host is that one;
 * - an account whose `targetEnvironment` is not "sandbox" (production) gets https URLs only.
 */
function checkMomoCallbackUrl(url: string, account: AccountContext<MomoAccountSettings>): string {
  const parsed = new URL(url);
  const host = parsed.hostname.toLowerCase();
  const where = `accounts.momo.${account.id}`;
  if (isIP(host.replace(/^\[|\]$/g, ''))) {
    throw new InvalidCallbackUrlError(
      `MoMo refuses a callback URL on an IP address (${host}): publicBaseUrl needs a host name`,
    );
  }
  const expected = account.settings.providerCallbackHost?.toLowerCase();
  if (expected !== undefined && host !== expected) {
    throw new InvalidCallbackUrlError(
      `Callback host ${host} is not ${where}.providerCallbackHost (${expected}): MoMo would refuse it (INVALID_CALLBACK_URL_HOST)`,
    );
  }
  if (account.settings.targetEnvironment !== MOMO_SANDBOX_ENVIRONMENT && parsed.protocol !== 'https:') {
    throw new InvalidCallbackUrlError(
      `${where} is a production account (targetEnvironment "${account.settings.targetEnvironment}"): MoMo calls back over https only; publicBaseUrl needs https`,
    );
  }
  return url;
}

/** How a MoMo transaction is registered (shared/providers/registration-registry.ts). */
export const momoRegistration: RegistrationRules<MomoAccountSettings> = {
  kinds: MOMO_KINDS,
  externalIdAliases: true,
  normalizeReference: (reference) => reference.toLowerCase(),
  validateReference: (reference) =>
    isUuid(reference) ? undefined : 'MoMo references are the X-Reference-Id UUID (version 4) of the request',
  callbackUrl: ({ baseUrl, account, kind, reference }) =>
    checkMomoCallbackUrl(
      `${baseUrl.replace(/\/$/, '')}/v1/momo/${account.id}${account.pathSecret ? `/${account.pathSecret}` : ''}/${kind}/${reference.toLowerCase()}`,
      account,
    ),
};
