import type { ActorRef } from './actor';
import type { Money } from './transaction';
import type { TransactionStatus } from './status';

/**
 * Where a piece of evidence came from (docs/events.md#evidence):
 * - `callback`: a provider callback, taken directly; `buffer`: the same, applied from the ingress buffer;
 * - `status-api`: the provider's answer to the relay's own status call;
 * - `receipt`: the provider's result of the relay's own asynchronous status query (Daraja), delivered on a
 *   callback route and matched to the query the relay made;
 * - `operator`: a person resolved the transaction through the management API (`actor` names them);
 * - `registration`: the partner's registration (reserved: a hint a registration adopts stays a `callback`);
 * - `statement`: the provider's own record of money moved (docs/statements.md): a row of its pull API's
 *   answer to the relay's own authenticated request (`provider-api`), or of a statement file a named
 *   operator uploaded (`operator`, the person named in `actor`).
 */
export const EVIDENCE_SOURCES = [
  'callback',
  'status-api',
  'receipt',
  'buffer',
  'operator',
  'registration',
  'statement',
] as const;
export type EvidenceSource = (typeof EVIDENCE_SOURCES)[number];

/** How a piece of evidence was authenticated: the sender (path secret, source IP) or the content itself. */
export const AUTHENTICATION_METHODS = [
  'signature',
  'path-secret',
  'source-ip',
  'receipt',
  'status-api',
  'operator',
  /** The provider's own API answering the relay's authenticated request (a pull of its records). */
  'provider-api',
] as const;
export type AuthenticationMethod = (typeof AUTHENTICATION_METHODS)[number];

/** Vouched for end to end: the content itself, not just who sent it. */
const END_TO_END: ReadonlySet<AuthenticationMethod> = new Set([
  'signature',
  'receipt',
  'status-api',
  'operator',
  'provider-api',
]);

/** What a piece of evidence said: a status, or that the provider does not know the reference. */
export type EvidenceClaim = TransactionStatus | 'NOT_FOUND';

export interface Evidence {
  source: EvidenceSource;
  claim: EvidenceClaim;
  /** Some check passed: a signature, the path secret, the source-IP allow-list, the provider's own answer. */
  authenticated: boolean;
  /** Which checks passed (empty: none). */
  authentication: AuthenticationMethod[];
  /**
   * The claim may settle the transaction on its own (precedence rank ≥ 2): vouched for end to end, or
   * sender-authenticated on an account that trusts its sender for this claim (`confirmSuccess` off).
   */
  conclusive: boolean;
  at: string;
  /** The provider's own code and words, scrubbed (secrets) and bounded. */
  providerCode: string | null;
  description: string | null;
  amount: Money | null;
  /** The stored receipt that carried it, when it came in a callback. */
  receiptId: string | null;
  /**
   * The person whose word it is: an operator's resolve, the operator who uploaded a statement file
   * (docs/roles-and-audit.md).
   */
  actor?: ActorRef;
  /** The second person who approved it (a resolution above the account's limit). */
  approvedBy?: ActorRef;
  /**
   * The person who asked the provider (check now): the word is the provider's (source status-api), the
   * question was theirs.
   */
  requestedBy?: ActorRef;
}

export function isEndToEnd(methods: readonly AuthenticationMethod[]): boolean {
  return methods.some((m) => END_TO_END.has(m));
}

/** The sender of this evidence passed a check beyond the path secret (its address, a signature…). */
export const senderChecked = (evidence: Pick<Evidence, 'authentication'>): boolean =>
  evidence.authentication.some((m) => m !== 'path-secret');

/**
 * The one precedence rule (docs/reconciliation.md#precedence), as ranks:
 * 4 an operator's resolve (recorded as such); 3 a callback authenticated end to end (signature) or a
 * receipt; 2 a final status answer or a statement row (the provider's own record, like a status answer),
 * or a sender-authenticated callback on an account that trusts it;
 * 1 an unauthenticated or unconfirmed callback (a hint), a statement file's row above the four-eyes limit;
 * 0 a "not found" status answer.
 */
export function rankOf(
  evidence: Pick<Evidence, 'source' | 'claim' | 'authentication' | 'conclusive'>,
): number {
  if (evidence.source === 'operator') return 4;
  if (evidence.claim === 'NOT_FOUND') return 0;
  if (evidence.source === 'status-api') return 2;
  // A file's row above the four-eyes limit is one person's word until the provider or a second person says it.
  if (evidence.source === 'statement') return evidence.conclusive ? 2 : 1;
  if (evidence.authentication.includes('signature') || evidence.source === 'receipt') return 3;
  return evidence.conclusive ? 2 : 1;
}

const isOutcome = (claim: EvidenceClaim): claim is 'SUCCEEDED' | 'FAILED' =>
  claim === 'SUCCEEDED' || claim === 'FAILED';

/** Two claims that cannot both be true of one transaction. */
export function contradicts(a: EvidenceClaim, b: EvidenceClaim): boolean {
  if (isOutcome(a) && isOutcome(b)) return a !== b;
  // "Never accepted" against any report of an outcome (or that it is under way): someone saw it.
  return (
    (a === 'NOT_FOUND' && b !== 'NOT_FOUND' && b !== 'EXPIRED') ||
    (b === 'NOT_FOUND' && a !== 'NOT_FOUND' && a !== 'EXPIRED')
  );
}

export type Verdict =
  /** The new evidence settles (or moves) the transaction to `status`. */
  | { kind: 'settle'; status: TransactionStatus; against?: Evidence }
  /**
   * Sources disagree and precedence cannot pick one: AMBIGUOUS, a TransactionConflict naming both,
   * escalated. `against` is the earlier evidence it contradicts.
   */
  | { kind: 'conflict'; against: Evidence }
  /** Recorded, changes nothing by itself (a hint; a status check follows when `check`). */
  | { kind: 'hold'; check: boolean };

/**
 * Pure: what one new piece of evidence does, given the evidence already recorded on the transaction.
 * - Two outcomes that disagree: the higher rank settles (the lower one is surfaced as a conflict); equal
 *   ranks, or the lower arriving after the higher, never settle: a conflict.
 * - A claim below rank 2 never settles alone: it is held and a status check is asked for.
 * - "Not found" never settles while any callback reported on the reference: a conflict.
 */
export function decideByPrecedence(recorded: readonly Evidence[], incoming: Evidence): Verdict {
  const rank = rankOf(incoming);
  const contradicting = recorded.filter((e) => contradicts(e.claim, incoming.claim));
  if (incoming.claim === 'NOT_FOUND') {
    const reported = contradicting.find((e) => e.source !== 'status-api' && e.source !== 'registration');
    if (reported) return { kind: 'conflict', against: reported };
    return { kind: 'hold', check: false };
  }
  const strongest = [...contradicting].sort((a, b) => rankOf(b) - rankOf(a))[0];
  if (rank === 4)
    return { kind: 'settle', status: incoming.claim, ...(strongest ? { against: strongest } : {}) };
  if (rank < 2) return { kind: 'hold', check: true };
  if (!strongest || rankOf(strongest) === 0) return { kind: 'settle', status: incoming.claim };
  if (rank > rankOf(strongest)) return { kind: 'settle', status: incoming.claim, against: strongest };
  return { kind: 'conflict', against: strongest };
}
