import type { RelayConfig } from '../../shared/config/schema';
import type { CallbackServices } from '../../shared/domain/callback-services';
import { receiveCallback } from '../../shared/domain/receive-callback';
import { httpHandler } from '../../shared/http/middleware';

/** Every provider-facing route (/v1/{provider}/{account}/...): one middy chain, one call into the domain. */
export function createCallbackHandler(deps: { config: RelayConfig; services: CallbackServices }) {
  return httpHandler(deps.services.log, (request) => receiveCallback(deps, request));
}
