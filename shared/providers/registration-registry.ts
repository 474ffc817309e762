import { airtelRegistration } from './airtel/registration';
import { darajaRegistration } from './daraja/registration';
import { momoRegistration } from './momo/registration';
import type { RegistrationRules } from './types';

/**
 * How each provider's transactions are registered: kinds, reference checks and canonical form, the
 * callback URL handed out. Kept apart from the provider definitions (registry.ts), like the status API
 * clients (status-api-registry.ts): only registrations and the operator's look-ups use these rules, so
 * the callback and buffer-consumer bundles leave them out (MoMo's callback URL checks, Daraja's route
 * choice and the reference messages: about 2 KB of the callback bundle). The management API and the
 * transaction-initiated function import this file.
 */
const REGISTRATION_RULES: Readonly<Record<string, RegistrationRules<unknown>>> = {
  momo: momoRegistration as RegistrationRules<unknown>,
  airtel: airtelRegistration as RegistrationRules<unknown>,
  daraja: darajaRegistration as RegistrationRules<unknown>,
};

export function findRegistrationRules(providerId: string): RegistrationRules<unknown> | undefined {
  return Object.hasOwn(REGISTRATION_RULES, providerId) ? REGISTRATION_RULES[providerId] : undefined;
}
