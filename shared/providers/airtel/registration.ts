import type { RegistrationRules } from '../types';
import { AIRTEL_KINDS, type AirtelAccountSettings, airtelReferenceProblem } from './schema';

/** How an Airtel transaction is registered (shared/providers/registration-registry.ts). */
export const airtelRegistration: RegistrationRules<AirtelAccountSettings> = {
  kinds: AIRTEL_KINDS,
  validateReference: airtelReferenceProblem,
  // No callbackUrl: Airtel takes the callback URL from the application settings, not per request.
};
