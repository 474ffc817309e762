import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../shared/adapters/memory/memory-store';
import { receiveCallback } from '../../../shared/http/callback-endpoint';
import { registerTransaction } from '../../../shared/app/transactions/register-transaction';
import { type RelayServices, scrubbingLogger } from '../../../shared/app/services';
import { parseConfig } from '../../../shared/config/load';
import { secretScrubber } from '../../../shared/config/secrets';

/*
 * Daraja B2B (business to business; Daraja's B2B documentation): registered like a B2C
 * payout by its OriginatorConversationID, its result on b2b/result, its queue-timeout notice on b2b/timeout.
 */

const SECRET = 'daraja-path-secret-0123456789';
const SAFARICOM_IP = '196.201.214.200';
const REFERENCE = '626f6ddf-ab37-4650-b882-b1de92ec9aa4';

const config = parseConfig({
  management: { bearerToken: 'management-token-0123456789' },
  publicBaseUrl: 'https://relay.example.com',
  accounts: { daraja: { ke: { pathSecret: SECRET, sourceIp: { allow: [`${SAFARICOM_IP}/32`] } } } },
});

const fixture = (name: string) =>
  readFileSync(new URL(`../../fixtures/daraja/${name}.json`, import.meta.url), 'utf8');

function setup() {
  const store = new MemoryStore();
  const scrub = secretScrubber(config);
  const silent = { debug() {}, info() {}, warn() {}, error() {} };
  const services: RelayServices = {
    config,
    store,
    clock: { now: () => new Date('2026-11-23T10:00:01.000Z') },
    log: scrubbingLogger(silent, scrub),
    scrub,
  };
  const post = (route: string, body: string) =>
    receiveCallback(services, {
      requestId: 'req-1',
      method: 'POST',
      path: `/v1/daraja/ke/${SECRET}/${route}`,
      headers: { 'content-type': 'application/json' },
      query: {},
      rawBody: Buffer.from(body, 'utf8'),
      sourceIp: SAFARICOM_IP,
      receivedAt: new Date('2026-11-23T10:00:00.000Z'),
    });
  return { store, services, post };
}

describe('Daraja B2B', () => {
  it('hands out the b2b/result route for a B2B registration and settles it from the result: receipt, amount', async () => {
    // Prepare
    const w = setup();
    const registered = await registerTransaction(w.services, {
      provider: 'daraja',
      account: 'ke',
      kind: 'b2b',
      reference: REFERENCE,
      amount: '190',
      currency: 'KES',
    });
    // Act
    const answer = await w.post('b2b/result', fixture('b2b-result-success'));
    // Assess
    expect(registered.callbackUrl).toBe(`https://relay.example.com/v1/daraja/ke/${SECRET}/b2b/result`);
    expect(answer.body).toEqual({ ResultCode: 0, ResultDesc: 'Accepted' });
    const succeeded = w.store.published.filter((e) => e.metadata.type === 'TransactionSucceeded');
    expect(succeeded).toHaveLength(1);
    expect(succeeded[0]?.data).toMatchObject({
      kind: 'b2b',
      reference: REFERENCE,
      providerTransactionId: 'QKA81LK5CY',
      amount: { value: '190', currency: 'KES' },
    });
  });

  it('turns a B2B queue-timeout notice into TransactionAmbiguous TIMED_OUT, and a refused initiator into INVALID_INITIATOR', async () => {
    // Prepare
    const w = setup();
    for (const reference of [REFERENCE, 'b2b-oc-2'])
      await registerTransaction(w.services, { provider: 'daraja', account: 'ke', kind: 'b2b', reference });
    const refused = JSON.parse(fixture('b2b-result-success')) as { Result: Record<string, unknown> };
    refused.Result = {
      ...refused.Result,
      OriginatorConversationID: 'b2b-oc-2',
      ResultCode: 2001,
      ResultDesc: 'The initiator information is invalid.',
      ResultParameters: undefined,
    };
    // Act
    await w.post(
      'b2b/timeout',
      JSON.stringify({ OriginatorConversationID: REFERENCE, CommandID: 'BusinessPayBill', Amount: 190 }),
    );
    await w.post('b2b/result', JSON.stringify(refused));
    // Assess
    const byType = (type: string) => w.store.published.filter((e) => e.metadata.type === type);
    expect(byType('TransactionAmbiguous')[0]?.data).toMatchObject({
      reference: REFERENCE,
      kind: 'b2b',
      reason: { code: 'TIMED_OUT' },
    });
    expect(byType('TransactionFailed')[0]?.data).toMatchObject({
      reference: 'b2b-oc-2',
      // The contract's code; the relay's finer one beside it (docs/events.md#reason-codes).
      reason: { code: 'NOT_ALLOWED', providerCode: '2001' },
      reasonDetail: 'INVALID_INITIATOR',
    });
  });
});
