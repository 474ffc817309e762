import type { ProviderState, SimContext } from '../core/context';
import type { Router } from '../core/router';
import { MomoAuth } from './auth';
import { MomoConsent } from './consent';
import { MomoDeliveryNotifications } from './delivery-notification';
import { MomoOperations } from './operations';
import { withErrorSpelling } from './spelling';

export function createMomo(sim: SimContext, router: Router): ProviderState & { auth: MomoAuth } {
  const auth = new MomoAuth(sim);
  const ops = new MomoOperations(sim, auth);
  const notifications = new MomoDeliveryNotifications(sim, auth, ops.transactions);
  const consent = new MomoConsent(sim, auth);
  const routes = withErrorSpelling(router, sim.opts.momo.errorSpelling);
  auth.register(routes);
  ops.register(routes);
  notifications.register(routes);
  consent.register(routes);
  return {
    auth,
    transactions: () => ops.snapshot(),
    reset: () => {
      ops.reset();
      notifications.reset();
      consent.reset();
      auth.reset();
    },
  };
}
