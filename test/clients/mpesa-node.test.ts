/**
 * The `mpesa-node` npm client (0.1.3), unchanged, against the in-process simulator: what
 * docs/clients/mpesa-node.md promises partners, including the client's bugs and their workarounds.
 */
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../simulator/options';
import type { Simulator } from '../../simulator/server';
import { parse, startReceiver, startSim, type Receiver } from '../simulator/helpers';

/** The part of mpesa-node's untyped API the recipes use (positional arguments, axios responses). */
interface AxiosAnswer {
  data: Record<string, any>;
}
interface MpesaNode {
  baseURL: string;
  lipaNaMpesaOnline(
    phone: string,
    amount: number,
    callbackUrl: string,
    accountRef: string,
    desc?: string,
  ): Promise<AxiosAnswer>;
  lipaNaMpesaQuery(checkoutRequestId: string): Promise<AxiosAnswer>;
  b2c(
    ...args: [string, string, number, string, string, string, string, string, string]
  ): Promise<AxiosAnswer>;
  c2bRegister(
    confirmationUrl: string,
    validationUrl: string,
    shortCode: string,
    responseType: string,
  ): Promise<AxiosAnswer>;
  c2bSimulate(
    msisdn: string,
    amount: number,
    billRef: string,
    commandId: string,
    shortCode: string,
  ): Promise<AxiosAnswer>;
  transactionStatus(...args: [string, string, number, string, string, string, string]): Promise<AxiosAnswer>;
  accountBalance(...args: [string, number, string, string, string]): Promise<AxiosAnswer>;
  reversal(...args: [string, number, string, string, string, string, string]): Promise<AxiosAnswer>;
}
type MpesaNodeConstructor = new (config: Record<string, string>) => MpesaNode;

const require = createRequire(import.meta.url);
const Mpesa = require('mpesa-node') as MpesaNodeConstructor;
const PHONE = '254708374149';
const SHORT_CODE = '600638';

let sim: Simulator;
let partner: Receiver;
let mpesa: MpesaNode;

/** Callbacks the simulator sent to one path of the partner. */
const sentTo = (path: string) => partner.requests.filter((r) => r.path === path);

beforeAll(async () => {
  sim = await startSim({ daraja: { c2bExternalValidation: true } });
  partner = await startReceiver((r) =>
    r.path.endsWith('/validation') ? { body: { ResultCode: '0', ResultDesc: 'Accepted' } } : {},
  );
  mpesa = new Mpesa({
    consumerKey: DEFAULTS.daraja.consumerKey,
    consumerSecret: DEFAULTS.daraja.consumerSecret,
    environment: 'sandbox',
    shortCode: SHORT_CODE,
    initiatorName: 'testapi',
    lipaNaMpesaShortCode: '174379',
    lipaNaMpesaShortPass: DEFAULTS.daraja.passkeys['174379'],
    securityCredential: 'Safaricom999!*!',
    certPath: require.resolve('mpesa-node/keys/sandbox-cert.cer'),
  });
  // The constructor hard-codes the Safaricom sandbox host; every call reads this field.
  mpesa.baseURL = sim.url;
});

afterAll(async () => {
  await partner.close();
  await sim.close();
});

/** The receipt of a fresh completed STK payment (the simulator reverses and queries its own receipts). */
async function paidReceipt(): Promise<string> {
  const { data } = await mpesa.lipaNaMpesaOnline(PHONE, 1, `${partner.url}/stk`, 'INV-8841', 'Order 8841');
  await sim.whenIdle();
  const callback = sentTo('/stk')
    .map((r) => parse<any>(r).Body.stkCallback)
    .find((c) => c.CheckoutRequestID === data.CheckoutRequestID);
  return callback.CallbackMetadata.Item.find((i: { Name: string }) => i.Name === 'MpesaReceiptNumber').Value;
}

describe('mpesa-node against the simulator', () => {
  it('pushes an STK payment with a description of at most 13 characters; the callback and the query report success', async () => {
    // Act
    const { data } = await mpesa.lipaNaMpesaOnline(PHONE, 1, `${partner.url}/stk`, 'INV-8841', 'Order 8841');
    await sim.whenIdle();
    const { data: query } = await mpesa.lipaNaMpesaQuery(data.CheckoutRequestID);
    // Assess
    expect(data.ResponseCode).toBe('0');
    const callback = sentTo('/stk').find(
      (r) => parse<any>(r).Body.stkCallback.CheckoutRequestID === data.CheckoutRequestID,
    );
    expect(parse<any>(callback!).Body.stkCallback.ResultCode).toBe(0);
    expect(query).toMatchObject({ ResultCode: '0', CheckoutRequestID: data.CheckoutRequestID });
  });

  it('refuses the client’s default STK description (20 characters) and an account reference over 12', async () => {
    // Act
    const withDefault = await mpesa
      .lipaNaMpesaOnline(PHONE, 1, `${partner.url}/stk`, 'INV-8841')
      .catch((e) => e);
    const longReference = await mpesa
      .lipaNaMpesaOnline(PHONE, 1, `${partner.url}/stk`, 'INV-8841-LONGER', 'Order 8841')
      .catch((e) => e);
    // Assess
    expect(withDefault.response.status).toBe(400);
    expect(withDefault.response.data.errorMessage).toBe('Bad Request - Invalid TransactionDesc');
    expect(longReference.response.data.errorMessage).toBe('Bad Request - Invalid AccountReference');
  });

  it('pays out by B2C v1; the result reaches ResultURL under the OriginatorConversationID the answer gave', async () => {
    // Act
    const { data } = await mpesa.b2c(
      SHORT_CODE,
      PHONE,
      10,
      `${partner.url}/b2c/timeout`,
      `${partner.url}/b2c/result`,
      'BusinessPayment',
      'testapi',
      'Payout',
      'Payout',
    );
    await sim.whenIdle();
    // Assess
    expect(data.ResponseCode).toBe('0');
    const results = sentTo('/b2c/result').map((r) => parse<any>(r).Result);
    expect(
      results.find((r) => r.OriginatorConversationID === data.OriginatorConversationID)?.ResultCode,
    ).toBe(0);
  });

  it('registers C2B URLs (v1) and simulates a payment: validation, then confirmation, at those URLs', async () => {
    // Act
    await mpesa.c2bRegister(
      `${partner.url}/c2b/confirmation`,
      `${partner.url}/c2b/validation`,
      SHORT_CODE,
      'Completed',
    );
    const { data } = await mpesa.c2bSimulate(PHONE, 100, 'ACC-001', 'CustomerPayBillOnline', SHORT_CODE);
    // Assess
    const transId = data.SimulatorOutcome.TransID;
    expect(data.ResponseCode).toBe('0');
    expect(sentTo('/c2b/validation').some((r) => parse(r).TransID === transId)).toBe(true);
    expect(sentTo('/c2b/confirmation').some((r) => parse(r).TransID === transId)).toBe(true);
  });

  it('queries a transaction’s status; the answer’s ResponseCode is a number and the result reaches ResultURL', async () => {
    // Prepare
    const receipt = await paidReceipt();
    // Act
    const { data } = await mpesa.transactionStatus(
      receipt,
      SHORT_CODE,
      4,
      `${partner.url}/status/timeout`,
      `${partner.url}/status/result`,
      'Status check',
      'Status check',
    );
    await sim.whenIdle();
    // Assess
    expect(data.ResponseCode).toBe(0);
    const results = sentTo('/status/result').map((r) => parse<any>(r).Result);
    expect(results.find((r) => r.ConversationID === data.ConversationID)?.ResultCode).toBe(0);
  });

  it('asks for the account balance; the balance arrives at ResultURL', async () => {
    // Act
    const { data } = await mpesa.accountBalance(
      SHORT_CODE,
      4,
      `${partner.url}/balance/timeout`,
      `${partner.url}/balance/result`,
      'Balance',
    );
    await sim.whenIdle();
    // Assess
    expect(data.ResponseCode).toBe('0');
    const result = sentTo('/balance/result')
      .map((r) => parse<any>(r).Result)
      .find((r) => r.ConversationID === data.ConversationID);
    const parameters = result.ResultParameters.ResultParameter as { Key: string; Value: string }[];
    expect(parameters.find((p) => p.Key === 'AccountBalance')?.Value).toMatch(/^Working Account\|KES\|/);
  });

  it('reverses a receipt the simulator issued, and reports an unknown receipt as R000002', async () => {
    // Prepare
    const receipt = await paidReceipt();
    const reverse = (transactionId: string) =>
      mpesa.reversal(
        transactionId,
        1,
        `${partner.url}/reversal/timeout`,
        `${partner.url}/reversal/result`,
        SHORT_CODE,
        'Refund order',
        // The recipe's Occasion: the receipt, by which the relay links a failed reversal to its payment.
        transactionId,
      );
    // Act
    const { data: known } = await reverse(receipt);
    const { data: unknown } = await reverse('XX00000000');
    await sim.whenIdle();
    // Assess
    const results = sentTo('/reversal/result').map((r) => parse<any>(r).Result);
    const knownResult = results.find((r) => r.ConversationID === known.ConversationID);
    const parameters = knownResult.ResultParameters.ResultParameter as { Key: string; Value: unknown }[];
    expect(knownResult.ResultCode).toBe(0);
    expect(parameters.find((p) => p.Key === 'OriginalTransactionID')?.Value).toBe(receipt);
    expect(results.find((r) => r.ConversationID === unknown.ConversationID)?.ResultCode).toBe('R000002');
  });

  it('throws before any request when an initiator call has no certPath', async () => {
    // Prepare
    const withoutCert = new Mpesa({
      consumerKey: DEFAULTS.daraja.consumerKey,
      consumerSecret: DEFAULTS.daraja.consumerSecret,
      securityCredential: 'Safaricom999!*!',
    });
    withoutCert.baseURL = sim.url;
    // Act
    const error = await withoutCert
      .accountBalance(SHORT_CODE, 4, `${partner.url}/q`, `${partner.url}/r`, 'Balance')
      .catch((e: Error) => e);
    // Assess
    expect(error).toBeInstanceOf(TypeError);
  });
});
