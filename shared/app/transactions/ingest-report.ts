import type { ApplyOutcome } from '../../domain/apply-report';
import type { EventOrigin } from '../../domain/event-envelope';
import { InvalidReferenceError, SchemaValidationError } from '../../domain/errors';
import type { AuthenticationMethod } from '../../domain/evidence';
import {
  heldAsOtherAnswer,
  readStatusQuestion,
  type StatusQuestion,
  unansweredQuestion,
} from '../../domain/status-question';
import type { Money, NormalizedReport, TransactionKey, TransactionRecord } from '../../domain/transaction';
import { accountSecretIds } from '../../config/loader';
import { findProvider } from '../../providers/registry';
import type { ResolvedAccount } from '../../config/schema';
import type { CorrelationCandidate, FactIntent, ReportIntent } from '../../providers/types';
import { RESERVED_MEMBER_NAMES } from '../../util/json-limits';
import { hasControlCharacters, idProblem } from '../../util/text';
import type { Clock, ReceiptResult, RelayLogger, CallbackStore, WriteOptions } from '../ports';
import { type DigestedReceiptDraft, type ReceiptDraft, storeReceipt } from '../callbacks/receipts';
import { type ReconciliationSettings } from '../reconciliation/reconcile-timing';
import { HINTS_PER_ACCOUNT_PER_DAY, RECEIPT_BUDGET, tallyReceipt } from './receipt-budget';
import { writeWithRetry } from './write-with-retry';
import { type DecideOptions, decideReport, decisionContext } from './decide-report';
import { factReceiptKey, heldAnswerRef, placeFacts, recordFacts, unvouched } from './ingest-facts';

export interface IngestDeps {
  store: CallbackStore;
  clock: Clock;
  log: RelayLogger;
  /** Window and first check of transactions a report creates (orphans, C2B payments). */
  reconciliation: ReconciliationSettings;
  /** Unmatched hints an account may take a day. @default HINTS_PER_ACCOUNT_PER_DAY (tests spend a lower one) */
  hintsPerAccountPerDay?: number;
}

const MAX_ATTRIBUTES = 100;
const MAX_ATTRIBUTE_VALUE = 2048;

/** Limits every report meets before storage, whatever its origin: a clear 4xx instead of a storage failure. */
export function checkReportLimits(
  report: Pick<NormalizedReport, 'key' | 'providerTransactionId' | 'externalId' | 'attributes'>,
): void {
  const referenceProblem = idProblem('the reference', report.key.reference);
  if (referenceProblem) throw new InvalidReferenceError(`Report refused: ${referenceProblem}`);
  const problem =
    idProblem('the provider transaction id', report.providerTransactionId) ??
    idProblem('the external id', report.externalId);
  if (problem) throw new SchemaValidationError(`Report refused: ${problem}`);
  const attributes = Object.entries(report.attributes ?? {});
  if (attributes.length > MAX_ATTRIBUTES)
    throw new SchemaValidationError(
      `Report refused: ${attributes.length} parameters; the limit is ${MAX_ATTRIBUTES}`,
    );
  for (const [name, value] of attributes) {
    if (name === '' || name.length > 128 || RESERVED_MEMBER_NAMES.has(name) || hasControlCharacters(name))
      throw new SchemaValidationError(`Report refused: parameter name "${name.slice(0, 40)}" is not allowed`);
    if (value.length > MAX_ATTRIBUTE_VALUE)
      throw new SchemaValidationError(
        `Report refused: parameter ${name} is over ${MAX_ATTRIBUTE_VALUE} characters`,
      );
  }
}

/** What a fact's event may carry (EventBridge takes 256 KB a batch entry): a Daraja balance is a few KB. */
const MAX_FACT_DATA_CHARS = 16_384;

/** A fact's ids become storage keys and its data an event: bounded, printable, before anything is stored. */
function checkFactLimits(fact: FactIntent): void {
  const problem =
    idProblem('the fact id', fact.id) ??
    idProblem('the receipt', fact.receipt) ??
    [...(fact.aliases ?? []), ...(fact.supersededBy ?? []).map((s) => s.id)]
      .map((id) => idProblem('an id', id))
      .find(Boolean);
  if (problem) throw new InvalidReferenceError(`Report refused: ${problem}`);
  const size = JSON.stringify(fact.data).length;
  if (size > MAX_FACT_DATA_CHARS)
    throw new SchemaValidationError(
      `Report refused: its content is ${size} characters; the limit is ${MAX_FACT_DATA_CHARS}`,
    );
}

/**
 * The pipeline every report goes through, whatever its origin (callback, poll, registration, buffer,
 * manual): the pure decision of applyReport under the one write-with-retry loop.
 */
export interface IngestReportOptions extends DecideOptions, WriteOptions {
  /** The report came in a callback stored for the first time: it is counted against the budget. */
  newReceipt?: { receiptId: string; bytes: number };
  /** The transaction as the caller just read it (eventually consistent, as the loop's first read is). */
  initial?: TransactionRecord;
}

export async function ingestReport(
  deps: Pick<IngestDeps, 'store' | 'clock' | 'reconciliation'> & { log?: RelayLogger },
  report: NormalizedReport,
  options: IngestReportOptions = {},
): Promise<ApplyOutcome> {
  checkReportLimits(report);
  const { newReceipt } = options;
  const { outcome, keep } = await writeWithRetry(
    deps.store,
    report.key,
    (current) => {
      const outcome = decideReport(
        current,
        report,
        decisionContext(deps.reconciliation, report, deps.clock.now().toISOString()),
        options,
      );
      const next = outcome.kind === 'write' ? outcome.next : undefined;
      if (!newReceipt) return { next, result: { outcome, keep: true } };
      // Counted in the write the report makes anyway; a report that changes nothing writes the count alone.
      // Kept past the budget: a body that moved the status, or the first to claim its outcome (a held
      // FAILED on an account that confirms failures moves nothing), so a flood of bodies that change
      // nothing never costs the provider's deciding callback its bytes. A few per transaction at most.
      const firstOfItsClaim =
        (report.status === 'SUCCEEDED' || report.status === 'FAILED') &&
        !(current?.evidence ?? []).some((e) => e.claim === report.status);
      const decisive = (next !== undefined && next.status !== current?.status) || firstOfItsClaim;
      const tallied = tallyReceipt(current?.receipts, newReceipt.bytes, RECEIPT_BUDGET, decisive);
      const counted = next ?? (current ? { ...current, outbox: [] } : undefined);
      return {
        next: counted && { ...counted, receipts: tallied.tally },
        result: { outcome, keep: tallied.keep },
      };
    },
    { what: `apply a report to ${report.key.reference}`, signal: options.signal, initial: options.initial },
  );
  if (!keep && newReceipt) await dropOverBudget(deps, report.key, newReceipt, options);
  return outcome;
}

/** A receipt past its transaction's budget keeps its metadata, not its body (receipt-budget.ts). */
async function dropOverBudget(
  deps: { store: CallbackStore; log?: RelayLogger },
  key: TransactionKey,
  newReceipt: { receiptId: string },
  options: WriteOptions,
): Promise<void> {
  await deps.store.dropReceiptBody(key, newReceipt.receiptId, { signal: options.signal });
  deps.log?.warn('callback body not kept: the transaction spent its receipt budget', {
    ...key,
    receiptId: newReceipt.receiptId,
    budget: RECEIPT_BUDGET,
  });
}

/** A receipt no report is applied with (a held reversal's answer), counted in its transaction's budget. */
async function spendReceiptBudget(
  deps: IngestDeps,
  key: TransactionKey,
  newReceipt: { receiptId: string; bytes: number },
  options: WriteOptions,
): Promise<boolean> {
  const keep = await writeWithRetry(
    deps.store,
    key,
    (current) => {
      if (!current) return { result: true };
      const tallied = tallyReceipt(current.receipts, newReceipt.bytes);
      return { next: { ...current, receipts: tallied.tally, outbox: [] }, result: tallied.keep };
    },
    { ...options, what: 'count a receipt' },
  );
  if (!keep) await dropOverBudget(deps, key, newReceipt, options);
  return keep;
}

export const ALIAS_NAMESPACE_PREFIX = 'alias:';

/**
 * The first candidate that names a stored transaction, directly or through an alias. When none does,
 * the first direct candidate (else the first id at all) becomes the reference, and the report records
 * an orphan under it. An alias the poller recorded for its own asynchronous status query also says the
 * report may be that poll's answer (origin `poll`), and what the query asked (`asked`): the ingest
 * compares the answer with it.
 */
export async function resolveCorrelation(
  store: CallbackStore,
  provider: string,
  account: string,
  candidates: readonly CorrelationCandidate[],
  options: { signal?: AbortSignal; consistent?: boolean } = {},
): Promise<
  | {
      reference: string;
      origin?: EventOrigin;
      asked?: StatusQuestion;
      /** The record's query asked about a held reversal (ingest-facts.ts answerHeldReversal). */
      heldReversal?: string;
      matched: boolean;
      transaction?: TransactionRecord;
    }
  | undefined
> {
  const present = candidates.filter((c): c is { via: string; value: string } => Boolean(c.value));
  for (const candidate of present) {
    if (candidate.via === 'reference') {
      if (idProblem('', candidate.value)) continue;
      const transaction = await store.getTransaction(
        { provider, account, reference: candidate.value },
        options,
      );
      // The record read here is handed on, so no caller has to read it again.
      if (transaction) return { reference: candidate.value, matched: true, transaction };
      continue;
    }
    if (idProblem('', candidate.value)) continue;
    const alias = await store.getRecord(
      {
        provider,
        account,
        namespace: `${ALIAS_NAMESPACE_PREFIX}${candidate.via}`,
        id: candidate.value,
      },
      options,
    );
    const reference = alias?.data.reference;
    if (typeof reference === 'string' && alias?.data.ambiguous !== true) {
      const poll = alias?.data.origin === 'poll';
      const asked = poll ? readStatusQuestion(alias.data.asked) : undefined;
      const heldReversal = poll ? alias.data.heldReversal : undefined;
      return {
        reference,
        matched: true,
        ...(poll ? { origin: 'poll' as const } : {}),
        ...(asked ? { asked } : {}),
        ...(typeof heldReversal === 'string' ? { heldReversal } : {}),
      };
    }
  }
  const fallback = (present.find((c) => c.via === 'reference') ?? present[0])?.value;
  return fallback ? { reference: fallback, matched: false } : undefined;
}

/**
 * What a report counts as. Only the stored record of the relay's own query (an alias written with origin
 * `poll` from the ids the provider returned when it accepted the query, with what the query asked) makes a
 * report the answer to that query: nothing a sender writes in the body can. When the body names another
 * reference as the one asked about (ReportIntent.ownQuery) than the record does, or the record says
 * nothing of what was asked (written before records carried it), it is not that answer either: a claim
 * like any callback. Whether the answer answers the question is compared where it is applied.
 */
function placedOrigin(
  intent: ReportIntent,
  resolved: { reference: string; origin?: EventOrigin; asked?: StatusQuestion },
  delivered: EventOrigin,
): EventOrigin {
  if (resolved.origin !== 'poll') return resolved.origin ?? delivered;
  const disagrees = intent.ownQuery !== undefined && intent.ownQuery.reference !== resolved.reference;
  return disagrees || !resolved.asked ? delivered : 'poll';
}

/**
 * Each unmatched hint leaves a record and a receipt nobody asked for. Anyone who can reach the route can
 * send them, so the budget must never cost a genuine callback (MTN's early callback for a payment the
 * partner registers a moment later): past an account's daily budget a hint is still answered, kept and
 * adopted by its registration; only its receipt's body is not kept (its metadata is, counted and dated).
 * Returns whether the hint is within the budget.
 */
async function spendHintBudget(
  deps: IngestDeps,
  batch: IngestBatch,
  options: WriteOptions,
): Promise<boolean> {
  const day = batch.receivedAt.slice(0, 10);
  const limit = deps.hintsPerAccountPerDay ?? HINTS_PER_ACCOUNT_PER_DAY;
  const budget = await deps.store.countRecord(
    { provider: batch.provider, account: batch.account, namespace: 'hint-budget', id: day },
    { limit, at: batch.receivedAt, lifetimeSeconds: 2 * 86_400 },
    options,
  );
  if (budget.counted) return true;
  if (budget.refused === 1)
    deps.log.warn('unmatched hints over budget: their bodies are not kept today', {
      provider: batch.provider,
      account: batch.account,
      day,
      limit,
    });
  return false;
}

/** resolveCorrelation's reference alone. */
export async function resolveReference(
  store: CallbackStore,
  provider: string,
  account: string,
  candidates: readonly CorrelationCandidate[],
): Promise<string | undefined> {
  return (await resolveCorrelation(store, provider, account, candidates))?.reference;
}

export const HINT_NAMESPACE = 'hint:externalId';

/** A hint nobody's registration adopts is gone after a day (a made-up externalId is not kept for long). */
const HINT_LIFETIME_SECONDS = 86_400;

/**
 * A hint with no transaction to name waits in a provider record for the registration that carries its
 * externalId. (A matched hint goes through the one ingest like any report: it is evidence that makes
 * its transaction due for a status check, and never changes a status by itself.)
 */
async function keepHint(
  deps: IngestDeps,
  hint: {
    intent: ReportIntent;
    key: TransactionKey;
    receiptId: string | undefined;
    at: string;
    authentication: AuthenticationMethod[];
  },
  options: WriteOptions,
): Promise<ApplyOutcome> {
  const externalId = hint.intent.draft.externalId;
  if (externalId && !idProblem('', externalId))
    await deps.store.putRecord(
      {
        provider: hint.key.provider,
        account: hint.key.account,
        namespace: HINT_NAMESPACE,
        id: externalId,
        data: {
          receiptId: hint.receiptId ?? null,
          kind: hint.intent.draft.kind,
          status: hint.intent.draft.status,
          at: hint.at,
          // The registration that adopts it records it as evidence (a callback reported on the reference).
          authentication: hint.authentication,
          amount: hint.intent.draft.amount ?? null,
          // What the provider said, as the delivery's own evidence keeps it: the same bytes again after
          // the adoption are then known as the same delivery (no news).
          providerCode:
            hint.intent.draft.said?.providerCode ?? hint.intent.draft.reason?.providerCode ?? null,
          description: hint.intent.draft.said?.description ?? hint.intent.draft.reason?.message ?? null,
        },
        createdAt: deps.clock.now().toISOString(),
        lifetimeSeconds: HINT_LIFETIME_SECONDS,
      },
      options,
    );
  return { kind: 'noop', why: 'hint' };
}

/**
 * Whether an account confirms unsigned successes with the status API (`confirmSuccess`): each provider's
 * account schema sets the default (MoMo: on, its callbacks are never signed).
 */
function confirmsUnsignedSuccess(settings: unknown): boolean {
  return (settings as { confirmSuccess?: unknown } | undefined)?.confirmSuccess === true;
}

/**
 * What a batch of an account's callbacks is confirmed with: derived here once for every builder (a
 * callback on arrival, a recovered one, a buffered one). Unauthenticated failures are checked too where
 * successes are and a status API can check them (a forged failure cannot fail a payment); a status answer
 * nobody here asked for is confirmed wherever the account can be asked. The account can be asked where its settings carry
 * `api` or its API credentials come from a secret (`apiSecretId`): a process that does not read that
 * secret (the callback function in AWS) drops the account's `api` block, yet the poller holds it and asks.
 */
export function confirmationsOf(
  account: ResolvedAccount,
): Pick<
  IngestBatch,
  'confirmUnsignedSuccess' | 'confirmUnsignedFailure' | 'confirmUnaskedAnswers' | 'senderCheck'
> {
  const askable = account.settings.api !== undefined || accountSecretIds(account).api !== undefined;
  const senderCheck = findProvider(account.provider)?.senderCheck;
  const confirmUnsignedSuccess = confirmsUnsignedSuccess(account.settings);
  return {
    confirmUnsignedSuccess,
    confirmUnsignedFailure: confirmUnsignedSuccess && askable,
    confirmUnaskedAnswers: askable,
    // The provider's own sender check, if it declares one (ProviderModule.senderCheck).
    ...(senderCheck ? { senderCheck } : {}),
  };
}

/** The checks a callback passed on arrival, from its receipt's verification facts. */
export function authenticationFrom(facts: Record<string, unknown>, signed: boolean): AuthenticationMethod[] {
  const methods: AuthenticationMethod[] = [];
  if (signed) methods.push('signature');
  if (facts.pathSecret === 'verified') methods.push('path-secret');
  const sourceIp = facts.sourceIp as { verdict?: unknown } | undefined;
  if (sourceIp?.verdict === 'allowed') methods.push('source-ip');
  return methods;
}

export interface IngestBatch {
  provider: string;
  account: string;
  origin: EventOrigin;
  receivedAt: string;
  /** The body was authenticated end to end (see NormalizedReport.authenticated). */
  authenticated: boolean;
  /** The account confirms unsigned successes with the status API (see NormalizedReport.needsConfirmation). */
  confirmUnsignedSuccess?: boolean;
  /** …and unsigned failures (see NormalizedReport.confirmFailure). */
  confirmUnsignedFailure?: boolean;
  /** The account has a status API: a status answer nobody here asked for is confirmed with it (answersQuery). */
  confirmUnaskedAnswers?: boolean;
  /** The checks the delivery passed on arrival (path secret, source IP, signature): its evidence. */
  authentication?: AuthenticationMethod[];
  /**
   * The check that alone vouches for the account's unsigned sender (Daraja: `source-ip`). A delivery that
   * did not pass it (a log-only miss, the list off) is an unauthenticated callback: its success is
   * confirmed like one the account confirms (`confirmUnsignedSuccess`), and so is its failure where the
   * account can be asked.
   */
  senderCheck?: AuthenticationMethod;
  intents: readonly ReportIntent[];
  /** Facts the delivery states beside its reports (a reversal, a balance): one event each, once. */
  facts?: readonly FactIntent[];
  /** Store the bytes that carried the reports first (callbacks, buffered callbacks). */
  receipt?: ReceiptDraft | DigestedReceiptDraft;
}

export interface IngestBatchResult {
  receipt: ReceiptResult | undefined;
  outcomes: ApplyOutcome[];
  /** Facts newly recorded (0 for a repeated delivery). */
  factsRecorded?: number;
}

function linkedAttributes(data: Record<string, unknown> | undefined): Record<string, string> {
  const link = data?.link;
  if (!link || typeof link !== 'object') return {};
  return Object.fromEntries(
    Object.entries(link).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
}

function expectedAmount(data: Record<string, unknown> | undefined): Money | undefined {
  const amount = data?.expectedAmount as Money | undefined;
  return amount && typeof amount.value === 'string' ? amount : undefined;
}

/**
 * The transaction the same payment was already published under (ReportIntent.samePaymentAs): another one,
 * nobody registered it (born from a report, e.g. a C2B confirmation), SUCCEEDED, same provider
 * transaction id.
 */
async function samePaymentRecordedAs(
  store: CallbackStore,
  key: TransactionKey,
  providerTransactionId: string,
  candidates: readonly CorrelationCandidate[],
  options: WriteOptions,
): Promise<(TransactionKey & { kind: string }) | undefined> {
  for (const candidate of candidates) {
    if (candidate.via !== 'reference' || !candidate.value || candidate.value === key.reference) continue;
    if (idProblem('', candidate.value)) continue;
    const other = await store.getTransaction({ ...key, reference: candidate.value }, options);
    if (
      other &&
      !other.registered &&
      other.status === 'SUCCEEDED' &&
      other.providerTransactionId === providerTransactionId
    )
      return { ...other.key, kind: other.kind };
  }
  return undefined;
}

/** A report of the delivery, placed: the transaction it is about, and how it was found. */
interface PlacedIntent {
  intent: ReportIntent;
  key: TransactionKey;
  origin: EventOrigin;
  matched: boolean;
  asked?: StatusQuestion;
  /** Placed through the record of the relay's query about this held reversal of the payment. */
  heldReversal?: string;
}

/** Finds each report's transaction (or files an unmatched hint apart), its limits checked. */
async function placeIntents(
  store: CallbackStore,
  batch: IngestBatch,
  options: WriteOptions,
): Promise<PlacedIntent[]> {
  const placed: PlacedIntent[] = [];
  for (const intent of batch.intents) {
    const resolved = intent.correlate
      ? await resolveCorrelation(store, batch.provider, batch.account, intent.correlate, options)
      : { reference: intent.draft.key.reference, matched: true };
    if (!resolved?.reference)
      throw new SchemaValidationError('The callback carries no id to correlate it with');
    // An unmatched hint's externalId is not a reference: its receipt is filed apart, so an externalId
    // equal to some transaction's reference never lands in that transaction's history.
    const reference =
      intent.hint && !resolved.matched ? `externalId:${resolved.reference}` : resolved.reference;
    const key = { provider: batch.provider, account: batch.account, reference };
    checkReportLimits({ ...intent.draft, key });
    const origin = placedOrigin(intent, resolved, batch.origin);
    placed.push({
      intent,
      key,
      origin,
      matched: resolved.matched,
      ...(origin === 'poll' && resolved.asked ? { asked: resolved.asked } : {}),
      ...(origin === 'poll' && resolved.heldReversal ? { heldReversal: resolved.heldReversal } : {}),
    });
  }
  return placed;
}

/**
 * Stores the delivery's bytes under its first report's transaction (else its first fact's); a hint over
 * its budget keeps no body.
 */
async function storeBatchReceipt(
  store: CallbackStore,
  batch: IngestBatch,
  receiptKey: TransactionKey | undefined,
  hintOverBudget: boolean,
  options: WriteOptions,
): Promise<ReceiptResult | undefined> {
  const receipt =
    batch.receipt && receiptKey ? await storeReceipt(store, receiptKey, batch.receipt, options) : undefined;
  if (receipt && receiptKey && hintOverBudget && receipt.deliveries === 1)
    await store.dropReceiptBody(receiptKey, receipt.receiptId, options);
  return receipt;
}

/** What applying each placed report needs: the delivery, and the receipt stored for it. */
interface IntentApplying {
  deps: IngestDeps;
  batch: IngestBatch;
  options: WriteOptions;
  receipt: ReceiptResult | undefined;
  /** The key the receipt was stored under: the very object of the placed report it belongs to. */
  receiptKey: TransactionKey | undefined;
  /** The receipt was stored for the first time: it counts against its transaction's budget. */
  newReceipt: { receiptId: string; bytes: number } | undefined;
}

/** A hint no transaction matched: kept, then applied after all if a registration matched it meanwhile. */
async function applyUnmatchedHint(
  { deps, batch, options, receipt }: IntentApplying,
  { intent, key }: PlacedIntent,
): Promise<ApplyOutcome[]> {
  const { store } = deps;
  const kept = await keepHint(
    deps,
    {
      intent,
      key,
      receiptId: receipt?.receiptId,
      at: batch.receivedAt,
      authentication: batch.authentication ?? [],
    },
    options,
  );
  // A registration may have written its externalId alias between our lookup and the hint: it read
  // no hint then, so we look again (consistent read) and, found now, the hint is applied as matched.
  const late = intent.correlate
    ? await resolveCorrelation(store, batch.provider, batch.account, intent.correlate, {
        ...options,
        consistent: true,
      })
    : undefined;
  if (!late?.matched) return [kept];
  const applied = await ingestReport(deps, {
    ...intent.draft,
    key: { ...key, reference: late.reference },
    receivedAt: batch.receivedAt,
    origin: batch.origin,
    receiptId: receipt?.receiptId,
    authenticated: batch.authenticated,
    ...(batch.authentication ? { authentication: batch.authentication } : {}),
    hint: true,
  });
  return [kept, applied];
}

/**
 * The report as applied: found through the record the relay wrote of its own status query (an answer
 * to it, or to another question), or a callback's claim.
 */
function reportOf(
  { batch, receipt }: IntentApplying,
  { intent, key, origin: placedAs, asked }: PlacedIntent,
  link: Record<string, string>,
  viaRecord: boolean,
): {
  report: NormalizedReport;
  draft: ReportIntent['draft'];
  ownQuery: boolean;
  mismatch: ReturnType<typeof unansweredQuestion>;
} {
  // A final answer is the provider's answer to the relay only when it answers the question the record
  // says was asked (same receipt / OriginatorConversationID): else it is about another transaction, a
  // claim held AMBIGUOUS with the disagreement on record. Compared here, where every process applies it
  // (the callback function in AWS holds no key to verify the query's Occasion token).
  const mismatch = viaRecord ? unansweredQuestion(asked ?? {}, intent.answersAbout) : undefined;
  // The answer to the relay's own status query: a status answer, not a callback claim.
  const ownQuery = viaRecord && !mismatch;
  const origin = mismatch ? batch.origin : placedAs;
  const draft = mismatch ? heldAsOtherAnswer(intent.draft, mismatch, key.reference) : intent.draft;
  // A status answer that did not come through that record: nobody here asked it (or it beat the record).
  const unasked = intent.answersQuery === true && !ownQuery && batch.confirmUnaskedAnswers === true;
  const unchecked = unvouched(batch);
  const report: NormalizedReport = {
    ...draft,
    key,
    attributes: { ...draft.attributes, ...link },
    receivedAt: batch.receivedAt,
    origin,
    receiptId: receipt?.receiptId,
    authenticated: batch.authenticated || ownQuery,
    ...(batch.authentication ? { authentication: batch.authentication } : {}),
    ...((batch.confirmUnsignedSuccess || unasked || unchecked) && !ownQuery
      ? { needsConfirmation: true }
      : {}),
    ...((batch.confirmUnsignedFailure || unasked || (unchecked && batch.confirmUnaskedAnswers)) && !ownQuery
      ? { confirmFailure: true }
      : {}),
    ...(ownQuery ? { viaOwnQuery: true } : {}),
    ...(intent.hint ? { hint: true } : {}),
  };
  return { report, draft, ownQuery, mismatch };
}

/** The ids a report taught, each pointing to its transaction; a failed write is logged, never thrown. */
async function writeAliases(
  { deps, batch, options }: IntentApplying,
  { intent, key }: PlacedIntent,
  written: Extract<ApplyOutcome, { kind: 'write' }>,
): Promise<void> {
  // The report's own transaction id teaches an alias only once it is the transaction's: a claim not yet
  // confirmed (receiptClaims, decide-report.ts) or a receipt a refused report named (a success after a
  // FAILED verdict, a conflict) teaches none, or a later statement row or report with it would find this
  // payment on a sender's word.
  const claimedOnly = (value: string) =>
    written.next.providerTransactionId !== value &&
    (value === intent.draft.providerTransactionId || written.next.receiptClaims?.includes(value) === true);
  for (const alias of intent.aliases ?? []) {
    if (!alias.value || alias.value === key.reference || idProblem('', alias.value)) continue;
    if (claimedOnly(alias.value)) continue;
    try {
      await deps.store.putRecordIfAbsent(
        {
          provider: batch.provider,
          account: batch.account,
          namespace: `${ALIAS_NAMESPACE_PREFIX}${alias.namespace}`,
          id: alias.value,
          data: { reference: key.reference },
          createdAt: batch.receivedAt,
        },
        options,
      );
    } catch (error) {
      deps.log.warn('reference alias not written', {
        provider: batch.provider,
        account: batch.account,
        namespace: alias.namespace,
        error: (error as Error).message,
      });
    }
  }
}

/**
 * The provider's answer to the relay's query about a held reversal's own receipt: never the payment's status,
 * no alias taught. Through the query record (naming the held reversal and the ask) it is kept for the poller,
 * which judges it (reconcile.ts). Before that record exists (Daraja answered before the poller wrote it) it
 * waits under the query's ids (heldAnswerRef early), then looks for the record again: the poller looks for it
 * after writing the record, so one of the two finds the other. Its receipt counts in the payment's budget;
 * past it, no answer waits (its keys are the sender's to choose).
 */
async function keepHeldAnswer(
  { deps, batch, options, receipt }: IntentApplying,
  { intent, key, matched }: PlacedIntent,
  heldReversal: string | undefined,
  newReceipt: { receiptId: string; bytes: number } | undefined,
): Promise<ApplyOutcome> {
  const keep = !newReceipt || (await spendReceiptBudget(deps, key, newReceipt, options));
  const data = { draft: intent.draft, receiptId: receipt?.receiptId ?? null };
  const ids = (intent.correlate ?? []).filter((c) => c.via !== 'reference' && c.value);
  let ask = heldReversal;
  if (!ask && keep && matched) {
    for (const c of ids)
      await deps.store.putRecord(
        { ...heldAnswerRef(batch, `${c.via}:${c.value}`, true), data, createdAt: batch.receivedAt },
        options,
      );
    const late = await resolveCorrelation(deps.store, batch.provider, batch.account, ids, {
      ...options,
      consistent: true,
    });
    ask = late?.heldReversal;
  }
  if (ask)
    await deps.store.putRecord({ ...heldAnswerRef(batch, ask), data, createdAt: batch.receivedAt }, options);
  return { kind: 'noop', why: 'same-status' };
}

/** Applies one placed report to its transaction, then records the aliases it taught. */
async function applyPlacedIntent(applying: IntentApplying, placed: PlacedIntent): Promise<ApplyOutcome> {
  const { deps, batch, options, receiptKey } = applying;
  const { intent, key, origin: placedAs } = placed;
  const linked = intent.link
    ? await deps.store.getRecord(
        { provider: batch.provider, account: batch.account, ...intent.link },
        { consistent: true, signal: options.signal },
      )
    : undefined;
  const link = linkedAttributes(linked?.data);
  // Found through the record the relay wrote of its own status query before asking. A timeout of that
  // query, or an answer still in progress, says nothing about the payment.
  const viaRecord = placedAs === 'poll' && batch.origin !== 'poll';
  const final = intent.draft.status === 'SUCCEEDED' || intent.draft.status === 'FAILED';
  const newReceipt = key === receiptKey ? applying.newReceipt : undefined;
  // Nothing applied, but its body joins the transaction's: it spends that transaction's receipt budget.
  if (intent.saysNothing) {
    if (placed.matched && newReceipt) await spendReceiptBudget(deps, key, newReceipt, options);
    return { kind: 'noop', why: 'stale' };
  }
  // The answer about a held reversal's receipt is about that reversal, never the payment's status.
  const heldReversal = viaRecord ? placed.heldReversal : undefined;
  if (intent.aboutHeld || heldReversal) return keepHeldAnswer(applying, placed, heldReversal, newReceipt);
  // A status result that names nothing the relay asked or holds (no query record, no transaction): anyone
  // can post one, so it is recorded (its receipt, in the unmatched budget) and never makes an orphan.
  if (intent.answersQuery && !placed.matched) return { kind: 'noop', why: 'unasked' };
  if (viaRecord && !final) return { kind: 'noop', why: 'stale' };
  const { report, draft, ownQuery, mismatch } = reportOf(applying, placed, link, viaRecord);
  const samePaymentAs =
    intent.samePaymentAs && report.status === 'SUCCEEDED' && report.providerTransactionId
      ? await samePaymentRecordedAs(
          deps.store,
          key,
          report.providerTransactionId,
          intent.samePaymentAs,
          options,
        )
      : undefined;
  const outcome = await ingestReport(deps, report, {
    ...options,
    ...(newReceipt ? { newReceipt } : {}),
    born: intent.born ? { amount: expectedAmount(linked?.data), attributes: link } : undefined,
    ...(ownQuery
      ? {
          ownQueryClaims: intent.ownQuery?.claims ?? {
            providerTransactionId: draft.providerTransactionId,
            amount: draft.amount,
          },
        }
      : {}),
    ...(samePaymentAs ? { samePaymentAs } : {}),
    ...(intent.receiptConfirmable ? { receiptConfirmable: true } : {}),
  });
  // An answer about another transaction teaches no alias (its ids are that other transaction's).
  if (outcome.kind === 'write' && !mismatch) await writeAliases(applying, placed, outcome);
  return outcome;
}

/**
 * Places what one delivery says: finds each report's transaction, stores the receipt (before any
 * report is applied, so nothing is acknowledged that is not stored), applies the reports, and records
 * the aliases the reports taught. A failed alias write never fails a delivery that is already applied.
 */
export async function ingestIntents(
  deps: IngestDeps,
  batch: IngestBatch,
  options: WriteOptions = {},
): Promise<IngestBatchResult> {
  const { store } = deps;
  const placed = await placeIntents(store, batch, options);
  for (const fact of batch.facts ?? []) checkFactLimits(fact);
  // An unmatched hint, a status result or a query's timeout notice nothing asked spend one budget of
  // bodies nobody asked for.
  const hintOverBudget =
    placed.some((p) => (p.intent.hint || p.intent.answersQuery || p.intent.saysNothing) && !p.matched) &&
    !(await spendHintBudget(deps, batch, options));
  const facts = batch.facts?.length
    ? await placeFacts(
        store,
        (candidates) => resolveCorrelation(store, batch.provider, batch.account, candidates, options),
        batch,
        batch.facts,
        options,
      )
    : [];
  const first = placed[0];
  const firstFact = facts[0];
  const receiptKey = first?.key ?? (firstFact && factReceiptKey(batch.provider, batch.account, firstFact));
  const receipt = await storeBatchReceipt(store, batch, receiptKey, hintOverBudget, options);
  const newReceipt =
    receipt && batch.receipt && receipt.deliveries === 1
      ? { receiptId: receipt.receiptId, bytes: Buffer.byteLength(batch.receipt.body) }
      : undefined;
  const factsRecorded = facts.length
    ? await recordFacts(deps, batch, facts, receipt?.receiptId, options)
    : undefined;
  // A delivery of facts alone (a reversal result) spends its transaction's budget as a report would.
  if (!first && newReceipt && firstFact?.transaction)
    await spendReceiptBudget(deps, receiptKey!, newReceipt, options);
  const applying: IntentApplying = { deps, batch, options, receipt, receiptKey, newReceipt };
  const outcomes: ApplyOutcome[] = [];
  for (const item of placed)
    if (item.intent.hint && !item.matched) outcomes.push(...(await applyUnmatchedHint(applying, item)));
    else outcomes.push(await applyPlacedIntent(applying, item));
  return { receipt, outcomes, ...(factsRecorded === undefined ? {} : { factsRecorded }) };
}
