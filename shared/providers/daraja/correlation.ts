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
 * The relay's own transaction status query carries a token in its `Occasion` (Daraja echoes it in the
 * result's `ReferenceData`): `rq1.<kind>.<mac>.<reference>` (the reference left out when the whole would
 * pass Daraja's 100 characters), where mac is HMAC-SHA256 over the account, kind and reference, truncated
 * to 16 base64url characters, keyed by the account's path secret (statusQueryKeys). A result whose token
 * verifies is the answer to the relay's own query about that reference, whenever it arrives (before or
 * after the poller recorded the query's ConversationID), and nobody without the key can make one up.
 */
export const STATUS_QUERY_TOKEN_VERSION = 'rq1';
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
 * The keys of an account's status query tokens, the signing one first: its path secret (the poller that
 * asks and the callback function that reads the answer both hold it, the callback function holding no
 * API credentials: docs/configuration.md#secrets), the previous path secret during a rotation, then the
 * consumer secret (an account without a path secret; tokens signed before the path secret was the key).
 */
export function statusQueryKeys(account: {
  pathSecret: string | undefined;
  previousPathSecret?: string;
  settings: { api?: { consumerSecret?: string } };
}): string[] {
  return [account.pathSecret, account.previousPathSecret, account.settings.api?.consumerSecret].filter(
    (key): key is string => typeof key === 'string' && key.length > 0,
  );
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
