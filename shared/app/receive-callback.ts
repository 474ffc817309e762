import { RelayError, StorageUnavailableError } from '../domain/errors';
import { errorResponse, internalErrorResponse, statusFor } from '../http/error-mapping';
import { parseJsonObjectBody } from '../http/guards';
import { resolveRoute, type RouteKnowledge } from '../http/router';
import { type HttpResponse, type InboundRequest, json } from '../http/types';
import type { C2BValidationQuestion } from '../providers/daraja/c2b-question';
import type { CallbackInput, ProviderAck } from '../providers/types';
import { redactJson } from '../util/redact';
import { decideC2BValidation } from './decide-c2b-validation';
import { ingestIntents } from './ingest-report';
import { recordRejection } from './quarantine';
import type { ReceiptDraft } from './receipts';
import type { RelayServices } from './services';

/** An unexpected failure while handling a callback: quarantined like any refusal, answered 500. */
export class UnexpectedCallbackError extends RelayError {
  readonly code = 'INTERNAL_ERROR';
}

function toHttp(ack: ProviderAck): HttpResponse {
  return json(ack.statusCode, ack.body, ack.headers);
}

/**
 * The provider-facing use case: route and path secret, request guards, redaction, the provider's
 * verification and parsing, then the one ingest pipeline (or the C2B decision), and the provider's ack.
 * Every refusal, and every unexpected failure, is quarantined (secrets scrubbed) before the answer.
 */
export async function receiveCallback(
  services: RelayServices,
  request: InboundRequest,
): Promise<HttpResponse> {
  const started = performance.now();
  const known: RouteKnowledge = {};
  const { config, store, log } = services;
  try {
    const resolved = resolveRoute(config, request, known);
    const parsed = parseJsonObjectBody(request, config.limits.maxBodyBytes);
    const redaction = redactJson(parsed);
    const body = redaction.value as Record<string, unknown>;
    const provider = resolved.provider;
    const input: CallbackInput<unknown> = {
      account: resolved.account,
      route: resolved.route.name,
      params: resolved.params,
      body,
      rawBody: request.rawBody,
      headers: request.headers,
      sourceIp: request.sourceIp,
    };
    // Signatures are computed over what was sent, so verification sees the body before redaction.
    const verification = provider.verify?.({ ...input, body: parsed }) ?? { facts: {}, authenticated: false };
    const facts: Record<string, unknown> = {
      pathSecret: resolved.account.pathSecret ? 'verified' : 'not-configured',
      ...verification.facts,
      ...(redaction.paths.length ? { redacted: redaction.paths } : {}),
    };
    if (verification.refusal) throw verification.refusal;
    if (verification.warning) {
      log.warn(verification.warning, {
        provider: provider.id,
        account: resolved.account.id,
        route: resolved.route.name,
        sourceIp: request.sourceIp,
      });
    }
    const trusted = verification.trustedBody
      ? (redactJson(verification.trustedBody).value as Record<string, unknown>)
      : body;
    const result = resolved.route.parse({ ...input, body: trusted });
    const receipt: ReceiptDraft = {
      routeName: resolved.route.name,
      method: request.method,
      path: resolved.storedPath,
      headers: request.headers,
      sourceIp: request.sourceIp,
      body: redaction.paths.length ? JSON.stringify(body) : request.rawBody.toString('utf8'),
      rawBody: request.rawBody,
      receivedAt: request.receivedAt.toISOString(),
      verification: facts,
    };
    let ack: ProviderAck;
    if (result.type === 'decision') {
      const answer = await decideC2BValidation(
        services,
        result.question as C2BValidationQuestion,
        receipt,
        started,
      );
      ack = provider.ack({
        route: resolved.route.name,
        duplicate: answer.repeated,
        receiptId: undefined,
        resultCode: answer.resultCode,
      });
    } else {
      const ingested = await ingestIntents(
        { store, clock: services.clock, log, reconciliation: config.reconciliation },
        {
          provider: provider.id,
          account: resolved.account.id,
          origin: 'callback',
          receivedAt: receipt.receivedAt,
          authenticated: verification.authenticated,
          // Each provider's account schema sets the default (MoMo: on, its callbacks are never signed).
          confirmUnsignedSuccess:
            (resolved.account.settings as { confirmSuccess?: unknown }).confirmSuccess === true,
          intents: result.reports,
          receipt,
        },
      );
      ack = provider.ack({
        route: resolved.route.name,
        duplicate: (ingested.receipt?.deliveries ?? 1) > 1,
        receiptId: ingested.receipt?.receiptId,
      });
    }
    log.info('callback handled', {
      provider: provider.id,
      account: resolved.account.id,
      route: resolved.route.name,
      statusCode: ack.statusCode,
    });
    return toHttp(ack);
  } catch (caught) {
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
    await recordRejection(services, request, error, {
      provider: known.provider?.id,
      account: known.account?.id,
      routeName: known.routeName,
      storedPath: known.storedPath,
      // Unknown providers/accounts are mostly scanners: recorded, but not raised as a security signal.
      emitEvent: Boolean(known.provider && known.account),
      httpStatus,
    });
    if (unexpected) return internalErrorResponse(request.requestId);
    const formatted = known.provider?.formatError?.(error, httpStatus, known.routeName);
    return formatted ? toHttp(formatted) : errorResponse(error, services.scrub);
  }
}
