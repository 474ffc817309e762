/**
 * Races around a Daraja reversal held as UNCONFIRMED and asked about with the transaction status query
 * (held-reversal-queries.test.ts tells the plain story). Daraja may answer the query before the poller has
 * written its record of it; another report on the same payment may rewrite its schedule while a reversal is
 * held; anyone may post to the query's result URL. Through the callback endpoint, Daraja's routes and
 * parsers, the one poll cycle, on an in-memory store; Daraja's API answered here, the clock moved by hand.
 */
import { describe, expect, it } from 'vitest';
import type { Evidence } from '../../../shared/domain/evidence';
import { registered } from '../../helpers/reports';
import { DARAJA_IP, darajaWorld, FORGER_IP, fixture, STK_REFERENCE } from './forged-daraja-world';

/** The fixture's reversal: receipt NLJ41HAY6Q reverses 1 KES of the payment NLJ7RT61SV. */
const REVERSED = fixture('reversal-result-success');
const REVERSAL_RECEIPT = 'NLJ41HAY6Q';

/** Daraja's result of a transaction status query about the reversal's receipt, echoing the query's Occasion. */
function statusResult(
  conversationId: string,
  movement: { amount: number; reasonType: string; occasion?: unknown; pad?: string; receipt?: string },
) {
  return JSON.stringify({
    Result: {
      ConversationID: conversationId,
      OriginatorConversationID: `${conversationId}-oc`,
      ReferenceData: {
        ReferenceItem:
          typeof movement.occasion === 'string'
            ? { Key: 'Occasion', Value: movement.occasion }
            : { Key: 'Occasion' },
      },
      ResultCode: 0,
      ResultDesc: `The service request is processed successfully.${movement.pad ?? ''}`,
      ResultParameters: {
        ResultParameter: [
          { Key: 'OriginatorConversationID', Value: '8521-4298025-1' },
          { Key: 'ReasonType', Value: movement.reasonType },
          { Key: 'TransactionStatus', Value: 'Completed' },
          { Key: 'Amount', Value: movement.amount },
          { Key: 'ReceiptNo', Value: movement.receipt ?? REVERSAL_RECEIPT },
        ],
      },
      ResultType: 0,
      TransactionID: movement.receipt ?? REVERSAL_RECEIPT,
    },
  });
}

const CONFIRMING = { amount: 1, reasonType: 'Reversal' };

/**
 * A paid payment and an account with a status API; `answer` (when set) is what Daraja posts to the query's
 * result URL while the query is still on the wire: before the relay has read Daraja's acceptance.
 */
function setup(early?: (query: Record<string, unknown>, n: number) => string | undefined) {
  const queries: Record<string, unknown>[] = [];
  /** Runs while a query is on the wire, before Daraja's acceptance is returned. */
  const hooks: { onQuery?: (query: Record<string, unknown>) => Promise<void> } = {};
  const world = darajaWorld({
    mode: 'log-only',
    api: true,
    daraja: async (url, body) => {
      if (url.includes('/oauth/'))
        return Response.json({ access_token: 'token-0123456789', expires_in: '3599' });
      queries.push(body);
      const n = queries.length;
      const answer = early?.(body, n);
      if (answer) expect(await world.post('status/result', answer, DARAJA_IP)).toBe(200);
      await hooks.onQuery?.(body);
      return Response.json({
        OriginatorConversationID: `AG_QUERY_${n}-oc`,
        ConversationID: `AG_QUERY_${n}`,
        ResponseCode: '0',
        ResponseDescription: 'Accept the service request successfully.',
      });
    },
  });
  const paid = async () => {
    expect(await world.payStk()).toBe(200);
  };
  const held = async () => {
    await paid();
    expect(await world.post('reversal/result', REVERSED, FORGER_IP)).toBe(200);
  };
  const payment = () => world.transaction(STK_REFERENCE);
  return { ...world, queries, hooks, held, payment };
}

describe("Daraja's answer about a held reversal that beats the poller's record of the query", () => {
  it.each([
    [
      'with the token the query sent (a process that verifies it)',
      (q: Record<string, unknown>) => q.Occasion,
    ],
    [
      'with a token this process cannot verify (the callback function holds no API key)',
      (q: Record<string, unknown>) => `${String(q.Occasion).slice(0, 13)}xxxxxxxxxxxxxxxx.${STK_REFERENCE}`,
    ],
  ])(
    'is kept and matched when the record is written: one TransactionReversed on Daraja’s word (%s)',
    async (_, occasion) => {
      // Prepare: a held reversal; Daraja answers the first query before the relay reads its acceptance.
      const s = setup((query, n) =>
        n === 1 ? statusResult('AG_QUERY_1', { ...CONFIRMING, occasion: occasion(query) }) : undefined,
      );
      await s.held();
      // Act: the first ask (the answer beats its record), then the next look.
      await s.poll();
      await s.poll();
      // Assess: confirmed by that answer, no second ask; nothing applied to the payment's status.
      const reversed = s.events('TransactionReversed');
      expect(reversed).toHaveLength(1);
      const [evidence] = reversed[0]?.data.evidence as Evidence[];
      expect(evidence).toMatchObject({ source: 'status-api', conclusive: true });
      expect(s.events('TransactionConflict')).toEqual([]);
      expect(s.queries).toHaveLength(1);
      const tx = await s.payment();
      expect(tx?.status).toBe('SUCCEEDED');
      expect(tx?.providerTransactionId).toBe('NLJ7RT61SV');
      expect(tx?.heldReversals?.[0]?.state).toBe('confirmed');
      expect([...s.store.transactions.values()].map((t) => t.key.reference)).toEqual([STK_REFERENCE]);
    },
  );
});

describe('the callback and the poller crossing over the record of a query about a held reversal', () => {
  it('one finds the other: the answer written to wait just after the poller looked for it is still matched', async () => {
    // Prepare: the callback reads no record; the poller then writes it and finds no waiting answer; only
    // then does the callback leave its answer to wait (the order the two processes may take).
    let callbackLooked!: () => void;
    const looked = new Promise<void>((resolve) => (callbackLooked = resolve));
    let pollerLooked!: () => void;
    const pollerDone = new Promise<void>((resolve) => (pollerLooked = resolve));
    let posted: Promise<number> | undefined;
    const s = setup();
    const crossed = { callbackWaited: false, pollerMissed: false };
    const { getRecord, putRecord } = s.store;
    s.store.getRecord = async (ref, options) => {
      const found = await getRecord.call(s.store, ref, options);
      if (ref.namespace === 'alias:StatusQuery' && posted && !found) callbackLooked();
      if (ref.namespace === 'fact:reversal-early') {
        crossed.pollerMissed = !found;
        pollerLooked();
      }
      return found;
    };
    s.store.putRecord = async (record, options) => {
      if (record.namespace === 'fact:reversal-early') {
        crossed.callbackWaited = true;
        await pollerDone;
      }
      return putRecord.call(s.store, record, options);
    };
    s.hooks.onQuery = async (query) => {
      const answer = statusResult('AG_QUERY_1', { ...CONFIRMING, occasion: query.Occasion });
      posted = s.post('status/result', answer, DARAJA_IP);
      await looked;
    };
    await s.held();
    // Act: the first ask, the answer crossing its record, then the next look.
    await s.poll();
    expect(await posted).toBe(200);
    await s.poll();
    // Assess: the crossing happened as described, and the answer confirmed the reversal without a second ask.
    expect(crossed).toEqual({ callbackWaited: true, pollerMissed: true });
    expect(s.events('TransactionReversed')).toHaveLength(1);
    expect(s.queries).toHaveLength(1);
    expect((await s.payment())?.heldReversals?.[0]?.state).toBe('confirmed');
  });
});

describe('a receipt confirmation for the payment while a reversal is held on it', () => {
  it('an unsigned STK success’s receipt is only a claim: an unsigned reversal of it is not held on the payment, and Daraja’s own result settles it with its receipt', async () => {
    // Prepare: an unsigned STK success (held for confirmation, its receipt a claim), then an unsigned
    // reversal of that receipt: it names no payment the relay knows by that receipt.
    const s = setup();
    await s.store.createTransaction(
      registered({
        key: { provider: 'daraja', account: 'ke', reference: STK_REFERENCE },
        kind: 'stk',
        amount: { value: '1', currency: 'KES' },
        externalId: undefined,
      }),
    );
    expect(await s.post('stk', fixture('stk-success'), FORGER_IP)).toBe(200);
    expect(await s.post('reversal/result', REVERSED, FORGER_IP)).toBe(200);
    const before = await s.payment();
    // Act: Daraja's own result (from its address) settles the payment.
    expect(await s.post('stk', `${fixture('stk-success')}\n`, DARAJA_IP)).toBe(200);
    const settled = await s.payment();
    // Assess: the claim was never the payment's id; the reversal went to a person (ReversalAmbiguous).
    expect(before).toMatchObject({ status: 'AMBIGUOUS', receiptClaims: ['NLJ7RT61SV'] });
    expect(before?.providerTransactionId).toBeUndefined();
    expect(before?.heldReversals).toBeUndefined();
    expect(s.events('ReversalAmbiguous').at(-1)?.data).toMatchObject({ reasonDetail: 'UNCONFIRMED' });
    expect(settled).toMatchObject({ status: 'SUCCEEDED', providerTransactionId: 'NLJ7RT61SV' });
    expect(s.events('TransactionSucceeded')[0]?.data).toMatchObject({ providerTransactionId: 'NLJ7RT61SV' });
  });

  it('leaves the held reversal due: it is still asked about', async () => {
    // Prepare: a push settled without a receipt (the STK query names none), a receipt claimed for it and due
    // for a check, and a reversal held on it, due for its first ask in ten minutes.
    const s = setup();
    const at = '2026-11-23T10:00:01.000Z';
    const later = '2026-11-23T10:10:01.000Z';
    await s.store.createTransaction(
      registered({
        key: { provider: 'daraja', account: 'ke', reference: STK_REFERENCE },
        kind: 'stk',
        status: 'SUCCEEDED',
        amount: { value: '1', currency: 'KES' },
        externalId: undefined,
        receiptClaims: ['NLJ7RT61SV'],
        reconcile: { checks: 1, recent: [], dueAt: at, recheckUntil: '2026-11-24T10:00:01.000Z' },
        heldReversals: [
          {
            id: '8521-4298025-1',
            namespace: 'reversal-unconfirmed',
            receipt: REVERSAL_RECEIPT,
            amount: { value: '1', currency: 'KES' },
            heldAt: at,
            asks: 0,
            dueAt: later,
            state: 'asking',
          },
        ],
      }),
    );
    // Act: the poller asks about the claimed receipt; Daraja's answer confirms it: the payment adopts it.
    await s.poll();
    expect(s.queries).toEqual([expect.objectContaining({ TransactionID: 'NLJ7RT61SV' })]);
    const answer = statusResult('AG_QUERY_1', {
      amount: 1,
      reasonType: 'Pay Bill Online',
      receipt: 'NLJ7RT61SV',
      occasion: s.queries[0]?.Occasion,
    });
    expect(await s.post('status/result', answer, DARAJA_IP)).toBe(200);
    const adopted = await s.payment();
    for (let i = 0; i < 4; i++) await s.poll(300_000);
    // Assess: the receipt was adopted (its check answered), and the held reversal was still asked about.
    expect(adopted?.providerTransactionId).toBe('NLJ7RT61SV');
    expect(adopted?.reconcile?.recheckUntil).toBeUndefined();
    expect(s.queries).toContainEqual(expect.objectContaining({ TransactionID: REVERSAL_RECEIPT }));
    const [held] = (await s.payment())?.heldReversals ?? [];
    expect(held?.state).toBe('asking');
    expect(held?.asks).toBeGreaterThan(0);
  });
});

describe('an answer about a held reversal that no query of the relay was answered under', () => {
  it.each([
    ['a token nobody could make here', () => `rq1.reversal.xxxxxxxxxxxxxxxx.${STK_REFERENCE}`],
    ['the genuine token, replayed', (query?: Record<string, unknown>) => query?.Occasion],
    ['no token at all', () => undefined],
  ])(
    'never settles it (%s): recorded, not counted; the asks go on and a person decides',
    async (_, occasion) => {
      // Prepare: a held reversal asked about once (Daraja never answers).
      const s = setup();
      await s.held();
      await s.poll();
      // Act: a confirming answer under query ids the relay never received, before and after the next ask.
      const forged = (n: number) =>
        statusResult(`AG_NOT_OURS_${n}`, { ...CONFIRMING, occasion: occasion(s.queries[0]) });
      expect(await s.post('status/result', forged(1), FORGER_IP)).toBe(200);
      for (let minute = 0; minute < 60; minute += 10) await s.poll(600_000);
      expect(await s.post('status/result', forged(2), DARAJA_IP)).toBe(200);
      for (let minute = 0; minute < 60; minute += 10) await s.poll(600_000);
      // Assess
      expect(s.events('TransactionReversed')).toEqual([]);
      const tx = await s.payment();
      expect(tx?.reversals ?? []).toEqual([]);
      expect(tx?.heldReversals?.[0]?.state).toBe('escalated');
      expect(s.events('ReversalAmbiguous').map((e) => e.data.reasonDetail)).toEqual([
        'UNCONFIRMED',
        'NO_FINAL_ANSWER',
      ]);
    },
  );
});

describe('answers about a held reversal sent in a flood', () => {
  const PAYMENT = { provider: 'daraja', account: 'ke', reference: STK_REFERENCE };
  /** A token naming the payment that no key made (anyone can write one: the callback cannot check it). */
  const madeUp = `rq1.reversal.xxxxxxxxxxxxxxxx.${STK_REFERENCE}`;

  it.each([
    ["through the query's record (its ConversationID)", (_i: number) => ['AG_QUERY_1', undefined] as const],
    ['before any record, each under new query ids', (i: number) => [`AG_FORGED_${i}`, madeUp] as const],
  ])(
    "spend the payment's receipt budget: past it no body and no waiting answer is kept (%s)",
    async (_, ids) => {
      // Prepare: a held reversal asked about once.
      const s = setup();
      await s.held();
      await s.poll();
      const waitingBefore = [...s.store.records.keys()].filter((k) => k.includes('reversal-early')).length;
      // Act: 100 distinct bodies (the budget is 64 a payment).
      for (let i = 0; i < 100; i++) {
        const [conversationId, occasion] = ids(i);
        const body = statusResult(conversationId, { ...CONFIRMING, occasion, pad: ` ${i}` });
        expect(await s.post('status/result', body, FORGER_IP)).toBe(200);
      }
      // Assess: the tally says so, bodies past it are dropped, waiting answers stay bounded.
      const tx = await s.payment();
      expect(tx?.receipts?.kept).toBeLessThanOrEqual(64);
      expect(tx?.receipts?.dropped).toBeGreaterThanOrEqual(100 - 64);
      const kept = s.store.receiptsOf(PAYMENT).filter((r) => !r.bodyDropped);
      expect(kept.length).toBeLessThanOrEqual(64);
      const waiting = [...s.store.records.keys()].filter((k) => k.includes('reversal-early')).length;
      expect(waiting - waitingBefore).toBeLessThanOrEqual(2 * 64);
      expect(s.events('TransactionReversed')).toEqual([]);
    },
  );

  it("forged reversal results themselves spend the payment's receipt budget (a delivery of facts alone)", async () => {
    // Prepare
    const s = setup();
    await s.held();
    // Act: 100 distinct results naming the payment's receipt, each under its own request id.
    for (let i = 0; i < 100; i++) {
      const body = REVERSED.replace('8521-4298025-1', `8521-4298025-F${i}`).replace(
        'AG_20191219_00005797af5d7d75f652',
        `AG_20191219_0000forged${String(i).padStart(8, '0')}`,
      );
      expect(await s.post('reversal/result', body, FORGER_IP)).toBe(200);
    }
    // Assess
    const tx = await s.payment();
    expect(tx?.receipts?.kept).toBeLessThanOrEqual(64);
    expect(s.store.receiptsOf(PAYMENT).filter((r) => !r.bodyDropped).length).toBeLessThanOrEqual(64);
    expect(s.events('TransactionReversed')).toEqual([]);
  });
});
