import type { ProviderStatements } from '../types';
import type { MomoAccountSettings } from './schema';

/**
 * How MoMo's records are read (docs/statements.md#matching). Its financialTransactionId is not a reference
 * the partner chose, so a row is found by its externalId (the lookup entry, else the reference itself).
 * Every payment is initiated by the partner with a reference the statement does not carry: a lone row is
 * a break for a person. Collections bring money in; transfers, deposits, refunds and cash transfers pay out.
 */
export const momoStatements: ProviderStatements<MomoAccountSettings> = {
  matchKeys: ['externalId', 'externalIdAsReference'],
  moneyInKinds: ['requesttopay', 'requesttowithdraw', 'invoice', 'preapproval', 'payment'],
};
