import type { HeldReversal } from './held-reversal';
import type { EventEnvelope, EventOrigin } from './event-envelope';
import type { ActorRef } from './actor';
import type { AuthenticationMethod, Evidence } from './evidence';
import type { Reason } from './reasons';
import type { StatementActor, StatementSource } from './statement';
import type { TransactionStatus } from './status';

export interface TransactionKey {
  provider: string;
  account: string;
  reference: string;
}

export interface Money {
  /** Decimal string, canonical ("100", "1.5"). */
  value: string;
  currency: string | undefined;
}

export interface Party {
  idType: string;
  id: string;
}

/** One provider statement about a transaction, in the relay's vocabulary. */
export interface NormalizedReport {
  key: TransactionKey;
  kind: string;
  status: TransactionStatus;
  reason: Reason | undefined;
  providerTransactionId: string | undefined;
  externalId: string | undefined;
  amount: Money | undefined;
  party: Party | undefined;
  /** When the relay received it (ISO 8601). */
  receivedAt: string;
  origin: EventOrigin;
  /** The stored receipt that carried the report, for history and conflict dedupe. */
  receiptId: string | undefined;
  /** Provider-specific facts worth keeping on the transaction (receipt numbers, balances…). */
  attributes: Record<string, string> | undefined;
  /**
   * The body was authenticated end to end (a matching signature), not just its sender (path secret,
   * source IP). Only then may a success that carries no amount settle a transaction registered with one.
   */
  authenticated?: boolean;
  /**
   * The account confirms unsigned successes with the status API (MoMo by default): a success that is not
   * authenticated end to end is a hint, recorded as AMBIGUOUS (UNCONFIRMED) until a status call confirms it.
   */
  needsConfirmation?: boolean;
  /** Extra fields for the status event this report produces (e.g. the last provider answer on expiry). */
  eventDetail?: Record<string, unknown>;
  /** The checks a callback passed on arrival (path secret, source IP, signature): its evidence. */
  authentication?: AuthenticationMethod[];
  /**
   * The account confirms unsigned failures too (it confirms successes and has a status API): an unsigned
   * failure is held as AMBIGUOUS (UNCONFIRMED) until one status check agrees.
   */
  confirmFailure?: boolean;
  /** The provider's own code and words for the evidence (a status answer's code and detail, scrubbed). */
  said?: { providerCode: string | undefined; description?: string | undefined };
  /**
   * The kind comes from the callback's path (MoMo `/{kind}/{reference}`): it must be the registered
   * transaction's kind, or the callback is refused (a FAILED on `/deposit/{ref}` never fails a requesttopay).
   */
  kindFromPath?: boolean;
  /** The person behind a manual report (origin manual), and the one who approved it when it needed that. */
  actor?: ActorRef;
  approvedBy?: ActorRef;
  /** The person who asked the provider for this answer (check now): named on the evidence. */
  requestedBy?: ActorRef;
  /** The report only points at its transaction (MoMo's reference-less route): recorded, never settles. */
  hint?: boolean;
  /** The provider's result of the relay's own asynchronous status query (evidence source `receipt`). */
  viaOwnQuery?: boolean;
  /**
   * A "not found" status answer (NOT_ACCEPTED): `settles` when the not-found rule is met (several answers
   * spread over time); it never settles while any callback reported on the reference.
   */
  notFound?: { settles: boolean; answers: number; since: string };
  /**
   * The report is a row of the provider's own records (evidence source `statement`; origin `poll` for the
   * relay's own pull, `manual` for a file): where it came from and who brought it (the pull, or the operator).
   * `aboveLimit`: a file's row that puts more at stake than the account's four-eyes limit (this one): one
   * person's upload, so a claim held for the status API or a resolution a second person approves.
   */
  statement?: {
    source: StatementSource;
    ref: string;
    row?: number;
    actor: StatementActor;
    aboveLimit?: string;
  };
}

/** What a provider dialect makes of one statement, before the pipeline adds when, how and which receipt. */
export type ReportDraft = Omit<NormalizedReport, 'receiptId' | 'receivedAt' | 'origin'>;

interface TransitionRecord {
  from: TransactionStatus;
  to: TransactionStatus;
  at: string;
  origin: EventOrigin;
  receiptId: string | undefined;
  /** The report behind it was signed end to end (see NormalizedReport.authenticated). */
  authenticated?: boolean;
  /** What caused it (absent on transitions recorded before evidence existed). */
  evidence?: Evidence;
}

/** One status call the poller made (the latest few are kept on the transaction for its history). */
export interface CheckRecord {
  at: string;
  /** The classified answer: report (with its status), pending, not-found, requested or error. */
  answer: string;
  detail: string;
  providerCode?: string;
  /** What was asked: the method and path of the status call (no host, no credentials); absent: none made. */
  request?: string;
  /**
   * Identical answers in a row are kept as one record (so a long run of "not found" does not push the
   * earlier answers out): how many calls it stands for (absent: one), and when the first was made.
   */
  count?: number;
  since?: string;
  /** The person who asked for it (check now); absent: the poller's schedule. */
  by?: ActorRef;
}

/** The same answer to the same question by the same asker: merged into one record (CheckRecord.count). */
function sameCheck(a: CheckRecord, b: CheckRecord): boolean {
  return (
    a.answer === b.answer &&
    a.detail === b.detail &&
    a.providerCode === b.providerCode &&
    a.request === b.request &&
    a.by?.id === b.by?.id &&
    a.by?.via === b.by?.via
  );
}

/** The latest checks with `check` added: merged into the last when it said the same, then bounded. */
export function withCheck(recent: readonly CheckRecord[], check: CheckRecord, keep: number): CheckRecord[] {
  const last = recent.at(-1);
  if (last && sameCheck(last, check))
    return [...recent.slice(0, -1), { ...check, count: (last.count ?? 1) + 1, since: last.since ?? last.at }];
  return [...recent, check].slice(-keep);
}

const FAILED_CHECK = 'error:';
/** The `answer` of a status call that got no answer about the transaction (`error:unavailable`…). */
export function failedCheckAnswer(error: string): string {
  return `${FAILED_CHECK}${error}`;
}
/** The status call got no answer about the transaction: 5xx, timeout, throttled, garbage, credentials… */
export function isFailedCheck(check: Pick<CheckRecord, 'answer'>): boolean {
  return check.answer.startsWith(FAILED_CHECK);
}

/** Where the transaction is in its reconciliation. */
interface ReconcileState {
  /** When the next status check is due; absent once the transaction is final. Drives the due index. */
  dueAt?: string;
  /** Status calls made so far. */
  checks: number;
  /** The latest status calls, newest last (bounded). */
  recent: CheckRecord[];
  /** The poller holding the lease (dueAt is then the lease's end). */
  leaseOwner?: string;
  /** An AMBIGUOUS transaction that outlived the configured age was escalated once. */
  escalatedAt?: string;
  /** Consecutive "never accepted" answers (MoMo 404, Airtel unknown id). */
  notFound?: number;
  /** When the current run of "never accepted" answers began. */
  notFoundSince?: string;
  /**
   * A report after the verdict (a success after FAILED, a success after EXPIRED) asked for status checks:
   * the poller checks a final transaction until it has a final answer or this time passes.
   */
  recheckUntil?: string;
}

export interface ConflictRecord {
  /**
   * UNVERIFIED_SUCCESS: an unsigned success the status API contradicted (a security signal); NOT_FOUND:
   * the status API does not know a reference some callback reported on (often another API user made it).
   */
  kind: 'STATUS' | 'AMOUNT_MISMATCH' | 'MSISDN_MISMATCH' | 'UNVERIFIED_SUCCESS' | 'NOT_FOUND';
  reportedStatus: TransactionStatus;
  at: string;
  origin: EventOrigin;
  receiptId: string | undefined;
  detail: string;
  /** The two pieces of evidence that disagree: what was known, and what came (absent on older records). */
  evidence?: Evidence[];
  /**
   * What a business-check conflict is about (the reported amount and provider receipt): part of its
   * identity, so another mismatching success is its own conflict, not a repeat of the first.
   */
  subject?: string;
  /**
   * The same contradiction reported again since (another body saying the same thing): counted here, never
   * a new record or event, so a flood of one claim cannot push earlier conflicts out.
   */
  repeats?: number;
  /** When the latest repeat came, and its receipt. */
  lastAt?: string;
  lastReceiptId?: string;
}

/**
 * Money of a succeeded payment that went back (a Daraja reversal result): one entry per reversal request,
 * whatever the provider repeats. The payment's status stays SUCCEEDED; the reversals say what is left.
 */
export interface ReversalRecord {
  /** The reversal request's id (the fact's: OriginatorConversationID), so a repeat is not counted twice. */
  id: string;
  /** What went back, as the result says; null when it does not say (then it counts as the whole payment). */
  amount: Money | null;
  /** When the relay received the result. */
  at: string;
  /** The reversal's own receipt (Daraja's Result.TransactionID). */
  reversalReceipt: string | null;
  /** The TransactionReversed event it published. */
  eventId: string;
  /** The result it rests on (its stored receipt, the provider's code and words). */
  evidence: Evidence;
}

/** Counts, never silently drops: what was kept of the distinct callbacks about one transaction. */
export interface ReceiptTally {
  /** Distinct callbacks stored with their bodies. */
  kept: number;
  /** Their body bytes. */
  bytes: number;
  /** Distinct callbacks stored without their bodies (the budget was spent): counted, dated, not lost. */
  dropped: number;
  droppedBytes: number;
}

export interface TransactionRecord {
  key: TransactionKey;
  kind: string;
  status: TransactionStatus;
  /** False when the transaction was first seen in a callback nobody registered (an orphan). */
  registered: boolean;
  amount: Money | undefined;
  /**
   * The amount a registration named when it came after a published success for another amount (or none):
   * `amount` stays what the success said, this keeps what was registered (a repeat of that registration
   * is then a repeat). Absent otherwise.
   */
  registeredAmount?: Money | undefined;
  msisdn: string | undefined;
  externalId: string | undefined;
  providerTransactionId: string | undefined;
  reason: Reason | undefined;
  party: Party | undefined;
  metadata: Record<string, unknown> | undefined;
  attributes: Record<string, string>;
  createdAt: string;
  updatedAt: string;
  /** End of the reconciliation window; past it a non-final transaction becomes EXPIRED. */
  reconcileUntil: string;
  /** Due checks, lease and the latest answers (absent on records written before reconciliation existed). */
  reconcile?: ReconcileState;
  /** Optimistic-concurrency counter: every write is conditional on the revision it read. */
  revision: number;
  transitions: TransitionRecord[];
  /** Every report the status rests on, oldest first, bounded (docs/reconciliation.md#evidence). */
  evidence?: Evidence[];
  /**
   * What a status query may be built on: ids and facts from the registration, the provider's own answers
   * or reports authenticated end to end (never an unauthenticated callback's).
   */
  trusted?: { providerTransactionId?: string; attributes: Record<string, string> };
  conflicts: ConflictRecord[];
  /**
   * Receipts unauthenticated reports claimed for this SUCCEEDED transaction while it had none (an STK push
   * settled by the STK query, then its callback): each is asked about with the provider's status API and
   * adopted only from its answer (app/transactions/decide-report.ts). Next to ask first, at most 3.
   */
  receiptClaims?: string[];
  /** Money that went back after the payment succeeded (absent: none), oldest first (domain/reversal.ts). */
  reversals?: ReversalRecord[];
  /**
   * Reversal successes held UNCONFIRMED (their sender passed no check) that the poller asks the provider
   * about, on an account with a status API (domain/held-reversal.ts); absent: none.
   */
  heldReversals?: HeldReversal[];
  /** Ids and types of every event this transaction produced, for GET history. */
  events: { id: string; type: string; at: string }[];
  /** Callbacks stored about it, and those whose bodies were not kept (over the per-transaction budget). */
  receipts?: ReceiptTally;
  /** The events produced by the latest write. The table's stream publishes them (transactional outbox). */
  outbox: EventEnvelope[];
}
