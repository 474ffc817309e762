import { RelayError, StorageUnavailableError } from '../domain/errors';
import { errorResponse, internalErrorResponse, statusFor } from '../http/error-mapping';
import { parseJsonObjectBody, verifyEdge } from '../http/guards';
import { resolveRoute, type RouteKnowledge } from '../http/router';
import { type HttpResponse, type InboundRequest, json } from '../http/types';
import type { C2BValidationQuestion } from '../providers/daraja/c2b-question';
import type { CallbackInput, ProviderAck } from '../providers/types';
import { redactJson } from '../util/redact';
import { decideC2BValidation } from './decide-c2b-validation';
import { sha256Hex } from '../util/ids';
import { isLate, type Late, within } from '../util/deadline';
import {
  authenticationFrom,
  confirmsUnsignedFailure,
  confirmsUnsignedSuccess,
  type IngestBatch,
  type IngestBatchResult,
  ingestIntents,
} from './ingest-report';
import { ackBudgetFor, describeBuffered, IngressBufferUnavailableError } from './ingress-buffer';
import { type BufferedCallback, noMetrics } from './ports';
import { recordRejection } from './quarantine';
import { type ReceiptDraft, storableHeaders } from './receipts';
import type { RelayServices } from './services';

/** An unexpected failure while handling a callback: quarantined like any refusal, answered 500. */
export class UnexpectedCallbackError extends RelayError {
  readonly code = 'INTERNAL_ERROR';
}

/** Set on an ack whose callback went to the ingress buffer (for operators and tests; providers ignore it). */
export const BUFFERED_HEADER = 'x-relay-buffered';

/** How long the ack may still wait for a late buffer, so the answer itself can leave in time. */
const ANSWER_MARGIN_MS = 20;
/** What the store and the buffer get at least, however little of the budget is left (DynamoDB and SQS
 * answer in milliseconds; these only matter after a long cold start). */
const MIN_STORE_MS = 250;
const MIN_BUFFER_MS = 250;

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
  received: InboundRequest,
): Promise<HttpResponse> {
  // The provider's clock started when API Gateway got the request (a cold start included).
  const started = performance.now() - (received.waitedMs ?? 0);
  const known: RouteKnowledge = {};
  const { config, log } = services;
  const metrics = services.metrics ?? noMetrics;
  let buffered = false;
  // Behind CloudFront (edge.mode): the origin header is checked and removed, and a verified request's
  // source IP is the viewer's. A refusal still resolves the route first, so the rejection is recorded
  // against the account it was aimed at (CallbackRejected), whatever else was wrong with it.
  const edge = verifyEdge(config.edge, received);
  const request = edge.request;
  try {
    const resolved = (() => {
      try {
        return resolveRoute(config, request, known);
      } catch (error) {
        throw edge.refusal ?? error;
      }
    })();
    if (edge.refusal) throw edge.refusal;
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
      // Configured secrets too (a path secret a provider echoes under a name nobody foresaw): what is
      // stored or buffered never carries one.
      body: services.scrub(redaction.paths.length ? JSON.stringify(body) : request.rawBody.toString('utf8')),
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
        request.requestId,
      );
      if (answer.buffered) {
        buffered = true;
        metrics.count('CallbacksBuffered', 1, { provider: provider.id });
      }
      ack = provider.ack({
        route: resolved.route.name,
        duplicate: answer.repeated,
        receiptId: undefined,
        resultCode: answer.resultCode,
      });
    } else {
      const batch: IngestBatch = {
        provider: provider.id,
        account: resolved.account.id,
        origin: 'callback',
        receivedAt: receipt.receivedAt,
        authenticated: verification.authenticated,
        authentication: authenticationFrom(facts, verification.authenticated),
        confirmUnsignedSuccess: confirmsUnsignedSuccess(resolved.account.settings),
        confirmUnsignedFailure: confirmsUnsignedFailure(resolved.account.settings),
        intents: result.reports,
        facts: result.facts,
        receipt,
      };
      const stored = await storeOrBuffer(services, batch, started, () => ({
        version: 1,
        kind: 'callback',
        requestId: request.requestId,
        provider: provider.id,
        account: resolved.account.id,
        route: resolved.route.name,
        params: resolved.params,
        method: request.method,
        path: resolved.storedPath,
        headers: storableHeaders(request.headers),
        sourceIp: request.sourceIp,
        receivedAt: receipt.receivedAt,
        body: receipt.body,
        ...(verification.trustedBody ? { trustedBody: trusted } : {}),
        verification: facts,
        authenticated: verification.authenticated,
        confirmUnsignedSuccess: batch.confirmUnsignedSuccess === true,
        rawBodySha256: sha256Hex(request.rawBody),
        bufferedAt: services.clock.now().toISOString(),
        why: '',
      }));
      if (stored.buffered) {
        buffered = true;
        metrics.count('CallbacksBuffered', 1, { provider: provider.id });
      }
      ack = provider.ack({
        route: resolved.route.name,
        duplicate: (stored.result?.receipt?.deliveries ?? 1) > 1,
        receiptId: stored.result?.receipt?.receiptId,
      });
    }
    log.info('callback handled', {
      provider: provider.id,
      account: resolved.account.id,
      route: resolved.route.name,
      statusCode: ack.statusCode,
      ...(buffered ? { buffered } : {}),
    });
    metrics.count('CallbacksReceived', 1, { provider: provider.id, account: resolved.account.id });
    metrics.timing('AckLatency', performance.now() - started, { provider: provider.id });
    const answer = toHttp(ack);
    if (buffered) answer.headers = { ...answer.headers, [BUFFERED_HEADER]: 'true' };
    return answer;
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
    metrics.count('CallbacksRejected', 1, { provider: known.provider?.id ?? 'unknown' });
    await recordRejection(services, request, error, {
      provider: known.provider?.id,
      account: known.account?.id,
      routeName: known.routeName,
      storedPath: known.storedPath,
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
}

/**
 * The direct write under the provider's budget (ackBudgets): the store gets `storeMs` (cut by an
 * AbortSignal when it stalls); when it fails or runs out of time and an ingress buffer is wired, the
 * buffer gets what is left of `ackMs`. The ack goes out only once one of them holds the callback. A
 * write cut by the budget may still land: its buffered copy then dedupes to the same receipt, and the
 * transaction's decision sees a duplicate, so there is still one final event.
 */
async function storeOrBuffer(
  services: RelayServices,
  batch: IngestBatch,
  started: number,
  message: () => BufferedCallback,
): Promise<{ result: IngestBatchResult | undefined; buffered: boolean }> {
  const { config, store, log, ingressBuffer } = services;
  const budget = ackBudgetFor(config, batch.provider);
  const elapsed = () => performance.now() - started;
  // Without a buffer there is nothing better to do with the time: the store gets all of it. Whatever a
  // long wait before the handler (a cold start) left, the store and the buffer each get a minimum: a
  // callback acked late is still kept, where a 503 loses it (MoMo never retries).
  const storeMs = Math.max(
    MIN_STORE_MS,
    (ingressBuffer ? budget.storeMs : budget.ackMs - ANSWER_MARGIN_MS) - elapsed(),
  );
  const abort = new AbortController();
  const direct = ingestIntents(
    { store, clock: services.clock, log, reconciliation: config.reconciliation },
    batch,
    { signal: abort.signal },
  );
  // Awaited below; an abort after the budget must not surface as an unhandled rejection.
  direct.catch(() => undefined);
  let settled: IngestBatchResult | Late | Error;
  try {
    settled = await within(direct, storeMs);
  } catch (error) {
    settled = error as Error;
  }
  if (!(settled instanceof Error) && !isLate(settled)) return { result: settled, buffered: false };
  if (settled instanceof Error && !(settled instanceof StorageUnavailableError)) throw settled;
  const failure =
    settled instanceof Error
      ? settled
      : new StorageUnavailableError(`the store did not answer within ${Math.round(storeMs)} ms`);
  // Cuts the stalled calls (the SDK aborts its requests), so they do not run on after the ack.
  if (isLate(settled)) abort.abort();
  const why = services.scrub(failure.message);
  if (!ingressBuffer) throw failure;
  const draft: BufferedCallback = { ...message(), why };
  const leftMs = Math.max(MIN_BUFFER_MS, budget.ackMs - ANSWER_MARGIN_MS - elapsed());
  let accepted: { id: string } | Late | Error;
  try {
    accepted = await within(
      ingressBuffer.accept(draft, { signal: AbortSignal.timeout(Math.max(1, Math.floor(leftMs))) }),
      leftMs,
    );
  } catch (error) {
    accepted = error as Error;
  }
  if (accepted instanceof Error || isLate(accepted)) {
    const bufferWhy = isLate(accepted) ? `no answer within ${Math.round(leftMs)} ms` : accepted.message;
    throw new IngressBufferUnavailableError(
      `Callback not stored: ${why}, and the ingress buffer failed: ${services.scrub(bufferWhy)}`,
      { cause: isLate(accepted) ? failure : accepted },
    );
  }
  log.warn('callback buffered: the store could not take it', {
    ...describeBuffered(draft),
    why,
    bufferId: accepted.id,
    elapsedMs: Math.round(elapsed()),
  });
  return { result: undefined, buffered: true };
}
