import type { Role } from '../domain/actor';

/**
 * The management API, declared once (docs/management-api.md). Everything else is derived from this table:
 * the management router (shared/http/management-router.ts: which use case answers, the role it needs, the
 * methods a path allows), the IAM routes of the partner API and their grants (infra/relay/api.ts), the
 * console's Cognito API (infra/relay/console.ts) and the paths `npm start` sends to the management
 * function (local/server.ts). Adding a route = a line here and its handler in the router (the compiler
 * asks for it: the router's handlers are a record keyed by `useCase`).
 *
 * - `path`: API Gateway's syntax; a `{name}` is one path segment.
 * - `role`: the least role that may call it (docs/roles-and-audit.md); `what` names the action in a 403.
 * - `partner`: in the partner grant (`grantManagementRoutes(…, { operator: false })`): registering and
 *   reading a transaction. Every route is an IAM route; the operator grant has them all.
 * - `console`: on the console's Cognito API (the routes the console calls; registration never is).
 * - Every route is served by `npm start` (it stands in for both APIs).
 */
export interface ManagementRoute {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly useCase: string;
  readonly role: Role;
  readonly what: string;
  readonly partner: boolean;
  readonly console: boolean;
}

export const MANAGEMENT_ROUTE_TABLE = [
  // Partners register and read their transactions (docs/management-api.md).
  r('POST', '/v1/transactions', 'registerTransaction', 'operator', 'Registering a transaction', {
    partner: true,
  }),
  r(
    'GET',
    '/v1/transactions/{provider}/{account}/{reference}',
    'getTransaction',
    'viewer',
    'Reading a transaction',
    {
      partner: true,
      console: true,
    },
  ),
  // The operator's actions on one transaction.
  r('POST', '/v1/transactions/{provider}/{account}/{reference}/check', 'checkNow', 'operator', 'Check now', {
    console: true,
  }),
  r(
    'POST',
    '/v1/transactions/{provider}/{account}/{reference}/resolve',
    'resolveByHand',
    'operator',
    'Resolving by hand',
    {
      console: true,
    },
  ),
  r('GET', '/v1/reconciliation/report', 'reconciliationReport', 'viewer', 'The reconciliation report', {
    console: true,
  }),
  // The console's reads (docs/management-api.md#console-endpoints); `?format=csv` where a list has it.
  r('GET', '/v1/transactions', 'listTransactions', 'viewer', 'The console', { console: true }),
  r('GET', '/v1/transactions/counts', 'countTransactions', 'viewer', 'The console', { console: true }),
  r('GET', '/v1/transactions/search', 'searchTransactions', 'viewer', 'The console', { console: true }),
  r(
    'GET',
    '/v1/transactions/{provider}/{account}/{reference}/receipts/{receiptId}',
    'receiptBody',
    'viewer',
    'The console',
    {
      console: true,
    },
  ),
  r('GET', '/v1/quarantine', 'listQuarantine', 'viewer', 'The console', { console: true }),
  r('POST', '/v1/quarantine/{id}/accept', 'acceptQuarantined', 'operator', 'Accepting a refused callback', {
    console: true,
  }),
  r(
    'POST',
    '/v1/quarantine/{id}/dismiss',
    'dismissQuarantined',
    'operator',
    'Dismissing a refused callback',
    {
      console: true,
    },
  ),
  r('GET', '/v1/report', 'consoleReport', 'viewer', 'The console', { console: true }),
  r('GET', '/v1/callback-health', 'callbackHealth', 'viewer', 'The console', { console: true }),
  r('GET', '/v1/badges', 'badgeShops', 'viewer', 'The console', { console: true }),
  // The provider's own records (docs/statements.md): an operator uploads and closes days; the console reads them.
  r(
    'POST',
    '/v1/statements/{provider}/{account}/import',
    'importStatement',
    'operator',
    'Importing a statement',
  ),
  r(
    'GET',
    '/v1/statements/{provider}/{account}/days',
    'listStatementDays',
    'viewer',
    'Listing statement days',
    {
      console: true,
    },
  ),
  r(
    'GET',
    '/v1/statements/{provider}/{account}/days/{day}',
    'readStatementDay',
    'viewer',
    'Reading a statement day',
    {
      console: true,
    },
  ),
  r(
    'POST',
    '/v1/statements/{provider}/{account}/days/{day}/close',
    'closeStatementDay',
    'operator',
    'Closing a statement day',
    // The console's Close the day: the one act that retires breaks, in the operator's name.
    { console: true },
  ),
  // Who am I, the four-eyes approvals and the audit log (docs/roles-and-audit.md); IAM callers are admins.
  r('GET', '/v1/me', 'me', 'viewer', 'Signing in', { console: true }),
  r('GET', '/v1/approvals', 'listApprovals', 'viewer', 'The approvals list', { console: true }),
  r('POST', '/v1/approvals/{id}/approve', 'approve', 'admin', 'Approving', { console: true }),
  r('POST', '/v1/approvals/{id}/reject', 'reject', 'admin', 'Rejecting', { console: true }),
  r('GET', '/v1/audit', 'listAudit', 'admin', 'The audit log', { console: true }),
  // Webhook destinations (docs/management-api.md#webhook-destinations): the log, pause, resume, rotate, replay.
  r('GET', '/v1/destinations', 'listDestinations', 'viewer', 'The destinations', { console: true }),
  r('GET', '/v1/destinations/{id}/deliveries', 'destinationDeliveries', 'viewer', 'The delivery log', {
    console: true,
  }),
  r('POST', '/v1/destinations/{id}/pause', 'pauseDestination', 'operator', 'Pausing a destination', {
    console: true,
  }),
  r('POST', '/v1/destinations/{id}/replay', 'replayDeliveries', 'operator', 'Replaying deliveries', {
    console: true,
  }),
  r('POST', '/v1/destinations/{id}/resume', 'resumeDestination', 'operator', 'Resuming a destination', {
    console: true,
  }),
  r('POST', '/v1/destinations/{id}/rotate', 'rotateSecret', 'admin', 'Rotating a signing secret', {
    console: true,
  }),
  r(
    'GET',
    '/v1/transactions/{provider}/{account}/{reference}/deliveries',
    'transactionDeliveries',
    'viewer',
    'A transaction’s deliveries',
    {
      console: true,
    },
  ),
] as const;

/** The name of a route's use case: the router's handlers are keyed by it. */
export type ManagementUseCase = (typeof MANAGEMENT_ROUTE_TABLE)[number]['useCase'];

function r<const M extends ManagementRoute['method'], const U extends string>(
  method: M,
  path: string,
  useCase: U,
  role: Role,
  what: string,
  exposed: { partner?: boolean; console?: boolean } = {},
): ManagementRoute & { method: M; useCase: U } {
  return {
    method,
    path,
    useCase,
    role,
    what,
    partner: exposed.partner ?? false,
    console: exposed.console ?? false,
  };
}

/** A path's segments, empty ones dropped (`/v1/me/` is `/v1/me`, as the router has always read it). */
function pathSegments(path: string): string[] {
  return path.split('/').filter(Boolean);
}

const isParameter = (segment: string) => segment.startsWith('{') && segment.endsWith('}');

/**
 * The routes whose path matches `path` (any method), each with its parameters (raw, not yet decoded).
 * Literal segments win over parameters: `/v1/transactions/counts` is the counts, never a transaction.
 */
export function routesAt(
  path: string,
  table: readonly ManagementRoute[] = MANAGEMENT_ROUTE_TABLE,
): Array<{ route: ManagementRoute; params: Record<string, string> }> {
  const segments = pathSegments(path);
  const found = table.flatMap((route) => {
    const pattern = pathSegments(route.path);
    if (pattern.length !== segments.length) return [];
    const params: Record<string, string> = {};
    for (const [i, part] of pattern.entries()) {
      if (isParameter(part)) params[part.slice(1, -1)] = segments[i]!;
      else if (part !== segments[i]) return [];
    }
    return [{ route, params, literals: pattern.filter((p) => !isParameter(p)).length }];
  });
  const most = Math.max(0, ...found.map((f) => f.literals));
  return found.filter((f) => f.literals === most).map(({ route, params }) => ({ route, params }));
}
