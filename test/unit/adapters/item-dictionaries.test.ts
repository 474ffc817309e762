import { describe, expect, it } from 'vitest';
import { RECEIPT_DICTIONARIES } from '../../../shared/adapters/dynamodb/receipt-item';
import { TRANSACTION_DICTIONARIES } from '../../../shared/adapters/dynamodb/transaction-item';

/*
 * The deflate dictionaries of the compact receipt and transaction items are frozen: an item names the
 * version it was written with and is read with that one forever. The adapters keep them deflated (each
 * bundle that stores items is ~2.4 KB lighter); here is their text, which the bytes must stay.
 */

const RECEIPT_V1 =
  // Daraja: B2C/B2B/reversal/balance/status results, C2B confirmation and validation, STK.
  '{"Result":{"ResultType":0,"ResultCode":0,"ResultDesc":"The service request is processed successfully.","OriginatorConversationID":"","ConversationID":"AG_2026","TransactionID":"",' +
  '"ResultParameters":{"ResultParameter":[{"Key":"TransactionAmount","Value":},{"Key":"TransactionReceipt","Value":""},{"Key":"B2CRecipientIsRegisteredCustomer","Value":"Y"},' +
  '{"Key":"B2CChargesPaidAccountAvailableFunds","Value":},{"Key":"ReceiverPartyPublicName","Value":""},{"Key":"TransactionCompletedDateTime","Value":""},' +
  '{"Key":"B2CUtilityAccountAvailableFunds","Value":},{"Key":"B2CWorkingAccountAvailableFunds","Value":},{"Key":"DebitAccountBalance","Value":""},{"Key":"Amount","Value":},' +
  '{"Key":"Currency","Value":"KES"},{"Key":"ReceiverPartyPublicName","Value":""},{"Key":"InitiatedTime","Value":},{"Key":"DebitPartyCharges","Value":""},' +
  '{"Key":"OriginalTransactionID","Value":""},{"Key":"CreditPartyPublicName","Value":""},{"Key":"DebitPartyName","Value":""},{"Key":"TransactionStatus","Value":"Completed"},' +
  '{"Key":"ReasonType","Value":""},{"Key":"TransactionReason","Value":""},{"Key":"FinalisedTime","Value":},{"Key":"ReceiptNo","Value":""},{"Key":"AccountBalance","Value":"Working Account|KES|"},' +
  '{"Key":"BOCompletedTime","Value":}]},"ReferenceData":{"ReferenceItem":{"Key":"QueueTimeoutURL","Value":"https://"}}}}' +
  '{"TransactionType":"Pay Bill","TransID":"","TransTime":"2026","TransAmount":"","BusinessShortCode":"","BillRefNumber":"","InvoiceNumber":"","OrgAccountBalance":"",' +
  '"ThirdPartyTransID":"","MSISDN":"254","FirstName":"","MiddleName":"","LastName":""}' +
  '{"Body":{"stkCallback":{"MerchantRequestID":"","CheckoutRequestID":"ws_CO_","ResultCode":0,"ResultDesc":"The service request is processed successfully.",' +
  '"CallbackMetadata":{"Item":[{"Name":"Amount","Value":},{"Name":"MpesaReceiptNumber","Value":""},{"Name":"Balance"},{"Name":"TransactionDate","Value":2026},{"Name":"PhoneNumber","Value":254}]}}}}' +
  '"Request cancelled by user","DS timeout user cannot be reached"' +
  // Airtel, MoMo.
  '{"transaction":{"id":"","message":"","status_code":"TS","airtel_money_id":""}}' +
  '{"financialTransactionId":"","externalId":"","amount":"","currency":"","payer":{"partyIdType":"MSISDN","partyId":""},"payee":{"partyIdType":"MSISDN","partyId":""},' +
  '"payerMessage":"","payeeNote":"","status":"SUCCESSFUL","reason":{"code":"","message":""}},"FAILED","PENDING","referenceId":""' +
  // The receipt's own fields and the headers API Gateway passes on.
  '{"dedupeKey":"","path":"/v1/","headers":{"accept":"*/*","accept-encoding":"gzip, deflate","content-length":"","content-type":"application/json",' +
  '"host":"","user-agent":"","x-amzn-trace-id":"Root=1-","x-forwarded-for":"","x-forwarded-port":"443","x-forwarded-proto":"https"},"body":""}';

const TRANSACTION_V1 =
  '"status-api","statement","poll","manual","buffer","registration","authenticated":true,"authentication":["path-secret","source-ip","signature"],' +
  '"TransactionAmbiguous","TransactionFailed","TransactionExpired","TransactionEscalated","TransactionConflict","TransactionReversed","C2BValidationDecided",' +
  '"AMBIGUOUS","FAILED","EXPIRED","reason":{"code":"","message":"","providerCode":""},"metadata":{},"trusted":{"providerTransactionId":"","attributes":{}},' +
  '"reconcile":{"checks":0,"recent":[]},"reversals":[],"transfer","b2c","stk","c2b","disbursement","collection",' +
  '{"kind":"requesttopay","registered":false,"msisdn":"","externalId":"","party":{"idType":"MSISDN","id":""},"attributes":{},"reconcileUntil":"2026-01-01T00:00:00.000Z",' +
  '"transitions":[{"from":"PENDING","to":"SUCCEEDED","at":"2026-01-01T00:00:00.000Z","origin":"callback","receiptId":"","evidence":' +
  '{"source":"callback","claim":"SUCCEEDED","authenticated":false,"authentication":[],"conclusive":true,"at":"2026-01-01T00:00:00.000Z","providerCode":null,"description":null,"amount":{"value":"","currency":""},"receiptId":""}}],' +
  '"conflicts":[],"events":[{"id":"","type":"CallbackOrphaned","at":"2026-01-01T00:00:00.000Z"},{"id":"","type":"TransactionSucceeded","at":"2026-01-01T00:00:00.000Z"}],' +
  '"evidence":[{"source":"callback","claim":"SUCCEEDED","authenticated":false,"authentication":[],"conclusive":true,"at":"2026-01-01T00:00:00.000Z","providerCode":null,"description":null,"amount":{"value":"","currency":""},"receiptId":""}],' +
  '"receipts":{"kept":1,"bytes":0,"dropped":0,"droppedBytes":0},' +
  '"outbox":[{"data":{"status":"PENDING","reason":null,"receivedAt":"2026-01-01T00:00:00.000Z","note":"callback for a transaction nobody registered; stored and applied"},' +
  '"fromItem":"@correlationId,provider,account,kind,reference,providerTransactionId,externalId,amount,party","metadata":{"version":"1","type":"CallbackOrphaned","occurredAt":"2026-01-01T00:00:00.000Z","origin":"callback"}},' +
  '{"data":{"reason":null,"receivedAt":"2026-01-01T00:00:00.000Z"},"fromItem":"@correlationId,provider,account,kind,reference,providerTransactionId,externalId,status,amount,party,evidence",' +
  '"metadata":{"version":"1","type":"TransactionSucceeded","occurredAt":"2026-01-01T00:00:00.000Z","origin":"callback"}}]}';

describe('compact item dictionaries', () => {
  it('keep the receipt dictionary of version 1 byte for byte', () => {
    // Assess
    expect(Object.keys(RECEIPT_DICTIONARIES)).toEqual(['1']);
    expect(RECEIPT_DICTIONARIES[1]!.toString('utf8')).toBe(RECEIPT_V1);
  });

  it('keep the transaction dictionary of version 1 byte for byte', () => {
    // Assess
    expect(Object.keys(TRANSACTION_DICTIONARIES)).toEqual(['1']);
    expect(TRANSACTION_DICTIONARIES[1]!.toString('utf8')).toBe(TRANSACTION_V1);
  });
});
