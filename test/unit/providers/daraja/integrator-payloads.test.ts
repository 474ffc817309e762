/**
 * Daraja payloads as integrators and Safaricom's older pages show them (test/fixtures/daraja/integrators,
 * sources in its README), through the real path: the route's parse and, where the verdict depends on
 * correlation, the one ingest over a MemoryStore.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { recordStatusQuery, registerPending, setup } from './support';

const fixture = (name: string) =>
  JSON.parse(
    readFileSync(new URL(`../../../fixtures/daraja/integrators/${name}`, import.meta.url), 'utf8'),
  ) as Record<string, unknown>;

describe('Daraja payloads from integrators and older Safaricom pages', () => {
  it("counts a v1 transaction-status result naming the original as 'Originator Conversation ID' as the relay's own answer", async () => {
    // Prepare: the payout the relay asked about, and the record of its query (the query's ConversationID).
    const s = setup();
    const body = fixture('status-result-v1-spaced-keys.json');
    const reference = '19455-773836-1';
    await registerPending(s, 'b2c', reference, '10');
    await recordStatusQuery(s, 'AG_20170727_000059c52529a8e080bd', {
      reference,
      origin: 'poll',
      asked: { OriginatorConversationID: reference },
    });

    // Act
    const [intent] = s.parse('status-result', body);
    await s.ingest('status-result', body);

    // Assess: the answer names the payout it is about, and settles it as the poll's answer.
    expect(intent!.answersAbout).toEqual({
      OriginatorConversationID: reference,
      TransactionID: 'LGR919G2AV',
    });
    const tx = await s.store.getTransaction({ provider: 'daraja', account: 'demo', reference });
    expect(tx?.status).toBe('SUCCEEDED');
    expect(tx?.providerTransactionId).toBe('LGR919G2AV');
    expect(s.success().map((e) => e.metadata.origin)).toEqual(['poll']);
  });

  it('fails a B2C result with 17 "System internal error." as a provider error, not as a duplicate (17 means "rule limited" only on STK)', () => {
    // Act
    const [intent] = setup().parse('b2c-result', fixture('b2c-result-system-internal-error.json'));

    // Assess: an unsuccessful result (Safaricom's own words); its TransactionID names no payment.
    expect(intent!.draft).toMatchObject({
      status: 'FAILED',
      reason: { code: 'PROVIDER_ERROR', message: 'System internal error.', providerCode: '17' },
      providerTransactionId: undefined,
    });
    expect(intent!.correlate).toEqual([{ via: 'reference', value: '16940-3815719-3' }]);
  });
});
