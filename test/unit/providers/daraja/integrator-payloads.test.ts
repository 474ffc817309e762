/**
 * Daraja payloads as integrators and Safaricom's older pages show them (test/fixtures/daraja/integrators,
 * sources in its README), through the real path: the route's parse and, where the verdict depends on
 * correlation, the one ingest over a MemoryStore.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../../shared/adapters/memory/memory-store';
import { type IngestDeps, ingestIntents } from '../../../../shared/app/transactions/ingest-report';
import { reconciliationSchema } from '../../../../shared/config/schema';
import { darajaProvider } from '../../../../shared/providers/daraja';
import { STATUS_QUERY } from '../../../../shared/providers/daraja/correlation';
import { darajaAccountSchema } from '../../../../shared/providers/daraja/schema';
import type { ReportIntent } from '../../../../shared/providers/types';
import { registered } from '../../../helpers/reports';

const NOW = '2026-11-30T10:00:00.000Z';
const settings = darajaAccountSchema.parse({
  shortCode: '600134',
  api: { baseUrl: 'https://daraja.test', consumerKey: 'ck', consumerSecret: 'cs' },
});

const fixture = (name: string) =>
  JSON.parse(
    readFileSync(new URL(`../../../fixtures/daraja/integrators/${name}`, import.meta.url), 'utf8'),
  ) as Record<string, unknown>;

function parse(route: string, body: Record<string, unknown>): readonly ReportIntent[] {
  const parsed = darajaProvider.routes
    .find((r) => r.name === route)!
    .parse({
      account: { provider: 'daraja', id: 'demo', pathSecret: undefined, settings },
      route,
      params: {},
      body,
      rawBody: Buffer.from(JSON.stringify(body)),
      headers: {},
      sourceIp: '196.201.214.200',
    });
  if (parsed.type !== 'reports') throw new Error('expected reports');
  return parsed.reports;
}

function memoryIngest() {
  const store = new MemoryStore();
  const deps: IngestDeps = {
    store,
    clock: { now: () => new Date(NOW) },
    log: { debug() {}, info() {}, warn() {}, error() {} },
    reconciliation: reconciliationSchema.parse({ windowSeconds: 3600 }),
  };
  const ingest = (route: string, body: Record<string, unknown>) =>
    ingestIntents(deps, {
      provider: 'daraja',
      account: 'demo',
      origin: 'callback',
      receivedAt: NOW,
      authenticated: false,
      intents: parse(route, body),
    });
  return { store, ingest };
}

describe('Daraja payloads from integrators and older Safaricom pages', () => {
  it("counts a v1 transaction-status result naming the original as 'Originator Conversation ID' as the relay's own answer", async () => {
    // Prepare: the payout the relay asked about, and the record of its query (the query's ConversationID).
    const { store, ingest } = memoryIngest();
    const body = fixture('status-result-v1-spaced-keys.json');
    const reference = '19455-773836-1';
    await store.createTransaction(
      registered({
        key: { provider: 'daraja', account: 'demo', reference },
        kind: 'b2c',
        amount: { value: '10', currency: 'KES' },
        externalId: undefined,
      }),
    );
    await store.putRecordIfAbsent({
      provider: 'daraja',
      account: 'demo',
      namespace: `alias:${STATUS_QUERY}`,
      id: 'AG_20170727_000059c52529a8e080bd',
      data: { reference, origin: 'poll', asked: { OriginatorConversationID: reference } },
      createdAt: NOW,
    });

    // Act
    const [intent] = parse('status-result', body);
    await ingest('status-result', body);

    // Assess: the answer names the payout it is about, and settles it as the poll's answer.
    expect(intent!.answersAbout).toEqual({
      OriginatorConversationID: reference,
      TransactionID: 'LGR919G2AV',
    });
    const tx = await store.getTransaction({ provider: 'daraja', account: 'demo', reference });
    expect(tx?.status).toBe('SUCCEEDED');
    expect(tx?.providerTransactionId).toBe('LGR919G2AV');
    const succeeded = store.published.filter((e) => e.metadata.type === 'TransactionSucceeded');
    expect(succeeded.map((e) => e.metadata.origin)).toEqual(['poll']);
  });

  it('fails a B2C result with 17 "System internal error." as a provider error, not as a duplicate (17 means "rule limited" only on STK)', () => {
    // Act
    const [intent] = parse('b2c-result', fixture('b2c-result-system-internal-error.json'));

    // Assess: an unsuccessful result (Safaricom's own words); its TransactionID names no payment.
    expect(intent!.draft).toMatchObject({
      status: 'FAILED',
      reason: { code: 'PROVIDER_ERROR', message: 'System internal error.', providerCode: '17' },
      providerTransactionId: undefined,
    });
    expect(intent!.correlate).toEqual([{ via: 'reference', value: '16940-3815719-3' }]);
  });
});
