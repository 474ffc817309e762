/**
 * Correlation. STK: CheckoutRequestID. B2C: OriginatorConversationID (the partner registers it), and
 * ConversationID through an alias record: the first callback that carries both ids records
 * ConversationID → OriginatorConversationID (provider record namespace `alias:ConversationID`), so a
 * later callback carrying only the ConversationID still finds the transaction. C2B: TransID.
 * The lookups themselves are the app's (shared/app/transactions/ingest-report.ts resolveReference); the parsers
 * only name the candidates.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Money } from '../../domain/transaction';

export const CONVERSATION_ID = 'ConversationID';

/**
 * The relay's own transaction status query: the poller records `alias:StatusQuery` → reference under the
 * query's ConversationID (else its OriginatorConversationID) from the synchronous answer, before the
 * result can arrive; the result and timeout routes try it first.
 */
export const STATUS_QUERY = 'StatusQuery';

/**
 * M-Pesa receipt numbers (STK MpesaReceiptNumber, B2C TransactionReceipt, C2B TransID, status ReceiptNo):
 * recorded as `alias:receipt` → reference where a success carries one, so a C2B confirmation of an STK
 * payment and a status result about it land on the transaction they are about.
 */
export const RECEIPT = 'receipt';

/**
 * The token kind of the relay's status query about a held reversal's own receipt (StatusQuery.confirmReversal):
 * its answer is about that receipt, placed on the payment the reversal names through the query record.
 */
export const REVERSAL_QUESTION = 'reversal';

/**
 * The relay's own transaction status query carries a token in its `Occasion` (Daraja echoes it in the
 * result's `ReferenceData`): `rq1.<kind>.<mac>.<reference>` (the reference left out when the whole would
 * pass Daraja's 100 characters), where mac is HMAC-SHA256 over the account, kind and reference, truncated
 * to 16 base64url characters, keyed by the account's API consumer secret (statusQueryKeys): a secret that
 * never appears in a URL. Never the path secret: anyone who can post to the callback URL has that one.
 *
 * The token is a correlation aid, never evidence: what proves that a result answers the relay's own query
 * is the stored query record (`alias:StatusQuery`, written by the poller from the ids Daraja returned when
 * it accepted the query; the ingest reads it). A genuine token is echoed in every result and kept in
 * receipts, so it could be replayed; the record cannot be made up from outside.
 */
const STATUS_QUERY_TOKEN_VERSION = 'rq1';
const MAC_LENGTH = 16;
const MAX_OCCASION = 100;
const KIND = /^[a-z0-9]{1,16}$/;

function statusQueryMac(secret: string, account: string, kind: string, reference: string): string {
  return createHmac('sha256', secret)
    .update(`daraja status query\n${account}\n${kind}\n${reference}`)
    .digest('base64url')
    .slice(0, MAC_LENGTH);
}

/**
 * The keys of an account's status query tokens: its API consumer secret, held by the poller that signs
 * (and by any process holding the account's API credentials). Path secrets are never keys: they travel in
 * every callback URL. A process without the API credentials (the callback function in AWS) verifies no
 * token, and the result is correlated by the stored query record and the ids it names, as any other.
 */
export function statusQueryKeys(account: { settings: { api?: { consumerSecret?: string } } }): string[] {
  const key = account.settings.api?.consumerSecret;
  return typeof key === 'string' && key.length > 0 ? [key] : [];
}

/** The `Occasion` of the relay's transaction status query about one transaction. */
export function statusQueryOccasion(input: {
  secret: string;
  account: string;
  kind: string;
  reference: string;
}): string {
  const head = `${STATUS_QUERY_TOKEN_VERSION}.${input.kind}.${statusQueryMac(input.secret, input.account, input.kind, input.reference)}`;
  const full = `${head}.${input.reference}`;
  return full.length <= MAX_OCCASION ? full : head;
}

/** A token read from an echoed Occasion, not verified yet. */
export interface StatusQueryToken {
  kind: string;
  mac: string;
  /** Absent when the reference did not fit in the Occasion. */
  reference: string | undefined;
}

export function readStatusQueryOccasion(occasion: string | null | undefined): StatusQueryToken | undefined {
  if (!occasion?.startsWith(`${STATUS_QUERY_TOKEN_VERSION}.`)) return undefined;
  const [, kind, mac, ...rest] = occasion.split('.');
  if (!kind || !KIND.test(kind) || !mac || mac.length !== MAC_LENGTH) return undefined;
  const reference = rest.join('.');
  return { kind, mac, reference: reference || undefined };
}

/** The reference (among the candidates: the token's own first) the token was made for, if any. */
export function verifiedStatusQueryReference(
  token: StatusQueryToken,
  keys: readonly string[],
  account: string,
  candidates: readonly (string | null | undefined)[],
): string | undefined {
  const expected = Buffer.from(token.mac);
  for (const key of keys) {
    for (const reference of [token.reference, ...candidates]) {
      if (!reference) continue;
      const mac = Buffer.from(statusQueryMac(key, account, token.kind, reference));
      if (mac.length === expected.length && timingSafeEqual(mac, expected)) return reference;
    }
  }
  return undefined;
}

/**
 * What a transaction status result says it is about, beside the reference the relay asked about: the
 * original's OriginatorConversationID (parameter), its receipt (`ReceiptNo`, else a real top-level
 * `TransactionID`) and the amount. The reference is a B2C/B2B OriginatorConversationID or a C2B TransID
 * (the receipt itself), so a final answer must name it; naming another one is not this transaction's
 * answer (a forged result, or Daraja answering about something else). Returns what disagrees, if anything.
 */
export function statusAnswerMismatch(
  asked: { kind: string; reference: string },
  claims: { originatorConversationId: string | undefined; receipt: string | undefined },
): string | undefined {
  const { originatorConversationId: oc, receipt } = claims;
  if (asked.kind === 'c2b') {
    return receipt === asked.reference
      ? undefined
      : `it names receipt ${receipt ?? '(none)'}; the query asked about TransID ${asked.reference}`;
  }
  // An STK push is asked about with a transaction status query only to confirm a receipt a callback
  // claimed (the STK query answers its status): the answer names that receipt, not the CheckoutRequestID,
  // and the ingest compares it with the receipt the query record says was asked (status-question.ts).
  if (asked.kind === 'stk') return undefined;
  if (asked.kind === 'b2c' || asked.kind === 'b2b') {
    return oc === asked.reference
      ? undefined
      : `it names OriginatorConversationID ${oc ?? '(none)'}; the query asked about ${asked.reference}`;
  }
  return oc === asked.reference || receipt === asked.reference
    ? undefined
    : `it names neither ${asked.reference} (OriginatorConversationID ${oc ?? '(none)'}, receipt ${receipt ?? '(none)'})`;
}

/**
 * Marks a report as the answer to the relay's own status query (`ReportIntent` has no such member yet:
 * see the provider README, "Status API"; the ingest applies it as a status answer, origin `poll`, once
 * the core reads it). `claims` is what the answer says it is about, for the ingest to compare with the
 * transaction (its trusted receipt, its amount) before the answer counts.
 */
export interface OwnQueryAnswer {
  reference: string;
  claims: { providerTransactionId: string | undefined; amount: Money | undefined };
}
