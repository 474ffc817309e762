/**
 * A Daraja reversal result whose code and words disagree (test/fixtures/daraja/integrators, sources in its
 * README: Daraja's older success sample, "ResultCode": "21" with "The service request is processed
 * successfully" and a completed reversal's parameters), through the callback use case (acceptCallback).
 */
import { readFileSync } from 'node:fs';
import { beforeEach, describe, expect, it } from 'vitest';
import { acceptCallback, type CallbackDelivery } from '../../../shared/app/callbacks/receive-callback';
import { accountKey } from '../../../shared/config/schema';
import { findProvider } from '../../../shared/providers/registry';
import { callbackWorld, config, fixture, SAFARICOM_IP, typesOf } from '../../helpers/callback-world';
import { driveTimers, useDrivenTimers } from '../../helpers/driven-timers';

const RECEIPT = 'MJ551H6X5D';
const PAYMENT = { provider: 'daraja', account: 'ke', reference: RECEIPT };

const result21 = () =>
  JSON.parse(
    readFileSync(
      new URL('../../fixtures/daraja/integrators/reversal-result-code-21-processed.json', import.meta.url),
      'utf8',
    ),
  ) as { Result: Record<string, unknown> };

/** A Daraja callback on the `ke` account, from Safaricom's address, as the inbound endpoint hands it over. */
function daraja(routeName: string, body: unknown): CallbackDelivery {
  const provider = findProvider('daraja')!;
  const route = provider.routes.find((r) => r.name === routeName)!;
  const rawBody = JSON.stringify(body);
  return {
    requestId: `req-${routeName}`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    rawBody: Buffer.from(rawBody, 'utf8'),
    sourceIp: SAFARICOM_IP,
    receivedAt: new Date('2026-11-21T10:00:00.000Z'),
    provider,
    account: config.accounts.get(accountKey('daraja', 'ke'))!,
    route,
    params: {},
    storedPath: `/v1/daraja/ke/{secret}/${route.path}`,
    body: JSON.parse(rawBody) as Record<string, unknown>,
    started: 0,
  };
}

/** The payment the result names: a C2B payment of 100 with receipt MJ551H6X5D, confirmed by Daraja. */
async function paidPayment(services: Parameters<typeof acceptCallback>[0]) {
  const confirmation = { ...JSON.parse(fixture('daraja/c2b-confirmation.json')), TransID: RECEIPT };
  await acceptCallback(services, daraja('c2b-confirmation', { ...confirmation, TransAmount: '100.00' }));
}

describe('A Daraja reversal result whose code says failed and whose words say processed', () => {
  useDrivenTimers();
  beforeEach(driveTimers);

  it('publishes ReversalAmbiguous (CONFLICTING_REPORTS) about the payment it names, neither failed nor reversed', async () => {
    // Prepare
    const { store, services } = callbackWorld();
    await paidPayment(services);

    // Act
    const outcome = await acceptCallback(services, daraja('reversal-result', result21()));

    // Assess: acknowledged; a person is asked to look, and the payment is left as it was.
    expect(outcome.ack).toMatchObject({ statusCode: 200, body: { ResultCode: 0 } });
    expect(typesOf(store)).toEqual(['TransactionSucceeded', 'ReversalAmbiguous']);
    const [ambiguous] = store.published.filter((e) => e.metadata.type === 'ReversalAmbiguous');
    expect(ambiguous!.data).toMatchObject({
      reference: RECEIPT,
      transactionStatus: 'SUCCEEDED',
      originalReceipt: RECEIPT,
      originatorConversationId: '8521-4298025-1',
      // The contract's vocabulary: UNKNOWN, the relay's finer reason beside it.
      reason: { code: 'UNKNOWN', providerCode: '21' },
      reasonDetail: 'CONFLICTING_REPORTS',
    });
    expect((await store.getTransaction(PAYMENT))!.status).toBe('SUCCEEDED');
  });

  it("still records Daraja's genuine result for the same request after it", async () => {
    // Prepare: the contradicted result first.
    const { store, services } = callbackWorld();
    await paidPayment(services);
    await acceptCallback(services, daraja('reversal-result', result21()));
    const genuine = result21();
    genuine.Result = { ...genuine.Result, ResultCode: 0 };

    // Act
    await acceptCallback(services, daraja('reversal-result', genuine));

    // Assess: the reversal is counted once, with no conflict against the earlier, unsettled one.
    expect(typesOf(store)).toEqual(['TransactionSucceeded', 'ReversalAmbiguous', 'TransactionReversed']);
    const [reversed] = store.published.filter((e) => e.metadata.type === 'TransactionReversed');
    expect(reversed!.data).toMatchObject({ originalReceipt: RECEIPT, amount: { value: '100' } });
  });
});
