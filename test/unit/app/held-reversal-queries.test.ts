/**
 * A Daraja reversal success held as UNCONFIRMED (its sender passed no check: a log-only miss of the source-IP
 * list) on an account with a status API: the poller asks Daraja's transaction status query about the
 * reversal's own receipt, a fixed number of times with backoff. Daraja's answer through the query's record
 * confirms it (one TransactionReversed, evidence status-api, counted once), refuses it (TransactionConflict)
 * or never comes (ReversalAmbiguous NO_FINAL_ANSWER, for a person). Through the callback endpoint, Daraja's
 * routes and parsers, the one poll cycle, on an in-memory store; Daraja's API answered here.
 */
import { describe, expect, it } from 'vitest';
import type { Evidence } from '../../../shared/domain/evidence';
import { EVENT_DATA_SCHEMAS } from '../../../shared/domain/event-schemas';
import { REVERSAL_ASKS } from '../../../shared/domain/held-reversal';
import { DARAJA_IP, darajaWorld, FORGER_IP, fixture, STK_REFERENCE } from './forged-daraja-world';

/** The fixture's reversal: receipt NLJ41HAY6Q reverses 1 KES of the payment NLJ7RT61SV. */
const REVERSED = fixture('reversal-result-success');
const REVERSAL_RECEIPT = 'NLJ41HAY6Q';

/** Daraja's result of a transaction status query, as its documentation shows it. */
function statusResult(
  conversationId: string,
  movement: { receipt: string; amount: number; reasonType: string; status?: string },
) {
  return JSON.stringify({
    Result: {
      ConversationID: conversationId,
      OriginatorConversationID: `${conversationId}-oc`,
      ReferenceData: { ReferenceItem: { Key: 'Occasion' } },
      ResultCode: 0,
      ResultDesc: 'The service request is processed successfully.',
      ResultParameters: {
        ResultParameter: [
          { Key: 'DebitPartyName', Value: '174379 - Safaricom1338' },
          { Key: 'CreditPartyName', Value: '254708374149 - John Doe' },
          { Key: 'OriginatorConversationID', Value: '8521-4298025-1' },
          { Key: 'ReasonType', Value: movement.reasonType },
          { Key: 'TransactionStatus', Value: movement.status ?? 'Completed' },
          { Key: 'Amount', Value: movement.amount },
          { Key: 'ReceiptNo', Value: movement.receipt },
        ],
      },
      ResultType: 0,
      TransactionID: movement.receipt,
    },
  });
}

function setup(api = true) {
  const queries: Record<string, unknown>[] = [];
  const world = darajaWorld({
    mode: 'log-only',
    api,
    daraja: (url, body) => {
      if (url.includes('/oauth/'))
        return Response.json({ access_token: 'token-0123456789', expires_in: '3599' });
      queries.push(body);
      return Response.json({
        OriginatorConversationID: `oc-${queries.length}`,
        ConversationID: `AG_QUERY_${queries.length}`,
        ResponseCode: '0',
        ResponseDescription: 'Accept the service request successfully.',
      });
    },
  });
  const paid = async () => {
    expect(await world.payStk()).toBe(200);
  };
  const payment = () => world.transaction(STK_REFERENCE);
  /** A forger's reversal result (from an address the list did not admit): held, then asked about once. */
  const heldAndAsked = async () => {
    await paid();
    expect(await world.post('reversal/result', REVERSED, FORGER_IP)).toBe(200);
    await world.poll();
    expect(queries).toHaveLength(1);
  };
  return { ...world, queries, paid, payment, heldAndAsked };
}

describe('a held Daraja reversal on an account with a status API', () => {
  it("is asked about with the transaction status query: the reversal's own receipt, never the payment's status", async () => {
    // Prepare
    const s = setup();
    await s.paid();
    expect(await s.post('reversal/result', REVERSED, FORGER_IP)).toBe(200);
    // Act
    await s.poll();
    // Assess
    expect(s.queries).toEqual([
      expect.objectContaining({ CommandID: 'TransactionStatusQuery', TransactionID: REVERSAL_RECEIPT }),
    ]);
    expect(s.asked.some((url) => url.includes('stkpushquery'))).toBe(false);
    const tx = await s.payment();
    expect(tx?.heldReversals).toEqual([
      expect.objectContaining({ id: '8521-4298025-1', receipt: REVERSAL_RECEIPT, asks: 1, state: 'asking' }),
    ]);
  });

  it("confirmed by Daraja's answer, it is one TransactionReversed on Daraja's word (status-api), counted once", async () => {
    // Prepare
    const s = setup();
    await s.heldAndAsked();
    // Act: Daraja answers the query (through its record: the ConversationID it accepted the query under).
    const answer = statusResult('AG_QUERY_1', {
      receipt: REVERSAL_RECEIPT,
      amount: 1,
      reasonType: 'Reversal',
    });
    expect(await s.post('status/result', answer, DARAJA_IP)).toBe(200);
    // The poller reads it at its next look, before asking again.
    await s.poll();
    // Daraja's own result comes from its address later: the same reversal, not a second one.
    expect(await s.post('reversal/result', REVERSED, DARAJA_IP)).toBe(200);
    // Assess
    const reversed = s.events('TransactionReversed');
    expect(reversed).toHaveLength(1);
    expect(reversed[0]?.data).toMatchObject({ reference: STK_REFERENCE, netAmount: { value: '0' } });
    expect(EVENT_DATA_SCHEMAS.TransactionReversed.safeParse(reversed[0]?.data).error).toBeUndefined();
    const [evidence] = reversed[0]?.data.evidence as Evidence[];
    expect(evidence).toMatchObject({
      source: 'status-api',
      authentication: ['status-api'],
      conclusive: true,
    });
    expect(s.events('TransactionConflict')).toEqual([]);
    const tx = await s.payment();
    expect(tx?.status).toBe('SUCCEEDED');
    expect(tx?.reversals).toHaveLength(1);
    expect(tx?.heldReversals?.[0]?.state).toBe('confirmed');
    // Nothing left to ask.
    for (let i = 0; i < 5; i++) await s.poll(600_000);
    expect(s.queries).toHaveLength(1);
  });

  it.each([
    ['another kind of movement (the payment itself)', { reasonType: 'Pay Bill Online', amount: 1 }, 'STATUS'],
    ['a reversal of another amount', { reasonType: 'Reversal', amount: 0.5 }, 'AMOUNT_MISMATCH'],
    ['a reversal Daraja says failed', { reasonType: 'Reversal', amount: 1, status: 'Failed' }, 'STATUS'],
  ])(
    'contradicted by Daraja (%s), it is refused: a TransactionConflict, no reversal counted',
    async (_, said, kind) => {
      // Prepare
      const s = setup();
      await s.heldAndAsked();
      // Act
      expect(
        await s.post(
          'status/result',
          statusResult('AG_QUERY_1', { receipt: REVERSAL_RECEIPT, ...said }),
          DARAJA_IP,
        ),
      ).toBe(200);
      await s.poll();
      // Assess
      expect(s.events('TransactionReversed')).toEqual([]);
      const conflicts = s.events('TransactionConflict');
      expect(conflicts).toHaveLength(1);
      expect(conflicts[0]?.data).toMatchObject({ reference: STK_REFERENCE, conflict: { kind } });
      const [claimed, answered] = (conflicts[0]?.data.conflict as { evidence: Evidence[] }).evidence;
      expect(claimed).toMatchObject({ source: 'callback', conclusive: false });
      expect(answered).toMatchObject({ source: 'status-api', conclusive: true });
      const tx = await s.payment();
      expect(tx?.reversals ?? []).toEqual([]);
      expect(tx?.heldReversals?.[0]).toMatchObject({ state: 'refused', detail: expect.any(String) });
      // Refused, it is asked about no more.
      for (let i = 0; i < 5; i++) await s.poll(600_000);
      expect(s.queries).toHaveLength(1);
    },
  );

  it('without an answer that settles it, is asked a fixed number of times, then escalated for a person', async () => {
    // Prepare
    const s = setup();
    await s.heldAndAsked();
    // Act: Daraja accepts every query, and never answers; the poller runs for a day.
    for (let minute = 0; minute < 24 * 60; minute += 10) await s.poll(600_000);
    // Assess
    expect(s.queries).toHaveLength(REVERSAL_ASKS);
    const escalated = s.events('ReversalAmbiguous').filter((e) => e.data.reasonDetail === 'NO_FINAL_ANSWER');
    expect(escalated).toHaveLength(1);
    expect(escalated[0]?.data).toMatchObject({
      reference: STK_REFERENCE,
      originalReceipt: 'NLJ7RT61SV',
      reason: { code: 'UNKNOWN', message: expect.stringContaining(REVERSAL_RECEIPT) },
    });
    expect(EVENT_DATA_SCHEMAS.ReversalAmbiguous.safeParse(escalated[0]?.data).error).toBeUndefined();
    const tx = await s.payment();
    expect(tx?.heldReversals?.[0]?.state).toBe('escalated');
    expect(tx?.reversals ?? []).toEqual([]);
  });

  it('an answer that is no final answer ("could not be found") is noted, and the next ask follows', async () => {
    // Prepare
    const s = setup();
    await s.heldAndAsked();
    const notFound = JSON.stringify({
      Result: {
        ConversationID: 'AG_QUERY_1',
        OriginatorConversationID: 'oc-1',
        ReferenceData: { ReferenceItem: { Key: 'Occasion' } },
        ResultCode: 'R000001',
        ResultDesc: 'The transaction could not be found.',
        ResultType: 0,
        TransactionID: 'NLJ0000000',
      },
    });
    // Act
    expect(await s.post('status/result', notFound, DARAJA_IP)).toBe(200);
    await s.poll(600_000);
    // Assess
    expect(s.queries).toHaveLength(2);
    expect(s.events('TransactionReversed')).toEqual([]);
    expect(s.events('TransactionConflict')).toEqual([]);
    const tx = await s.payment();
    expect(tx?.heldReversals?.[0]).toMatchObject({ state: 'asking', asks: 2 });
  });
});

describe('a held Daraja reversal on an account without a status API', () => {
  it('is not asked about: nothing is due, no query is made (its records or a person decide)', async () => {
    // Prepare
    const s = setup(false);
    await s.paid();
    // Act
    expect(await s.post('reversal/result', REVERSED, FORGER_IP)).toBe(200);
    await s.poll();
    // Assess
    expect(s.events('ReversalAmbiguous')).toHaveLength(1);
    expect(s.asked).toEqual([]);
    const tx = await s.payment();
    expect(tx?.heldReversals).toBeUndefined();
  });
});
