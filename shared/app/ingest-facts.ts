import type { AuthenticationMethod, Evidence } from '../domain/evidence';
import { buildEvent, correlationIdOf } from '../domain/events';
import type { EventOrigin } from '../domain/event-envelope';
import type { TransactionKey, TransactionRecord } from '../domain/transaction';
import type { CorrelationCandidate, FactIntent } from '../providers/types';
import { sameAmount } from '../util/money';
import type { RelayLogger, RelayStore, WriteOptions } from './ports';

/** ingest-report's resolveCorrelation (passed in: that module calls this one). */
type Resolve = (
  candidates: readonly CorrelationCandidate[],
) => Promise<{ reference: string; matched: boolean; transaction?: TransactionRecord } | undefined>;

/** Facts are provider records under this namespace prefix (`fact:reversal`, `fact:account-balance`…). */
const FACT_NAMESPACE_PREFIX = 'fact:';

export interface PlacedFact {
  fact: FactIntent;
  /** The transaction the fact is about, when one matched. */
  transaction: TransactionRecord | undefined;
}

/** Finds the transaction each fact is about: only a real match counts, never a made-up reference. */
export async function placeFacts(
  store: RelayStore,
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

/** The callback a final fact (a reversal) rests on, as evidence (docs/events.md#evidence). */
function factEvidence(
  fact: FactIntent,
  batch: {
    origin: EventOrigin;
    receivedAt: string;
    authentication?: AuthenticationMethod[];
    authenticated?: boolean;
  },
  receiptId: string | undefined,
): Evidence {
  const authentication = [...(batch.authentication ?? (batch.authenticated ? ['signature' as const] : []))];
  const receipt = typeof fact.data.originalReceipt === 'string' ? fact.data.originalReceipt : fact.receipt;
  return {
    source: batch.origin === 'buffer' ? 'buffer' : 'callback',
    claim: 'SUCCEEDED',
    authenticated: authentication.length > 0,
    authentication,
    // A reversal result is the provider's word about money moving back, as authenticated as its callback.
    conclusive: authentication.length > 0,
    at: batch.receivedAt,
    providerCode: null,
    description: `${fact.event}: ${fact.namespace} ${fact.id}${receipt ? ` of ${receipt}` : ''}`.slice(
      0,
      300,
    ),
    amount: fact.amount ?? null,
    receiptId: receiptId ?? null,
  };
}

/**
 * Records each fact once (first delivery wins) with its event in the record's outbox. A fact one of whose
 * `supersededBy` facts is already recorded (a queue timeout arriving after the result) publishes nothing.
 * Returns how many facts were newly written.
 */
export async function recordFacts(
  deps: { store: RelayStore; log: RelayLogger },
  batch: {
    provider: string;
    account: string;
    origin: EventOrigin;
    receivedAt: string;
    authentication?: AuthenticationMethod[];
    authenticated?: boolean;
  },
  placed: readonly PlacedFact[],
  receiptId: string | undefined,
  options: WriteOptions = {},
): Promise<number> {
  const { store, log } = deps;
  let written = 0;
  for (const item of placed) {
    const { fact, transaction } = item;
    const ref = (namespace: string, id: string) => ({
      provider: batch.provider,
      account: batch.account,
      namespace: `${FACT_NAMESPACE_PREFIX}${namespace}`,
      id,
    });
    // Stale: superseded (a later fact recorded), or recorded before under its other id (a repeat that
    // names the request by ConversationID only).
    const read = { consistent: true, signal: options.signal };
    const earlier = [
      ...(fact.supersededBy ?? []),
      ...(fact.aliases ?? []).map((id) => ({ namespace: fact.namespace, id })),
    ];
    let stale = false;
    for (const other of earlier) {
      stale = Boolean(await store.getRecord(ref(other.namespace, other.id), read));
      if (stale) break;
    }
    if (stale) continue;
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
    const data = {
      provider: batch.provider,
      account: batch.account,
      // A fact that can be about a transaction names it, or says it names none.
      ...(fact.about ? about : {}),
      ...fact.data,
      ...check,
      ...(fact.event === 'TransactionReversed' ? { evidence: [factEvidence(fact, batch, receiptId)] } : {}),
      receiptId: receiptId ?? null,
      receivedAt: batch.receivedAt,
    };
    const correlationId = transaction
      ? correlationIdOf(transaction)
      : `${batch.provider}:${batch.account}:${fact.id}`;
    const event = buildEvent(
      fact.event,
      correlationId,
      `${fact.namespace}:${fact.id}`,
      batch.origin,
      batch.receivedAt,
      data,
    );
    const stood = await store.putRecordIfAbsent(
      {
        ...ref(fact.namespace, fact.id),
        data: {
          event: fact.event,
          ...(transaction ? { reference: transaction.key.reference } : {}),
          receiptId: receiptId ?? null,
        },
        createdAt: batch.receivedAt,
        outbox: [event],
      },
      options,
    );
    if (!stood.written) continue;
    written += 1;
    // Its other ids point to it, so a repeat or a queue timeout naming the request by them finds it.
    for (const alias of fact.aliases ?? [])
      await store.putRecordIfAbsent(
        { ...ref(fact.namespace, alias), data: { aliasOf: fact.id }, createdAt: batch.receivedAt },
        options,
      );
  }
  return written;
}
