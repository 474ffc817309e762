import type { ProviderState, SimContext } from '../core/context';
import type { Router } from '../core/router';
import { MomoAuth } from './auth';
import { MomoDeliveryNotifications } from './delivery-notification';
import { MomoOperations } from './operations';

export function createMomo(sim: SimContext, router: Router): ProviderState & { auth: MomoAuth } {
  const auth = new MomoAuth(sim);
  const ops = new MomoOperations(sim, auth);
  const notifications = new MomoDeliveryNotifications(sim, auth, ops.transactions);
  auth.register(router);
  ops.register(router);
  notifications.register(router);
  return {
    auth,
    transactions: () => ops.snapshot(),
    reset: () => {
      ops.reset();
      notifications.reset();
      auth.reset();
    },
  };
}
