import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../shared/adapters/memory/memory-store';
import { getTransaction } from '../../../shared/app/transactions/get-transaction';
import { HINT_NAMESPACE, ingestIntents } from '../../../shared/app/transactions/ingest-report';
import {
  HINTS_PER_ACCOUNT_PER_DAY,
  RECEIPT_BUDGET,
  tallyReceipt,
} from '../../../shared/app/transactions/receipt-budget';
import { registerTransaction } from '../../../shared/app/transactions/register-transaction';
import { parseConfig } from '../../../shared/config/load';
import type { ReportDraft } from '../../../shared/domain/transaction';
import type { ReportIntent } from '../../../shared/providers/types';
import { allReceipts } from '../../helpers/receipts';

const NOW = '2026-11-23T10:00:00.000Z';
const config = parseConfig({
  management: { bearerToken: 'a-long-enough-token' },
  accounts: { momo: { demo: { pathSecret: 'momo-path-secret-0123' } } },
});
const REF = '6f1c2a9e-4b7d-4e2a-9c3b-1a2b3c4d5e6f';
const KEY = { provider: 'momo', account: 'demo', reference: REF };

function setup() {
  const clock = { now: () => new Date(NOW) };
  const store = new MemoryStore(clock);
  const warnings: string[] = [];
  const log = { debug() {}, info() {}, warn: (m: string) => warnings.push(m), error() {} };
  return {
    store,
    warnings,
    deps: { config, store, clock },
    ingest: { store, clock, log, reconciliation: config.reconciliation },
  };
}

function report(status: ReportDraft['status']): ReportIntent {
  return {
    draft: {
      key: KEY,
      kind: 'requesttopay',
      status,
      reason: undefined,
      providerTransactionId: undefined,
      externalId: undefined,
      amount: undefined,
      party: undefined,
      attributes: undefined,
    },
  };
}

function hint(externalId: string): ReportIntent {
  return {
    draft: { ...report('SUCCEEDED').draft, key: { ...KEY, reference: externalId }, externalId },
    correlate: [{ via: 'externalId', value: externalId }],
    hint: true,
  };
}

/** One callback delivery with its own bytes (a padding field makes every body distinct). */
function delivery(intent: ReportIntent, body: string) {
  return {
    provider: 'momo',
    account: 'demo',
    origin: 'callback' as const,
    receivedAt: NOW,
    authenticated: false,
    intents: [intent],
    receipt: {
      routeName: 'requesttopay',
      method: 'POST',
      path: '/v1/momo/demo/requesttopay/{secret}',
      headers: {},
      sourceIp: '203.0.113.9',
      body,
      receivedAt: NOW,
      verification: {},
      rawBody: Buffer.from(body),
    },
  };
}

/** The request to pay of these tests, registered. */
const registerPayment = (deps: ReturnType<typeof setup>['deps'], extra: { externalId?: string } = {}) =>
  registerTransaction(deps, {
    provider: 'momo',
    account: 'demo',
    kind: 'requesttopay',
    reference: REF,
    amount: '100',
    currency: 'EUR',
    ...extra,
  });

/** A registered request to pay whose receipt budget distinct PENDING bodies spent (6 past it). */
async function floodedPayment(world: ReturnType<typeof setup>, send = delivery) {
  await registerPayment(world.deps);
  for (let i = 0; i < RECEIPT_BUDGET.receipts + 6; i++)
    await ingestIntents(world.ingest, send(report('PENDING'), JSON.stringify({ status: 'PENDING', pad: i })));
}

describe('tallyReceipt', () => {
  it('keeps receipts while both the count and the bytes stay within the budget', () => {
    // Prepare
    const budget = { receipts: 2, bytes: 100 };
    // Act
    const first = tallyReceipt(undefined, 60, budget);
    const tooBig = tallyReceipt(first.tally, 60, budget);
    const small = tallyReceipt(tooBig.tally, 40, budget);
    const third = tallyReceipt(small.tally, 0, budget);
    // Assess
    expect([first.keep, tooBig.keep, small.keep, third.keep]).toEqual([true, false, true, false]);
    expect(third.tally).toEqual({ kept: 2, bytes: 100, dropped: 2, droppedBytes: 60 });
  });
});

describe('receipt budget per transaction', () => {
  it('stores distinct bodies about one transaction up to the budget, then keeps only their metadata and counts them', async () => {
    // Prepare: a registered request to pay.
    const world = setup();
    const { store, warnings } = world;
    const flood = RECEIPT_BUDGET.receipts + 6;
    // Act: a flood of distinct PENDING bodies about it.
    await floodedPayment(world);
    // Assess: nothing silently dropped; bodies past the budget are gone, their receipts stay.
    const tx = await store.getTransaction(KEY);
    expect(tx?.receipts).toMatchObject({ kept: RECEIPT_BUDGET.receipts, dropped: 6 });
    const receipts = await allReceipts(store, KEY);
    expect(receipts).toHaveLength(flood);
    expect(receipts.filter((r) => r.bodyDropped)).toHaveLength(6);
    expect(warnings.filter((w) => w.includes('receipt budget'))).toHaveLength(6);
    expect(tx?.status).toBe('PENDING');
  });

  it('keeps the body of the callback that settles the transaction after a flood spent the budget', async () => {
    // Prepare: the budget spent by distinct PENDING bodies from anyone who knows the reference.
    const world = setup();
    const { store, ingest } = world;
    await floodedPayment(world);
    // Act: MTN's genuine FAILED.
    const genuine = JSON.stringify({ status: 'FAILED', reason: 'PAYER_NOT_FOUND' });
    await ingestIntents(ingest, delivery(report('FAILED'), genuine));
    // Assess: it settled, and its bytes are stored, counted as kept past the budget.
    const tx = await store.getTransaction(KEY);
    expect(tx?.status).toBe('FAILED');
    expect(tx?.receipts).toMatchObject({ kept: RECEIPT_BUDGET.receipts + 1, dropped: 6 });
    const receipts = await allReceipts(store, KEY);
    // Receipts list by id, not by time: the genuine one is the one of its size.
    const settling = receipts.filter((r) => r.bodyBytes === Buffer.byteLength(genuine));
    expect(settling).toHaveLength(1);
    expect(settling[0]!.bodyDropped).toBeFalsy();
  });

  it('keeps the body of the first FAILED an account holds for confirmation after a flood spent the budget', async () => {
    // Prepare: an account that confirms unsigned failures (MoMo with a status API): MTN's FAILED moves nothing.
    const world = setup();
    const { store, ingest } = world;
    const held = (intent: ReportIntent, body: string) => ({
      ...delivery(intent, body),
      confirmUnsignedSuccess: true,
      confirmUnsignedFailure: true,
    });
    await floodedPayment(world, held);
    // Act: the genuine FAILED, then a second (forged) one.
    const genuine = JSON.stringify({ status: 'FAILED', reason: 'PAYER_NOT_FOUND' });
    await ingestIntents(ingest, held(report('FAILED'), genuine));
    await ingestIntents(ingest, held(report('FAILED'), JSON.stringify({ status: 'FAILED', n: 2 })));
    // Assess: still PENDING (held); the first FAILED's bytes kept, the second's not.
    const tx = await store.getTransaction(KEY);
    expect(tx?.status).toBe('PENDING');
    const receipts = await allReceipts(store, KEY);
    const failed = receipts.filter((r) => r.bodyBytes === Buffer.byteLength(genuine));
    expect(failed).toHaveLength(1);
    expect(failed[0]!.bodyDropped).toBeFalsy();
    expect(tx?.receipts).toMatchObject({ dropped: 7 });
  });

  it('does not count a repeated delivery of the same bytes', async () => {
    // Prepare
    const { store, ingest } = setup();
    const body = JSON.stringify({ status: 'PENDING' });
    // Act
    for (let i = 0; i < 3; i++) await ingestIntents(ingest, delivery(report('PENDING'), body));
    // Assess
    expect((await store.getTransaction(KEY))?.receipts).toEqual({
      kept: 1,
      bytes: Buffer.byteLength(body),
      dropped: 0,
      droppedBytes: 0,
    });
  });

  it('counts a new receipt that changes nothing without publishing the previous write again', async () => {
    // Prepare: a first callback that publishes, then another body with the same news.
    const { store, ingest } = setup();
    await ingestIntents(ingest, delivery(report('FAILED'), JSON.stringify({ status: 'FAILED', n: 1 })));
    const published = store.published.length;
    // Act
    await ingestIntents(ingest, delivery(report('FAILED'), JSON.stringify({ status: 'FAILED', n: 2 })));
    // Assess
    expect((await store.getTransaction(KEY))?.receipts?.kept).toBe(2);
    expect(store.published.length).toBe(published);
  });
});

describe('GET a transaction with many receipts', () => {
  it('lists its receipts a page at a time with the tally in full', async () => {
    // Prepare
    const { deps, ingest } = setup();
    for (let i = 0; i < 7; i++)
      await ingestIntents(ingest, delivery(report('PENDING'), JSON.stringify({ status: 'PENDING', i })));
    // Act
    const first = await getTransaction(deps, KEY, { limit: 5 });
    const second = await getTransaction(deps, KEY, { limit: 5, after: first.receipts.next! });
    // Assess
    expect(first.receipts).toMatchObject({ listed: 5, tally: { kept: 7 } });
    expect(first.receipts.next).toMatch(/^[0-9a-f]{32}$/);
    expect(second.receipts).toMatchObject({ listed: 2, next: null });
    const ids = (page: typeof first) =>
      page.history.flatMap((h) => (h.type === 'callback' ? [h.receiptId] : []));
    expect(new Set([...ids(first), ...ids(second)]).size).toBe(7);
  });
});

describe('hint budget per account', () => {
  it('keeps and answers unmatched hints past the day’s budget, without their bodies: a flood never costs a genuine callback', async () => {
    // Prepare: the budget spent by made-up externalIds (anyone who can reach the route can send them).
    const { store, ingest, warnings } = setup();
    for (let i = 0; i < HINTS_PER_ACCOUNT_PER_DAY; i++)
      await ingestIntents(ingest, delivery(hint(`made-up-${i}`), `{"externalId":"made-up-${i}"}`));
    // Act: MTN's genuine early callback for a payment the partner is about to register, and one more.
    await ingestIntents(ingest, delivery(hint('order-8841'), '{"externalId":"order-8841"}'));
    await ingestIntents(ingest, delivery(hint('and-more'), '{"externalId":"and-more"}'));
    // Assess: the hint waits for its registration; its receipt is kept without its body; counted, warned once.
    const kept = await store.getRecord({
      provider: 'momo',
      account: 'demo',
      namespace: HINT_NAMESPACE,
      id: 'order-8841',
    });
    expect(kept?.data).toMatchObject({ status: 'SUCCEEDED' });
    const receipts = await allReceipts(store, {
      provider: 'momo',
      account: 'demo',
      reference: 'externalId:order-8841',
    });
    expect(receipts).toHaveLength(1);
    expect(receipts[0]).toMatchObject({ bodyDropped: true });
    expect([...store.counters.values()]).toEqual([{ counted: HINTS_PER_ACCOUNT_PER_DAY, refused: 2 }]);
    expect(warnings.filter((w) => w.includes('over budget'))).toHaveLength(1);
  });

  it('does not spend the budget on a hint that names a registered transaction', async () => {
    // Prepare
    const { store, deps, ingest } = setup();
    await registerPayment(deps, { externalId: 'order-8841' });
    // Act
    await ingestIntents(ingest, delivery(hint('order-8841'), '{"externalId":"order-8841"}'));
    // Assess
    expect(store.counters.size).toBe(0);
  });
});
