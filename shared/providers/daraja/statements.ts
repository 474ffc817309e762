import type { ProviderStatements } from '../types';
import type { DarajaAccountSettings } from './schema';

/**
 * How Daraja's records are read (docs/statements.md#matching). M-Pesa runs on Nairobi time. Its receipt
 * (TransID) is a C2B payment's reference and every other payment's receipt alias. A C2B payment can show
 * on the till with no confirmation behind it: the row opens it, keyed by its receipt as the confirmation
 * would be. An STK push whose callback was dropped is settled by the STK query, whose answer carries no
 * receipt, so its row names nothing the relay holds: it is paired by amount, time and payer, not opened.
 */
export const darajaStatements: ProviderStatements<DarajaAccountSettings> = {
  timeZone: 'Africa/Nairobi',
  opensKind: 'c2b',
  pairsKinds: ['stk'],
  matchKeys: ['receiptAlias', 'idAsReference', 'externalId'],
  moneyInKinds: ['stk', 'c2b'],
  /**
   * An account whose STK pushes pay a till of their own (`api.stkShortCode`) while its balance is asked
   * of `api.partyA` (or `shortCode`): its STK payments move another balance.
   */
  balanceLeavesOut(settings) {
    const balanceOf = settings.api?.partyA ?? settings.shortCode;
    const stkPays = settings.api?.stkShortCode ?? settings.shortCode;
    return balanceOf && stkPays && balanceOf !== stkPays ? ['stk'] : [];
  },
};
