import { RelayError, StorageUnavailableError } from '../../domain/errors';
import { buildEvent, correlationIdOf } from '../../domain/events';
import { askPartnerEndpoint } from '../../providers/daraja/c2b-sources';
import {
  C2B_KNOWN_ACCOUNT_NAMESPACE,
  C2B_VALIDATION_NAMESPACE,
  type C2BValidationQuestion,
} from '../../providers/daraja/c2b-question';
import {
  type C2BDecisionSources,
  type C2BOutcome,
  decideC2BValidation as decide,
} from '../../providers/daraja/c2b-validation';
import { type Late, within } from '../../util/deadline';
import { checkReportLimits } from '../transactions/ingest-report';
import type {
  BufferedC2BValidation,
  C2BDecisionFacts,
  Clock,
  FetchLike,
  IngressBuffer,
  ProviderRecord,
  RelayLogger,
  RelayStore,
} from '../ports';
import { type ReceiptDraft, storableHeaders, storeReceipt } from '../callbacks/receipts';
import { sha256Hex } from '../../util/ids';
import { isLate } from '../../util/deadline';
import type { TransactionKey } from '../../domain/transaction';
import type { EventOrigin } from '../../domain/event-envelope';

export interface C2BValidationDeps {
  store: RelayStore;
  clock: Clock;
  log: RelayLogger;
  fetchImpl?: FetchLike;
  /** Takes the receipt and decision when the store cannot, before the answer (docs/ingress-buffer.md). */
  ingressBuffer?: IngressBuffer;
  scrub?: (text: string) => string;
}

/** Time kept back from the decision for the two writes (receipt, decision) that should finish before the answer. */
export function decisionBudgetMs(deadlineMs: number): number {
  return deadlineMs - Math.min(500, Math.floor(deadlineMs / 5));
}

/** Margin between the end of the wait for storage and the deadline, for the answer itself to leave. */
const ANSWER_MARGIN_MS = 50;

function sourcesFor(deps: C2BValidationDeps, question: C2BValidationQuestion): C2BDecisionSources {
  const { key } = question;
  const sources: C2BDecisionSources = {};
  if (question.knownAccounts) {
    sources.knownAccount = async (billRef, signal) => {
      const record = await deps.store.getRecord(
        { provider: key.provider, account: key.account, namespace: C2B_KNOWN_ACCOUNT_NAMESPACE, id: billRef },
        { signal },
      );
      return Boolean(record && record.data.active !== false);
    };
  }
  const partner = question.partner;
  if (partner) {
    sources.partner = (signal) =>
      askPartnerEndpoint(partner, key.account, question.payload, signal, deps.fetchImpl);
  }
  return sources;
}

/** What is recorded of a decision, whether it is written now or applied later from the ingress buffer. */
function decisionFacts(question: C2BValidationQuestion, outcome: C2BOutcome, now: string): C2BDecisionFacts {
  return {
    decision: outcome.decision,
    resultCode: outcome.resultCode,
    rule: outcome.rule,
    detail: outcome.detail,
    deadlineApplied: outcome.deadlineApplied,
    defaultApplied: outcome.defaultApplied,
    sourceError: outcome.sourceError ?? null,
    elapsedMs: outcome.elapsedMs,
    deadlineMs: question.deadlineMs,
    billRefNumber: question.billRefNumber ?? null,
    amount: question.amount ?? null,
    msisdn: question.msisdn ?? null,
    decidedAt: now,
  };
}

/**
 * The decision's provider record, with C2BValidationDecided in its outbox (published once: first writer
 * wins). Its origin is `callback` when written on the callback path, `buffer` when a buffered validation
 * is applied later (like every event of a buffered message; the decision itself was made, and answered,
 * at callback time: `decidedAt` says when). The event id does not depend on the origin.
 */
export function decisionRecord(
  key: TransactionKey,
  facts: C2BDecisionFacts,
  receiptId: string | undefined,
  receivedAt: string,
  origin: Extract<EventOrigin, 'callback' | 'buffer'> = 'callback',
): ProviderRecord {
  const { deadlineMs, decidedAt, ...decided } = facts;
  const data = { ...decided, receiptId: receiptId ?? null, decidedAt };
  const event = buildEvent(
    'C2BValidationDecided',
    correlationIdOf({ key }),
    'c2b-validation',
    origin,
    receivedAt,
    {
      provider: key.provider,
      account: key.account,
      kind: 'c2b',
      reference: key.reference,
      ...data,
      deadlineMs,
      transId: key.reference,
      receivedAt,
    },
  );
  return {
    provider: key.provider,
    account: key.account,
    namespace: C2B_VALIDATION_NAMESPACE,
    id: key.reference,
    createdAt: decidedAt,
    data: {
      ...data,
      // What a later confirmation of the same TransID joins to its transaction (see ingestIntents).
      link: {
        ValidationDecision: data.decision,
        ValidationResultCode: data.resultCode,
        ValidationRule: data.rule,
        ...(receiptId ? { ValidationReceiptId: receiptId } : {}),
      },
      ...(facts.amount ? { expectedAmount: facts.amount } : {}),
    },
    outbox: [event],
  };
}

/**
 * Answers a C2B validation within the account's deadline, end to end. The receipt is stored while the
 * decision is made; the decision (first one per TransID wins: a repeated validation gets the recorded
 * answer) is recorded with C2BValidationDecided. Storage gets what is left of the deadline: when it is
 * slow or down, the decision made in time is answered anyway (the deadline default when the decision
 * itself was late), and the writes finish afterwards in the background; their result is logged either
 * way ("c2b validation stored after the answer" / "… not stored").
 */
export async function decideC2BValidation(
  deps: C2BValidationDeps,
  asked: unknown,
  receipt: ReceiptDraft,
  started: number = performance.now(),
  requestId = 'unknown',
): Promise<{ resultCode: string; repeated: boolean; buffered?: boolean }> {
  // The Daraja route's parse built it (ParsedCallback `decision`, useCase 'c2b-validation').
  const question = asked as C2BValidationQuestion;
  const { store, log, clock } = deps;
  const elapsed = () => performance.now() - started;
  // A TransID that cannot be a storage key is bad input (answered C2B00016), found before any write.
  checkReportLimits({
    key: question.key,
    providerTransactionId: undefined,
    externalId: undefined,
    attributes: undefined,
  });
  const receiptWrite = storeReceipt(store, question.key, receipt);
  // Awaited below; this keeps an early failure from being reported as unhandled meanwhile.
  receiptWrite.catch(() => undefined);

  const outcome = await decide(question.input, question.rules, sourcesFor(deps, question), {
    budgetMs: decisionBudgetMs(question.deadlineMs) - elapsed(),
  });
  const writes = receiptWrite.then(async (stored) =>
    store.putRecordIfAbsent(
      decisionRecord(
        question.key,
        decisionFacts(question, outcome, clock.now().toISOString()),
        stored.receiptId,
        receipt.receivedAt,
      ),
    ),
  );
  const logged = {
    provider: question.key.provider,
    account: question.key.account,
    transId: question.key.reference,
    decision: outcome.decision,
    resultCode: outcome.resultCode,
    rule: outcome.rule,
    deadlineApplied: outcome.deadlineApplied,
    msisdn: question.msisdn,
  };
  // With a buffer, the last moments before the deadline are its: the decision is buffered before the answer.
  const bufferReserveMs = deps.ingressBuffer ? Math.min(400, Math.floor(question.deadlineMs / 10)) : 0;
  let settled: Awaited<typeof writes> | Late | Error;
  try {
    settled = await within(writes, question.deadlineMs - ANSWER_MARGIN_MS - bufferReserveMs - elapsed());
  } catch (error) {
    settled = error as Error;
  }
  // The store refusing the input itself is bad input, not slowness: refused (C2B00016) and quarantined.
  if (settled instanceof RelayError && !(settled instanceof StorageUnavailableError)) throw settled;
  if (settled instanceof Error || 'late' in settled) {
    const why = settled instanceof Error ? settled.message : 'storage did not answer in time';
    const bufferId = await bufferDecision(deps, question, outcome, receipt, why, elapsed, requestId);
    log.error('c2b validation answered before it was stored', {
      ...logged,
      why,
      elapsedMs: Math.round(elapsed()),
      ...(bufferId ? { buffered: true, bufferId } : {}),
    });
    if (!(settled instanceof Error)) {
      writes.then(
        () => log.info('c2b validation stored after the answer', logged),
        (error: Error) => log.error('c2b validation not stored', { ...logged, error: error.message }),
      );
    }
    return { resultCode: outcome.resultCode, repeated: false, ...(bufferId ? { buffered: true } : {}) };
  }
  const standing = settled.record.data;
  log.info('daraja c2b validation answered', {
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
 * answer given before storage is still recorded (and C2BValidationDecided published) later. The
 * answer never depends on it: a failed buffer is logged and the answer goes out as decided.
 */
async function bufferDecision(
  deps: C2BValidationDeps,
  question: C2BValidationQuestion,
  outcome: C2BOutcome,
  receipt: ReceiptDraft,
  why: string,
  elapsed: () => number,
  requestId: string,
): Promise<string | undefined> {
  if (!deps.ingressBuffer) return undefined;
  const scrub = deps.scrub ?? ((text: string) => text);
  const now = deps.clock.now().toISOString();
  const message: BufferedC2BValidation = {
    version: 1,
    kind: 'c2b-validation',
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
    bufferedAt: now,
    why: scrub(why),
    reference: question.key.reference,
    outcome: decisionFacts(question, outcome, now),
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
    deps.log.error('c2b validation not buffered', {
      provider: question.key.provider,
      account: question.key.account,
      transId: question.key.reference,
      error: scrub((error as Error).message),
    });
    return undefined;
  }
}
