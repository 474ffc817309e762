/**
 * A Daraja transaction-status result as Daraja posts it to the query's ResultURL (the shape of Safaricom's
 * documented sample, test/fixtures/daraja/documented/status-result.json): the top level names the query
 * (its OriginatorConversationID and ConversationID), ResultParameters the transaction it is about.
 */
export function darajaStatusResult(input: {
  /** The status query's own ids. */
  query: { oc: string; c: string };
  /** The OriginatorConversationID of the transaction the result is about (absent: the result names none). */
  about?: string;
  receipt: string;
  amount?: number;
  /** The Occasion the query sent, echoed in ReferenceData. */
  occasion?: string;
}) {
  return {
    Result: {
      ResultType: 0,
      ResultCode: 0,
      ResultDesc: 'The service request is processed successfully.',
      OriginatorConversationID: input.query.oc,
      ConversationID: input.query.c,
      TransactionID: 'SBX0000000',
      ResultParameters: {
        ResultParameter: [
          ...(input.about ? [{ Key: 'OriginatorConversationID', Value: input.about }] : []),
          { Key: 'TransactionStatus', Value: 'Completed' },
          { Key: 'Amount', Value: input.amount ?? 10 },
          { Key: 'ReceiptNo', Value: input.receipt },
        ],
      },
      ReferenceData: {
        ReferenceItem: input.occasion ? { Key: 'Occasion', Value: input.occasion } : { Key: 'Occasion' },
      },
    },
  };
}
