import { receiveCallback } from '../../shared/http/callback-endpoint';
import type { CallbackServices } from '../../shared/app/services';
import { httpHandler } from '../../shared/runtime/http-handler';

/** Every provider-facing route (/v1/{provider}/{account}/...): one middy chain, one call into the use case. */
export function createCallbackHandler(services: CallbackServices) {
  return httpHandler(services.log, (request) => receiveCallback(services, request));
}
