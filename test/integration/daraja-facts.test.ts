import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { receiveCallback } from '../../shared/http/callback-endpoint';
import { registerTransaction } from '../../shared/app/transactions/register-transaction';
import type { RelayServices } from '../../shared/app/services';
import { parseConfig } from '../../shared/config/load';
import type { EventEnvelope } from '../../shared/domain/events';
import { reversalStateOf } from '../../shared/domain/reversal';
import type { InboundRequest } from '../../shared/http/types';
import { createIntegrationRelay } from '../helpers/integration';
import { allReceipts } from '../helpers/receipts';

/*
 * Daraja reversal and account balance results against DynamoDB Local: facts are provider records written
 * conditionally, their events leave through the table's stream, so concurrent deliveries publish once.
 */

const config = parseConfig({
  management: { bearerToken: 'integration-token' },
  accounts: { daraja: { demo: { shortCode: '600638' } } },
});
const fixture = (name: string): any =>
  JSON.parse(readFileSync(join(import.meta.dirname, '../fixtures/daraja', `${name}.json`), 'utf8'));

let relay: Awaited<ReturnType<typeof createIntegrationRelay>>;
let services: RelayServices;

beforeAll(async () => {
  relay = await createIntegrationRelay(config);
  ({ services } = relay);
});
afterAll(async () => {
  await relay.stop();
});

let n = 0;
const unique = (prefix: string) => `${prefix}${Date.now().toString(36).toUpperCase()}${++n}`;

function post(route: string, body: unknown): InboundRequest {
  return {
    requestId: 'test',
    method: 'POST',
    path: `/v1/daraja/demo/${route}`,
    headers: { 'content-type': 'application/json' },
    query: {},
    rawBody: Buffer.from(JSON.stringify(body)),
    sourceIp: '196.201.214.206',
    receivedAt: new Date(),
  };
}

const ofType = (events: EventEnvelope[], type: string) => events.filter((e) => e.metadata.type === type);

/** A registered STK payment whose success callback carried `receipt`. */
async function paidStk(reference: string, receipt: string) {
  await registerTransaction(services, {
    provider: 'daraja',
    account: 'demo',
    kind: 'stk',
    reference,
    amount: '1',
    currency: 'KES',
  });
  const stk = fixture('stk-success');
  stk.Body.stkCallback.CheckoutRequestID = reference;
  stk.Body.stkCallback.CallbackMetadata.Item[1].Value = receipt;
  expect((await receiveCallback(services, post('stk', stk))).statusCode).toBe(200);
}

describe('Daraja facts against DynamoDB Local', () => {
  it('publishes one TransactionReversed for eight concurrent deliveries, linked to the payment, which stays SUCCEEDED', async () => {
    // Prepare
    const reference = unique('ws_CO_');
    const receipt = unique('R');
    await paidStk(reference, receipt);
    await relay.publish();
    const result = fixture('reversal-result-success');
    result.Result.OriginatorConversationID = unique('OC-');
    result.Result.ResultParameters.ResultParameter[3].Value = receipt;
    // Act
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => receiveCallback(services, post('reversal/result', result))),
    );
    const events = await relay.publish();
    // Assess
    expect(answers.filter((a) => a.statusCode !== 200).map((a) => a.body)).toEqual([]);
    const reversed = ofType(events, 'TransactionReversed');
    expect(reversed).toHaveLength(1);
    expect(reversed[0]?.data).toMatchObject({
      reference,
      originalReceipt: receipt,
      amountCheck: 'matches',
      transactionStatus: 'SUCCEEDED',
    });
    const tx = await relay.table.store.getTransaction({ provider: 'daraja', account: 'demo', reference });
    expect(tx?.status).toBe('SUCCEEDED');
    const receipts = await allReceipts(relay.table.store, { provider: 'daraja', account: 'demo', reference });
    const reversal = receipts.find((r) => r.routeName === 'reversal-result');
    expect(reversal?.deliveries).toBe(8);
  });

  it('keeps two partial reversals delivered concurrently (each three times) on the payment, once each: fully reversed', async () => {
    // Prepare
    const reference = unique('ws_CO_');
    const receipt = unique('R');
    await paidStk(reference, receipt);
    const reversal = (amount: number) => {
      const result = fixture('reversal-result-success');
      result.Result.OriginatorConversationID = unique('OC-');
      result.Result.ConversationID = unique('AG_');
      result.Result.TransactionID = unique('RV');
      result.Result.ResultParameters.ResultParameter[1].Value = amount;
      result.Result.ResultParameters.ResultParameter[3].Value = receipt;
      return result;
    };
    const bodies = [reversal(0.4), reversal(0.6)];
    // Act
    const answers = await Promise.all(
      [...bodies, ...bodies, ...bodies].map((body) =>
        receiveCallback(services, post('reversal/result', body)),
      ),
    );
    await relay.publish();
    // Assess
    expect(answers.map((a) => a.statusCode)).toEqual(Array(6).fill(200));
    const tx = await relay.table.store.getTransaction({ provider: 'daraja', account: 'demo', reference });
    expect(tx?.status).toBe('SUCCEEDED');
    expect(tx?.reversals?.map((r) => r.amount?.value).sort()).toEqual(['0.4', '0.6']);
    expect(reversalStateOf(tx!)).toEqual({
      state: 'full',
      amountReversed: '1',
      netAmount: '0',
      reversals: 2,
    });
    expect(tx?.events.filter((e) => e.type === 'TransactionReversed')).toHaveLength(2);
  });

  it('publishes one AccountBalanceReported per request and none for its stale queue timeout', async () => {
    // Prepare
    const id = unique('OC-');
    const result = fixture('balance-result-success');
    result.Result.OriginatorConversationID = id;
    const timeout = { ...fixture('balance-timeout-echo'), OriginatorConversationID: id };
    // Act
    await Promise.all(
      Array.from({ length: 4 }, () => receiveCallback(services, post('balance/result', result))),
    );
    const late = await receiveCallback(services, post('balance/timeout', timeout));
    const events = await relay.publish();
    // Assess
    expect(late.statusCode).toBe(200);
    const reported = ofType(events, 'AccountBalanceReported');
    expect(reported).toHaveLength(1);
    expect(reported[0]?.metadata.correlationId).toBe(`daraja:demo:${id}`);
    expect((reported[0]?.data as { accounts: unknown[] }).accounts).toHaveLength(5);
    expect(ofType(events, 'AccountBalanceFailed')).toEqual([]);
  });
});
