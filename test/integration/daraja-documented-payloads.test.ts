import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RelayServices } from '../../shared/app/services';
import { registerTransaction } from '../../shared/app/transactions/register-transaction';
import { parseConfig } from '../../shared/config/load';
import type { EventEnvelope } from '../../shared/domain/events';
import { receiveCallback } from '../../shared/http/callback-endpoint';
import type { InboundRequest } from '../../shared/http/types';
import { normalizeStatusResult } from '../../shared/providers/daraja/normalize';
import { resultSchema } from '../../shared/providers/daraja/schema';
import { createIntegrationRelay } from '../helpers/integration';
import { allReceipts } from '../helpers/receipts';

/*
 * Safaricom's own sample payloads (test/fixtures/daraja/documented, with their source) replayed against the
 * demo configuration (local/demo-config.json, as `npm start` uses it) on DynamoDB Local: each is acked with
 * 2xx in Daraja's format, stored, and normalized to what its documentation says it means.
 */

const ROOT = join(import.meta.dirname, '../..');
const demoConfig = JSON.parse(readFileSync(join(ROOT, 'local/demo-config.json'), 'utf8'));
const config = parseConfig(demoConfig);
const DEMO_SHORT_CODE: string = demoConfig.accounts.daraja.demo.shortCode;
/** One of the addresses Safaricom calls from (the demo account enforces the allow-list). */
const SAFARICOM_IP = '196.201.214.200';

const documented = (name: string): any =>
  JSON.parse(readFileSync(join(ROOT, 'test/fixtures/daraja/documented', name), 'utf8'));
const rawDocumented = (name: string): Buffer =>
  readFileSync(join(ROOT, 'test/fixtures/daraja/documented', name));

let relay: Awaited<ReturnType<typeof createIntegrationRelay>>;
let services: RelayServices;

beforeAll(async () => {
  relay = await createIntegrationRelay(config);
  ({ services } = relay);
});
afterAll(async () => {
  await relay.stop();
});

function post(route: string, rawBody: Buffer): InboundRequest {
  return {
    requestId: 'documented',
    method: 'POST',
    path: `/v1/daraja/demo/${route}`,
    headers: { 'content-type': 'application/json' },
    query: {},
    rawBody,
    sourceIp: SAFARICOM_IP,
    receivedAt: new Date(),
  };
}

async function register(kind: 'stk' | 'b2c', reference: string, amount: string, msisdn?: string) {
  await registerTransaction(services, {
    provider: 'daraja',
    account: 'demo',
    kind,
    reference,
    amount,
    currency: 'KES',
    ...(msisdn ? { msisdn } : {}),
  });
}

async function eventsFor(reference: string): Promise<EventEnvelope[]> {
  return (await relay.publish()).filter((e) => (e.data as { reference?: string }).reference === reference);
}

const ACCEPTED = { ResultCode: 0, ResultDesc: 'Accepted' };

describe("Daraja's documented sample payloads, replayed against the demo configuration", () => {
  it('STK success: acked, TransactionSucceeded with the amount, the receipt and the phone', async () => {
    // Prepare
    const reference = documented('stk-callback-success.json').Body.stkCallback.CheckoutRequestID;
    await register('stk', reference, '1', '254708374149');
    // Act
    const answer = await receiveCallback(services, post('stk', rawDocumented('stk-callback-success.json')));
    const events = await eventsFor(reference);
    // Assess
    expect({ status: answer.statusCode, body: answer.body }).toEqual({ status: 200, body: ACCEPTED });
    expect(events.map((e) => e.metadata.type)).toEqual(['TransactionSucceeded']);
    expect(events[0]!.data).toMatchObject({
      status: 'SUCCEEDED',
      providerTransactionId: 'NLJ7RT61SV',
      amount: { value: '1', currency: 'KES' },
    });
  });

  it('STK 1032 "Request cancelled by user": acked, TransactionFailed with REJECTED_BY_CUSTOMER', async () => {
    // Prepare
    const reference = documented('stk-callback-cancelled.json').Body.stkCallback.CheckoutRequestID;
    await register('stk', reference, '1');
    // Act
    const answer = await receiveCallback(services, post('stk', rawDocumented('stk-callback-cancelled.json')));
    const events = await eventsFor(reference);
    // Assess
    expect({ status: answer.statusCode, body: answer.body }).toEqual({ status: 200, body: ACCEPTED });
    expect(events.map((e) => e.metadata.type)).toEqual(['TransactionFailed']);
    expect(events[0]!.data).toMatchObject({
      reason: { code: 'REJECTED_BY_CUSTOMER', providerCode: '1032' },
    });
  });

  it("B2C success: acked, TransactionSucceeded with the receipt, the receiver's number masked in its public name", async () => {
    // Prepare
    const reference = documented('b2c-result-success.json').Result.OriginatorConversationID;
    await register('b2c', reference, '10', '254705912645');
    // Act
    const answer = await receiveCallback(
      services,
      post('b2c/result', rawDocumented('b2c-result-success.json')),
    );
    const events = await eventsFor(reference);
    const tx = await relay.table.store.getTransaction({ provider: 'daraja', account: 'demo', reference });
    // Assess
    expect({ status: answer.statusCode, body: answer.body }).toEqual({ status: 200, body: ACCEPTED });
    expect(events.map((e) => e.metadata.type)).toEqual(['TransactionSucceeded']);
    expect(events[0]!.data).toMatchObject({
      providerTransactionId: 'SG632NMUAB',
      amount: { value: '10', currency: 'KES' },
    });
    expect(tx?.attributes?.ReceiverPartyPublicName).toBe('2547*****645 - NICHOLAS JOHN SONGOK');
  });

  it('B2C 2001 failure: acked, TransactionFailed NOT_ALLOWED (INVALID_INITIATOR) and no receipt, though its TransactionID looks like one', async () => {
    // Prepare
    const reference = documented('b2c-result-failure.json').Result.OriginatorConversationID;
    await register('b2c', reference, '10');
    // Act
    const answer = await receiveCallback(
      services,
      post('b2c/result', rawDocumented('b2c-result-failure.json')),
    );
    const events = await eventsFor(reference);
    const tx = await relay.table.store.getTransaction({ provider: 'daraja', account: 'demo', reference });
    // Assess
    expect({ status: answer.statusCode, body: answer.body }).toEqual({ status: 200, body: ACCEPTED });
    expect(events.map((e) => e.metadata.type)).toEqual(['TransactionFailed']);
    expect(events[0]!.data).toMatchObject({
      status: 'FAILED',
      reason: { code: 'NOT_ALLOWED', providerCode: '2001' },
      reasonDetail: 'INVALID_INITIATOR',
    });
    expect((events[0]!.data as { providerTransactionId?: unknown }).providerTransactionId ?? null).toBeNull();
    expect(tx?.providerTransactionId ?? null).toBeNull();
    expect(tx?.attributes).toMatchObject({ TransactionID: 'SG722NMVXQ' });
  });

  it('transaction status result: acked; it reads as a Completed B2C of 300 KES, receipt MBN31H462N', async () => {
    // Act
    const answer = await receiveCallback(
      services,
      post('status/result', rawDocumented('status-result.json')),
    );
    const { Result } = resultSchema.parse(documented('status-result.json'));
    const draft = normalizeStatusResult('demo', 'KES', '3211-416020-3', Result);
    // Assess
    expect({ status: answer.statusCode, body: answer.body }).toEqual({ status: 200, body: ACCEPTED });
    expect(draft).toMatchObject({
      status: 'SUCCEEDED',
      reason: undefined,
      providerTransactionId: 'MBN31H462N',
      amount: { value: '300', currency: 'KES' },
      party: { idType: 'MSISDN', id: '254708374149' },
    });
  });

  it.each([
    ['reversal/result', 'reversal-result-success.json', 'TransactionReversed'],
    ['reversal/result', 'reversal-result-failure.json', 'ReversalFailed'],
    ['balance/result', 'balance-result-success.json', 'AccountBalanceReported'],
  ])('%s %s: acked, published as %s', async (route, name, type) => {
    // Prepare
    const requestId = documented(name).Result.OriginatorConversationID;
    // Act
    const answer = await receiveCallback(services, post(route, rawDocumented(name)));
    const events = (await relay.publish()).filter((e) => JSON.stringify(e.data).includes(requestId));
    // Assess
    expect({ status: answer.statusCode, body: answer.body }).toEqual({ status: 200, body: ACCEPTED });
    expect(events.map((e) => e.metadata.type)).toContain(type);
  });
});

/**
 * Daraja's two documented C2B payment requests (validation and confirmation share the body). A rejection
 * cancels the customer's payment, so the demo account's rules must accept both. The Customer To Business
 * page's sample pays short code 600966: it is addressed to the demo account's short code, the one field changed
 * (Daraja sends a short code's payments only to the URLs registered for it).
 */
describe("Daraja's documented C2B payments against the demo account's validation rules", () => {
  const SAMPLES = ['c2b-payment-register-url.json', 'c2b-payment-customer-to-business.json'];

  it.each(SAMPLES)(
    '%s: validation Accepted, then confirmation Success and TransactionSucceeded',
    async (name) => {
      // Prepare
      const payment = { ...documented(name), BusinessShortCode: DEMO_SHORT_CODE };
      const body = Buffer.from(JSON.stringify(payment));
      // Act
      const validation = await receiveCallback(services, post('c2b/validation', body));
      const confirmation = await receiveCallback(services, post('c2b/confirmation', body));
      const events = await eventsFor(payment.TransID);
      const receipts = await allReceipts(relay.table.store, {
        provider: 'daraja',
        account: 'demo',
        reference: payment.TransID,
      });
      // Assess
      expect({ status: validation.statusCode, body: validation.body }).toEqual({
        status: 200,
        body: { ResultCode: '0', ResultDesc: 'Accepted' },
      });
      expect({ status: confirmation.statusCode, body: confirmation.body }).toEqual({
        status: 200,
        body: { ResultCode: 0, ResultDesc: 'Success' },
      });
      expect(events.map((e) => e.metadata.type)).toEqual(['C2BValidationDecided', 'TransactionSucceeded']);
      expect(events[0]!.data).toMatchObject({
        decision: 'accept',
        resultCode: '0',
        rule: 'all-rules-passed',
      });
      expect(receipts.map((r) => r.routeName).sort()).toEqual(['c2b-confirmation', 'c2b-validation']);
    },
  );

  it('a payment whose MSISDN arrives hashed, as production sends it since 2025: validation Accepted', async () => {
    // Prepare: the shape of a production C2B request quoted in Byte-Barn/mpesakit issue #103 (MSISDN the
    // 64-hex SHA-256 of the number), with values of our own (test/fixtures/daraja/c2b-hashed-msisdn.json).
    const payment = JSON.parse(
      readFileSync(join(ROOT, 'test/fixtures/daraja/c2b-hashed-msisdn.json'), 'utf8'),
    );
    // Act: the demo account allows only the prefixes 2547 and 2541, which a hash never shows
    const validation = await receiveCallback(
      services,
      post('c2b/validation', Buffer.from(JSON.stringify(payment))),
    );
    const events = await eventsFor(payment.TransID);
    // Assess
    expect({ status: validation.statusCode, body: validation.body }).toEqual({
      status: 200,
      body: { ResultCode: '0', ResultDesc: 'Accepted' },
    });
    expect(events[0]!.data).toMatchObject({ decision: 'accept', rule: 'all-rules-passed' });
  });
});
