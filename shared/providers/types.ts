import type * as z from '../util/zod';
import type { RelayError } from '../domain/errors';
import type { Money, ReportDraft, TransactionKey } from '../domain/transaction';
import type { ProviderRecord } from '../domain/provider-record';
import type { HttpMethod } from '../util/http-method';
import type { StatementRow } from '../domain/statement';
import type { CheckSchedule } from '../domain/reconcile-schedule';
import type { ProviderStatementFacts } from '../domain/statement-match';

export interface AccountContext<S> {
  provider: string;
  id: string;
  pathSecret: string | undefined;
  /** The path secret a rotation replaced, accepted until it is removed (docs/deploy.md). */
  previousPathSecret?: string;
  settings: S;
}

/** What a provider's pure functions see of one callback. */
export interface CallbackInput<S> {
  account: AccountContext<S>;
  /** Name of the matched route (e.g. "callback", "stk", "c2b-validation"). */
  route: string;
  /** Values of the `{name}` segments of the route's path pattern. */
  params: Record<string, string>;
  /** The parsed JSON body, within the request guards' limits, secrets already redacted. */
  body: Record<string, unknown>;
  /** The bytes as received: only for signature checks, never stored or logged. */
  rawBody: Buffer;
  /** Lower-case header names. */
  headers: Record<string, string>;
  sourceIp: string;
}

export interface VerificationResult {
  /** How the callback was authenticated: stored on the receipt (never keys or hash values). */
  facts: Record<string, unknown>;
  /** Refuse the callback with this error (401/403); it is quarantined and raises CallbackRejected. */
  refusal?: RelayError;
  /** A check failed but the account's mode lets the callback through (log-only): logged as a warning. */
  warning?: string;
  /** The body's content is signed end to end (not just its sender checked). */
  authenticated: boolean;
  /**
   * When the signature covers only part of the body: that part. Parsing reads only it, so unsigned
   * members can never change what the callback says.
   */
  trustedBody?: Record<string, unknown>;
}

/** One way to find the transaction a report is about: its reference itself, or an alias recorded earlier. */
export interface CorrelationCandidate {
  /** "reference": the value is a transaction reference; otherwise the alias namespace (e.g. "ConversationID"). */
  via: string;
  value: string | null | undefined;
}

/** One statement a callback makes about one transaction, and what the pipeline needs to place it. */
export interface ReportIntent {
  draft: ReportDraft;
  /**
   * When the body does not name the reference directly: candidates tried in order (reference exists, or
   * an alias points to one); when none matches, the first direct candidate becomes the reference.
   */
  correlate?: readonly CorrelationCandidate[];
  /** Aliases to record once the report is written: another id of the same transaction. */
  aliases?: readonly { namespace: string; value: string | null | undefined }[];
  /** A provider record whose `data.link` attributes join the report (e.g. the C2B validation decision). */
  link?: { namespace: string; id: string };
  /** The report creates its transaction (C2B confirmation) instead of finding an orphan. */
  born?: boolean;
  /**
   * The report cannot be trusted to name its transaction (MoMo's reference-less route, correlated by a
   * non-unique externalId): it only makes the transaction it points to due for a status check now, and
   * never changes a status by itself. Unmatched, it is kept as a hint that a later registration adopts.
   */
  hint?: boolean;
  /**
   * The report says nothing about its transaction's outcome (a queue timeout of a transaction status
   * query: the query timed out, not the payment): its receipt joins the transaction's, nothing is applied.
   */
  saysNothing?: boolean;
  /**
   * The report is a provider's answer to a status query (Daraja's asynchronous transaction-status result),
   * not a callback about the payment. Unless it comes through the stored record of the relay's own query, the
   * relay did not ask it (a partner's query, a forgery, or the relay's answer arriving before its record was
   * written): where the account has a status API, its final claim is held AMBIGUOUS (UNCONFIRMED) and the
   * relay asks itself, whatever the account's `confirmSuccess` says.
   */
  answersQuery?: boolean;
  /**
   * The answer to the relay's status query about a held reversal (Daraja: its Occasion token's kind, verified
   * or not): never applied to a payment. Through the query's record it is kept for the poller; before that
   * record is written it waits under the query's ids (its alias candidates) until the poller writes it.
   */
  aboutHeld?: boolean;
  /**
   * What a status answer says it is about, under the names the relay's query asks with (Daraja: the
   * original's `OriginatorConversationID`, its receipt as `TransactionID`). Through the stored record of
   * the relay's own query, a final answer counts as that query's answer only when it names every id the
   * record says was asked (shared/domain/status-question.ts); otherwise it is a claim held AMBIGUOUS
   * (CONFLICTING_REPORTS). An answer without it never counts as the relay's own.
   */
  answersAbout?: Readonly<Record<string, string | undefined>>;
  /**
   * The report says it answers the relay's own asynchronous status query about `reference` (Daraja's MAC'd
   * `Occasion` token). A body proves nothing by itself: the ingest counts it as a status answer (origin
   * poll) only when it also comes through the stored record of that query (an alias written with origin
   * `poll`) for the same reference; otherwise it is a callback's claim. `claims`: what the answer says it
   * is about; one that disagrees with the transaction's trusted receipt is never counted as its answer
   * (AMBIGUOUS, CONFLICTING_REPORTS). Amounts meet the usual business check.
   */
  ownQuery?: {
    reference: string;
    claims: { providerTransactionId: string | undefined; amount: Money | undefined };
  };
  /**
   * Other transactions the same payment may already be recorded under (Daraja: a C2B confirmation born
   * before its STK result, keyed by the receipt). When one is found that nobody registered, already
   * SUCCEEDED with the same provider transaction id, this report still settles its own transaction but
   * publishes no second TransactionSucceeded: the payment's success is out already. The transaction
   * records the link (`attributes.SamePaymentAs`).
   */
  samePaymentAs?: readonly CorrelationCandidate[];
  /**
   * The provider's status API can confirm this report's receipt by a query about that receipt (Daraja: a
   * transaction status query by TransactionID). A success naming a receipt its already SUCCEEDED
   * transaction lacks (an STK push settled by the STK query, whose answer carries none) is then kept as a
   * claim and asked about; the receipt is adopted only from the provider's answer, never from the report.
   */
  receiptConfirmable?: boolean;
}

/** The event types a FactIntent may publish (shared/domain/event-envelope.ts has them all). */
export const FACT_EVENT_TYPES = [
  'TransactionReversed',
  'ReversalFailed',
  'ReversalAmbiguous',
  'AccountBalanceReported',
  'AccountBalanceFailed',
] as const;
type FactEventType = (typeof FACT_EVENT_TYPES)[number];

/**
 * A statement a callback makes that is not a transaction's status (Daraja's reversal and account-balance
 * results): stored once as a provider record under `fact:<namespace>`/`id` (the first delivery wins, so a
 * repeated callback publishes nothing new) with its event in the record's outbox. It never changes a
 * transaction's status; when it is about one (`about`), the event names it and its receipt joins its history.
 */
export interface FactIntent {
  event: FactEventType;
  namespace: string;
  /** The fact's identity (e.g. the request's OriginatorConversationID). */
  id: string;
  /** Other ids of the same fact (a result's ConversationID beside its OriginatorConversationID). */
  aliases?: readonly string[];
  /**
   * Ways to find the transaction the fact is about (a reversal: the original's receipt); only a match counts.
   * Absent: the fact is never about a transaction (an account balance) and its event names none.
   */
  about?: readonly CorrelationCandidate[];
  /** The provider receipt the fact names: a transaction found through `about` that has another one is not it. */
  receipt?: string;
  /** Skip the fact when one of these facts is already recorded (a stale queue timeout after the result). */
  supersededBy?: readonly { namespace: string; id: string }[];
  /**
   * The amount the fact moves (null: it moves money but does not say how much): checked against the
   * transaction it is about, as `amountCheck` in the event. Absent: the fact moves no money.
   */
  amount?: Money | null;
  /** The provider's own code and words for the fact (a result's ResultCode and ResultDesc): its evidence. */
  said?: { providerCode: string; description: string | undefined };
  /** Provider-specific event data (the app adds provider, account and the transaction it is about). */
  data: Record<string, unknown>;
  /**
   * Data kept on the fact's own record beside its event (the event itself leaves with the outbox): what
   * the relay reads back later, e.g. the balances of an AccountBalanceReported for the balance snapshots.
   */
  keep?: Record<string, unknown>;
  /**
   * What a fact about no transaction (an account balance) publishes when another delivery names the same
   * request with another outcome or content: nobody can tell which one is the provider's (its callbacks
   * are unsigned), so neither is taken. The event's `data.reason.message` gets both deliveries' words.
   */
  contradicted?: { event: FactEventType; data: Record<string, unknown> };
}

export type ParsedCallback =
  | {
      type: 'reports';
      reports: readonly ReportIntent[];
      /** Facts the callback states beside (or instead of) reports. */
      facts?: readonly FactIntent[];
    }
  /**
   * A question the relay must answer within a deadline instead of a report (Daraja's C2B validation).
   * `useCase` names the provider's decision handler (ProviderModule.decisions) that records it.
   */
  | { type: 'decision'; useCase: string; question: DeadlineQuestion };

interface AckInput {
  route: string;
  duplicate: boolean;
  receiptId: string | undefined;
  /** For a decision route: the code decided (C2B validation ResultCode). */
  resultCode?: string;
}

/** The provider-format acknowledgement; the HTTP layer sends it. */
export interface ProviderAck {
  statusCode: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface ProviderRoute<S> {
  /** Stable name stored on receipts (e.g. "callback", "stk", "c2b-validation"). */
  name: string;
  methods: readonly HttpMethod[];
  /** Pattern relative to /v1/{provider}/{account}/[{secret}/], e.g. "{kind}/{referenceId}". */
  path: string;
  /** Pure: the body (or its signed part) in relay vocabulary; throws a RelayError on bad input. */
  parse(input: CallbackInput<S>): ParsedCallback;
  /**
   * Set on a route that asks a question instead of reporting (Daraja's C2B validation): the decision
   * handler (ProviderModule.decisions key) its `parse` names. Its answer follows from the decision taken,
   * so no fixed ack can be derived for it afterwards.
   */
  asks?: string;
  /**
   * Set on a route that carries the answer to a query the relay itself made (Daraja's transaction status
   * result and its queue timeout, the ResultURL and QueueTimeOutURL of the poller's status query). Such a
   * callback proves nothing about the account's own callbacks: callback health counts only the others
   * (docs/reconciliation.md#callback-health), or the poller's checks would end every silence they answer.
   */
  answersRelayQuery?: boolean;
  /**
   * Set on a route that carries the answers to Account Balance requests, the relay's own (its balance
   * snapshots, StatusApi.balance) and the partner's alike (Daraja's balance result and queue timeout). The
   * receipt's reference is the id the answer names; the answer is the relay's own when the balance
   * snapshots recorded that id as one they asked with. Callback health counts only the partner's.
   */
  answersBalanceRequests?: boolean;
}

export interface RegistrationRules<S> {
  kinds: readonly string[];
  /** Canonical form of a reference (e.g. lower-case UUIDs), so registration and callbacks agree. */
  normalizeReference?(reference: string): string;
  /** Returns a message when the reference cannot be a correlation id for this provider. */
  validateReference(reference: string): string | undefined;
  /**
   * Registrations record `externalId` as an alias of the reference, so reference-less callbacks can
   * find the transaction (MoMo clients that make up X-Reference-Id themselves). Two registrations with
   * the same externalId make it ambiguous: such callbacks then match nothing.
   */
  externalIdAliases?: boolean;
  /** The URL to hand to the provider for this transaction, when the provider takes one per request. */
  callbackUrl?(input: {
    baseUrl: string;
    account: AccountContext<S>;
    kind: string;
    reference: string;
  }): string;
}

/** What the poller knows of the transaction it asks the provider about. */
export interface StatusQuery {
  kind: string;
  /** The provider-side correlation id (MoMo X-Reference-Id, Airtel transaction.id, CheckoutRequestID…). */
  reference: string;
  amount: Money | undefined;
  msisdn: string | undefined;
  externalId: string | undefined;
  providerTransactionId: string | undefined;
  /** Provider facts already known (receipt numbers, ConversationID…), whoever reported them. */
  attributes: Record<string, string>;
  /**
   * What the relay may build a query on: ids and facts that came from the registration, from the
   * provider's own status answers, or from a report authenticated end to end (a signature). An
   * unauthenticated callback's ids are never here, so a forged report cannot point a query elsewhere.
   * Absent: nothing beyond the reference is trusted.
   */
  trusted?: { providerTransactionId: string | undefined; attributes: Record<string, string> };
  createdAt: string;
  /**
   * A receipt some unauthenticated report claimed for this transaction, already SUCCEEDED without one
   * (ReportIntent.receiptConfirmable): the status call asks about that receipt instead. Its answer cannot
   * change the status (SUCCEEDED is final); it only names the receipt, which is adopted once the business
   * check (amount, payer) passes. Absent: the usual status call.
   */
  confirmReceipt?: string;
  /**
   * The own receipt of a reversal held UNCONFIRMED on this payment (domain/held-reversal.ts): the status call
   * asks about that transaction instead (Daraja: the transaction status query, TransactionID = it). Its
   * answer says whether it is a completed reversal of that amount; it never changes the payment's status.
   */
  confirmReversal?: string;
  /**
   * Base of this account's callback routes: `<publicBaseUrl>/v1/<provider>/<account>[/<pathSecret>]`.
   * Daraja's transaction status query needs a ResultURL and QueueTimeOutURL under it.
   */
  callbackBase: string;
}

/**
 * The provider's answer to one status call, classified. Only codes on the provider's fixed list of final
 * codes may produce a draft with status SUCCEEDED or FAILED; transitional answers ("being processed",
 * `400.002.02`, `4999`, TIP, PENDING…) and unknown codes produce PENDING or AMBIGUOUS drafts (or `pending`).
 */
export type StatusAnswer = StatusAnswerBody & {
  /**
   * What was asked, for a person reading the history: method and path (no host, no query string, no
   * credentials), e.g. `GET /collection/v1_0/requesttopay/{reference}`. Absent: no call was made.
   */
  request?: string;
};

type StatusAnswerBody =
  /** The provider stated a status; `draft.key.reference` is the query's reference. */
  | { type: 'report'; draft: ReportDraft; providerCode: string; detail: string }
  /** Still in progress (no draft worth applying), e.g. Daraja "The transaction is being processed". */
  | { type: 'pending'; providerCode?: string; detail: string }
  /** The provider says it never accepted the request (MoMo 404 on the status GET, Airtel unknown id). */
  | { type: 'not-found'; providerCode?: string; detail: string }
  /**
   * Asynchronous status call accepted (Daraja transaction status query): the result arrives later on a
   * callback route. `alias` is recorded before anything else so that result is applied to this transaction.
   */
  | {
      type: 'requested';
      detail: string;
      /**
       * `asked`: the ids the query named (e.g. `{ OriginatorConversationID }`), stored with the record so
       * the result is compared with the question wherever it is applied (ReportIntent.answersAbout).
       */
      alias?: { namespace: string; id: string; asked?: Readonly<Record<string, string>> };
    }
  /** No answer worth trusting. Never settles anything; the poller backs off. */
  | {
      type: 'error';
      error: 'timeout' | 'unavailable' | 'throttled' | 'garbage' | 'credentials' | 'rejected' | 'unsupported';
      detail: string;
      /** From Retry-After or the provider's throttling answer. */
      retryAfterMs?: number;
      /** HTTP status, when there was one. */
      httpStatus?: number;
      /**
       * The provider's own answer says the outcome is unclear (MoMo: a 5xx on the status call), as its status
       * mapping decides: reconciliation holds a PENDING transaction AMBIGUOUS (PROVIDER_ERROR) and goes on asking.
       */
      unclear?: boolean;
    };

export interface StatusApiDeps {
  fetch: typeof fetch;
  /** Milliseconds since the epoch (token expiry); injectable for tests. */
  now(): number;
  sleep(ms: number): Promise<void>;
  log: {
    warn(message: string, ...extra: Record<string, unknown>[]): void;
    info(message: string, ...extra: Record<string, unknown>[]): void;
  };
}

/** One account's status API client: tokens cached and refreshed, timeouts, retries, rate limit inside. */
export interface StatusApi {
  check(query: StatusQuery, signal?: AbortSignal): Promise<StatusAnswer>;
  /**
   * The account's balance (issue 29), through the same tokens and guards as `check`. MoMo and Airtel
   * answer at once; Daraja's Account Balance answers later on the account's `balance/result` route
   * (`requested`, with the request id the result will carry). Absent: the provider has no balance API.
   */
  balance?(request: BalanceRequest, signal?: AbortSignal): Promise<BalanceAnswer>;
  /** How a `requested` balance's result is read back, for a provider whose balance answers later. */
  balanceResult?: BalanceResultReader;
  /** The provider's pull API of money moved (Daraja Pull Transactions), when the account is set up for it. */
  pull?: PullTransactionsApi;
  /**
   * What the status answer about a held reversal's receipt (StatusQuery.confirmReversal) says of that movement,
   * in the provider's words (Daraja: ReasonType, TransactionStatus, else why the query failed): what
   * domain/held-reversal.ts judgeReversalAnswer reads. Absent: the provider's answers cannot confirm one.
   */
  describeMovement?(draft: ReportDraft): MovementDescription;
}

export interface MovementDescription {
  movementType: string | undefined;
  /** Whether the provider calls that movement a reversal (its own vocabulary, read in its folder). */
  isReversal: boolean;
  words: string;
  providerCode: string;
}

export interface BalanceRequest {
  /** Base of the account's callback URLs (path secret included), for an answer that comes as a callback. */
  callbackBase: string;
}

/** One balance the provider reported: `subAccount` names which of the account's wallets (Daraja has several). */
export interface ReportedBalance {
  balance: string;
  currency?: string;
  subAccount?: string;
}

/**
 * Where an asynchronous balance's result is kept and what it says: the fact its callback recorded (a
 * provider record under `fact:<factNamespace>`, its id the request id), read into balances and their
 * instant, or why there are none.
 */
export interface BalanceResultReader {
  factNamespace: string;
  read(fact: {
    data: Record<string, unknown>;
    createdAt: string;
  }): { balances: ReportedBalance[]; at: string } | { failed: string };
}

export type BalanceAnswer =
  | { type: 'balances'; balances: ReportedBalance[] }
  /** Asynchronous: the answer arrives as a callback naming `requestId` (Daraja OriginatorConversationID). */
  | { type: 'requested'; requestId: string; detail: string }
  | Extract<StatusAnswer, { type: 'error' }>;

/** A pull answer classified: rows, a true "no transactions", or a failure (even one answered HTTP 200). */
export type PullAnswer =
  | { type: 'rows'; rows: PulledRow[] }
  | { type: 'empty'; detail: string }
  | Extract<StatusAnswer, { type: 'error' }>;

/** A row of a pull answer, as the provider gave it (mapped to a StatementRow by the provider module). */
export type PulledRow = Record<string, unknown>;

export type PullRegistrationAnswer =
  | { type: 'registered'; code: string; detail: string; alreadyRegistered: boolean }
  | Extract<StatusAnswer, { type: 'error' }>;

/** A provider's API of the money its account moved (Daraja Pull Transactions: C2B, 48 h back). */
export interface PullTransactionsApi {
  /** How far back the provider answers, in seconds (Daraja: 48 h). */
  readonly maxLookBackSeconds: number;
  register(callbackUrl: string, signal?: AbortSignal): Promise<PullRegistrationAnswer>;
  /** One page: rows from `offset` of the window [from, to] (ISO 8601 instants). */
  query(window: { from: string; to: string; offset: number }, signal?: AbortSignal): Promise<PullAnswer>;
  /** The provider's row in the relay's normalized shape (undefined: not a row of money moved). */
  toStatementRow(row: PulledRow, origin: { ref: string; row: number }): StatementRowDraft | undefined;
}

/** A StatementRow before the relay adds its provider, account and source. */
export type StatementRowDraft = Omit<StatementRow, 'provider' | 'account' | 'source'>;

/**
 * One provider dialect, pure: redaction, verification, parsing into reports, acks. It makes no storage
 * calls. Adding a provider means adding a folder that exports one of these and listing it in
 * registry.ts; nothing else in the relay names a provider.
 */
export interface ProviderModule<S = unknown> {
  id: string;
  displayName: string;
  /** Provider-specific settings of accounts.<id>.<account> (the path secret is common and added by the registry). */
  accountSchema: z.ZodMiniObject;
  /** Callbacks carry no other authentication than the path secret: an account without one must opt out. */
  pathSecretRequired?: boolean;
  routes: readonly ProviderRoute<S>[];
  /** Checks the callback's authenticity (signature, source IP). Absent: nothing beyond the path secret. */
  verify?(input: CallbackInput<S>): VerificationResult;
  /** The answer the provider expects once the callback is stored (or the decision made). */
  ack(input: AckInput): ProviderAck;
  /**
   * The provider's own rejection format, when it expects one. The HTTP status still comes from
   * the single error mapping; only the body shape is the provider's.
   */
  formatError?(error: RelayError, statusCode: number, route: string | undefined): ProviderAck | undefined;
  /** Addresses the provider's callbacks come from (an allow-list): the edge's rate rule spares them. */
  callbackSourceCidrs?(settings: S): readonly string[];
  /** URLs the account is configured with, so config validation can apply the URL rules to them. */
  configuredUrls?(settings: S): { key: string; url: string }[];
  /**
   * Kinds whose transactions the status API can check (others are only expired at the window's end).
   * The status API client itself is registered in status-api-registry.ts, apart from this definition
   * so the callback bundles leave it out.
   */
  statusKinds?: readonly string[];
  /**
   * How long a callback's direct store write may take and when its ack must leave (the ingress buffer
   * takes the callback in between; docs/ingress-buffer.md), well inside the provider's own timeout.
   * Absent: the shortest default (MoMo's), safe for any provider. `ackBudgets.<provider>` overrides it.
   */
  ackBudget?: AckBudget;
  /** Secret values in an account's settings (keys, tokens): scrubbed from every message, log and event. */
  secrets?(settings: S): (string | undefined)[];
  /** How the questions its routes ask (ParsedCallback `decision`) are recorded, by `useCase`. */
  decisions?: Readonly<Record<string, DecisionHandler>>;
  /**
   * The check that alone vouches for an unsigned sender (Daraja: `source-ip`; a path secret is in every URL
   * it was shown). A delivery that did not pass it is an unauthenticated callback (ingest-report.ts).
   */
  senderCheck?: 'source-ip';
  /**
   * Names of the payload members (object keys, or the Key/Name of a Key/Value item) and report attributes
   * that may carry a phone number: their numbers are masked in every answer (util/mask.ts). Ids in other
   * members are never taken for numbers.
   */
  phoneFields: readonly string[];
  /** The account's country (ISO 3166 alpha-2), which turns a national number (0708…) international. */
  countryOf?(settings: S): string | undefined;
  /** The provider's own timing (its `timings.ts`): when to check a status, when a silence starts. */
  timings: ProviderTimings;
  /** What infra/ builds for it (its `infra.ts`): alarms, limits, decision functions, operators' words. */
  infra: ProviderInfraDeclaration;
  /**
   * How its transactions are registered (its `registration.ts`): kinds, reference checks, the callback URL
   * handed out. Absent: the provider takes no registrations.
   */
  registration?: RegistrationRules<S>;
  /**
   * What its records say and how the matcher reads them (its `statements.ts`): time zone, keys, the kinds
   * it opens, pairs and counts as money in. Absent: every default of ProviderStatementFacts.
   */
  statements?: ProviderStatements<S>;
}

/** A provider's statement facts, and what of an account's settings shapes its balance. */
export interface ProviderStatements<S> extends ProviderStatementFacts {
  /**
   * Kinds whose money moves another balance than the one the balance API reports for this account: their
   * finals and charges are left out of that balance's drift. Absent: none.
   */
  balanceLeavesOut?(settings: S): readonly string[];
}

/**
 * A provider's timing defaults (docs/reconciliation.md), before the config's overrides and `timeScale`.
 */
export interface ProviderTimings {
  /** When the poller asks for a transaction's status, by kind (`*`: every other kind). */
  checkSchedules: Readonly<Record<string, CheckSchedule>>;
  /** Seconds without a callback, while a transaction older than that waits, that make an account silent. */
  callbackSilenceSeconds: number;
}

/**
 * What a decision recorded, serializable (the ingress buffer carries it as is): `resultCode` is what the
 * provider is answered; the rest is the provider's.
 */
export interface DecisionDraft {
  decision: string;
  resultCode: string;
  [fact: string]: unknown;
}

/** A decision as recorded: the draft and when it was made (the app sets it from its clock). */
export interface DecisionFacts extends DecisionDraft {
  decidedAt: string;
}

/** What a question may consult while it decides, besides its own settings. */
export interface DecisionTools {
  /** A provider record of the question's account, or undefined (aborted with the signal). */
  readRecord(namespace: string, id: string, signal: AbortSignal): Promise<ProviderRecord | undefined>;
  fetchImpl?: (url: string, init: RequestInit) => Promise<Response>;
}

/**
 * A question a provider asks the relay to answer within a deadline (a route's parse builds it). The app's
 * decision use case stores the receipt, asks `decide` with what is left of the deadline, records the
 * facts through the provider's decision handler and answers `resultCode`, whatever storage does.
 */
export interface DeadlineQuestion {
  /** The transaction the question is about (its reference keys the receipt and the decision record). */
  key: TransactionKey;
  deadlineMs: number;
  /** Masked fields for the log lines. */
  logFields: Record<string, unknown>;
  /** Decides within `budgetMs` (a late decision is the provider's default, never an error). */
  decide(tools: DecisionTools, budgetMs: number): Promise<DecisionDraft>;
}

/** How a provider records the decisions of one kind of question (ProviderModule.decisions). */
export interface DecisionHandler {
  /** How log lines name the question ("c2b validation" → "c2b validation answered before it was stored"). */
  label: string;
  /** The facts worth a log line (masked; the record keeps them all). */
  logFacts(facts: DecisionFacts): Record<string, unknown>;
  /** Checks facts read back from the ingress buffer (anything else is unappliable). */
  factsSchema: z.ZodMiniType<DecisionFacts>;
  /**
   * The record that keeps a decision, with its event in the outbox (first writer wins), whether written
   * on the callback path (origin `callback`) or applied from the ingress buffer (origin `buffer`).
   */
  record(
    key: TransactionKey,
    facts: DecisionFacts,
    receiptId: string | undefined,
    receivedAt: string,
    origin: 'callback' | 'buffer',
  ): ProviderRecord;
}

/** A provider's callback time budget (ProviderModule.ackBudget). */
export interface AckBudget {
  /** How long the direct store write may take before the callback goes to the buffer. */
  storeMs: number;
  /** When the ack must be on its way: the buffer gets what is left of it after the store. */
  ackMs: number;
}

/**
 * What infra needs from a provider, declared by the provider module (its `infra.ts`, carried as its
 * `infra`) and gathered by the registry (PROVIDER_INFRA), so no construct names a provider. Plain data:
 * no AWS SDK or CDK import, since the registry carries it into every function bundle.
 */
export interface ProviderInfraDeclaration {
  readonly id: string;
  /** How operators' texts (alarm descriptions, nag reasons) name the provider. */
  readonly name: string;
  /** Whether the provider delivers a callback again when it was not acknowledged. */
  readonly retriesCallbacks: boolean;
  /**
   * What authenticates its callbacks besides the path secret (`name`), what a refused one usually points
   * at (`misconfigured`), and whether it is the request's source address (`checksSourceIp`: behind
   * CloudFront the relay must be told the viewer's address).
   */
  readonly callbackCheck?: {
    readonly name: string;
    readonly misconfigured: string;
    readonly checksSourceIp?: boolean;
  };
  /** The provider keeps the callback URLs registered with it (named when an account falls silent). */
  readonly urlRegistration?: string;
  /**
   * The provider's own limit for answering a callback: drawn on the ack latency graph (`label`) and
   * named in the callback latency alarm (`phrase`, e.g. "X's 2 s").
   */
  readonly ackLimit?: { readonly ms: number; readonly label: string; readonly phrase: string };
  /** Account settings (dotted keys) holding a deadline in ms for answering a callback, and its cap. */
  readonly callbackDeadlines?: ReadonlyArray<{ readonly setting: string; readonly capMs: number }>;
  /** Ack p99 (ms; the callback function's duration, the AckLatency-P99 alarm) above which the relay pages. @default no such alarm */
  readonly ackLatencyAlarmMs?: number;
  /** Published source addresses/CIDRs of the provider's callbacks (the WAF rate rule spares them). */
  readonly callbackSources?: readonly string[];
  /**
   * The API the poller pulls the provider's own records from, and how far back it answers: the pull-age
   * page must come before that (infra/relay/statements.ts).
   */
  readonly pullApi?: { readonly name: string; readonly lookBackSeconds: number };
  /**
   * Routes that wait on a decision (`/v1/<provider>/{account}[/{secret}]/<path>`): served by a function
   * of their own with their own reserved concurrency (`ceil(rate × worstCaseMs)`) and throttle.
   */
  readonly decisionRoutes?: ReadonlyArray<ProviderDecisionRoute>;
}

export interface ProviderDecisionRoute {
  /** Names the function (`<id>Function`), the route settings and the props (`decisionThrottles`). */
  readonly id: string;
  readonly method: string;
  /** The route after `/v1/<provider>/{account}/[{secret}/]`, e.g. `c2b/validation`. */
  readonly path: string;
  /** Longest the handler may take to answer (the decision deadline's cap). */
  readonly worstCaseMs: number;
  readonly throttle: { readonly rateLimit: number; readonly burstLimit: number };
}
