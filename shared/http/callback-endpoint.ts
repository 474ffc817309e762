import { ANSWER_MARGIN_MS, acceptCallback } from '../app/callbacks/receive-callback';
import { ackBudgetFor } from '../app/buffer/ingress-buffer';
import { noMetrics } from '../app/ports';
import { recordRejection } from '../app/callbacks/quarantine';
import type { CallbackServices } from '../app/services';
import { RelayError, StorageUnavailableError } from '../domain/errors';
import type { ProviderAck } from '../providers/types';
import { errorResponse, internalErrorResponse, statusFor } from './error-mapping';
import { parseJsonObjectBody, verifyEdge } from './guards';
import { resolveRoute, type RouteKnowledge } from './router';
import { type HttpResponse, type InboundRequest, json } from './types';
import {
  CALLBACKS_REJECTED_METRIC,
  ORIGIN_VERIFY_REFUSALS_METRIC,
  PREVIOUS_PATH_SECRET_METRIC,
} from '../config/metric-names';

/** An unexpected failure while handling a callback: quarantined like any refusal, answered 500. */
class UnexpectedCallbackError extends RelayError {
  readonly code = 'INTERNAL_ERROR';
}

/** Set on an ack whose callback went to the ingress buffer (for operators and tests; providers ignore it). */
export const BUFFERED_HEADER = 'x-relay-buffered';

function toHttp(ack: ProviderAck): HttpResponse {
  return json(ack.statusCode, ack.body, ack.headers);
}

/**
 * The inbound callback endpoint: edge check, route and path secret, request guards, then the transport-free
 * use case (acceptCallback), and its ack as the provider's HTTP answer. Every refusal, and every
 * unexpected failure, is quarantined (secrets scrubbed) before the answer.
 */
export async function receiveCallback(
  services: CallbackServices,
  received: InboundRequest,
): Promise<HttpResponse> {
  // The provider's clock started when API Gateway got the request (a cold start included).
  const started = performance.now() - (received.waitedMs ?? 0);
  const known: RouteKnowledge = {};
  const { config, log } = services;
  const metrics = services.metrics ?? noMetrics;
  // Behind CloudFront (edge.mode): the origin header is checked and removed, and a verified request's
  // source IP is the viewer's. A refusal still resolves the route first, so the rejection is recorded
  // against the account it was aimed at (CallbackRejected), whatever else was wrong with it.
  const edge = verifyEdge(config.edge, received);
  // Counted apart from CallbacksRejected (whatever the route): the EdgeOutage alarm watches it.
  if (edge.refusal) metrics.count(ORIGIN_VERIFY_REFUSALS_METRIC, 1);
  const request = edge.request;
  const aimedAt: { reference?: string } = {};
  try {
    const resolved = (() => {
      try {
        return resolveRoute(config, request, known);
      } catch (error) {
        throw edge.refusal ?? error;
      }
    })();
    if (edge.refusal) throw edge.refusal;
    if (known.previousPathSecret) {
      // Accepted during a rotation's overlap; the count tells when the old URL has gone quiet.
      const where = { provider: resolved.provider.id, account: resolved.account.id };
      log.warn('callback accepted with the previous path secret: move the provider to the new URL', where);
      metrics.count(PREVIOUS_PATH_SECRET_METRIC, 1, where);
    }
    const body = parseJsonObjectBody(request, config.limits.maxBodyBytes);
    const { ack, buffered } = await acceptCallback(services, {
      requestId: request.requestId,
      method: request.method,
      headers: request.headers,
      rawBody: request.rawBody,
      sourceIp: request.sourceIp,
      receivedAt: request.receivedAt,
      provider: resolved.provider,
      account: resolved.account,
      route: resolved.route,
      params: resolved.params,
      storedPath: resolved.storedPath,
      body,
      started,
      aimedAt,
    });
    const answer = toHttp(ack);
    if (buffered) answer.headers = { ...answer.headers, [BUFFERED_HEADER]: 'true' };
    return answer;
  } catch (caught) {
    return refused(services, request, caught, { known, aimedAt, started });
  }
}

/**
 * A callback that was not taken: a storage outage is answered 503 (not quarantined: nothing was wrong
 * with it); any other refusal, and any unexpected failure, is counted, quarantined and answered.
 */
async function refused(
  services: CallbackServices,
  request: InboundRequest,
  caught: unknown,
  { known, aimedAt, started }: { known: RouteKnowledge; aimedAt: { reference?: string }; started: number },
): Promise<HttpResponse> {
  const { config, log } = services;
  const metrics = services.metrics ?? noMetrics;
  if (caught instanceof StorageUnavailableError) {
    log.error('callback not stored: storage unavailable', {
      error: caught.message,
      path: known.storedPath,
    });
    return errorResponse(caught, services.scrub);
  }
  const unexpected = !(caught instanceof RelayError);
  const error = unexpected
    ? new UnexpectedCallbackError('Unexpected error while handling the callback; it has been logged', {
        cause: caught,
      })
    : caught;
  if (unexpected)
    log.error('unexpected error while handling a callback', {
      error: caught as Error,
      path: known.storedPath,
    });
  const httpStatus = unexpected ? 500 : statusFor(error);
  // One series, no provider dimension: the alarm reads the total, and each refusal's provider is in
  // its quarantined record and CallbackRejected event; a series per provider adds $0.30 a month each.
  metrics.count(CALLBACKS_REJECTED_METRIC);
  await recordRejection(services, request, error, {
    provider: known.provider?.id,
    account: known.account?.id,
    routeName: known.routeName,
    storedPath: known.storedPath,
    refusedPath: known.refusedPath,
    ...(aimedAt.reference ? { reference: aimedAt.reference } : {}),
    // Unknown providers/accounts are mostly scanners: recorded, but not raised as a security signal.
    emitEvent: Boolean(known.provider && known.account),
    httpStatus,
    // A refusal is answered inside the provider's budget too, whatever the quarantine write does.
    budgetMs: known.provider
      ? ackBudgetFor(config, known.provider.id).ackMs - ANSWER_MARGIN_MS - (performance.now() - started)
      : undefined,
  });
  if (unexpected) return internalErrorResponse(request.requestId);
  const formatted = known.provider?.formatError?.(error, httpStatus, known.routeName);
  return formatted ? toHttp(formatted) : errorResponse(error, services.scrub);
}
