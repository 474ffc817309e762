import type { ManagementDeps } from '../../shared/domain/management';
import { handleManagementRequest } from '../../shared/domain/management-api';
import type { RelayLogger } from '../../shared/domain/ports';
import { httpHandler } from '../../shared/http/middleware';

/** Partner-facing management API: one middy chain, one call into the domain. */
export function createManagementHandler(deps: ManagementDeps & { log: RelayLogger }) {
  return httpHandler(deps.log, (request) => handleManagementRequest(deps, request));
}
