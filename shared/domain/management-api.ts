import { timingSafeEqual } from 'node:crypto';
import type { RelayConfig } from '../config/schema';
import { errorResponse } from '../http/error-mapping';
import { type HttpResponse, type InboundRequest, json } from '../http/types';
import { sha256Hex } from '../util/ids';
import {
  MethodNotAllowedError,
  RelayError,
  RouteNotFoundError,
  TransactionNotFoundError,
  UnauthorizedError,
} from './errors';
import { getTransaction, type ManagementDeps, registerTransaction } from './management';
import type { RelayLogger } from './ports';
import { recordRejection } from './quarantine';
import { parseJsonObjectBody } from './request-body';

function checkBearer(config: RelayConfig, request: InboundRequest): void {
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

/** POST /v1/transactions and GET /v1/transactions/{provider}/{account}/{reference}. */
export async function handleManagementRequest(
  deps: ManagementDeps & { log: RelayLogger },
  request: InboundRequest,
): Promise<HttpResponse> {
  try {
    const segments = request.path.split('/').filter(Boolean).map(decodeURIComponent);
    if (segments[0] !== 'v1' || segments[1] !== 'transactions')
      throw new RouteNotFoundError(`No route for ${request.path}`);
    if (segments.length === 2) {
      if (request.method !== 'POST') throw new MethodNotAllowedError(['POST'], request.method);
      checkBearer(deps.config, request);
      const body = parseJsonObjectBody(request, deps.config.limits.maxBodyBytes);
      const result = await registerTransaction(deps, body);
      deps.log.info('transaction registered', {
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
      if (request.method !== 'GET') throw new MethodNotAllowedError(['GET'], request.method);
      checkBearer(deps.config, request);
      const [, , provider, account, reference] = segments as [string, string, string, string, string];
      return json(200, await getTransaction(deps, { provider, account, reference }));
    }
    throw new RouteNotFoundError(
      `No route for ${request.path}; use POST /v1/transactions or GET /v1/transactions/{provider}/{account}/{reference}`,
    );
  } catch (error) {
    if (!(error instanceof RelayError)) throw error;
    // Asking for a transaction that does not exist is an answer, not a rejected request.
    if (error instanceof TransactionNotFoundError) return errorResponse(error);
    await recordRejection({ store: deps.store, log: deps.log }, request, error, {
      routeName: 'management',
      emitEvent: false,
    });
    return errorResponse(error);
  }
}
