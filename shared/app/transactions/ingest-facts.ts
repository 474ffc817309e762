import { type AuthenticationMethod, type Evidence, isEndToEnd } from '../../domain/evidence';
import { buildEvent, correlationIdOf, type EventEnvelope, transactionEventData } from '../../domain/events';
import type { EventOrigin } from '../../domain/event-envelope';
import { publishedReason, type Reason } from '../../domain/reasons';
import {
  type HeldReversal,
  type HeldReversalClaim,
  judgeReversalAnswer,
  type ReversalAnswer,
  type ReversalVerdict,
  withCountedSettled,
  withHeldReversal,
  withReversalHeld,
} from '../../domain/held-reversal';
import { withFactNoted } from '../../domain/reversal';
import type { ReversalRecord, TransactionKey, TransactionRecord } from '../../domain/transaction';
import type { CorrelationCandidate, FactIntent } from '../../providers/types';
import { sha256Hex } from '../../util/ids';
import { decimalSum, sameAmount } from '../../util/money';
import type { ProviderRecord, ProviderRecordRef, RelayLogger, CallbackStore, WriteOptions } from '../ports';
import { writeWithRetry } from './write-with-retry';

/** ingest-report's resolveCorrelation (passed in: that module calls this one). */
type Resolve = (
  candidates: readonly CorrelationCandidate[],
) => Promise<{ reference: string; matched: boolean; transaction?: TransactionRecord } | undefined>;

/** Facts are provider records under this namespace prefix (`fact:reversal`, `fact:account-balance`…). */
const FACT_NAMESPACE_PREFIX = 'fact:';

/** The provider-record namespace a provider's fact namespace is kept under. */
export const factNamespace = (namespace: string) => `${FACT_NAMESPACE_PREFIX}${namespace}`;

export interface PlacedFact {
  fact: FactIntent;
  /** The transaction the fact is about, when one matched. */
  transaction: TransactionRecord | undefined;
}

/** Finds the transaction each fact is about: only a real match counts, never a made-up reference. */
export async function placeFacts(
  store: CallbackStore,
  resolve: Resolve,
  key: { provider: string; account: string },
  facts: readonly FactIntent[],
  options: WriteOptions = {},
): Promise<PlacedFact[]> {
  const { provider, account } = key;
  const placed: PlacedFact[] = [];
  for (const fact of facts) {
    const found = fact.about?.length ? await resolve(fact.about) : undefined;
    const candidate = found?.matched
      ? (found.transaction ??
        (await store.getTransaction({ provider, account, reference: found.reference }, options)))
      : undefined;
    // A transaction that knows another receipt than the one the fact names is not the one it is about.
    const named = fact.receipt;
    const known = candidate?.providerTransactionId;
    const transaction = candidate && named && known && known !== named ? undefined : candidate;
    placed.push({ fact, transaction });
  }
  return placed;
}

/** Where a fact's receipt is kept: in the history of the transaction it is about, else under its own id. */
export function factReceiptKey(provider: string, account: string, placed: PlacedFact): TransactionKey {
  return placed.transaction?.key ?? { provider, account, reference: placed.fact.id };
}

function amountCheck(placed: PlacedFact): 'matches' | 'differs' | 'unknown' {
  const reported = placed.fact.amount ?? undefined;
  const expected = placed.transaction?.amount;
  if (!reported || !expected) return 'unknown';
  const sameCurrency = !reported.currency || !expected.currency || reported.currency === expected.currency;
  return sameCurrency && sameAmount(reported.value, expected.value) ? 'matches' : 'differs';
}

/** A fact's data as events publish it: its reason's contract code, the finer one as `reasonDetail`. */
function publishedFactReason(data: Record<string, unknown>): Record<string, unknown> {
  return data.reason ? { ...data, ...publishedReason(data.reason as Reason) } : data;
}

/** What a reversal result says about the reversal: done, refused, or not known yet. */
function claimOf(event: string): Evidence['claim'] {
  if (event === 'TransactionReversed') return 'SUCCEEDED';
  return event === 'ReversalFailed' ? 'FAILED' : 'AMBIGUOUS';
}

/**
 * TransactionConflict about a reversal: the payment's status is not changed by it (a reversal never
 * does); the event names what disagrees, for a person.
 */
function reversalConflict(
  tx: TransactionRecord,
  fact: FactIntent,
  conflict: { kind: 'STATUS' | 'AMOUNT_MISMATCH'; detail: string; evidence: Evidence[] },
  batch: { origin: EventOrigin; receivedAt: string },
): EventEnvelope {
  return buildEvent(
    'TransactionConflict',
    correlationIdOf(tx),
    `${conflict.kind}:${fact.namespace}:${fact.id}:${fact.event}`,
    batch.origin,
    batch.receivedAt,
    {
      ...transactionEventData(tx, batch.receivedAt),
      conflict: {
        kind: conflict.kind,
        detail: conflict.detail,
        currentStatus: tx.status,
        reportedStatus: tx.status,
        reportedReason: null,
        reportedAmount: fact.amount ?? null,
        reportedProviderTransactionId: null,
        evidence: conflict.evidence,
      },
    },
  );
}

/** A provider record of this delivery's provider and account, by namespace and id. */
type RecordRefOf = (namespace: string, id: string) => ProviderRecordRef;

/**
 * One request id, two outcomes (a ReversalFailed hiding a real reversal, or the reverse), or one outcome
 * with other content: never "first wins" silently. One TransactionConflict per request id and outcome
 * names both results.
 */
async function raiseContradiction(
  { store, ref, batch, options }: FactRecording,
  tx: TransactionRecord,
  fact: FactIntent,
  first: { data: Record<string, unknown>; createdAt: string },
  evidence: Evidence,
  detail: string,
): Promise<void> {
  const conflict = reversalConflict(
    tx,
    fact,
    {
      kind: 'STATUS',
      detail,
      evidence: [recordedEvidence(first), evidence],
    },
    batch,
  );
  await store.putRecordIfAbsent(
    {
      ...ref('conflict', `${fact.namespace}:${fact.id}:${fact.event}`),
      data: { first: first.data.event ?? null, then: fact.event },
      createdAt: batch.receivedAt,
      outbox: [conflict],
    },
    options,
  );
  await noteOnTransaction(store, tx, conflict, undefined, options);
}

/**
 * Puts a fact's event on the timeline of the transaction it is about (and a reversal in its reversals):
 * conditional on the revision read, idempotent (withFactNoted changes nothing the second time).
 */
async function noteOnTransaction(
  store: CallbackStore,
  tx: TransactionRecord,
  event: EventEnvelope,
  reversal: ReversalRecord | undefined,
  options: WriteOptions,
  /** A held reversal the poller is to ask the provider about (askAboutHeld). */
  held?: HeldReversalClaim,
): Promise<void> {
  await writeWithRetry(
    store,
    tx.key,
    (current) => {
      if (!current) return { result: undefined };
      const noted = withFactNoted(current, event, reversal);
      const next = (held && withReversalHeld(noted ?? current, held, event.metadata.occurredAt)) ?? noted;
      return next ? { next, result: undefined } : { result: undefined };
    },
    // The record just read to place the fact saves a read; a lost race re-reads it (consistently).
    { ...options, what: `note ${event.metadata.type} on its transaction`, initial: tx },
  );
}

/** The held reversal the poller may ask about: on an account with a status API, with a receipt to ask. */
function askAboutHeld(batch: FactBatch, fact: FactIntent): HeldReversalClaim | undefined {
  // A held result keeps the one it was (heldReversal); a queue timeout's ReversalAmbiguous keeps none.
  const original = fact.keep?.original as FactIntent | undefined;
  const receipt = original?.data.reversalReceipt;
  if (!batch.confirmUnaskedAnswers || typeof receipt !== 'string') return undefined;
  return { id: fact.id, namespace: fact.namespace, receipt, amount: original!.amount ?? null };
}

/** TransactionReversed says what is left of the payment after it and the reversals before it. */
function withNetAmount(
  event: EventEnvelope,
  tx: TransactionRecord,
  fact: FactIntent,
  before: readonly string[],
): EventEnvelope {
  const paid = tx.amount;
  const reversed = fact.amount?.value ?? paid?.value;
  const netAmount =
    paid && reversed !== undefined
      ? {
          value: decimalSum(
            { value: paid.value, sign: 1 },
            ...[...before, reversed].map((value) => ({ value, sign: -1 as const })),
          ),
          currency: paid.currency,
        }
      : null;
  return { ...event, data: { ...event.data, netAmount } };
}

/** The transaction an earlier fact record was placed on (its `reference`), if any. */
async function recordedAbout(
  store: CallbackStore,
  batch: { provider: string; account: string },
  record: { data: Record<string, unknown> },
  options: WriteOptions,
): Promise<TransactionRecord | undefined> {
  const reference = record.data.reference;
  if (typeof reference !== 'string') return undefined;
  return store.getTransaction({ provider: batch.provider, account: batch.account, reference }, options);
}

/** Reversals kept per payment (slots `fact:reversal-of/<reference>#<n>`): enough for any real case. */
const MAX_REVERSALS = 20;

/**
 * Claims the next reversal slot of a payment, in order, so concurrent results see each other: the
 * amounts of the earlier slots plus this one may not exceed the payment. Returns why not, or undefined.
 */
async function claimReversal(
  store: CallbackStore,
  ref: RecordRefOf,
  tx: TransactionRecord,
  fact: FactIntent,
  receiptId: string | undefined,
  at: string,
  options: WriteOptions,
): Promise<{
  refused?: { detail: string; earlier?: { data: Record<string, unknown>; createdAt: string } };
  /** The amounts of the payment's earlier reversals (the slots before this one's), as counted. */
  before: string[];
}> {
  const limit = tx.amount ? Number(tx.amount.value) : undefined;
  // A result that does not say how much went back counts as the whole payment.
  const amount = fact.amount ? Number(fact.amount.value) : (limit ?? 0);
  let total = 0;
  const before: string[] = [];
  let last: { data: Record<string, unknown>; createdAt: string } | undefined;
  for (let n = 0; n < MAX_REVERSALS; n++) {
    const slot = ref('reversal-of', `${tx.key.reference}#${n}`);
    const existing = await store.getRecord(slot, { ...options, consistent: true });
    const taken =
      existing ??
      (limit !== undefined && total + amount > limit + 1e-9
        ? undefined
        : await store
            .putRecordIfAbsent(
              { ...slot, data: { factId: fact.id, amount, receiptId: receiptId ?? null }, createdAt: at },
              options,
            )
            .then((put) => (put.written ? undefined : put.record)));
    if (!existing && !taken) {
      if (limit !== undefined && total + amount > limit + 1e-9)
        return {
          refused: {
            detail: `reversals of ${total + amount} reported for a payment of ${limit} (${fact.namespace} ${fact.id}: ${amount}); not published as TransactionReversed`,
            ...(last ? { earlier: last } : {}),
          },
          before,
        };
      return { before };
    }
    if (taken!.data.factId === fact.id) return { before };
    total += Number(taken!.data.amount ?? 0);
    before.push(String(taken!.data.amount ?? 0));
    last = {
      data: { event: 'TransactionReversed', receiptId: taken!.data.receiptId },
      createdAt: taken!.createdAt,
    };
  }
  return { refused: { detail: `more than ${MAX_REVERSALS} reversals reported for one payment` }, before };
}

/** A fact recorded earlier, as the evidence it was (for a conflict naming both). */
function recordedEvidence(record: { data: Record<string, unknown>; createdAt: string }): Evidence {
  return {
    source: 'callback',
    claim: claimOf(String(record.data.event)),
    authenticated: false,
    authentication: [],
    conclusive: false,
    at: record.createdAt,
    providerCode: null,
    description: `${String(record.data.event)} recorded first`,
    amount: null,
    receiptId: typeof record.data.receiptId === 'string' ? record.data.receiptId : null,
  };
}

/** The callback a final fact (a reversal) rests on, as evidence (docs/events.md#evidence). */
function factEvidence(
  fact: FactIntent,
  batch: {
    origin: EventOrigin;
    receivedAt: string;
    authentication?: AuthenticationMethod[];
    authenticated?: boolean;
    senderCheck?: AuthenticationMethod;
  },
  receiptId: string | undefined,
): Evidence {
  const authentication = deliveryAuthentication(batch);
  const receipt = typeof fact.data.originalReceipt === 'string' ? fact.data.originalReceipt : fact.receipt;
  return {
    // A result Daraja's status query confirmed (confirmHeldReversal) is its answer's word.
    source: batch.origin === 'buffer' ? 'buffer' : batch.origin === 'poll' ? 'status-api' : 'callback',
    claim: claimOf(fact.event),
    authenticated: authentication.length > 0,
    authentication,
    // The one rule (evidence.ts): a path secret vouches for no content; the check the design names the
    // sender's authentication (Daraja's source-IP list) does, as for a payment's callback (rank 2).
    conclusive: isEndToEnd(authentication) || authentication.some((m) => m === batch.senderCheck),
    at: batch.receivedAt,
    providerCode: fact.said?.providerCode ?? null,
    // The provider's words first, then what the relay made of them.
    description: [
      fact.said?.description,
      `${fact.event}: ${fact.namespace} ${fact.id}${receipt ? ` of ${receipt}` : ''}`,
    ]
      .filter(Boolean)
      .join(' — ')
      .slice(0, 300),
    amount: fact.amount ?? null,
    receiptId: receiptId ?? null,
  };
}

/** The delivery the facts came in: whose they are, where from, and how it was authenticated. */
interface FactBatch {
  provider: string;
  account: string;
  origin: EventOrigin;
  receivedAt: string;
  authentication?: AuthenticationMethod[];
  authenticated?: boolean;
  /** The check that alone vouches for the account's unsigned sender (IngestBatch.senderCheck). */
  senderCheck?: AuthenticationMethod;
  /** The account has a status API (IngestBatch.confirmUnaskedAnswers): a held reversal is asked about. */
  confirmUnaskedAnswers?: boolean;
}

/**
 * The delivery is an unauthenticated callback: unsigned, from a sender the account's own check did not
 * admit (Daraja: a log-only miss of the source-IP list, or the list off). A path secret is no such check.
 */
export const unvouched = (batch: Pick<FactBatch, 'authenticated' | 'authentication' | 'senderCheck'>) =>
  !batch.authenticated && !!batch.senderCheck && !batch.authentication?.includes(batch.senderCheck);

/**
 * An unvouched reversal success is anyone's claim (a receipt is on the customer's SMS): held as a
 * ReversalAmbiguous (UNCONFIRMED) on the payment's timeline, apart from the results (its own namespace), so
 * it counts no reversal against the payment and the genuine result for the request still records. A
 * genuine result recorded first makes it stale.
 */
function heldReversal({ fact, transaction }: PlacedFact): PlacedFact {
  const { originatorConversationId, conversationId, originalReceipt } = fact.data;
  const { namespace, id } = fact;
  // Its amount and receipts stay in the stored callback (receiptId): a person reads them there. The
  // result as parsed is kept on its record: a status answer that confirms it applies it (confirmHeldReversal).
  return {
    transaction,
    fact: {
      ...fact,
      event: 'ReversalAmbiguous',
      namespace: `${namespace}-unconfirmed`,
      supersededBy: [id, ...(fact.aliases ?? [])].map((id) => ({ namespace, id })),
      amount: undefined,
      keep: { original: fact },
      data: {
        originatorConversationId,
        conversationId,
        originalReceipt,
        reason: { code: 'UNCONFIRMED', message: 'not counted: its sender passed no check' },
      },
    },
  };
}

/** What recording each fact of a batch needs. */
interface FactRecording {
  store: CallbackStore;
  log: RelayLogger;
  batch: FactBatch;
  receiptId: string | undefined;
  options: WriteOptions;
  ref: RecordRefOf;
}

/**
 * Stale: superseded (a later fact recorded), or recorded before under its other id (a repeat that names
 * the request by ConversationID only). A contradiction found on the way is raised, stale or not.
 */
async function staleOrContradicted(recording: FactRecording, item: PlacedFact): Promise<boolean> {
  const { store, options, ref } = recording;
  const { fact } = item;
  const read = { consistent: true, signal: options.signal };
  const superseding = fact.supersededBy ?? [];
  const earlier = [...superseding, ...(fact.aliases ?? []).map((id) => ({ namespace: fact.namespace, id }))];
  for (const other of earlier) {
    const found = await store.getRecord(ref(other.namespace, other.id), read);
    if (!found) continue;
    // Recorded before under its other id: the same request; another outcome there contradicts it.
    const first =
      typeof found.data.aliasOf === 'string'
        ? await store.getRecord(ref(fact.namespace, found.data.aliasOf), read)
        : other.namespace === fact.namespace
          ? found
          : undefined;
    if (first && !superseding.length) await surfaceContradiction(recording, item, first);
    return true;
  }
  return false;
}

/**
 * A fact recorded first for the request (`first`) and this delivery say different things: never "first
 * wins" silently. About a transaction (named now, or by the first record), a TransactionConflict on it;
 * about none (an account balance), the fact's `contradicted` event (contradictFact).
 */
async function surfaceContradiction(
  recording: FactRecording,
  { fact, transaction }: PlacedFact,
  first: ProviderRecord,
): Promise<void> {
  const { store, log, batch, receiptId, options } = recording;
  // "Not known yet" (a queue timeout) contradicts nothing.
  if (first.data.event === 'ReversalAmbiguous' || fact.event === 'ReversalAmbiguous') return;
  if (!contradicts(first, fact)) return;
  log.warn('contradicting results for one request', {
    provider: batch.provider,
    account: batch.account,
    namespace: fact.namespace,
    first: first.data.event,
    then: fact.event,
  });
  const then = first.data.event === fact.event ? `${fact.event} with other content` : fact.event;
  const detail = `request ${fact.id}: ${String(first.data.event)} recorded first, then ${then}`;
  const about = transaction ?? (await recordedAbout(store, batch, first, options));
  if (about)
    await raiseContradiction(recording, about, fact, first, factEvidence(fact, batch, receiptId), detail);
  else if (fact.contradicted) await contradictFact(recording, fact, first, detail);
}

/** The fact's own event: what it says, the transaction it is about, and its amount checked against it. */
function factEvent({ log, batch, receiptId }: FactRecording, item: PlacedFact): EventEnvelope {
  const { fact, transaction } = item;
  const about = transaction
    ? {
        kind: transaction.kind,
        reference: transaction.key.reference,
        transactionStatus: transaction.status,
      }
    : { kind: null, reference: null, transactionStatus: null };
  // A fact that moves money (`amount` given, null when unsaid) is checked against its transaction.
  const check = fact.amount !== undefined ? { amountCheck: amountCheck(item) } : {};
  if (check.amountCheck === 'differs')
    log.warn('reversal amount differs from the transaction it reverses', {
      event: fact.event,
      provider: batch.provider,
      account: batch.account,
      reference: transaction?.key.reference,
      reversed: fact.amount?.value,
      registered: transaction?.amount?.value,
    });
  const data: Record<string, unknown> = {
    provider: batch.provider,
    account: batch.account,
    // A fact that can be about a transaction names it, or says it names none.
    ...(fact.about ? about : {}),
    ...publishedFactReason(fact.data),
    ...check,
    // netAmount: set once the reversal is counted against the payment it is about (withNetAmount).
    ...(fact.event === 'TransactionReversed'
      ? { evidence: [factEvidence(fact, batch, receiptId)], netAmount: null }
      : {}),
    receiptId: receiptId ?? null,
    receivedAt: batch.receivedAt,
  };
  const correlationId = transaction
    ? correlationIdOf(transaction)
    : `${batch.provider}:${batch.account}:${fact.id}`;
  return buildEvent(
    fact.event,
    correlationId,
    `${fact.namespace}:${fact.id}`,
    batch.origin,
    batch.receivedAt,
    data,
  );
}

/**
 * A payment is reversed for at most its amount, however many requests report reversals of it: what
 * would go beyond is a conflict for a person, never another TransactionReversed.
 */
async function countReversal(
  { store, batch, receiptId, options, ref }: FactRecording,
  fact: FactIntent,
  transaction: TransactionRecord,
  event: EventEnvelope,
  evidence: Evidence,
): Promise<{ event: EventEnvelope; reversal?: ReversalRecord }> {
  const { refused, before } = await claimReversal(
    store,
    ref,
    transaction,
    fact,
    receiptId,
    batch.receivedAt,
    options,
  );
  if (refused)
    return {
      event: reversalConflict(
        transaction,
        fact,
        {
          kind: refused.earlier ? 'STATUS' : 'AMOUNT_MISMATCH',
          detail: refused.detail,
          evidence: refused.earlier ? [recordedEvidence(refused.earlier), evidence] : [evidence],
        },
        batch,
      ),
    };
  const counted = withNetAmount(event, transaction, fact, before);
  const reversal: ReversalRecord = {
    id: fact.id,
    amount: fact.amount ?? null,
    at: batch.receivedAt,
    reversalReceipt: typeof fact.data.reversalReceipt === 'string' ? fact.data.reversalReceipt : null,
    eventId: counted.metadata.id,
    evidence,
  };
  return { event: counted, reversal };
}

/** The checks the delivery passed (path secret, source IP, signature), as its evidence names them. */
function deliveryAuthentication(
  batch: Pick<FactBatch, 'authentication' | 'authenticated'>,
): AuthenticationMethod[] {
  return [...(batch.authentication ?? (batch.authenticated ? ['signature' as const] : []))];
}

/**
 * What a fact says, without the ids it names its request by (a repeat may name it by one of them only):
 * two deliveries for one request that differ here say different things.
 */
function factDigest(fact: FactIntent): string {
  const { originatorConversationId: _oc, conversationId: _c, ...said } = fact.data;
  return sha256Hex(
    JSON.stringify({ said: fact.keep ?? said, amount: fact.amount ?? null, receipt: fact.receipt ?? null }),
  );
}

/** Another outcome, or (recorded with its digest) the same outcome with other content. */
function contradicts(first: ProviderRecord, fact: FactIntent): boolean {
  if (first.data.event !== fact.event) return true;
  return typeof first.data.digest === 'string' && first.data.digest !== factDigest(fact);
}

/** Where the contradiction of a fact about no transaction is kept (its event in the record's outbox). */
const contradictionRef = (ref: RecordRefOf, namespace: string, id: string) =>
  ref('conflict', `${namespace}:${id}`);

/**
 * Two deliveries name one request of a fact about no transaction (an account balance) and say different
 * things: one of them is not the provider's, and nobody can tell which from unsigned callbacks. The
 * contradiction is published once (the fact's `contradicted` event) and kept, so what reads the fact back
 * takes neither (factContradiction).
 */
async function contradictFact(
  recording: FactRecording,
  fact: FactIntent,
  first: ProviderRecord,
  said: string,
): Promise<void> {
  const { store, batch, receiptId, options, ref } = recording;
  const spec = fact.contradicted!;
  const detail = `${said} (${first.createdAt}, then ${batch.receivedAt}); neither is taken`;
  const reason = spec.data.reason as Reason | undefined;
  const data = {
    provider: batch.provider,
    account: batch.account,
    ...publishedFactReason(
      reason
        ? {
            ...spec.data,
            reason: { ...reason, message: `${String(reason.message)}: ${detail}`.slice(0, 1024) },
          }
        : spec.data,
    ),
    receiptId: receiptId ?? null,
    receivedAt: batch.receivedAt,
  };
  const event = buildEvent(
    spec.event,
    `${batch.provider}:${batch.account}:${fact.id}`,
    `contradicted:${fact.namespace}:${first.id}`,
    batch.origin,
    batch.receivedAt,
    data,
  );
  await store.putRecordIfAbsent(
    {
      ...contradictionRef(ref, fact.namespace, fact.id),
      data: { first: first.data.event ?? null, then: fact.event, detail },
      createdAt: batch.receivedAt,
      outbox: [event],
    },
    options,
  );
}

/** Why a fact about no transaction is contradicted (contradictFact), if it is. */
export async function factContradiction(
  store: Pick<CallbackStore, 'getRecord'>,
  key: { provider: string; account: string },
  fact: { namespace: string; id: string },
  options: WriteOptions = {},
): Promise<string | undefined> {
  const ref: RecordRefOf = (namespace, id) => ({ ...key, namespace: factNamespace(namespace), id });
  const found = await store.getRecord(contradictionRef(ref, fact.namespace, fact.id), {
    consistent: true,
    signal: options.signal,
  });
  return found ? String(found.data.detail) : undefined;
}

/** Records one fact (first delivery wins); true when this delivery wrote it. */
async function recordFact(recording: FactRecording, placed: PlacedFact): Promise<boolean> {
  const { store, batch, receiptId, options, ref } = recording;
  const item =
    placed.fact.event === 'TransactionReversed' && unvouched(batch) ? heldReversal(placed) : placed;
  const { fact, transaction } = item;
  if (await staleOrContradicted(recording, item)) return false;
  let event = factEvent(recording, item);
  const evidence = factEvidence(fact, batch, receiptId);
  let reversal: ReversalRecord | undefined;
  if (fact.event === 'TransactionReversed' && transaction && transaction.status === 'FAILED')
    // Only money that came in goes back: a reversal of a payment the relay holds FAILED contradicts that
    // verdict. Not counted; said as a conflict for a person. (One not final yet is counted as before: its
    // success may still come, and nothing would count the reversal then.)
    event = reversalConflict(
      transaction,
      fact,
      {
        kind: 'STATUS',
        detail: `the provider reversed this payment while the relay holds it FAILED: not counted; the money may have moved`,
        evidence: [evidence],
      },
      batch,
    );
  else if (fact.event === 'TransactionReversed' && transaction)
    ({ event, reversal } = await countReversal(recording, fact, transaction, event, evidence));
  const stood = await store.putRecordIfAbsent(
    {
      ...ref(fact.namespace, fact.id),
      data: {
        event: fact.event,
        ...(transaction ? { reference: transaction.key.reference } : {}),
        receiptId: receiptId ?? null,
        ...(fact.keep ? { kept: fact.keep } : {}),
        // How the delivery was authenticated: what reads the fact back (a balance snapshot) says so.
        authentication: deliveryAuthentication(batch),
        digest: factDigest(fact),
      },
      createdAt: batch.receivedAt,
      outbox: [event],
    },
    options,
  );
  // The transaction shows what is said about it: the event on its timeline, a reversal in its reversals.
  // Noted on a repeat as well, so a crash between the fact's write and this one is mended by the retry.
  if (transaction && (stood.written || stood.record.data.event === fact.event)) {
    const held = fact.event === 'ReversalAmbiguous' ? askAboutHeld(batch, fact) : undefined;
    await noteOnTransaction(store, transaction, event, reversal, options, held);
  }
  if (!stood.written) {
    // The same request id, another outcome (a ReversalFailed hiding a real reversal, or the reverse) or
    // other content (a forged balance): never "first wins" silently. A failure often names no receipt:
    // the payment is the one the first result was recorded about. A repeat naming the request by its
    // other id only meets the alias, and is compared with the fact it points to.
    const aliasOf = stood.record.data.aliasOf;
    const first =
      typeof aliasOf === 'string'
        ? await store.getRecord(ref(fact.namespace, aliasOf), { consistent: true, signal: options.signal })
        : stood.record;
    if (first) await surfaceContradiction(recording, item, first);
    return false;
  }
  // Its other ids point to it, so a repeat or a queue timeout naming the request by them finds it.
  for (const alias of fact.aliases ?? [])
    await store.putRecordIfAbsent(
      { ...ref(fact.namespace, alias), data: { aliasOf: fact.id }, createdAt: batch.receivedAt },
      options,
    );
  return true;
}

/**
 * Records each fact once (first delivery wins) with its event in the record's outbox. A fact one of whose
 * `supersededBy` facts is already recorded (a queue timeout arriving after the result) publishes nothing.
 * Returns how many facts were newly written.
 */
export async function recordFacts(
  deps: { store: CallbackStore; log: RelayLogger },
  batch: FactBatch,
  placed: readonly PlacedFact[],
  receiptId: string | undefined,
  options: WriteOptions = {},
): Promise<number> {
  const ref: RecordRefOf = (namespace, id) => ({
    provider: batch.provider,
    account: batch.account,
    namespace: factNamespace(namespace),
    id,
  });
  const recording: FactRecording = { store: deps.store, log: deps.log, batch, receiptId, options, ref };
  let written = 0;
  for (const item of placed) if (await recordFact(recording, item)) written += 1;
  return written;
}

/**
 * Where the answer to one ask about a held reversal is kept (`<held id>#<ask>`, as the query record names
 * it): the callback keeps it, the poller reads it (answerHeldReversal). An answer that came before the
 * poller's record of its query waits under the query's id (`<alias namespace>:<query id>`) in `early`. Kept
 * a day: the poller reads them within the hour.
 */
export const heldAnswerRef = (key: { provider: string; account: string }, id: string, early?: boolean) => ({
  provider: key.provider,
  account: key.account,
  namespace: `fact:reversal-${early ? 'early' : 'answer'}`,
  id,
  lifetimeSeconds: 86_400,
});

/** The reversal result a held one was, as parsed (heldReversal keeps it on its record). */
export const heldOriginal = (record: ProviderRecord | undefined) =>
  (record?.data.kept as { original?: FactIntent } | undefined)?.original;

/** What the provider's status answer about a held reversal's receipt says (parsed by the provider). */
export interface HeldReversalAnswer extends ReversalAnswer {
  providerCode: string | null;
  description: string;
}

/** The held reversal's own callback, as the evidence it was (unconfirmed). */
function heldEvidence(held: HeldReversal, record: ProviderRecord | undefined): Evidence {
  return {
    source: 'callback',
    claim: 'SUCCEEDED',
    authenticated: false,
    authentication: Array.isArray(record?.data.authentication)
      ? (record.data.authentication as AuthenticationMethod[])
      : [],
    conclusive: false,
    at: held.heldAt,
    providerCode: null,
    description: `TransactionReversed held (UNCONFIRMED): request ${held.id}, reversal receipt ${held.receipt}`,
    amount: held.amount,
    receiptId: typeof record?.data.receiptId === 'string' ? record.data.receiptId : null,
  };
}

/** The status answer about the held reversal's receipt, as evidence (the provider's own word). */
function answerEvidence(answer: HeldReversalAnswer, at: string, receiptId: string | undefined): Evidence {
  return {
    source: 'status-api',
    claim: answer.status,
    authenticated: true,
    authentication: ['status-api'],
    conclusive: true,
    at,
    providerCode: answer.providerCode,
    description: answer.description.slice(0, 300),
    amount: answer.amount ?? null,
    receiptId: receiptId ?? null,
  };
}

/** Ends (or notes the answer on) a held reversal still asking; a conflict, if any, on the timeline too. */
async function endHeld(
  store: CallbackStore,
  key: TransactionKey,
  id: string,
  change: Pick<HeldReversal, 'lastAnswer'> & Partial<Pick<HeldReversal, 'state' | 'detail' | 'endedAt'>>,
  conflict: EventEnvelope | undefined,
  options: WriteOptions,
): Promise<void> {
  await writeWithRetry(
    store,
    key,
    (current) => {
      if (!current?.heldReversals?.some((h) => h.id === id && h.state === 'asking'))
        return { result: undefined };
      const noted = conflict ? (withFactNoted(current, conflict, undefined) ?? current) : current;
      // Counted (a confirmed answer just recorded, or Daraja's own result): settled, not changed here.
      const next = withHeldReversal(withCountedSettled(noted), id, (h) =>
        h.state === 'asking' ? { ...h, ...change } : h,
      );
      return { next: { ...next, outbox: [] }, result: undefined };
    },
    { ...options, what: `record the answer about held reversal ${id}` },
  );
}

/** What answering a held reversal needs: the payment, the held reversal, its record, the answer. */
interface HeldAnswering {
  recording: FactRecording;
  tx: TransactionRecord;
  held: HeldReversal;
  record: ProviderRecord | undefined;
  answer: HeldReversalAnswer;
  said: string;
}

/** Daraja confirmed it: the held result applied on Daraja's word (counted once, or a conflict beyond the payment). */
async function confirmHeld(
  { recording, tx, held, answer, said }: HeldAnswering,
  original: FactIntent,
): Promise<void> {
  const { store, batch, options } = recording;
  const fact: FactIntent = {
    ...original,
    event: 'TransactionReversed',
    said: { providerCode: answer.providerCode ?? '', description: answer.description },
  };
  await recordFact(recording, { fact, transaction: tx });
  // Counted, it is settled (settledHeld); refused (beyond the payment: a conflict), it ends here.
  await endHeld(
    store,
    tx.key,
    held.id,
    {
      lastAnswer: said,
      state: 'refused',
      detail:
        'confirmed by the status query, but not counted: the payment has no room for it (TransactionConflict)',
      endedAt: batch.receivedAt,
    },
    undefined,
    options,
  );
}

/** Daraja contradicted it: refused, a TransactionConflict naming the held result and Daraja's answer. */
async function refuseHeld(
  { recording, tx, held, record, answer, said }: HeldAnswering,
  judged: Extract<ReversalVerdict, { verdict: 'contradicts' }>,
): Promise<void> {
  const { store, batch, receiptId, options, ref } = recording;
  const about: FactIntent = {
    event: 'ReversalAmbiguous',
    namespace: held.namespace,
    id: held.id,
    amount: held.amount,
    data: {},
  };
  const conflict = reversalConflict(
    tx,
    about,
    {
      kind: judged.kind,
      detail: `held reversal ${held.id} refused: ${judged.detail}`.slice(0, 1024),
      evidence: [heldEvidence(held, record), answerEvidence(answer, batch.receivedAt, receiptId)],
    },
    batch,
  );
  const stood = await store.putRecordIfAbsent(
    {
      ...ref('conflict', `${held.namespace}:${held.id}:status-query`),
      data: { first: 'ReversalAmbiguous', then: answer.said, detail: judged.detail },
      createdAt: batch.receivedAt,
      outbox: [conflict],
    },
    options,
  );
  await endHeld(
    store,
    tx.key,
    held.id,
    { lastAnswer: said, state: 'refused', detail: judged.detail, endedAt: batch.receivedAt },
    stood.written ? conflict : undefined,
    options,
  );
}

/**
 * The provider's answer to the relay's own status query about a held reversal's receipt (the query record
 * names the held reversal): a completed reversal for the amount claimed applies the held result as Daraja's
 * word (TransactionReversed, counted against the payment once, evidence `status-api`); a final answer that
 * says otherwise refuses it (TransactionConflict naming both, the reason on the held reversal); no final
 * answer is noted, and the poller's next ask or its escalation follows.
 */
export async function answerHeldReversal(
  deps: { store: CallbackStore; log: RelayLogger },
  batch: FactBatch,
  about: { key: TransactionKey; heldId: string },
  answer: HeldReversalAnswer,
  receiptId: string | undefined,
  options: WriteOptions = {},
): Promise<ReversalVerdict['verdict'] | 'stale'> {
  const { store } = deps;
  const read = { consistent: true, signal: options.signal };
  const tx = await store.getTransaction(about.key, read);
  const held = tx?.heldReversals?.find((h) => h.id === about.heldId && h.state === 'asking');
  if (!tx || !held) return 'stale';
  const ref: RecordRefOf = (namespace, id) => ({
    provider: batch.provider,
    account: batch.account,
    namespace: factNamespace(namespace),
    id,
  });
  const recording: FactRecording = { store, log: deps.log, batch, receiptId, options, ref };
  const record = await store.getRecord(ref(held.namespace, held.id), read);
  const said = `${answer.providerCode ?? ''} ${answer.description}`.trim().slice(0, 300);
  const answering: HeldAnswering = { recording, tx, held, record, answer, said };
  const judged = judgeReversalAnswer(held, tx, answer);
  const original = heldOriginal(record);
  if (judged.verdict === 'confirms' && original) await confirmHeld(answering, original);
  else if (judged.verdict === 'contradicts') await refuseHeld(answering, judged);
  else {
    const detail = judged.verdict === 'says-nothing' ? judged.detail : 'the held result is not on record';
    await endHeld(
      store,
      tx.key,
      held.id,
      { lastAnswer: `${said} (${detail})`.slice(0, 300) },
      undefined,
      options,
    );
    return 'says-nothing';
  }
  return judged.verdict;
}
