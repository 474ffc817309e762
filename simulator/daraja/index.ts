/** Daraja (Daraja API docs), served under the real `/mpesa/...` paths and a neutral `/wallet/...` alias. */
import type { ProviderState, SimContext } from '../core/context';
import type { Router } from '../core/router';
import { registerB2b } from './b2b';
import { registerB2c } from './b2c';
import { registerBalanceReversal } from './balance-reversal';
import { registerC2b } from './c2b';
import { DarajaCore } from './core';
import { registerPull } from './pull';
import { registerStk } from './stk';

export const DARAJA_PREFIXES = ['/mpesa', '/wallet'];

export interface DarajaState extends ProviderState {
  setExternalValidation(shortCode: string, on: boolean): void;
  registrations(): unknown[];
}

export function createDaraja(sim: SimContext, router: Router): DarajaState {
  const core = new DarajaCore(sim);
  router.add('daraja', 'GET', '/oauth/v1/generate', (ctx) => core.generateToken(ctx));
  const stk = registerStk(core, router, DARAJA_PREFIXES);
  const c2b = registerC2b(core, router, DARAJA_PREFIXES);
  const b2c = registerB2c(core, router, DARAJA_PREFIXES);
  const b2b = registerB2b(core, router, DARAJA_PREFIXES);
  const balanceReversal = registerBalanceReversal(core, router, DARAJA_PREFIXES);
  registerPull(core, router, DARAJA_PREFIXES);
  return {
    transactions: () => [
      ...stk.snapshot(),
      ...c2b.snapshot(),
      ...b2c.snapshot(),
      ...b2b.snapshot(),
      ...balanceReversal.snapshot(),
    ],
    reset: () => {
      core.reset();
      stk.reset();
      c2b.reset();
      b2c.reset();
      b2b.reset();
      balanceReversal.reset();
    },
    setExternalValidation: c2b.setExternalValidation,
    registrations: c2b.registrations,
  };
}
