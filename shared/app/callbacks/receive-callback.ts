import { StorageUnavailableError } from '../../domain/errors';
import type { ResolvedAccount } from '../../config/schema';
import type { CallbackInput, ProviderAck, ProviderModule, ProviderRoute } from '../../providers/types';
import { redactJson, scrubbedDeep } from '../../util/redact';
import { idProblem } from '../../util/text';
import { findRegistrationRules } from '../../providers/registration-registry';
import { sha256Hex } from '../../util/ids';
import { isLate, type Late, within } from '../../util/deadline';
import { answerQuestion } from '../decisions/answer-question';
import { decisionHandlerFor } from '../decisions/decisions';
import {
  authenticationFrom,
  confirmationsOf,
  type IngestBatch,
  type IngestBatchResult,
  ingestIntents,
} from '../transactions/ingest-report';
import { ackBudgetFor, describeBuffered, IngressBufferUnavailableError } from '../buffer/ingress-buffer';
import { type BufferedCallback, noMetrics } from '../ports';
import { type ReceiptDraft, storableHeaders } from './receipts';
import { parsedWithoutSecrets } from './secret-guard';
import type { CallbackServices } from '../services';
import { CALLBACKS_BUFFERED_METRIC } from '../../config/metric-names';

/** How long the ack may still wait for a late buffer, so the answer itself can leave in time. */
export const ANSWER_MARGIN_MS = 20;
/** What the store and the buffer get at least, however little of the budget is left (DynamoDB and SQS
 * answer in milliseconds; these only matter after a long cold start). */
const MIN_STORE_MS = 250;
const MIN_BUFFER_MS = 250;

/** A callback the inbound endpoint has routed and parsed: no transport left in it. */
export interface CallbackDelivery {
  requestId: string;
  method: string;
  headers: Record<string, string>;
  rawBody: Buffer;
  sourceIp: string;
  receivedAt: Date;
  provider: ProviderModule<unknown>;
  account: ResolvedAccount;
  route: ProviderRoute<unknown>;
  params: Record<string, string>;
  /** The path with any path secret replaced by {secret}. */
  storedPath: string;
  /** The JSON body as sent (verification sees it before redaction). */
  body: Record<string, unknown>;
  /** When the provider's clock started (performance.now()): the ack budget counts from it. */
  started: number;
  /** Filled on a refusal: the reference the refused body named, for its quarantine entry (and the story). */
  aimedAt?: { reference?: string };
}

/** What the provider is answered: its ack, and whether the callback went to the ingress buffer. */
export interface CallbackOutcome {
  ack: ProviderAck;
  buffered: boolean;
}

/**
 * The provider-facing use case: redaction, the provider's verification and parsing, then the one ingest
 * pipeline (or the provider's decision handler), and the provider's ack. Refusals are thrown as named
 * errors; the inbound endpoint (shared/http/callback-endpoint.ts) records them and answers.
 */
export async function acceptCallback(
  services: CallbackServices,
  delivery: CallbackDelivery,
): Promise<CallbackOutcome> {
  const { log } = services;
  const metrics = services.metrics ?? noMetrics;
  const { provider, account, route, started } = delivery;
  const checked = verifyAndParse(services, delivery);
  const { ack, buffered } =
    checked.result.type === 'decision'
      ? await answerDecision(services, delivery, checked.result, checked.receipt)
      : await ingestCallback(services, delivery, checked, checked.result);
  if (buffered) metrics.count(CALLBACKS_BUFFERED_METRIC, 1, { provider: provider.id });
  // The ack time per provider is read from this line (the dashboard's Logs Insights query), not from a
  // metric series per provider ($0.30 a month each); the alarm watches the function's own duration.
  log.info('callback handled', {
    provider: provider.id,
    account: account.id,
    route: route.name,
    statusCode: ack.statusCode,
    ackedInMs: Math.round(performance.now() - started),
    ...(buffered ? { buffered } : {}),
  });
  // No metric per callback: the provider's silence ticket reads SilentProviders{provider}, written by the
  // poller from the accounts' last-callback records (callback-health.ts), which the store notes here; a
  // count per provider on every callback billed $0.30 a month a series (issue 28). The line above counts.
  return { ack, buffered };
}

type ParseResult = ReturnType<ProviderRoute<unknown>['parse']>;

/** A callback verified and parsed: what the provider's code said about it, and the receipt to keep. */
interface CheckedCallback {
  verification: ReturnType<NonNullable<ProviderModule<unknown>['verify']>>;
  facts: Record<string, unknown>;
  /** The redacted body the parse saw (the provider's trusted body when verification produced one). */
  trusted: Record<string, unknown>;
  result: ParseResult;
  receipt: ReceiptDraft;
}

/** Redaction, the provider's verification (refusals thrown), its parse, and the receipt to keep. */
function verifyAndParse(services: CallbackServices, delivery: CallbackDelivery): CheckedCallback {
  const { provider, account, route } = delivery;
  const parsed = delivery.body;
  const redaction = redactJson(parsed);
  const body = redaction.value as Record<string, unknown>;
  const input: CallbackInput<unknown> = {
    account,
    route: route.name,
    params: delivery.params,
    body,
    rawBody: delivery.rawBody,
    headers: delivery.headers,
    sourceIp: delivery.sourceIp,
  };
  // Signatures are computed over what was sent, so verification sees the body before redaction.
  const verification = provider.verify?.({ ...input, body: parsed }) ?? { facts: {}, authenticated: false };
  const facts: Record<string, unknown> = {
    pathSecret: account.pathSecret ? 'verified' : 'not-configured',
    ...verification.facts,
    ...(redaction.paths.length ? { redacted: redaction.paths } : {}),
  };
  if (verification.refusal) {
    if (delivery.aimedAt) delivery.aimedAt.reference = aimedReference(provider, route, input);
    throw verification.refusal;
  }
  if (verification.warning) {
    services.log.warn(verification.warning, {
      provider: provider.id,
      account: account.id,
      route: route.name,
      sourceIp: delivery.sourceIp,
    });
  }
  const trusted = verification.trustedBody
    ? (redactJson(verification.trustedBody).value as Record<string, unknown>)
    : body;
  const said = route.parse({ ...input, body: trusted });
  const result = parsedWithoutSecrets(said, services.scrub);
  const receipt: ReceiptDraft = {
    routeName: route.name,
    method: delivery.method,
    path: delivery.storedPath,
    headers: delivery.headers,
    sourceIp: delivery.sourceIp,
    // Configured secrets too (a path secret a provider echoes under a name nobody foresaw): what is
    // stored or buffered never carries one.
    body: services.scrub(redaction.paths.length ? JSON.stringify(body) : delivery.rawBody.toString('utf8')),
    rawBody: delivery.rawBody,
    receivedAt: delivery.receivedAt.toISOString(),
    verification: facts,
  };
  return { verification, facts, trusted, result, receipt };
}

/** A question the provider asks (a C2B validation): its decision handler answers, the ack carries it. */
async function answerDecision(
  services: CallbackServices,
  delivery: CallbackDelivery,
  result: Extract<ParseResult, { type: 'decision' }>,
  receipt: ReceiptDraft,
): Promise<CallbackOutcome> {
  const { provider, route } = delivery;
  // The route declares the question it asks (the console reads that to know no fixed ack answered it).
  if (result.useCase !== route.asks)
    throw new Error(
      `${provider.id} route ${route.name} asked ${result.useCase} but declares asks: ${route.asks}`,
    );
  const decisions = decisionHandlerFor(provider.id, result.useCase);
  if (!decisions) throw new Error(`${provider.id} declares no decision handler for ${result.useCase}`);
  const answer = await answerQuestion(
    services,
    { useCase: result.useCase, decisions },
    result.question,
    receipt,
    delivery.started,
    delivery.requestId,
  );
  const ack = provider.ack({
    route: route.name,
    duplicate: answer.repeated,
    receiptId: undefined,
    resultCode: answer.resultCode,
  });
  return { ack, buffered: answer.buffered === true };
}

/** Reports (and facts): the one ingest pipeline, or the ingress buffer when the store cannot answer in time. */
async function ingestCallback(
  services: CallbackServices,
  delivery: CallbackDelivery,
  checked: CheckedCallback,
  result: Exclude<ParseResult, { type: 'decision' }>,
): Promise<CallbackOutcome> {
  const { provider, account, route } = delivery;
  const { verification, facts, receipt } = checked;
  // Replayed from the buffer, the body is parsed again: it carries no secret either (the receipt's is scrubbed).
  const trusted = scrubbedDeep(checked.trusted, services.scrub);
  const batch: IngestBatch = {
    provider: provider.id,
    account: account.id,
    origin: 'callback',
    receivedAt: receipt.receivedAt,
    authenticated: verification.authenticated,
    authentication: authenticationFrom(facts, verification.authenticated),
    ...confirmationsOf(account),
    intents: result.reports,
    facts: result.facts,
    receipt,
  };
  const stored = await storeOrBuffer(services, batch, delivery.started, () => ({
    version: 1,
    kind: 'callback',
    requestId: delivery.requestId,
    provider: provider.id,
    account: account.id,
    route: route.name,
    params: delivery.params,
    method: delivery.method,
    path: delivery.storedPath,
    headers: storableHeaders(delivery.headers),
    sourceIp: delivery.sourceIp,
    receivedAt: receipt.receivedAt,
    body: receipt.body,
    ...(verification.trustedBody ? { trustedBody: trusted } : {}),
    verification: facts,
    authenticated: verification.authenticated,
    confirmUnsignedSuccess: batch.confirmUnsignedSuccess === true,
    rawBodySha256: sha256Hex(delivery.rawBody),
    bufferedAt: services.clock.now().toISOString(),
    why: '',
  }));
  const ack = provider.ack({
    route: route.name,
    duplicate: (stored.result?.receipt?.deliveries ?? 1) > 1,
    receiptId: stored.result?.receipt?.receiptId,
  });
  return { ack, buffered: stored.buffered };
}

/**
 * The direct write under the provider's budget (ackBudgets): the store gets `storeMs` (cut by an
 * AbortSignal when it stalls); when it fails or runs out of time and an ingress buffer is wired, the
 * buffer gets what is left of `ackMs`. The ack goes out only once one of them holds the callback. A
 * write cut by the budget may still land: its buffered copy then dedupes to the same receipt, and the
 * transaction's decision sees a duplicate, so there is still one final event.
 */
async function storeOrBuffer(
  services: CallbackServices,
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
    {
      store,
      clock: services.clock,
      log,
      reconciliation: config.reconciliation,
      hintsPerAccountPerDay: services.limits?.hintsPerAccountPerDay,
    },
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

/**
 * The reference a refused callback's body names, read with the route's own parser: a pointer for a person
 * (the story links the refusal from the transaction it aimed at), never trusted for anything else.
 * Undefined when the body names none or does not parse.
 */
function aimedReference(
  provider: ProviderModule<unknown>,
  route: ProviderRoute<unknown>,
  input: CallbackInput<unknown>,
): string | undefined {
  try {
    const parsed = route.parse(input);
    if (parsed.type !== 'reports') return undefined;
    const intent = parsed.reports[0];
    if (!intent) return undefined;
    const direct = intent.correlate?.length
      ? intent.correlate.find((c) => c.via === 'reference')?.value
      : intent.draft.key.reference;
    if (!direct || idProblem('reference', direct)) return undefined;
    return findRegistrationRules(provider.id)?.normalizeReference?.(direct) ?? direct;
  } catch {
    return undefined;
  }
}
