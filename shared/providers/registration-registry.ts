import { findProvider } from './registry';
import type { RegistrationRules } from './types';

/**
 * How a provider's transactions are registered (kinds, reference checks and canonical form, the callback
 * URL handed out): the `registration` its module declares in the registry, nothing listed here.
 */
export function findRegistrationRules(providerId: string): RegistrationRules<unknown> | undefined {
  return findProvider(providerId)?.registration as RegistrationRules<unknown> | undefined;
}
