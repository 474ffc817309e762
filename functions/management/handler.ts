import type { RelayServices } from '../../shared/app/services';
import { handleManagementRequest } from '../../shared/http/management-router';
import { httpHandler } from '../../shared/runtime/http-handler';

/** Partner-facing management API: one middy chain, one call into the router of its use cases. */
export function createManagementHandler(services: RelayServices) {
  return httpHandler(services.log, (request) => handleManagementRequest(services, request));
}
