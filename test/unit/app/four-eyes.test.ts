/**
 * Four eyes (docs/roles-and-audit.md#four-eyes): momo/demo resolves up to 500 alone. What one person's word
 * puts at stake is weighed on everything the relay knows of the transaction (what it holds, what its
 * evidence claims), and again in the write, on the record it writes over.
 */
import { describe, expect, it } from 'vitest';
import { resolveOrRequest } from '../../../shared/app/operations/approvals';
import { ingestReport } from '../../../shared/app/transactions/ingest-report';
import type { Actor } from '../../../shared/domain/actor';
import type { NormalizedReport } from '../../../shared/domain/transaction';
import { managementWorld } from '../http/management-world';

const KEY = { provider: 'momo', account: 'demo', reference: '33333333-4b7d-4e2a-9c3b-1a2b3c4d5e6f' };
const ana: Actor = { id: 'ana', name: 'ana', email: null, role: 'operator', via: 'token' };

/** A MoMo success before its registration, unconfirmed: AMBIGUOUS, its 100000 EUR only claimed. */
const unconfirmedClaim: NormalizedReport = {
  key: KEY,
  kind: 'requesttopay',
  status: 'SUCCEEDED',
  reason: undefined,
  providerTransactionId: '99',
  externalId: 'order-9',
  amount: { value: '100000', currency: 'EUR' },
  party: undefined,
  receivedAt: '2026-11-23T09:59:00.000Z',
  origin: 'callback',
  receiptId: 'r1',
  attributes: undefined,
  authentication: ['path-secret'],
  needsConfirmation: true,
};

const ingestDeps = (w: ReturnType<typeof managementWorld>) => ({
  store: w.store,
  clock: w.services.clock,
  log: w.services.log,
  reconciliation: w.services.config.reconciliation,
});

async function setup(claimed = unconfirmedClaim.amount) {
  const w = managementWorld();
  await ingestReport(ingestDeps(w), { ...unconfirmedClaim, amount: claimed });
  return w;
}

describe('four eyes weigh what the relay knows, not only what the operator states', () => {
  it('sends a success of 1 stated alone to approval when the evidence claims 100000', async () => {
    // Prepare: the relay holds no amount; the unconfirmed callback claimed 100000.
    const w = await setup();
    expect((await w.store.getTransaction(KEY))?.amount).toBeUndefined();
    // Act
    const outcome = await resolveOrRequest(
      w.services,
      KEY,
      { status: 'SUCCEEDED', note: 'seen on the portal', amount: '1' },
      ana,
    );
    // Assess
    expect(outcome.resolved).toBe(false);
    // In the currency the claim names (the transaction holds none), as the resolution would apply.
    if (!outcome.resolved)
      expect(outcome.approval).toMatchObject({ amount: '100000', currency: 'EUR', limit: '500' });
    expect(w.store.published.map((e) => e.metadata.type)).not.toContain('TransactionSucceeded');
  });

  it('weighs the limit again in the write: a claim of 100000 landing after the first look makes it a request', async () => {
    // Prepare: at the first look 400 is at stake (under the limit); a second unconfirmed body claiming
    // 100000 lands between that read and the write.
    const w = await setup({ value: '400', currency: 'EUR' });
    const original = w.store.getTransaction.bind(w.store);
    let reads = 0;
    w.store.getTransaction = async (...args: Parameters<typeof original>) => {
      if (++reads === 2)
        await ingestReport(ingestDeps(w), {
          ...unconfirmedClaim,
          receiptId: 'r2',
          receivedAt: '2026-11-23T09:59:30.000Z',
        });
      return original(...args);
    };
    // Act
    const outcome = await resolveOrRequest(
      w.services,
      KEY,
      { status: 'FAILED', note: 'the customer says no' },
      ana,
    );
    // Assess: nothing applied by one person; the request names the amount the write saw.
    expect(reads).toBeGreaterThan(2);
    expect(outcome.resolved).toBe(false);
    if (!outcome.resolved) expect(outcome.approval.amount).toBe('100000');
    expect((await original(KEY))?.status).toBe('AMBIGUOUS');
  });
});
