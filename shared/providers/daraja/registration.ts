import type { RegistrationRules } from '../types';
import { darajaRouteUrl } from './route-url';
import { DARAJA_KINDS, type DarajaAccountSettings, type DarajaRouteName } from './schema';

/** The route a registration's callbackUrl names, by kind (STK's CallBackURL otherwise). */
const REGISTRATION_ROUTE: Partial<Record<string, DarajaRouteName>> = {
  b2c: 'b2c-result',
  b2b: 'b2b-result',
  c2b: 'c2b-confirmation',
};

const REFERENCE = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}$/;

/** How a Daraja transaction is registered (shared/providers/registration-registry.ts). */
export const darajaRegistration: RegistrationRules<DarajaAccountSettings> = {
  kinds: DARAJA_KINDS,
  validateReference: (reference) =>
    REFERENCE.test(reference)
      ? undefined
      : 'Daraja references are the CheckoutRequestID (stk), OriginatorConversationID (b2c, b2b) or TransID (c2b): letters, digits, _ . : - (max 100)',
  // STK takes one CallBackURL; B2C and B2B a ResultURL (its QueueTimeOutURL is the …/timeout route beside it).
  callbackUrl: ({ baseUrl, account, kind }) =>
    darajaRouteUrl(baseUrl, account.id, account.pathSecret, REGISTRATION_ROUTE[kind] ?? 'stk'),
};
