import { withEventIds } from '../../domain/bounded-history';
import { type ApplyOutcome, escalationEvent } from '../../domain/apply-report';
import type { EventOrigin } from '../../domain/event-envelope';
import type { EventEnvelope } from '../../domain/events';
import type { StatementSink } from '../../domain/statement';
import { heldClaimOf, holdForAPerson } from '../../domain/apply-report/unconfirmable';
import {
  afterReversalAsk,
  asksSpent,
  type HeldReversal,
  heldReversalEscalation,
  nextReversalDue,
  pendingReversals,
  reversalDue,
  withCountedSettled,
  withHeldReversal,
} from '../../domain/held-reversal';
import { nextCheckAt } from '../../domain/reconcile-schedule';
import { isFinal } from '../../domain/status';
import {
  type CheckRecord,
  failedCheckAnswer,
  type NormalizedReport,
  type ReportDraft,
  type TransactionRecord,
  withCheck,
} from '../../domain/transaction';
import type { ActorRef } from '../../domain/actor';
import { findProvider } from '../../providers/registry';
import { maskMsisdnsIn } from '../../util/mask';
import type { StatusAnswer, StatusApi, StatusQuery } from '../../providers/types';
import { ALIAS_NAMESPACE_PREFIX, checkReportLimits } from '../transactions/ingest-report';
import { answerHeldReversal, factNamespace, heldAnswerRef, heldOriginal } from '../transactions/ingest-facts';
import type { RelayMetrics } from '../ports';
import { reconcileTiming } from './reconcile-timing';
import type { RelayServices } from '../services';
import { decideReport, decisionContext } from '../transactions/decide-report';
import { writeWithRetry } from '../transactions/write-with-retry';
import {
  AMBIGUOUS_ESCALATED_METRIC,
  FINALIZED_WITHOUT_CALLBACK_METRIC,
  NOT_FOUND_CONFLICTS_METRIC,
  STATUS_CALL_ERRORS_METRIC,
  STATUS_CREDENTIAL_FAILURES_METRIC,
  TIME_TO_FINAL_METRIC,
  TRANSACTIONS_EXPIRED_METRIC,
  TRANSACTIONS_FINALIZED_METRIC,
  VERIFICATION_DISAGREEMENTS_METRIC,
} from '../../config/metric-names';

/** What the poller needs beyond the relay's services: status API clients and metrics. */
export interface ReconcileServices extends RelayServices {
  /** The status API client of one account (cached per account), undefined when it has no `api` settings. */
  statusApi(provider: string, account: string): StatusApi | undefined;
  metrics: RelayMetrics;
  /**
   * Where the provider's own records go (the pull rows and balance snapshots, issue 29): the matcher.
   * Absent: no pull or balance is asked for (shared/app/provider-records/tick.ts says why).
   */
  statementSink?: StatementSink;
}

/** The latest status calls kept on a transaction: enough for a person, bounded for the item size. */
const RECENT_CHECKS = 8;
const MAX_DETAIL = 300;

export interface CheckResult {
  answer: StatusAnswer;
  /** What the answer did to the transaction (undefined: nothing but the schedule). */
  outcome: ApplyOutcome | undefined;
  /** The transaction as written. */
  transaction: TransactionRecord;
  events: EventEnvelope[];
  /**
   * Other items of the same account should wait for the next cycle (bad credentials, throttled): no call
   * is made for them; only those whose window is over are looked at, to expire (poll-cycle.ts).
   */
  holdAccount?: 'credentials' | 'throttled';
}

/**
 * The receipt to ask about instead of the status: one an unauthenticated report claimed for a payment
 * already SUCCEEDED without one (decide-report.ts), the first of the claims (each check moves it last).
 */
function receiptToConfirm(tx: TransactionRecord): string | undefined {
  return tx.status === 'SUCCEEDED' && !tx.providerTransactionId ? tx.receiptClaims?.[0] : undefined;
}

/** The claims after a check that asked about `asked`: it goes last, so every claim is asked in turn. */
function claimsAfterCheck(tx: TransactionRecord, asked: string | undefined): TransactionRecord {
  const claims = tx.receiptClaims;
  if (!asked || !claims || claims[0] !== asked || claims.length < 2) return tx;
  return { ...tx, receiptClaims: [...claims.slice(1), asked] };
}

function statusQueryOf(services: RelayServices, tx: TransactionRecord): StatusQuery {
  const account = services.config.accounts.get(`${tx.key.provider}/${tx.key.account}`);
  const base = services.config.publicBaseUrl.replace(/\/$/, '');
  const confirmReceipt = receiptToConfirm(tx);
  return {
    ...(confirmReceipt ? { confirmReceipt } : {}),
    kind: tx.kind,
    reference: tx.key.reference,
    amount: tx.amount,
    msisdn: tx.msisdn,
    externalId: tx.externalId,
    providerTransactionId: tx.providerTransactionId,
    attributes: tx.attributes ?? {},
    trusted: {
      providerTransactionId: tx.trusted?.providerTransactionId,
      attributes: { ...tx.trusted?.attributes },
    },
    createdAt: tx.createdAt,
    callbackBase: `${base}/v1/${tx.key.provider}/${tx.key.account}${account?.pathSecret ? `/${account.pathSecret}` : ''}`,
  };
}

async function askProvider(
  services: ReconcileServices,
  tx: TransactionRecord,
  signal?: AbortSignal,
): Promise<StatusAnswer> {
  const provider = findProvider(tx.key.provider);
  const api = services.statusApi(tx.key.provider, tx.key.account);
  if (!api) {
    return {
      type: 'error',
      error: 'unsupported',
      detail: `no status API configured for ${tx.key.provider}/${tx.key.account} (accounts.${tx.key.provider}.${tx.key.account}.api)`,
    };
  }
  if (provider?.statusKinds && !provider.statusKinds.includes(tx.kind))
    return {
      type: 'error',
      error: 'unsupported',
      detail: `${provider?.displayName ?? tx.key.provider} has no status call for kind ${tx.kind}`,
    };
  try {
    return withinLimits(tx, await api.check(statusQueryOf(services, tx), signal));
  } catch (error) {
    // A client bug must not stop the cycle; it is an error answer like any other.
    return {
      type: 'error',
      error: 'unavailable',
      detail: services.scrub(`status call failed: ${(error as Error).message}`),
    };
  }
}

/**
 * A report answer holds a callback's limits (ids a storage key and an event can carry): an answer past
 * them is garbage, never settled on, as the same body in a callback would be refused. Stored as it
 * came, a long or control-character id would reach the events, or fail every write of an item that
 * then never expires.
 */
function withinLimits(tx: TransactionRecord, answer: StatusAnswer): StatusAnswer {
  if (answer.type !== 'report') return answer;
  try {
    checkReportLimits({ ...answer.draft, key: tx.key });
    return answer;
  } catch (error) {
    return { type: 'error', error: 'garbage', detail: (error as Error).message };
  }
}

function describe(answer: StatusAnswer): CheckRecord {
  const described = describeAnswer(answer);
  return answer.request ? { ...described, request: answer.request } : described;
}

function describeAnswer(answer: StatusAnswer): CheckRecord {
  const at = '';
  switch (answer.type) {
    case 'report':
      return {
        at,
        answer: `report:${answer.draft.status}`,
        detail: answer.detail,
        providerCode: answer.providerCode,
      };
    case 'pending':
      return { at, answer: 'pending', detail: answer.detail, providerCode: answer.providerCode };
    case 'not-found':
      return { at, answer: 'not-found', detail: answer.detail, providerCode: answer.providerCode };
    case 'requested':
      return { at, answer: 'requested', detail: answer.detail };
    case 'error':
      return {
        at,
        answer: failedCheckAnswer(answer.error),
        detail: answer.detail,
        providerCode: answer.httpStatus ? String(answer.httpStatus) : undefined,
      };
  }
}

/** When an AMBIGUOUS transaction is escalated, and when it expires (past its window), by its age. */
function ambiguousMoments(
  tx: Pick<TransactionRecord, 'createdAt'>,
  settings: Pick<
    ReconcileServices['config']['reconciliation'],
    'escalateAmbiguousAfterSeconds' | 'ambiguousMaxSeconds' | 'timeScale'
  >,
): { escalateAt: string; expireAt: string } {
  const at = (seconds: number) =>
    new Date(Date.parse(tx.createdAt) + seconds * 1000 * settings.timeScale).toISOString();
  return {
    escalateAt: at(settings.escalateAmbiguousAfterSeconds),
    expireAt: at(settings.ambiguousMaxSeconds),
  };
}

/** How long a transaction nobody can ask about waits before the poller looks at it again. */
export const UNSUPPORTED_RECHECK_SECONDS = 3600;

/** No status call reached the provider: nothing to configure, or the client's own limiter held it. */
const notMade = (answer: StatusAnswer) =>
  answer.type === 'error' &&
  (answer.error === 'unsupported' || (answer.error === 'throttled' && answer.httpStatus === undefined));

const ageSeconds = (tx: TransactionRecord, now: string) =>
  (Date.parse(now) - Date.parse(tx.createdAt)) / 1000;

/**
 * The report a status answer makes, if any. Only the provider's final codes produce SUCCEEDED or
 * FAILED (the client classifies them); "never accepted" settles a transaction only when it is old
 * enough that the partner's request must have reached the provider.
 */
function reportFrom(
  services: ReconcileServices,
  tx: TransactionRecord,
  answer: StatusAnswer,
  now: string,
  origin: EventOrigin,
  requestedBy: ActorRef | undefined,
): NormalizedReport | undefined {
  const base = {
    key: tx.key,
    kind: tx.kind,
    receivedAt: now,
    origin,
    receiptId: undefined,
    authenticated: true,
    ...(requestedBy ? { requestedBy } : {}),
  };
  if (answer.type === 'report') {
    if (answer.draft.status === 'PENDING' || answer.draft.status === 'EXPIRED') return undefined;
    const reason = answer.draft.reason;
    return {
      ...answer.draft,
      ...base,
      said: {
        providerCode: answer.providerCode,
        description: maskMsisdnsIn(services.scrub(answer.detail)).slice(0, MAX_DETAIL),
      },
      reason: reason?.message
        ? { ...reason, message: maskMsisdnsIn(services.scrub(reason.message)).slice(0, MAX_DETAIL) }
        : reason,
    };
  }
  if (answer.type === 'error') return answer.unclear ? unclearReport(services, tx, answer, base) : undefined;
  if (answer.type === 'not-found') {
    // Weighed every time (a callback that reported on the reference makes it a conflict at once); it
    // settles FAILED only when old enough and after several answers spread over time.
    const scale = services.config.reconciliation.timeScale;
    const { notFoundGraceSeconds, notFoundAnswers, notFoundSpanSeconds } = services.config.reconciliation;
    const answers = (tx.reconcile?.notFound ?? 0) + 1;
    const since = tx.reconcile?.notFoundSince ?? now;
    const settles =
      ageSeconds(tx, now) >= notFoundGraceSeconds * scale &&
      answers >= notFoundAnswers &&
      (Date.parse(now) - Date.parse(since)) / 1000 >= notFoundSpanSeconds * scale;
    return {
      ...base,
      status: 'FAILED',
      reason: {
        code: 'NOT_ACCEPTED',
        message: answer.detail.slice(0, MAX_DETAIL),
        providerCode: answer.providerCode,
      },
      providerTransactionId: undefined,
      externalId: undefined,
      amount: undefined,
      party: undefined,
      attributes: undefined,
      notFound: { settles, answers, since },
    };
  }
  return undefined;
}

/**
 * A status call whose failure the provider's mapping calls unclear (MoMo's 5xx): the contract's
 * TransactionAmbiguous. Only a PENDING transaction becomes AMBIGUOUS (once: it never goes back), so a final
 * or EXPIRED status is never downgraded; the poller goes on asking and a later final answer settles it.
 */
function unclearReport(
  services: ReconcileServices,
  tx: TransactionRecord,
  answer: Extract<StatusAnswer, { type: 'error' }>,
  base: Pick<NormalizedReport, 'key' | 'kind' | 'receivedAt' | 'origin' | 'receiptId' | 'authenticated'>,
): NormalizedReport | undefined {
  if (tx.status !== 'PENDING') return undefined;
  const providerCode = answer.httpStatus === undefined ? undefined : String(answer.httpStatus);
  const description = maskMsisdnsIn(services.scrub(answer.detail)).slice(0, MAX_DETAIL);
  return {
    ...base,
    status: 'AMBIGUOUS',
    reason: { code: 'PROVIDER_ERROR', message: description, providerCode },
    said: { providerCode, description },
    providerTransactionId: undefined,
    externalId: undefined,
    amount: undefined,
    party: undefined,
    attributes: undefined,
  };
}

/** EXPIRED (or nothing): the window ended with no final answer. AMBIGUOUS keeps being checked longer. */
/** It expires at its next look, whatever the provider says or does not say: its window (or, AMBIGUOUS, its age) is over. */
export function pastItsWindow(
  services: Pick<ReconcileServices, 'config'>,
  tx: TransactionRecord,
  now: string,
): boolean {
  if (isFinal(tx.status) || now < tx.reconcileUntil) return false;
  return !(tx.status === 'AMBIGUOUS' && now < ambiguousMoments(tx, services.config.reconciliation).expireAt);
}

function expiryFrom(
  services: ReconcileServices,
  tx: TransactionRecord,
  check: CheckRecord,
  now: string,
  origin: EventOrigin,
): NormalizedReport | undefined {
  if (!pastItsWindow(services, tx, now)) return undefined;
  const last = {
    at: check.at,
    answer: check.answer,
    detail: check.detail,
    providerCode: check.providerCode ?? null,
  };
  return {
    key: tx.key,
    kind: tx.kind,
    status: 'EXPIRED',
    reason: {
      code: 'NO_FINAL_ANSWER',
      message: `no final answer within the reconciliation window (${tx.reconcile?.checks ?? 0} status checks before the last); last answer: ${check.answer}`,
      providerCode: check.providerCode,
    },
    providerTransactionId: undefined,
    externalId: undefined,
    amount: undefined,
    party: undefined,
    attributes: undefined,
    receivedAt: now,
    origin,
    receiptId: undefined,
    eventDetail: { lastProviderAnswer: last, statusChecks: (tx.reconcile?.checks ?? 0) + 1 },
  };
}

/**
 * One status check of one transaction, written through the one write-with-retry loop: the answer goes
 * through the same decision as a callback (decideReport), so a callback and a poll racing still give
 * exactly one final event; the schedule, the attempt and any expiry or escalation land in the same write.
 */
export async function checkTransaction(
  services: ReconcileServices,
  claimed: TransactionRecord,
  options: {
    origin?: EventOrigin;
    signal?: AbortSignal;
    /** The person who asked for this check (check now): named in the history, the evidence and the events. */
    requestedBy?: ActorRef;
    /**
     * The provider is not asked: its account is held this cycle (poll-cycle.ts), and this is the answer
     * recorded instead, so a transaction whose window is over still expires on time.
     */
    notAsked?: Extract<StatusAnswer, { type: 'error' }>;
  } = {},
): Promise<CheckResult> {
  if (dueForHeldReversal(claimed)) return checkHeldReversal(services, claimed, options);
  const origin = options.origin ?? 'poll';
  const { store, clock, config } = services;
  const answer = options.notAsked ?? (await askProvider(services, claimed, options.signal));
  const now = clock.now().toISOString();
  const requestedBy = options.requestedBy;
  const check: CheckRecord = { ...describe(answer), at: now, ...(requestedBy ? { by: requestedBy } : {}) };
  // Provider free text is stored and published (lastProviderAnswer): scrubbed and MSISDNs masked.
  check.detail = maskMsisdnsIn(services.scrub(check.detail)).slice(0, MAX_DETAIL);

  // The asynchronous result must find this transaction, and count as this poll's answer.
  if (answer.type === 'requested' && answer.alias) await putAlias(services, claimed, answer.alias, now);

  const timing = reconcileTiming(config.reconciliation, claimed.key.provider, claimed.kind);
  const settings = config.reconciliation;
  const written = await writeWithRetry<{
    outcome: ApplyOutcome | undefined;
    tx: TransactionRecord;
    events: EventEnvelope[];
  }>(
    store,
    claimed.key,
    (current) => {
      if (!current) return { result: { outcome: undefined, tx: claimed, events: [] } };
      const ctx = decisionContext(settings, current, now);
      const statusReport = reportFrom(services, current, answer, now, origin, requestedBy);
      // No status call can be made for it: a claim held for one is handed to a person now.
      const unaskable = answer.type === 'error' && answer.error === 'unsupported';
      const held = unaskable && !statusReport ? heldClaimOf(current) : undefined;
      const decided = decideAnswer(services, current, statusReport, ctx, check, now, origin, !!held);
      const { outcome } = decided;
      const base = claimsAfterCheck(decided.base, receiptToConfirm(claimed));
      // Settled by this answer with a receipt still only claimed: the claim is asked about next.
      const claimToAsk = !receiptToConfirm(claimed) && receiptToConfirm(base) !== undefined;
      const reconcile = checkedSchedule(base, answer, check, now, timing, claimToAsk);
      const caused: EventEnvelope[] = [...base.outbox];
      if (!isFinal(base.status)) {
        if (
          base.status === 'AMBIGUOUS' &&
          !reconcile.escalatedAt &&
          (held || now >= ambiguousMoments(base, settings).escalateAt)
        ) {
          reconcile.escalatedAt = now;
          caused.push(escalationEvent({ ...base, reconcile }, now, origin));
        }
        reconcile.dueAt = nextDueOpen(base, reconcile, answer, now, timing, settings);
      }
      // A check someone asked for: every event it caused names them (docs/roles-and-audit.md).
      const events = requestedBy
        ? caused.map((e) => ({ ...e, data: { ...e.data, checkedByHand: { by: requestedBy } } }))
        : caused;
      const next = lookedAt(base, reconcile, now, events);
      return { next, result: { outcome, tx: next, events } };
    },
    { what: `record a status check of ${claimed.key.reference}`, initial: claimed, signal: options.signal },
  );
  // A held account's look made no call: no call error to count (the probe's answer counted it once).
  if (!options.notAsked) recordMetrics(services.metrics, claimed, written.tx, answer, written.events, now);
  return {
    answer,
    outcome: written.outcome,
    transaction: written.tx,
    events: written.events,
    holdAccount:
      answer.type === 'error' && (answer.error === 'credentials' || answer.error === 'throttled')
        ? answer.error
        : undefined,
  };
}

/**
 * The alias an asynchronous status answer will name, pointing at the transaction that asked, with what
 * the query asked: its result counts as this query's answer only where it answers that question.
 */
async function putAlias(
  services: ReconcileServices,
  claimed: TransactionRecord,
  alias: NonNullable<Extract<StatusAnswer, { type: 'requested' }>['alias']>,
  now: string,
  /** The held reversal the query asks about (its answer is that reversal's: answerHeldReversal). */
  heldReversal?: string,
): Promise<void> {
  await services.store.putRecordIfAbsent({
    provider: claimed.key.provider,
    account: claimed.key.account,
    namespace: `${ALIAS_NAMESPACE_PREFIX}${alias.namespace}`,
    id: alias.id,
    data: {
      reference: claimed.key.reference,
      origin: 'poll',
      ...(alias.asked ? { asked: alias.asked } : {}),
      ...(heldReversal ? { heldReversal } : {}),
    },
    createdAt: now,
  });
}

/** A final payment due only for its held reversals (domain/held-reversal.ts), not for a status check. */
const dueForHeldReversal = (tx: TransactionRecord) =>
  isFinal(tx.status) && !tx.reconcile?.recheckUntil && pendingReversals(tx).length > 0;

/**
 * Asks the provider's status query about a held reversal's own receipt (StatusQuery.confirmReversal): its
 * answer comes on the status route, through the query record naming the held reversal
 * (app/transactions/ingest-facts.ts answerHeldReversal). A fixed number of asks with backoff; then, or
 * when there is no status API to ask, the held reversal goes to a person (ReversalAmbiguous, reason
 * NO_FINAL_ANSWER). Never a status check of the payment itself: its status is final.
 */
async function checkHeldReversal(
  services: ReconcileServices,
  claimed: TransactionRecord,
  options: { origin?: EventOrigin; signal?: AbortSignal },
): Promise<CheckResult> {
  const origin = options.origin ?? 'poll';
  const now = services.clock.now().toISOString();
  const due = reversalDue(withCountedSettled(claimed), now);
  // Daraja's answers to the asks made so far first: one that settles it makes another ask pointless.
  const settled = due && (await answeredAlready(services, claimed, due));
  const held = settled ? undefined : due;
  const answer =
    held && !asksSpent(held) ? await askAboutReversal(services, claimed, held, options.signal) : undefined;
  if (held && answer?.type === 'requested' && answer.alias)
    await recordHeldAsk(services, claimed, answer.alias, now, `${held.id}#${held.asks + 1}`);
  const check: CheckRecord | undefined = answer && {
    ...describe(answer),
    at: now,
    detail: maskMsisdnsIn(
      services.scrub(`held reversal ${held!.id}, receipt ${held!.receipt}: ${answer.detail}`),
    ).slice(0, MAX_DETAIL),
  };
  // Escalated, it names the request as the held result did (kept on its record).
  const request = held && !answer ? await heldRequest(services, claimed, held) : {};
  const written = await writeWithRetry<{ tx: TransactionRecord; events: EventEnvelope[] }>(
    services.store,
    claimed.key,
    (current) => {
      if (!current) return { result: { tx: claimed, events: [] } };
      const looked = { heldId: held?.id, answer, check, request };
      const { next, events } = heldReversalLooked(services, current, looked, now, origin);
      return { next, result: { tx: next, events } };
    },
    {
      what: `ask about a held reversal of ${claimed.key.reference}`,
      initial: claimed,
      signal: options.signal,
    },
  );
  for (const event of written.events)
    if (event.metadata.type === 'ReversalAmbiguous')
      services.metrics.count(AMBIGUOUS_ESCALATED_METRIC, 1, {
        provider: claimed.key.provider,
        account: claimed.key.account,
      });
  return {
    answer: answer ?? {
      type: 'error',
      error: 'unsupported',
      detail: 'no status query made (held reversal escalated or not due)',
    },
    outcome: undefined,
    transaction: written.tx,
    events: written.events,
    holdAccount:
      answer?.type === 'error' && (answer.error === 'credentials' || answer.error === 'throttled')
        ? answer.error
        : undefined,
  };
}

/**
 * The record of an ask about a held reversal, then the answer that came before it, if any (Daraja answered
 * before the record was written: the callback left it under the query's id, heldAnswerRef early), kept as this
 * ask's. Written, then read: the callback writes, then reads the record, so one of the two finds the other.
 */
async function recordHeldAsk(
  services: ReconcileServices,
  tx: TransactionRecord,
  alias: NonNullable<Extract<StatusAnswer, { type: 'requested' }>['alias']>,
  now: string,
  ask: string,
): Promise<void> {
  await putAlias(services, tx, alias, now, ask);
  const early = await services.store.getRecord(
    heldAnswerRef(tx.key, `${alias.namespace}:${alias.id}`, true),
    {
      consistent: true,
    },
  );
  if (early)
    await services.store.putRecord({
      ...heldAnswerRef(tx.key, ask),
      data: early.data,
      createdAt: early.createdAt,
    });
}

/**
 * Reads the answers kept for the asks made about a held reversal (newest first: ingest-report.ts keeps them)
 * as the provider describes them, and applies them (ingest-facts.ts answerHeldReversal) until one settles it.
 */
async function answeredAlready(
  services: ReconcileServices,
  tx: TransactionRecord,
  held: HeldReversal,
): Promise<boolean> {
  const describe = services.statusApi(tx.key.provider, tx.key.account)?.describeMovement;
  for (let ask = held.asks; ask >= 1 && describe; ask--) {
    const kept = await services.store.getRecord(heldAnswerRef(tx.key, `${held.id}#${ask}`), {
      consistent: true,
    });
    const draft = kept?.data.draft as ReportDraft | undefined;
    if (!kept || !draft) continue;
    const said = describe(draft);
    const verdict = await answerHeldReversal(
      services,
      {
        ...tx.key,
        origin: 'poll',
        receivedAt: kept.createdAt,
        authenticated: true,
        authentication: ['status-api'],
      },
      { key: tx.key, heldId: held.id },
      {
        status: draft.status,
        receipt: draft.providerTransactionId,
        amount: draft.amount,
        reasonType: said.movementType,
        isReversal: said.isReversal,
        said: said.words,
        providerCode: said.providerCode,
        description: said.words,
      },
      typeof kept.data.receiptId === 'string' ? kept.data.receiptId : undefined,
    );
    if (verdict !== 'says-nothing') return true;
  }
  return false;
}

/** The ids the held result named its request and the reversed payment by (its record keeps them). */
async function heldRequest(
  services: ReconcileServices,
  tx: TransactionRecord,
  held: HeldReversal,
): Promise<Record<string, unknown>> {
  const record = await services.store.getRecord({
    ...tx.key,
    namespace: factNamespace(held.namespace),
    id: held.id,
  });
  return heldOriginal(record)?.data ?? {};
}

/** The status query about a held reversal's receipt; undefined when the account has no status API. */
async function askAboutReversal(
  services: ReconcileServices,
  tx: TransactionRecord,
  held: HeldReversal,
  signal: AbortSignal | undefined,
): Promise<StatusAnswer | undefined> {
  const api = services.statusApi(tx.key.provider, tx.key.account);
  if (!api) return undefined;
  try {
    return await api.check({ ...statusQueryOf(services, tx), confirmReversal: held.receipt }, signal);
  } catch (error) {
    return {
      type: 'error',
      error: 'unavailable',
      detail: services.scrub(`status call failed: ${(error as Error).message}`),
    };
  }
}

/**
 * The payment after a look at its held reversal: the ask counted (next ask or escalation due after its
 * backoff), or the held reversal escalated for a person; due again for the next held reversal, if any.
 */
function heldReversalLooked(
  services: ReconcileServices,
  current: TransactionRecord,
  looked: {
    heldId: string | undefined;
    answer: StatusAnswer | undefined;
    check: CheckRecord | undefined;
    request: Record<string, unknown>;
  },
  now: string,
  origin: EventOrigin,
): { next: TransactionRecord; events: EventEnvelope[] } {
  const { heldId, answer, check, request } = looked;
  const { timeScale } = services.config.reconciliation;
  // Counted meanwhile (Daraja's own result, a confirmed answer): settled, not asked about.
  let base = withCountedSettled(current);
  const entry = base.heldReversals?.find((h) => h.id === heldId && h.state === 'asking');
  const events: EventEnvelope[] = [];
  if (entry && answer && check)
    base = withHeldReversal(base, entry.id, (h) =>
      afterReversalAsk(h, now, timeScale, `${check.answer}: ${check.detail}`.slice(0, MAX_DETAIL)),
    );
  else if (entry) {
    const why = asksSpent(entry)
      ? `no answer settled it after ${entry.asks} status queries`
      : `no status API to ask (accounts.${current.key.provider}.${current.key.account}.api)`;
    events.push(heldReversalEscalation(current, entry, request, now, origin, why));
    base = withHeldReversal(base, entry.id, (h) => ({ ...h, state: 'escalated', endedAt: now, detail: why }));
  }
  const state = base.reconcile ?? { checks: 0, recent: [] };
  const { dueAt: _due, leaseOwner: _owner, ...rest } = state;
  const reconcile: ReconcileState = {
    ...rest,
    checks: rest.checks + (answer && !notMade(answer) ? 1 : 0),
    recent: check ? withCheck(rest.recent, check, RECENT_CHECKS) : rest.recent,
  };
  const due = nextReversalDue(base);
  if (due) reconcile.dueAt = due;
  return { next: lookedAt(base, reconcile, now, events), events };
}

/** The record after a look: its reconcile state, the events the look caused on its list and in its outbox. */
function lookedAt(
  base: TransactionRecord,
  reconcile: ReconcileState,
  now: string,
  events: EventEnvelope[],
): TransactionRecord {
  return {
    ...base,
    reconcile,
    updatedAt: now,
    events: withEventIds(
      base.events,
      events.map((e) => ({ id: e.metadata.id, type: e.metadata.type, at: e.metadata.occurredAt })),
    ),
    outbox: events,
  };
}

type Timing = ReturnType<typeof reconcileTiming>;
type ReconcileState = NonNullable<TransactionRecord['reconcile']>;

/**
 * What the answer decides (decideReport, or holdForAPerson when no check can be made for a held claim),
 * then the expiry the check may bring in the same write: the events of both are published together.
 */
function decideAnswer(
  services: ReconcileServices,
  current: TransactionRecord,
  statusReport: NormalizedReport | undefined,
  ctx: ReturnType<typeof decisionContext>,
  check: CheckRecord,
  now: string,
  origin: EventOrigin,
  /** The check cannot be made and a claim waits for it (heldClaimOf): it is handed to a person. */
  handToPerson: boolean,
): { outcome: ApplyOutcome | undefined; base: TransactionRecord } {
  let outcome = statusReport
    ? decideReport(current, statusReport, ctx)
    : handToPerson
      ? holdForAPerson(current, check.detail, now, origin)
      : undefined;
  let base = outcome?.kind === 'write' ? outcome.next : { ...current, outbox: [] };
  const expiry = expiryFrom(services, base, check, now, origin);
  if (expiry) {
    const expired = decideReport(base, expiry, ctx);
    if (expired.kind === 'write') {
      const earlier = outcome?.kind === 'write' ? outcome.events : [];
      base = { ...expired.next, outbox: [...earlier, ...expired.next.outbox] };
      outcome = { ...expired, next: base, events: base.outbox };
    }
  }
  return { outcome, base };
}

/** The schedule with this check counted and kept; a final transaction's recheck ends or goes on. */
function checkedSchedule(
  base: TransactionRecord,
  answer: StatusAnswer,
  check: CheckRecord,
  now: string,
  timing: Timing,
  /** The answer settled the payment while a claimed receipt still waits to be asked about. */
  claimToAsk = false,
): ReconcileState {
  const state = base.reconcile ?? { checks: 0, recent: [] };
  const notFound = answer.type === 'not-found' ? (state.notFound ?? 0) + 1 : 0;
  const { dueAt: _due, leaseOwner: _owner, ...rest } = state;
  const reconcile: ReconcileState = {
    ...rest,
    // Not a check: no call made (unsupported) or held back by the client's own rate limit.
    checks: state.checks + (notMade(answer) ? 0 : 1),
    recent: withCheck(state.recent, check, RECENT_CHECKS),
    ...(notFound ? { notFound, notFoundSince: state.notFoundSince ?? now } : {}),
  };
  if (!notFound) {
    delete reconcile.notFound;
    delete reconcile.notFoundSince;
  }
  // A final transaction checked again (a report after the verdict): once it has a final answer, or
  // when its recheck time is over, it leaves the due index; until then it is checked on the schedule.
  if (isFinal(base.status) && reconcile.recheckUntil) {
    const answered =
      (answer.type === 'report' && isFinal(answer.draft.status)) || answer.type === 'not-found';
    if ((answered && !claimToAsk) || now >= reconcile.recheckUntil) delete reconcile.recheckUntil;
    else if (claimToAsk) reconcile.dueAt = now;
    else
      reconcile.dueAt = nextCheckAt({
        schedule: timing.schedule,
        createdAt: base.createdAt,
        reconcileUntil: reconcile.recheckUntil,
        checksDone: Math.max(1, reconcile.checks),
        now,
        timeScale: timing.timeScale,
      });
  }
  // Held reversals waiting for their asks keep a final payment due (domain/held-reversal.ts).
  const heldDue = isFinal(base.status) ? nextReversalDue(base) : undefined;
  if (heldDue && (!reconcile.dueAt || heldDue < reconcile.dueAt)) reconcile.dueAt = heldDue;
  return reconcile;
}

/** When an open transaction is due again: the backoff schedule, bent by what the answer said. */
function nextDueOpen(
  base: TransactionRecord,
  reconcile: ReconcileState,
  answer: StatusAnswer,
  now: string,
  timing: Timing,
  settings: ReconcileServices['config']['reconciliation'],
): string {
  let due = nextCheckAt({
    schedule: timing.schedule,
    createdAt: base.createdAt,
    reconcileUntil: base.reconcileUntil,
    checksDone: reconcile.checks,
    now,
    timeScale: timing.timeScale,
  });
  if (answer.type === 'error' && answer.error === 'unsupported') {
    // Nothing to ask (no status API, or no status call for this kind): no check is counted, so the
    // schedule would make it due again at once, a write every cycle. Look again now and then (a config
    // change may add the API), and at the next moment something is due without an answer: the
    // window's end (expiry), and for AMBIGUOUS its escalation and its own maximum age (expiry).
    const later = new Date(
      Date.parse(now) + UNSUPPORTED_RECHECK_SECONDS * 1000 * timing.timeScale,
    ).toISOString();
    due = firstOf(later, milestonesAfter(base, reconcile, settings, now));
  } else if (answer.type === 'error' && answer.error === 'throttled') {
    // Throttled (by the provider or the client's own limit): again when the limit allows, not a
    // whole backoff step later; a provider's long Retry-After never moves the window's end.
    const after = pausedUntil(now, answer.retryAfterMs ?? 1000);
    due = firstOf(after, milestonesAfter(base, reconcile, settings, now));
  } else if (answer.type === 'error' && answer.retryAfterMs) {
    const after = pausedUntil(now, answer.retryAfterMs);
    if (after > due) due = firstOf(after, milestonesAfter(base, reconcile, settings, now));
  }
  return due;
}

/** What is due without an answer, still ahead: the window's end (expiry), and for AMBIGUOUS its escalation and maximum age. */
function milestonesAfter(
  base: TransactionRecord,
  reconcile: ReconcileState,
  settings: ReconcileServices['config']['reconciliation'],
  now: string,
): string[] {
  const moments = ambiguousMoments(base, settings);
  const milestones = [base.reconcileUntil];
  if (base.status === 'AMBIGUOUS') {
    if (!reconcile.escalatedAt) milestones.push(moments.escalateAt);
    milestones.push(moments.expireAt);
  }
  return milestones.filter((m) => m > now);
}

const firstOf = (at: string, milestones: string[]): string => [at, ...milestones].sort()[0]!;

/** A provider's pause is read as a day at most: a Retry-After no date can hold must not fail every check. */
const MAX_PAUSE_MS = 86_400_000;

function pausedUntil(now: string, pauseMs: number): string {
  const ms = Number.isFinite(pauseMs) ? Math.min(Math.max(0, pauseMs), MAX_PAUSE_MS) : MAX_PAUSE_MS;
  return new Date(Date.parse(now) + ms).toISOString();
}

function recordMetrics(
  metrics: RelayMetrics,
  before: TransactionRecord,
  after: TransactionRecord,
  answer: StatusAnswer,
  events: readonly EventEnvelope[],
  now: string,
): void {
  const where = { provider: before.key.provider, account: before.key.account };
  if (answer.type === 'error' && answer.error !== 'unsupported')
    metrics.count(STATUS_CALL_ERRORS_METRIC, 1, { ...where, error: answer.error });
  // Its own metric (the StatusCallErrors roll-up mixes timeouts in): a refused credential pages.
  if (answer.type === 'error' && answer.error === 'credentials')
    metrics.count(STATUS_CREDENTIAL_FAILURES_METRIC, 1, where);
  for (const event of events) {
    const type = event.metadata.type;
    if (type === 'TransactionSucceeded' || type === 'TransactionFailed') {
      metrics.count(TRANSACTIONS_FINALIZED_METRIC, 1, { origin: event.metadata.origin });
      metrics.timing(TIME_TO_FINAL_METRIC, Date.parse(now) - Date.parse(before.createdAt), {
        provider: before.key.provider,
      });
      // Finalized by a poll while no callback ever came: the account's callbacks may be silent.
      if (!after.transitions.some((t) => t.origin === 'callback' || t.origin === 'buffer'))
        metrics.count(FINALIZED_WITHOUT_CALLBACK_METRIC, 1, where);
    }
    if (type === 'TransactionExpired') metrics.count(TRANSACTIONS_EXPIRED_METRIC, 1, where);
    if (type === 'TransactionEscalated') metrics.count(AMBIGUOUS_ESCALATED_METRIC, 1, where);
    if (type === 'TransactionConflict') {
      const kind = (event.data as { conflict?: { kind?: string } }).conflict?.kind;
      if (kind === 'UNVERIFIED_SUCCESS') metrics.count(VERIFICATION_DISAGREEMENTS_METRIC, 1, where);
      // The status API does not know a reference a callback reported on: usually the wrong API user.
      if (kind === 'NOT_FOUND') metrics.count(NOT_FOUND_CONFLICTS_METRIC, 1, where);
    }
  }
}
