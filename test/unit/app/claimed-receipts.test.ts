/**
 * A receipt named only by a report nobody authenticated (an STK result from an address the allow-list did
 * not admit) is a claim: never published or taught as the payment's id. When the STK query (which names no
 * receipt) confirms the payment, TransactionSucceeded carries no receipt, and the poller asks Daraja's
 * transaction status query about the claim; Daraja's answer makes it the payment's.
 */
import { describe, expect, it } from 'vitest';
import { registered } from '../../helpers/reports';
import { DARAJA_IP, darajaWorld, fixture, FORGER_IP, STK_REFERENCE } from './forged-daraja-world';

const RECEIPT = 'NLJ7RT61SV';

/** Daraja's transaction status result about the receipt: a completed 1 KES payment. */
const statusResult = () =>
  JSON.stringify({
    Result: {
      ConversationID: 'AG_QUERY_1',
      OriginatorConversationID: 'AG_QUERY_1-oc',
      ReferenceData: { ReferenceItem: { Key: 'Occasion' } },
      ResultCode: 0,
      ResultDesc: 'The service request is processed successfully.',
      ResultParameters: {
        ResultParameter: [
          { Key: 'ReasonType', Value: 'Lipa na M-Pesa Online' },
          { Key: 'TransactionStatus', Value: 'Completed' },
          { Key: 'Amount', Value: 1 },
          { Key: 'ReceiptNo', Value: RECEIPT },
        ],
      },
      ResultType: 0,
      TransactionID: RECEIPT,
    },
  });

/** The 1 KES STK push of fixtures/daraja/stk-success.json, registered. */
const registerPush = (s: ReturnType<typeof setup>) =>
  s.store.createTransaction(
    registered({
      key: { provider: 'daraja', account: 'ke', reference: STK_REFERENCE },
      kind: 'stk',
      amount: { value: '1', currency: 'KES' },
      externalId: undefined,
    }),
  );

function setup() {
  const asked: Array<{ url: string; body: Record<string, unknown> }> = [];
  const world = darajaWorld({
    mode: 'log-only',
    api: true,
    passkey: true,
    daraja: (url, body) => {
      if (url.includes('/oauth/'))
        return Response.json({ access_token: 'token-0123456789', expires_in: '3599' });
      asked.push({ url, body });
      if (url.includes('/stkpushquery/'))
        return Response.json({
          ResponseCode: '0',
          ResponseDescription: 'The service request has been accepted successsfully',
          MerchantRequestID: '29115-34620561-1',
          CheckoutRequestID: STK_REFERENCE,
          ResultCode: '0',
          ResultDesc: 'The service request is processed successfully.',
        });
      return Response.json({
        OriginatorConversationID: 'AG_QUERY_1-oc',
        ConversationID: 'AG_QUERY_1',
        ResponseCode: '0',
        ResponseDescription: 'Accept the service request successfully.',
      });
    },
  });
  return { ...world, asked };
}

describe('a receipt only an unauthenticated STK result names', () => {
  it('is a claim the poller asks about, never the published receipt of the payment the STK query confirms', async () => {
    // Prepare: the push is registered; its result comes from an address the list did not admit.
    const s = setup();
    await registerPush(s);
    expect(await s.post('stk', fixture('stk-success'), FORGER_IP)).toBe(200);
    // Act: the STK query confirms the payment; the next look asks about the claimed receipt.
    await s.poll();
    const confirmed = await s.transaction(STK_REFERENCE);
    await s.poll();
    // Assess
    expect(confirmed).toMatchObject({ status: 'SUCCEEDED', receiptClaims: [RECEIPT] });
    expect(confirmed?.providerTransactionId).toBeUndefined();
    expect(s.events('TransactionSucceeded')[0]?.data.providerTransactionId ?? null).toBeNull();
    expect(s.asked.at(-1)).toMatchObject({
      url: expect.stringContaining('/transactionstatus/'),
      body: { TransactionID: RECEIPT },
    });
    // Daraja's answer (on the status result route, from its address) makes the receipt the payment's.
    expect(await s.post('status/result', statusResult(), DARAJA_IP)).toBe(200);
    expect(await s.transaction(STK_REFERENCE)).toMatchObject({ providerTransactionId: RECEIPT });
  });

  it('Daraja’s own STK result from its address still gives the payment its receipt at once', async () => {
    const s = setup();
    expect(await s.payStk()).toBe(200);
    expect(await s.transaction(STK_REFERENCE)).toMatchObject({
      status: 'SUCCEEDED',
      providerTransactionId: RECEIPT,
    });
    expect(s.events('TransactionSucceeded')[0]?.data).toMatchObject({ providerTransactionId: RECEIPT });
  });
  it('after Daraja’s FAILED verdict, a forged success’s receipt is a conflict, never an alias that finds the payment', async () => {
    // Prepare: the push is registered; Daraja, from its address, says the customer cancelled it.
    const s = setup();
    await registerPush(s);
    const cancelled = fixture('stk-cancelled').replace('ws_CO_191220191020363926', STK_REFERENCE);
    expect(await s.post('stk', cancelled, DARAJA_IP)).toBe(200);
    // Act: a forger posts a success naming a receipt (the customer's SMS of another payment, say).
    expect(await s.post('stk', fixture('stk-success'), FORGER_IP)).toBe(200);
    // Assess: the verdict stands, the disagreement is said, and the receipt leads nowhere.
    expect(await s.transaction(STK_REFERENCE)).toMatchObject({ status: 'FAILED' });
    expect(s.events('TransactionConflict')).toHaveLength(1);
    const alias = await s.store.getRecord({
      provider: 'daraja',
      account: 'ke',
      namespace: 'alias:receipt',
      id: RECEIPT,
    });
    expect(alias).toBeUndefined();
  });
});
