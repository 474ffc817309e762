/**
 * Forged Daraja reversal results: what an anonymous sender who knows the account's path (a path secret is in
 * every URL it was ever shown) and a receipt number (it is on the customer's SMS) can make the relay do, through
 * the callback endpoint with Daraja's routes and parsers (in-memory store). On an account whose source-IP
 * list only logs, a result from an address it did not admit is held (ReversalAmbiguous, UNCONFIRMED): it
 * counts no reversal against the payment, so Daraja's own result still applies. Two results from Daraja's
 * addresses for one request that disagree are a conflict, never "first wins" silently.
 */
import { describe, expect, it } from 'vitest';
import type { Evidence } from '../../../shared/domain/evidence';
import { EVENT_DATA_SCHEMAS } from '../../../shared/domain/event-schemas';
import { DARAJA_IP, darajaWorld, FORGER_IP, fixture, STK_REFERENCE } from './forged-daraja-world';

function setup() {
  // Safaricom's addresses are not all known (provider notes): the list only logs, as many run it.
  const { store, events, post: postFrom, payStk } = darajaWorld({ mode: 'log-only' });
  const post = (route: string, body: string, sourceIp = FORGER_IP) => postFrom(route, body, sourceIp);
  /** A paid 1 KES STK payment whose receipt (NLJ7RT61SV, on the customer's SMS) the relay learnt. */
  const paid = async () => {
    expect(await payStk()).toBe(200);
  };
  return { store, post, events, paid };
}

const REVERSED = fixture('reversal-result-success');
/** The same reversal reported under another request id (a forger's invention, or another request). */
const OTHER_REQUEST = REVERSED.replace('8521-4298025-1', '8521-4298025-9').replace(
  'AG_20191219_00005797af5d7d75f652',
  'AG_20191219_0000forgedforged0009',
);

describe('a forged Daraja reversal result naming a receipt from an SMS', () => {
  it('is held as ReversalAmbiguous (UNCONFIRMED) on the payment: no TransactionReversed, no reversal counted', async () => {
    // Prepare
    const s = setup();
    await s.paid();
    // Act
    expect(await s.post('reversal/result', REVERSED)).toBe(200);
    // Assess
    expect(s.events('TransactionReversed')).toEqual([]);
    const [held] = s.events('ReversalAmbiguous');
    expect(held?.data).toMatchObject({
      reference: STK_REFERENCE,
      originalReceipt: 'NLJ7RT61SV',
      reason: { code: 'UNKNOWN', message: expect.stringContaining('not counted') },
      reasonDetail: 'UNCONFIRMED',
    });
    // What a subscriber validates it with (docs/events.md).
    expect(EVENT_DATA_SCHEMAS.ReversalAmbiguous.safeParse(held?.data).error).toBeUndefined();
    const tx = await s.store.getTransaction({ provider: 'daraja', account: 'ke', reference: STK_REFERENCE });
    expect(tx?.reversals ?? []).toEqual([]);
  });

  it.each([
    ['under the same request id', REVERSED],
    ['under another request id', OTHER_REQUEST],
  ])(
    "spends no allowance: Daraja's own result afterwards (%s) is TransactionReversed, no conflict",
    async (_, forged) => {
      // Prepare: a forger reports the whole payment reversed first.
      const s = setup();
      await s.paid();
      await s.post('reversal/result', forged);
      // Act
      expect(await s.post('reversal/result', REVERSED, DARAJA_IP)).toBe(200);
      // Assess
      expect(s.events('TransactionConflict')).toEqual([]);
      const [reversed] = s.events('TransactionReversed');
      expect(reversed?.data).toMatchObject({ netAmount: { value: '0' } });
      const tx = await s.store.getTransaction({
        provider: 'daraja',
        account: 'ke',
        reference: STK_REFERENCE,
      });
      expect(tx?.reversals).toHaveLength(1);
    },
  );

  it("arriving after Daraja's own result for the request is stale: it publishes nothing", async () => {
    const s = setup();
    await s.paid();
    await s.post('reversal/result', REVERSED, DARAJA_IP);
    await s.post('reversal/result', REVERSED);
    expect(s.events('ReversalAmbiguous')).toEqual([]);
    expect(s.events('TransactionReversed')).toHaveLength(1);
  });
});

describe("a Daraja reversal result from Daraja's address", () => {
  it('is TransactionReversed with evidence the source-IP list vouches for (conclusive)', async () => {
    // Prepare
    const s = setup();
    await s.paid();
    // Act
    expect(await s.post('reversal/result', REVERSED, DARAJA_IP)).toBe(200);
    // Assess
    const [reversed] = s.events('TransactionReversed');
    const [evidence] = reversed?.data.evidence as Evidence[];
    expect(evidence).toMatchObject({
      source: 'callback',
      authenticated: true,
      authentication: ['path-secret', 'source-ip'],
      conclusive: true,
    });
  });

  it('a second result under the same request id for another amount is a TransactionConflict, not a silent first win', async () => {
    // Prepare: the first result counted.
    const s = setup();
    await s.paid();
    await s.post('reversal/result', REVERSED, DARAJA_IP);
    // Act: another body under the same request id, for 0.5 KES.
    await s.post(
      'reversal/result',
      REVERSED.replace('"Key":"Amount","Value":1.00', '"Key":"Amount","Value":0.50'),
      DARAJA_IP,
    );
    // Assess
    expect(s.events('TransactionReversed')).toHaveLength(1);
    const conflicts = s.events('TransactionConflict');
    expect(conflicts).toHaveLength(1);
    expect(conflicts[0]?.data).toMatchObject({
      reference: STK_REFERENCE,
      conflict: { kind: 'STATUS', detail: expect.stringContaining('request 8521-4298025-1') },
    });
    const tx = await s.store.getTransaction({ provider: 'daraja', account: 'ke', reference: STK_REFERENCE });
    expect(tx?.status).toBe('SUCCEEDED');
    expect(tx?.reversals).toHaveLength(1);
  });

  it('the same body again is a repeat: no conflict', async () => {
    const s = setup();
    await s.paid();
    await s.post('reversal/result', REVERSED, DARAJA_IP);
    await s.post('reversal/result', REVERSED, DARAJA_IP);
    expect(s.events('TransactionReversed')).toHaveLength(1);
    expect(s.events('TransactionConflict')).toEqual([]);
  });
});
