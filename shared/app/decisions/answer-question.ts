import { RelayError, StorageUnavailableError } from '../../domain/errors';
import type { DeadlineQuestion, DecisionFacts, DecisionHandler } from '../../providers/types';
import { type Late, isLate, within } from '../../util/deadline';
import { sha256Hex } from '../../util/ids';
import { type ReceiptDraft, storableHeaders, storeReceipt } from '../callbacks/receipts';
import type { BufferedDecision, Clock, FetchLike, IngressBuffer, RelayLogger, CallbackStore } from '../ports';
import { checkReportLimits } from '../transactions/ingest-report';

export interface QuestionDeps {
  store: CallbackStore;
  clock: Clock;
  log: RelayLogger;
  fetchImpl?: FetchLike;
  /** Takes the receipt and decision when the store cannot, before the answer (docs/ingress-buffer.md). */
  ingressBuffer?: IngressBuffer;
  scrub?: (text: string) => string;
}

/** What a provider's question is answered with. */
export interface DecisionAnswer {
  resultCode: string;
  repeated: boolean;
  buffered?: boolean;
}

/** Time kept back from the decision for the two writes (receipt, decision) that should finish before the answer. */
export function decisionBudgetMs(deadlineMs: number): number {
  return deadlineMs - Math.min(500, Math.floor(deadlineMs / 5));
}

/** Margin between the end of the wait for storage and the deadline, for the answer itself to leave. */
const ANSWER_MARGIN_MS = 50;

/**
 * Answers a provider's question within its deadline, end to end (Daraja's C2B validation today). The
 * receipt is stored while the provider's rules decide; the decision (first one per reference wins: a
 * repeated question gets the recorded answer) is recorded through the provider's decision handler, with
 * its event. Storage gets what is left of the deadline: when it is slow or down, the decision made in
 * time is answered anyway (the provider's default when the decision itself was late), handed to the
 * ingress buffer if there is one, and the writes finish afterwards in the background; their result is
 * logged either way ("decision stored after the answer" / "… not stored").
 */
export async function answerQuestion(
  deps: QuestionDeps,
  handler: { useCase: string; decisions: DecisionHandler },
  question: DeadlineQuestion,
  receipt: ReceiptDraft,
  started: number = performance.now(),
  requestId = 'unknown',
): Promise<DecisionAnswer> {
  const { store, log, clock } = deps;
  const { key } = question;
  const elapsed = () => performance.now() - started;
  // A reference that cannot be a storage key is bad input (the provider's refusal), found before any write.
  checkReportLimits({ key, providerTransactionId: undefined, externalId: undefined, attributes: undefined });
  const receiptWrite = storeReceipt(store, key, receipt);
  // Awaited below; this keeps an early failure from being reported as unhandled meanwhile.
  receiptWrite.catch(() => undefined);

  const decided = await question.decide(
    {
      readRecord: (namespace, id, signal) =>
        store.getRecord({ provider: key.provider, account: key.account, namespace, id }, { signal }),
      fetchImpl: deps.fetchImpl,
    },
    decisionBudgetMs(question.deadlineMs) - elapsed(),
  );
  const facts: DecisionFacts = { ...decided, decidedAt: clock.now().toISOString() };
  const writes = receiptWrite.then(async (stored) =>
    store.putRecordIfAbsent(
      handler.decisions.record(key, facts, stored.receiptId, receipt.receivedAt, 'callback'),
    ),
  );
  const logged = {
    provider: key.provider,
    account: key.account,
    ...question.logFields,
    decision: facts.decision,
    resultCode: facts.resultCode,
    ...handler.decisions.logFacts(facts),
  };
  const label = handler.decisions.label;
  // With a buffer, the last moments before the deadline are its: the decision is buffered before the answer.
  const bufferReserveMs = deps.ingressBuffer ? Math.min(400, Math.floor(question.deadlineMs / 10)) : 0;
  let settled: Awaited<typeof writes> | Late | Error;
  try {
    settled = await within(writes, question.deadlineMs - ANSWER_MARGIN_MS - bufferReserveMs - elapsed());
  } catch (error) {
    settled = error as Error;
  }
  // The store refusing the input itself is bad input, not slowness: refused and quarantined.
  if (settled instanceof RelayError && !(settled instanceof StorageUnavailableError)) throw settled;
  if (settled instanceof Error || 'late' in settled) {
    const why = settled instanceof Error ? settled.message : 'storage did not answer in time';
    const bufferId = await bufferDecision(deps, handler, question, facts, receipt, why, elapsed, requestId);
    log.error(`${label} answered before it was stored`, {
      ...logged,
      why,
      elapsedMs: Math.round(elapsed()),
      ...(bufferId ? { buffered: true, bufferId } : {}),
    });
    if (!(settled instanceof Error)) {
      writes.then(
        () => log.info(`${label} stored after the answer`, logged),
        (error: Error) => log.error(`${label} not stored`, { ...logged, error: error.message }),
      );
    }
    return { resultCode: facts.resultCode, repeated: false, ...(bufferId ? { buffered: true } : {}) };
  }
  const standing = settled.record.data;
  log.info(`${key.provider} ${label} answered`, {
    ...logged,
    decision: standing.decision,
    resultCode: standing.resultCode,
    elapsedMs: Math.round(elapsed()),
    repeated: !settled.written,
  });
  return { resultCode: String(standing.resultCode), repeated: !settled.written };
}

/**
 * Hands the receipt and the decision to the ingress buffer within what is left of the deadline, so an
 * answer given before storage is still recorded (and its event published) later. The answer never
 * depends on it: a failed buffer is logged and the answer goes out as decided.
 */
async function bufferDecision(
  deps: QuestionDeps,
  handler: { useCase: string; decisions: DecisionHandler },
  question: DeadlineQuestion,
  facts: DecisionFacts,
  receipt: ReceiptDraft,
  why: string,
  elapsed: () => number,
  requestId: string,
): Promise<string | undefined> {
  if (!deps.ingressBuffer) return undefined;
  const scrub = deps.scrub ?? ((text: string) => text);
  const message: BufferedDecision = {
    version: 1,
    kind: 'decision',
    useCase: handler.useCase,
    requestId,
    provider: question.key.provider,
    account: question.key.account,
    route: receipt.routeName,
    method: receipt.method,
    path: receipt.path,
    headers: storableHeaders(receipt.headers),
    sourceIp: receipt.sourceIp,
    receivedAt: receipt.receivedAt,
    body: receipt.body,
    verification: receipt.verification,
    rawBodySha256: sha256Hex(receipt.rawBody),
    bufferedAt: deps.clock.now().toISOString(),
    why: scrub(why),
    reference: question.key.reference,
    outcome: facts,
  };
  const leftMs = question.deadlineMs - ANSWER_MARGIN_MS - elapsed();
  try {
    const accepted = await within(
      deps.ingressBuffer.accept(message, { signal: AbortSignal.timeout(Math.max(1, Math.floor(leftMs))) }),
      leftMs,
    );
    if (isLate(accepted)) throw new Error(`no answer within ${Math.round(leftMs)} ms`);
    return accepted.id;
  } catch (error) {
    deps.log.error(`${handler.decisions.label} not buffered`, {
      provider: question.key.provider,
      account: question.key.account,
      ...question.logFields,
      error: scrub((error as Error).message),
    });
    return undefined;
  }
}
