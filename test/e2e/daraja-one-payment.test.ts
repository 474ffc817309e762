/**
 * Issue 17, "one payment, either order", end to end through the in-process relay (DynamoDB Local): an STK
 * payment to a pay-bill also reaches the C2B confirmation URL with the same receipt. Whichever comes
 * first, the payment ends as one success: the registered STK transaction SUCCEEDED, one TransactionSucceeded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventEnvelope } from '../../shared/domain/events';
import { startTestRelay, type TestRelay } from '../helpers/relay';

/** Whether the ingest reads ReportIntent.samePaymentAs yet (/tmp/daraja-core.patch). */
const CORE_READS_DARAJA_INTENTS = true;
const SAFARICOM_IP = '196.201.214.200';

let relay: TestRelay;
beforeAll(async () => {
  relay = await startTestRelay({ accounts: { daraja: { demo: { shortCode: '600638' } } } });
});
afterAll(async () => {
  await relay.stop();
});

let n = 0;
const unique = (prefix: string) => `${prefix}${Date.now().toString(36).toUpperCase()}${++n}`;

function stkResult(checkout: string, receipt: string) {
  return {
    Body: {
      stkCallback: {
        MerchantRequestID: '29115-34620561-1',
        CheckoutRequestID: checkout,
        ResultCode: 0,
        ResultDesc: 'The service request is processed successfully.',
        CallbackMetadata: {
          Item: [
            { Name: 'Amount', Value: 1 },
            { Name: 'MpesaReceiptNumber', Value: receipt },
            { Name: 'TransactionDate', Value: 20191219102115 },
            { Name: 'PhoneNumber', Value: 254708374149 },
          ],
        },
      },
    },
  };
}

function c2bConfirmation(receipt: string) {
  return {
    TransactionType: 'Pay Bill',
    TransID: receipt,
    TransTime: '20191219102115',
    TransAmount: '1',
    BusinessShortCode: '600638',
    BillRefNumber: 'INV-1',
    MSISDN: '25470****149',
    FirstName: 'John',
  };
}

async function payment() {
  const checkout = unique('ws_CO_');
  const receipt = unique('R').slice(0, 10);
  const res = await relay.admin('POST', '/v1/transactions', {
    provider: 'daraja',
    account: 'demo',
    kind: 'stk',
    reference: checkout,
    amount: '1',
    currency: 'KES',
    msisdn: '254708374149',
  });
  expect(res.status).toBe(201);
  const post = (route: string, body: unknown) =>
    relay.request('POST', `/v1/daraja/demo/${route}`, body, { 'x-forwarded-for': SAFARICOM_IP });
  return {
    checkout,
    receipt,
    stk: () => post('stk', stkResult(checkout, receipt)),
    c2b: () => post('c2b/confirmation', c2bConfirmation(receipt)),
  };
}

async function successes(...references: string[]): Promise<EventEnvelope[]> {
  return (await relay.flush()).filter(
    (e) =>
      e.metadata.type === 'TransactionSucceeded' &&
      references.includes((e.data as { reference: string }).reference),
  );
}

describe('Daraja: one payment, either order (STK result and C2B confirmation)', () => {
  it('STK result first, then the C2B confirmation: one transaction, one TransactionSucceeded', async () => {
    // Prepare
    const p = await payment();

    // Act
    expect((await p.stk()).status).toBe(200);
    expect((await p.c2b()).status).toBe(200);

    // Assess
    const events = await successes(p.checkout, p.receipt);
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({ reference: p.checkout, providerTransactionId: p.receipt });
    const c2b = await relay.admin('GET', `/v1/transactions/daraja/demo/${p.receipt}`);
    expect(c2b.status).toBe(404);
  });

  it.skipIf(!CORE_READS_DARAJA_INTENTS)(
    'C2B confirmation first, then the STK result: the registered STK transaction SUCCEEDED, one TransactionSucceeded',
    async () => {
      // Prepare
      const p = await payment();

      // Act
      expect((await p.c2b()).status).toBe(200);
      expect((await p.stk()).status).toBe(200);
      expect((await p.c2b()).status).toBe(200);

      // Assess
      expect(await successes(p.checkout, p.receipt)).toHaveLength(1);
      const stk = await relay.admin('GET', `/v1/transactions/daraja/demo/${p.checkout}`);
      expect(stk.body.transaction).toMatchObject({
        status: 'SUCCEEDED',
        providerTransactionId: p.receipt,
        attributes: { SamePaymentAs: `c2b/${p.receipt}` },
      });
    },
  );
});
