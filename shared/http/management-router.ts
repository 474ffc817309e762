import { timingSafeEqual } from 'node:crypto';
import { getTransaction, receiptPaging } from '../app/transactions/get-transaction';
import { forceCheck, resolveByHand } from '../app/transactions/operate-transaction';
import { noMetrics } from '../app/ports';
import type { ReconcileServices } from '../app/reconciliation/reconcile';
import { reconciliationReport, reportRange } from '../app/reconciliation/reconciliation-report';
import { recordRejection } from '../app/callbacks/quarantine';
import { registerTransaction } from '../app/transactions/register-transaction';
import type { RelayServices } from '../app/services';
import type { RelayConfig } from '../config/schema';
import {
  InvalidReferenceError,
  MethodNotAllowedError,
  ReceiptNotFoundError,
  RelayError,
  RouteNotFoundError,
  StorageUnavailableError,
  TransactionNotFoundError,
  UnauthorizedError,
} from '../domain/errors';
import { countTransactions, listTransactions } from '../app/console/list-transactions';
import { searchTransactions } from '../app/console/search-transactions';
import { receiptBody } from '../app/console/receipt-body';
import { listQuarantine } from '../app/console/list-quarantine';
import { consoleReport } from '../app/console/console-report';
import { callbackHealthView } from '../app/console/account-health';
import { badgeShops } from '../app/console/badge-shops';
import type { TransactionKey } from '../domain/transaction';
import { sha256Hex } from '../util/ids';
import { statementRoute } from './statement-routes';
import { errorResponse, internalErrorResponse, statusFor } from './error-mapping';
import { parseJsonObjectBody } from './guards';
import { type HttpResponse, type InboundRequest, json } from './types';

/** The management API's local authorization (the bearer token); also the local event stream's. */
export function checkBearer(config: RelayConfig, request: Pick<InboundRequest, 'headers'>): void {
  // In the cloud API Gateway authorizes with IAM before the function runs.
  if (config.management.auth !== 'bearer') return;
  const header = request.headers.authorization ?? '';
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  if (!match)
    throw new UnauthorizedError('Missing bearer token: send Authorization: Bearer <token>', {
      challenge: 'Bearer',
    });
  const expected = Buffer.from(sha256Hex(config.management.bearerToken ?? ''), 'hex');
  const given = Buffer.from(sha256Hex(match[1]!), 'hex');
  if (!timingSafeEqual(expected, given))
    throw new UnauthorizedError('Bearer token is not valid', { challenge: 'Bearer error="invalid_token"' });
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new InvalidReferenceError('A path segment is not valid percent-encoding');
  }
}

const ROUTES_HINT =
  'use POST /v1/transactions, GET /v1/transactions/{provider}/{account}/{reference}, POST …/{reference}/check, POST …/{reference}/resolve, GET /v1/reconciliation/report?from=&to=, the statement routes under /v1/statements (docs/statements.md), or the console reads (docs/management-api.md#console-endpoints)';

/**
 * POST /v1/transactions, GET /v1/transactions/{provider}/{account}/{reference}, the operator's
 * POST …/check and …/resolve, and GET /v1/reconciliation/report.
 */
export async function handleManagementRequest(
  services: RelayServices & Partial<Pick<ReconcileServices, 'statusApi' | 'metrics'>>,
  request: InboundRequest,
): Promise<HttpResponse> {
  const deps = { config: services.config, store: services.store, clock: services.clock };
  try {
    const segments = request.path.split('/').filter(Boolean);
    if (
      segments[0] === 'v1' &&
      segments[1] === 'reconciliation' &&
      segments[2] === 'report' &&
      segments.length === 3
    ) {
      if (request.method !== 'GET') throw new MethodNotAllowedError(['GET'], request.method.slice(0, 16));
      checkBearer(services.config, request);
      const range = reportRange({ from: request.query.from, to: request.query.to }, services.clock.now());
      return json(200, await reconciliationReport(services.store, range, request.query.cursor || undefined));
    }
    const consoleAnswer = await consoleRoute(services, request, segments);
    if (consoleAnswer) return consoleAnswer;
    const statementAnswer = await statementRoute(services, request, segments, () =>
      checkBearer(services.config, request),
    );
    if (statementAnswer) return statementAnswer;
    if (segments[0] !== 'v1' || segments[1] !== 'transactions')
      throw new RouteNotFoundError(`No such route; ${ROUTES_HINT}`);
    if (segments.length === 6 && (segments[5] === 'check' || segments[5] === 'resolve')) {
      if (request.method !== 'POST') throw new MethodNotAllowedError(['POST'], request.method.slice(0, 16));
      checkBearer(services.config, request);
      const [provider, account, reference] = segments.slice(2, 5).map(decodeSegment) as [
        string,
        string,
        string,
      ];
      const reconcile: ReconcileServices = {
        ...services,
        statusApi: services.statusApi ?? (() => undefined),
        metrics: services.metrics ?? noMetrics,
      };
      if (segments[5] === 'check')
        return json(200, await forceCheck(reconcile, { provider, account, reference }));
      const body = parseJsonObjectBody(request, services.config.limits.maxBodyBytes);
      return json(200, await resolveByHand(reconcile, { provider, account, reference }, body));
    }
    if (segments.length === 2) {
      if (request.method !== 'POST')
        throw new MethodNotAllowedError(['GET', 'POST'], request.method.slice(0, 16));
      checkBearer(services.config, request);
      const body = parseJsonObjectBody(request, services.config.limits.maxBodyBytes);
      const result = await registerTransaction(deps, body);
      services.log.info('transaction registered', {
        provider: result.transaction.provider,
        account: result.transaction.account,
        reference: result.transaction.reference,
        created: result.created,
      });
      return json(result.created ? 201 : 200, {
        transaction: result.transaction,
        ...(result.callbackUrl ? { callbackUrl: result.callbackUrl } : {}),
      });
    }
    if (segments.length === 5) {
      if (request.method !== 'GET') throw new MethodNotAllowedError(['GET'], request.method.slice(0, 16));
      checkBearer(services.config, request);
      const [provider, account, reference] = segments.slice(2).map(decodeSegment) as [string, string, string];
      return json(
        200,
        await getTransaction(deps, { provider, account, reference }, receiptPaging(request.query)),
      );
    }
    throw new RouteNotFoundError(`No such route; ${ROUTES_HINT}`);
  } catch (caught) {
    // Asking for a transaction (or receipt) that does not exist is an answer, not a rejected request.
    if (caught instanceof TransactionNotFoundError || caught instanceof ReceiptNotFoundError)
      return errorResponse(caught, services.scrub);
    if (caught instanceof StorageUnavailableError) {
      services.log.error('management request failed: storage unavailable', { error: caught.message });
      return errorResponse(caught, services.scrub);
    }
    const unexpected = !(caught instanceof RelayError);
    if (unexpected) services.log.error('unexpected error in the management API', { error: caught as Error });
    const error = unexpected ? new InternalManagementError('Unexpected error', { cause: caught }) : caught;
    await recordRejection(services, request, error, {
      routeName: 'management',
      emitEvent: false,
      httpStatus: unexpected ? 500 : statusFor(error),
    });
    return unexpected ? internalErrorResponse(request.requestId) : errorResponse(error, services.scrub);
  }
}

/** The operator console's reads (docs/management-api.md#console-endpoints); undefined: not one of them. */
async function consoleRoute(
  services: RelayServices,
  request: InboundRequest,
  segments: string[],
): Promise<HttpResponse | undefined> {
  if (segments[0] !== 'v1') return undefined;
  const deps = { config: services.config, store: services.store, clock: services.clock };
  const path = segments.slice(1).join('/');
  const read = (answer: () => Promise<unknown>) => {
    if (request.method !== 'GET') throw new MethodNotAllowedError(['GET'], request.method.slice(0, 16));
    checkBearer(services.config, request);
    return answer().then((body) => json(200, body));
  };
  const query = request.query;
  if (path === 'transactions' && request.method === 'GET') return read(() => listTransactions(deps, query));
  if (path === 'transactions/counts') return read(() => countTransactions(deps, query));
  if (path === 'transactions/search') return read(() => searchTransactions(deps, query));
  if (segments[1] === 'transactions' && segments.length === 7 && segments[5] === 'receipts') {
    const [provider, account, reference, , receiptId] = segments.slice(2).map(decodeSegment) as string[];
    return read(() =>
      receiptBody(services.store, { provider, account, reference } as TransactionKey, receiptId!),
    );
  }
  if (path === 'quarantine') return read(() => listQuarantine(deps, query));
  if (path === 'report') return read(() => consoleReport(deps, query));
  if (path === 'callback-health') return read(() => callbackHealthView(deps));
  if (path === 'badges') return read(() => badgeShops(deps));
  return undefined;
}

class InternalManagementError extends RelayError {
  readonly code = 'INTERNAL_ERROR';
}
