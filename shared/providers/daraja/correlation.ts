/**
 * Correlation. STK: CheckoutRequestID. B2C: OriginatorConversationID (the partner registers it), and
 * ConversationID through an alias record: the first callback that carries both ids records
 * ConversationID → OriginatorConversationID (provider record namespace `alias:ConversationID`), so a
 * later callback carrying only the ConversationID still finds the transaction. C2B: TransID.
 * The lookups themselves are the app's (shared/app/ingest-report.ts resolveReference); the parsers
 * only name the candidates.
 */
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
