/**
 * Daraja's own Business Pay Bill result samples (test/fixtures/daraja/documented, sources in its README)
 * through the b2b/result route's parse and the one ingest over a MemoryStore, for a registered B2B payment.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { registerPending, setup } from './support';

const documented = (name: string) =>
  JSON.parse(
    readFileSync(new URL(`../../../fixtures/daraja/documented/${name}`, import.meta.url), 'utf8'),
  ) as Record<string, unknown>;

const key = (reference: string) => ({ provider: 'daraja', account: 'demo', reference });

describe("Daraja's documented B2B (Business Pay Bill) results", () => {
  it('settles the success sample: 190.00 KES, its receipt read from TransactionID', async () => {
    // Prepare: the payment as the partner registered it, under the request's OriginatorConversationID.
    const s = setup();
    const reference = '626f6ddf-ab37-4650-b882-b1de92ec9aa4';
    await registerPending(s, 'b2b', reference, '190');

    // Act
    await s.ingest('b2b-result', documented('b2b-paybill-result-success.json'));

    // Assess
    const tx = await s.store.getTransaction(key(reference));
    expect(tx).toMatchObject({
      status: 'SUCCEEDED',
      providerTransactionId: 'QKA81LK5CY',
      amount: { value: '190', currency: 'KES' },
    });
    expect(s.success()).toHaveLength(1);
  });

  it('fails the 2001 sample with INVALID_INITIATOR, and its placeholder TransactionID names no receipt', async () => {
    // Prepare
    const s = setup();
    const reference = '12337-23509183-5';
    await registerPending(s, 'b2b', reference, '190');

    // Act
    await s.ingest('b2b-result', documented('b2b-paybill-result-failure.json'));

    // Assess: single-object ResultParameter and ReferenceItem read; the partner's initiator, not a PIN.
    const tx = await s.store.getTransaction(key(reference));
    expect(tx).toMatchObject({
      status: 'FAILED',
      reason: { code: 'INVALID_INITIATOR', providerCode: '2001' },
    });
    expect(tx?.providerTransactionId).toBeUndefined();
  });
});
