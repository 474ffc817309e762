import type { RelayLogger, TransactionStore } from '../../domain/ports';
import { DARAJA } from './normalize';

/**
 * Correlation. STK: CheckoutRequestID. B2C: OriginatorConversationID (the partner registers it), and
 * ConversationID through an alias item: the first callback that carries both ids writes
 * `REF#daraja#<account>#ConversationID#<id>` → OriginatorConversationID, so a later callback carrying
 * only the ConversationID still finds the transaction. C2B: TransID.
 */
export const CONVERSATION_ID = 'ConversationID';

export type Candidate = { via: 'reference' | typeof CONVERSATION_ID; value: string | null | undefined };

export interface Resolution {
  reference: string;
  /** How it was found: the id itself, through an alias, or a fallback for an unknown transaction (orphan). */
  via: 'reference' | 'alias' | 'fallback';
}

/**
 * The first candidate that names a stored transaction (directly or through a ConversationID alias).
 * When none does, the first direct candidate (else the first id at all) becomes the reference, and
 * the generic pipeline records an orphan under it.
 */
export async function resolveReference(
  store: TransactionStore,
  account: string,
  candidates: readonly Candidate[],
): Promise<Resolution | undefined> {
  const present = candidates.filter((c): c is { via: Candidate['via']; value: string } => Boolean(c.value));
  for (const candidate of present) {
    if (candidate.via === 'reference') {
      if (await store.getTransaction({ provider: DARAJA, account, reference: candidate.value })) {
        return { reference: candidate.value, via: 'reference' };
      }
      continue;
    }
    const target = await store.getReferenceAlias({
      provider: DARAJA,
      account,
      namespace: candidate.via,
      value: candidate.value,
    });
    if (target) return { reference: target, via: 'alias' };
  }
  const fallback = present.find((c) => c.via === 'reference') ?? present[0];
  return fallback ? { reference: fallback.value, via: 'fallback' } : undefined;
}

/**
 * B2C results and timeouts: OriginatorConversationID when present (no read needed), else the
 * ConversationID alias, else the ConversationID itself.
 */
export async function resolveB2cReference(
  store: TransactionStore,
  account: string,
  ids: {
    OriginatorConversationID?: string | null;
    ConversationID?: string | null;
    TransactionID?: string | null;
  },
): Promise<Resolution | undefined> {
  if (ids.OriginatorConversationID) return { reference: ids.OriginatorConversationID, via: 'reference' };
  return resolveReference(store, account, [
    { via: CONVERSATION_ID, value: ids.ConversationID },
    { via: 'reference', value: ids.ConversationID },
    { via: 'reference', value: ids.TransactionID },
  ]);
}

/** Best effort: a failed alias write never fails a callback that is already stored and applied. */
export async function rememberConversationId(
  store: TransactionStore,
  log: RelayLogger,
  account: string,
  ids: { OriginatorConversationID?: string | null; ConversationID?: string | null },
  reference: string,
  now: string,
): Promise<void> {
  if (!ids.ConversationID || ids.ConversationID === reference || !ids.OriginatorConversationID) return;
  try {
    await store.putReferenceAlias({
      provider: DARAJA,
      account,
      namespace: CONVERSATION_ID,
      value: ids.ConversationID,
      reference,
      createdAt: now,
    });
  } catch (error) {
    log.warn('daraja ConversationID alias not written', {
      account,
      reference,
      error: (error as Error).message,
    });
  }
}
