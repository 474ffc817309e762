import type { ProviderStatements } from '../types';
import type { AirtelAccountSettings } from './schema';

/**
 * How Airtel's records are read (docs/statements.md#matching): the partner-chosen transaction id is the
 * reference, else the externalId names it. Every payment is initiated by the partner: a lone row is a
 * break for a person. A "payment" is a collection; refunds and disbursements pay out.
 */
export const airtelStatements: ProviderStatements<AirtelAccountSettings> = {
  matchKeys: ['idAsReference', 'externalId'],
  moneyInKinds: ['payment'],
};
