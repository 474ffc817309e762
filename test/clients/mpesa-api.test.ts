/**
 * The `mpesa-api` npm client (3.0.2) against the in-process simulator, with the one change
 * docs/clients/mpesa-api.md gives partners (its HTTP service replaced by one that keeps the port), including
 * the client's bugs and their workarounds.
 */
import http from 'node:http';
import { Mpesa } from 'mpesa-api';
import { HttpService } from 'mpesa-api/lib/services/http.service';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULTS } from '../../simulator/options';
import type { Simulator } from '../../simulator/server';
import { parse, startReceiver, startSim, type Receiver } from '../simulator/helpers';
import { PortKeepingHttp, type HttpResult } from './port-keeping-http';

const PHONE = '254708374149';
const SHORT_CODE = '600638';
// The typings want numbers for BusinessShortCode, ShortCode and Msisdn; the other parties are strings.
const STK_SHORT_CODE = 174379;
const PASSKEY = DEFAULTS.daraja.passkeys['174379'];
const credentials = {
  clientKey: DEFAULTS.daraja.consumerKey,
  clientSecret: DEFAULTS.daraja.consumerSecret,
  initiatorPassword: 'Safaricom999!*!',
};

let sim: Simulator;
let partner: Receiver;
let mpesa: Mpesa;

const sentTo = (path: string) => partner.requests.filter((r) => r.path === path);

/** A client pointed at the simulator the documented way: `http` (private in the typings) replaced. */
function clientForSimulator(): Mpesa {
  const client = new Mpesa({ ...credentials, securityCredential: 'sim-security-credential' }, 'sandbox');
  (client as unknown as { http: PortKeepingHttp }).http = new PortKeepingHttp(sim.url);
  return client;
}

const stkRequest = (overrides: Record<string, unknown> = {}) =>
  ({
    BusinessShortCode: STK_SHORT_CODE,
    passKey: PASSKEY,
    TransactionType: 'CustomerPayBillOnline',
    TransactionDesc: 'Order 8841',
    AccountReference: 'INV-8841',
    Amount: 1,
    PartyA: PHONE,
    PartyB: String(STK_SHORT_CODE),
    PhoneNumber: PHONE,
    CallBackURL: `${partner.url}/stk`,
    ...overrides,
  }) as Parameters<Mpesa['lipaNaMpesaOnline']>[0];

beforeAll(async () => {
  sim = await startSim({ daraja: { c2bExternalValidation: true } });
  partner = await startReceiver((r) =>
    r.path.endsWith('/validation') ? { body: { ResultCode: '0', ResultDesc: 'Accepted' } } : {},
  );
  mpesa = clientForSimulator();
});

afterEach(() => {
  vi.restoreAllMocks();
});

afterAll(async () => {
  await partner.close();
  await sim.close();
});

describe('mpesa-api as shipped', () => {
  it('drops the port of its base URL: http.request is given the host name only', async () => {
    // Prepare: catch what the client's own service hands to Node instead of sending it anywhere.
    const request = vi.spyOn(http, 'request').mockImplementation(() => {
      throw new Error('captured');
    });
    const service = new HttpService({ baseURL: sim.url, headers: {} });
    // Act
    await service
      .get('/oauth/v1/generate?grant_type=client_credentials', { headers: {} })
      .catch(() => undefined);
    // Assess
    const options = request.mock.calls[0]![0] as http.RequestOptions;
    expect(options.hostname).toBe('127.0.0.1');
    expect(options.port).toBeUndefined();
  });

  it('has no security credential right after construction from an initiator password (encrypted unawaited)', () => {
    // Act
    const client = new Mpesa(credentials, 'sandbox');
    // Assess
    expect((client as unknown as { securityCredential?: string }).securityCredential).toBeUndefined();
  });
});

describe('mpesa-api against the simulator, HTTP service replaced', () => {
  it('pushes an STK payment with TransactionType and a short description given; callback and query report success', async () => {
    // Act
    const stk = await mpesa.lipaNaMpesaOnline(stkRequest());
    await sim.whenIdle();
    const query = await mpesa.lipaNaMpesaQuery({
      BusinessShortCode: STK_SHORT_CODE,
      passKey: PASSKEY,
      CheckoutRequestID: stk.CheckoutRequestID,
    });
    // Assess
    expect(stk.ResponseCode).toBe('0');
    const callback = sentTo('/stk').find(
      (r) => parse<any>(r).Body.stkCallback.CheckoutRequestID === stk.CheckoutRequestID,
    );
    expect(parse<any>(callback!).Body.stkCallback.ResultCode).toBe(0);
    expect(query).toMatchObject({ ResultCode: '0' });
  });

  it('refuses the client’s default TransactionType (trailing space) and default description (20 characters)', async () => {
    // Act
    const defaultType = (await mpesa
      .lipaNaMpesaOnline(stkRequest({ TransactionType: undefined }))
      .catch((e: HttpResult) => e)) as HttpResult;
    const defaultDescription = (await mpesa
      .lipaNaMpesaOnline(stkRequest({ TransactionDesc: undefined }))
      .catch((e: HttpResult) => e)) as HttpResult;
    // Assess
    expect(defaultType.statusCode).toBe(400);
    expect(defaultType.data).toMatchObject({ errorMessage: 'Bad Request - Invalid TransactionType' });
    expect(defaultDescription.data).toMatchObject({ errorMessage: 'Bad Request - Invalid TransactionDesc' });
  });

  it('pays out by B2C; the result reaches ResultURL under the answer’s OriginatorConversationID', async () => {
    // Act
    const b2c = await mpesa.b2c({
      Initiator: 'testapi',
      CommandID: 'BusinessPayment',
      Amount: 10,
      PartyA: SHORT_CODE,
      PartyB: PHONE,
      Remarks: 'Payout',
      Occasion: 'Payout',
      QueueTimeOutURL: `${partner.url}/b2c/timeout`,
      ResultURL: `${partner.url}/b2c/result`,
    });
    await sim.whenIdle();
    // Assess
    expect(b2c.ResponseCode).toBe('0');
    const result = sentTo('/b2c/result')
      .map((r) => parse<any>(r).Result)
      .find((r) => r.OriginatorConversationID === b2c.OriginatorConversationID);
    expect(result?.ResultCode).toBe(0);
  });

  it('registers C2B URLs and simulates a payment; then queries it, reverses it and asks for the balance, each result at its ResultURL', async () => {
    // Prepare
    await mpesa.c2bRegister({
      ShortCode: Number(SHORT_CODE),
      ResponseType: 'Completed',
      ConfirmationURL: `${partner.url}/c2b/confirmation`,
      ValidationURL: `${partner.url}/c2b/validation`,
    });
    const c2b = (await mpesa.c2bSimulate({
      ShortCode: Number(SHORT_CODE),
      CommandID: 'CustomerPayBillOnline',
      Amount: 100,
      Msisdn: Number(PHONE),
      BillRefNumber: 'ACC-001',
    })) as unknown as { ResponseCode: string; SimulatorOutcome: { TransID: string } };
    const receipt = c2b.SimulatorOutcome.TransID;
    // Act
    const status = await mpesa.transactionStatus({
      Initiator: 'testapi',
      TransactionID: receipt,
      PartyA: SHORT_CODE,
      IdentifierType: '4',
      ResultURL: `${partner.url}/status/result`,
      QueueTimeOutURL: `${partner.url}/status/timeout`,
    } as Parameters<Mpesa['transactionStatus']>[0]);
    const reversal = await mpesa.reversal({
      Initiator: 'testapi',
      TransactionID: receipt,
      Amount: 100,
      ReceiverParty: SHORT_CODE,
      Occasion: receipt,
      ResultURL: `${partner.url}/reversal/result`,
      QueueTimeOutURL: `${partner.url}/reversal/timeout`,
    } as Parameters<Mpesa['reversal']>[0]);
    const balance = await mpesa.accountBalance({
      Initiator: 'testapi',
      PartyA: SHORT_CODE,
      QueueTimeOutURL: `${partner.url}/balance/timeout`,
      ResultURL: `${partner.url}/balance/result`,
    } as Parameters<Mpesa['accountBalance']>[0]);
    await sim.whenIdle();
    // Assess
    expect(c2b.ResponseCode).toBe('0');
    expect(sentTo('/c2b/confirmation').some((r) => parse(r).TransID === receipt)).toBe(true);
    const resultOf = (path: string, conversationId: string) =>
      sentTo(path)
        .map((r) => parse<any>(r).Result)
        .find((r) => r.ConversationID === conversationId);
    expect(resultOf('/status/result', status.ConversationID)?.ResultCode).toBe(0);
    const reversed = resultOf('/reversal/result', reversal.ConversationID);
    expect(reversed?.ResultCode).toBe(0);
    expect(
      (reversed.ResultParameters.ResultParameter as { Key: string; Value: unknown }[]).find(
        (p) => p.Key === 'OriginalTransactionID',
      )?.Value,
    ).toBe(receipt);
    expect(resultOf('/balance/result', balance.ConversationID)?.ResultCode).toBe(0);
  });
});
