import type { ProviderState, SimContext } from '../core/context';
import type { Router } from '../core/router';
import { MomoAuth } from './auth';
import { MomoOperations } from './operations';

export function createMomo(sim: SimContext, router: Router): ProviderState & { auth: MomoAuth } {
  const auth = new MomoAuth(sim);
  const ops = new MomoOperations(sim, auth);
  auth.register(router);
  ops.register(router);
  return {
    auth,
    transactions: () => ops.snapshot(),
    reset: () => {
      ops.reset();
      auth.reset();
    },
  };
}
