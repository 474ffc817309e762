import type { EventOrigin } from '../event-envelope';
import { buildEvent, correlationIdOf, transactionEventData } from '../events';
import type { Evidence } from '../evidence';
import type { TransactionRecord } from '../transaction';
import { describeEvidence } from './conflict';
import { MAX_EVIDENCE_TEXT } from './intake';
import { type ApplyOutcome, withEvents } from './outcome';

/**
 * The outcome a callback claimed that is held for a status check (rank 1, docs/reconciliation.md#precedence:
 * an unsigned failure on an account that confirms failures, an unconfirmed success, a hint) on a transaction
 * still open and not yet handed to a person: the latest such claim.
 */
export function heldClaimOf(tx: TransactionRecord): Evidence | undefined {
  if (tx.status !== 'PENDING' && tx.status !== 'AMBIGUOUS') return undefined;
  if (tx.reconcile?.escalatedAt) return undefined;
  return [...(tx.evidence ?? [])]
    .reverse()
    .find((e) => !e.conclusive && (e.claim === 'FAILED' || e.claim === 'SUCCEEDED'));
}

/**
 * The status check the claim waits for cannot be made (`why`: the status API has no call for the
 * transaction's kind on this account, or the account has none). Nothing will ever confirm the claim,
 * and an unsigned claim never settles on its own word where the account confirms, so it is said now
 * instead of waiting silently for the window's end: a PENDING transaction becomes AMBIGUOUS (reason
 * UNCONFIRMED, naming the claim and why it cannot be checked; TransactionAmbiguous). The caller
 * escalates it at once (TransactionEscalated): a person resolves it, or configures the status call and
 * the next look settles it. The claim stays evidence as it was: nothing new was learnt from the provider.
 */
export function holdForAPerson(
  tx: TransactionRecord,
  why: string,
  now: string,
  origin: EventOrigin,
): ApplyOutcome | undefined {
  const held = heldClaimOf(tx);
  if (!held || tx.status !== 'PENDING') return undefined;
  const said = held.providerCode ? ` (${held.providerCode})` : '';
  // A person must look: what was claimed, then why it cannot be checked (cut at the end, if at all).
  const message = `a person must look: ${describeEvidence(held)}${said}; it cannot be confirmed: ${why}`;
  let next: TransactionRecord = {
    ...tx,
    status: 'AMBIGUOUS',
    reason: {
      code: 'UNCONFIRMED',
      message: message.slice(0, MAX_EVIDENCE_TEXT),
      providerCode: held.providerCode ?? undefined,
    },
    updatedAt: now,
    transitions: [
      ...tx.transitions,
      {
        from: 'PENDING',
        to: 'AMBIGUOUS',
        at: now,
        origin,
        receiptId: held.receiptId ?? undefined,
        evidence: held,
      },
    ],
  };
  const events = [
    buildEvent('TransactionAmbiguous', correlationIdOf(next), 'AMBIGUOUS', origin, now, {
      ...transactionEventData(next, now),
    }),
  ];
  next = withEvents(next, events);
  return { kind: 'write', effect: 'advanced', next, events };
}
