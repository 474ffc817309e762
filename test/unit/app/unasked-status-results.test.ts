/**
 * A Daraja transaction status result that answers no query the relay sent: Daraja's callbacks are unsigned
 * and the result URL's path secret is in every URL it was shown, so anyone can post one. Nothing the relay
 * asked names its ids (no query record, no stored transaction): it is acknowledged in Daraja's format and its
 * receipt kept, but it creates no transaction and publishes nothing (before: an orphan with
 * CallbackOrphaned, TransactionAmbiguous and, a window later, TransactionEscalated to partners and operators).
 */
import { describe, expect, it } from 'vitest';
import { RECEIPT_BUDGET } from '../../../shared/app/transactions/receipt-budget';
import { registered } from '../../helpers/reports';
import { DARAJA_IP, darajaWorld, FORGER_IP, fixture } from './forged-daraja-world';

const RESULT = fixture('status-result');
/** The ids the result names (top level: the query's; parameters: the original's), none the relay's. */
const NAMED = ['3211-416020-3', 'MBN31H462N', '3213-416199-2', 'AG_20180223_0000493344ae97d86f75'];
/** A token of the relay's shape, made up (no key the sender holds makes a real one). */
const MADE_UP_TOKEN = RESULT.replace(
  '{"Key":"Occasion"}',
  '{"Key":"Occasion","Value":"rq1.b2c.AAAAAAAAAAAAAAAA.3211-416020-3"}',
);

describe('a Daraja status result that answers no query the relay sent', () => {
  it.each([
    ['without a token, from any address', RESULT, FORGER_IP],
    ["without a token, from one of Daraja's addresses", RESULT, DARAJA_IP],
    ['with a made-up token', MADE_UP_TOKEN, FORGER_IP],
  ])(
    '(%s) is acknowledged and recorded, creates no transaction and publishes no event',
    async (_, body, ip) => {
      // Prepare: an account with a status API (Daraja out), nothing registered, nothing asked.
      const s = darajaWorld({ mode: 'log-only', api: true });
      // Act: the result, then the poll cycles of the next hours (an orphan would be asked about, then escalated).
      const status = await s.post('status/result', body, ip);
      for (let hour = 0; hour < 6; hour++) await s.poll(60 * 60_000);
      // Assess
      expect(status).toBe(200);
      for (const reference of NAMED) expect(await s.transaction(reference)).toBeUndefined();
      expect(s.types()).toEqual([]);
      expect(s.asked).toEqual([]);
      // Recorded: its receipt is kept under the id it names.
      const kept = s.store.receiptsOf({ provider: 'daraja', account: 'ke', reference: '3211-416020-3' });
      expect(kept).toHaveLength(1);
    },
  );

  it('keeps the bodies of a flood only up to the account daily budget of unmatched bodies, each still counted', async () => {
    // Prepare: a budget of 3 unmatched bodies a day (1,000 in production).
    const s = darajaWorld({ mode: 'log-only', api: true, unmatchedPerDay: 3 });
    const forged = (i: number) => RESULT.replaceAll('3211-416020-3', `3211-416020-${100 + i}`);
    // Act: 5 distinct forged results, each about an id of its own.
    const answers: number[] = [];
    for (let i = 0; i < 5; i++) answers.push(await s.post('status/result', forged(i), FORGER_IP));
    // Assess
    expect(answers).toEqual([200, 200, 200, 200, 200]);
    expect(s.types()).toEqual([]);
    const receipts = [0, 1, 2, 3, 4].flatMap((i) =>
      s.store.receiptsOf({ provider: 'daraja', account: 'ke', reference: `3211-416020-${100 + i}` }),
    );
    expect(receipts).toHaveLength(5);
    expect(receipts.filter((r) => r.bodyDropped !== true)).toHaveLength(3);
  });
});

describe("a Daraja status query's timeout notice, which says nothing about the payment", () => {
  /** A timeout notice echoing a status query about `id`, made distinct by `n` (its ConversationID). */
  const timeout = (id: string, n: number) =>
    JSON.stringify({
      InitiatorName: 'testapi',
      CommandID: 'TransactionStatusQuery',
      PartyA: '600981',
      OriginatorConversationID: id,
      ConversationID: `AG_TIMEOUT_${n}`,
      Occasion: '',
    });

  it('naming nothing the relay holds, keeps its bodies only up to the daily budget of unmatched bodies', async () => {
    // Prepare
    const s = darajaWorld({ mode: 'log-only', api: true, unmatchedPerDay: 3 });
    // Act: 5 forged notices, each about an id of its own.
    const answers: number[] = [];
    for (let i = 0; i < 5; i++)
      answers.push(await s.post('status/timeout', timeout(`ws_CO_${i}`, i), FORGER_IP));
    // Assess
    expect(answers).toEqual([200, 200, 200, 200, 200]);
    expect(s.types()).toEqual([]);
    const receipts = [0, 1, 2, 3, 4].flatMap((i) =>
      s.store.receiptsOf({ provider: 'daraja', account: 'ke', reference: `ws_CO_${i}` }),
    );
    expect(receipts).toHaveLength(5);
    expect(receipts.filter((r) => r.bodyDropped !== true)).toHaveLength(3);
  });

  it("naming a payment the relay holds, keeps its bodies only up to that payment's receipt budget", async () => {
    // Prepare: a registered payment, whose reference a forger names.
    const s = darajaWorld({ mode: 'log-only', api: true });
    const key = { provider: 'daraja', account: 'ke', reference: 'ws_CO_PAID' };
    await s.store.createTransaction(
      registered({ key, kind: 'stk', amount: { value: '1', currency: 'KES' }, externalId: undefined }),
    );
    // Act: more distinct notices than the budget keeps.
    for (let i = 0; i < RECEIPT_BUDGET.receipts + 6; i++)
      expect(await s.post('status/timeout', timeout(key.reference, i), FORGER_IP)).toBe(200);
    // Assess: each counted and dated, the bodies past the budget dropped; the payment untouched.
    const receipts = s.store.receiptsOf(key);
    expect(receipts).toHaveLength(RECEIPT_BUDGET.receipts + 6);
    expect(receipts.filter((r) => r.bodyDropped !== true)).toHaveLength(RECEIPT_BUDGET.receipts);
    expect((await s.transaction(key.reference))?.status).toBe('PENDING');
    expect(s.types()).toEqual([]);
  });
});
