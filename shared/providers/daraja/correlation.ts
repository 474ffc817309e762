/**
 * Correlation. STK: CheckoutRequestID. B2C: OriginatorConversationID (the partner registers it), and
 * ConversationID through an alias record: the first callback that carries both ids records
 * ConversationID → OriginatorConversationID (provider record namespace `alias:ConversationID`), so a
 * later callback carrying only the ConversationID still finds the transaction. C2B: TransID.
 * The lookups themselves are the app's (shared/app/ingest-report.ts resolveReference); the parsers
 * only name the candidates.
 */
export const CONVERSATION_ID = 'ConversationID';
