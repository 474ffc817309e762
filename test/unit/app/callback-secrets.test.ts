/**
 * A configured secret a provider echoes in a callback (its words or its ids) reaches no event, evidence,
 * transaction answer or log line: the callback use case scrubs every parsed report, whatever the provider,
 * and refuses a callback whose ids carry one (shared/app/callbacks/secret-guard.ts). A question the relay
 * answers (Daraja's C2B validation) passes the same guard.
 */
import { describe, expect, it } from 'vitest';
import { receiveCallback } from '../../../shared/http/callback-endpoint';
import type { InboundRequest } from '../../../shared/http/types';
import { registerTransaction } from '../../../shared/app/transactions/register-transaction';
import { getTransaction } from '../../../shared/app/transactions/get-transaction';
import { callbackWorld, DARAJA_SECRET, fixture, SAFARICOM_IP, typesOf } from '../../helpers/callback-world';

const REFERENCE = 'ws_CO_191220191020363926';
const KEY = { provider: 'daraja', account: 'ke', reference: REFERENCE };

function stkCallback(checkoutRequestId: string, resultDesc: string): InboundRequest {
  const body = JSON.stringify({
    Body: {
      stkCallback: {
        MerchantRequestID: '29115-34620561-2',
        CheckoutRequestID: checkoutRequestId,
        ResultCode: 1032,
        ResultDesc: resultDesc,
      },
    },
  });
  return {
    requestId: 'req-1',
    method: 'POST',
    path: `/v1/daraja/ke/${DARAJA_SECRET}/stk`,
    headers: { 'content-type': 'application/json' },
    query: {},
    rawBody: Buffer.from(body, 'utf8'),
    sourceIp: SAFARICOM_IP,
    receivedAt: new Date('2026-11-21T10:00:00.000Z'),
  };
}

/** A C2B validation request of account `ke` (known accounts, default reject), with some fields replaced. */
function c2bValidation(fields: Record<string, string>): InboundRequest {
  const body = JSON.stringify({ ...JSON.parse(fixture('daraja/c2b-validation.json')), ...fields });
  return {
    ...stkCallback(REFERENCE, ''),
    path: `/v1/daraja/ke/${DARAJA_SECRET}/c2b/validation`,
    rawBody: Buffer.from(body, 'utf8'),
  };
}

async function registeredWorld() {
  const world = callbackWorld();
  await registerTransaction(world.services, { ...KEY, kind: 'stk', amount: '100', currency: 'KES' });
  return world;
}

describe('a configured secret echoed in a callback', () => {
  it('is scrubbed from the event, the evidence, the transaction answer and the log when a provider echoes it in its words', async () => {
    // Prepare
    const { store, lines, services } = await registeredWorld();

    // Act
    const response = await receiveCallback(
      services,
      stkCallback(REFERENCE, `Request cancelled by user ${DARAJA_SECRET}`),
    );
    const answer = await getTransaction(services, KEY);

    // Assess
    expect(response.statusCode).toBe(200);
    expect(typesOf(store)).toContain('TransactionFailed');
    const failed = store.published.find((e) => e.metadata.type === 'TransactionFailed')!;
    expect(JSON.stringify(failed)).toContain('Request cancelled by user');
    const everything = JSON.stringify({ response, published: store.published, answer, lines });
    // Not even masked (the answer masks long values to their ends): the words carry no part of it.
    expect(everything).not.toContain('daraja-path-secret');
  });

  it('refuses with 400, quarantined, a callback whose id carries the secret, and publishes nothing about it', async () => {
    // Prepare
    const { store, lines, services } = await registeredWorld();
    const before = store.published.length;

    // Act
    const response = await receiveCallback(services, stkCallback(`ws_CO_${DARAJA_SECRET}`, 'cancelled'));

    // Assess
    expect(response.statusCode).toBe(400);
    expect(store.quarantined).toHaveLength(1);
    expect(store.quarantined[0]!.errorCode).toBe('INVALID_REFERENCE');
    expect(typesOf(store).slice(before)).toEqual(['CallbackRejected']);
    const everything = JSON.stringify({
      response,
      published: store.published,
      quarantined: store.quarantined,
      transactions: [...store.transactions.values()],
      lines,
    });
    expect(everything).not.toContain(DARAJA_SECRET);
  });

  it.each([
    ['BillRefNumber', { BillRefNumber: DARAJA_SECRET }],
    ['BusinessShortCode (quoted by the rule that rejects it)', { BusinessShortCode: DARAJA_SECRET }],
    ['FirstName', { FirstName: `John ${DARAJA_SECRET}` }],
  ])(
    'is scrubbed from a C2B validation decision, its event, its record and the log when it is in the %s',
    async (_field, fields) => {
      // Prepare
      const { store, lines, services } = callbackWorld();

      // Act
      const response = await receiveCallback(services, c2bValidation(fields));

      // Assess: answered and recorded, with the secret nowhere.
      expect(response.statusCode).toBe(200);
      expect(typesOf(store)).toEqual(['C2BValidationDecided']);
      const everything = JSON.stringify({
        response,
        published: store.published,
        records: [...store.records.values()],
        receipts: [...store.receipts.values()],
        lines,
      });
      expect(everything).toContain('RKTQDM7W6S');
      expect(everything).not.toContain('daraja-path-secret');
    },
  );

  it('refuses a C2B validation whose TransID carries the secret (Daraja is answered a reject), quarantined, and records no decision', async () => {
    // Prepare
    const { store, lines, services } = callbackWorld();

    // Act
    const response = await receiveCallback(services, c2bValidation({ TransID: `RK${DARAJA_SECRET}` }));

    // Assess: a question route answers in Daraja's terms, the refusal is recorded like any other.
    expect(response.statusCode).toBe(200);
    expect(response.body).toEqual({ ResultCode: 'C2B00016', ResultDesc: 'Rejected' });
    expect(store.quarantined).toHaveLength(1);
    expect(store.quarantined[0]).toMatchObject({ httpStatus: 400, errorCode: 'INVALID_REFERENCE' });
    expect(typesOf(store)).toEqual(['CallbackRejected']);
    expect(store.records.size).toBe(0);
    const everything = JSON.stringify({
      response,
      published: store.published,
      quarantined: store.quarantined,
      lines,
    });
    expect(everything).not.toContain(DARAJA_SECRET);
  });
});
