/**
 * Only money that came in goes back. Daraja's reversal result (from Safaricom's address) about a payment the
 * relay holds FAILED contradicts that verdict: it is not counted as a reversal; it is said as a
 * TransactionConflict for a person, whatever arrived first.
 */
import { describe, expect, it } from 'vitest';
import { resolveOrRequest } from '../../../shared/app/operations/approvals';
import type { Actor } from '../../../shared/domain/actor';
import { DARAJA_IP, darajaWorld, fixture, FORGER_IP } from './forged-daraja-world';

/** The reversal result of fixtures/daraja/reversal-result-success.json names payment NLJ7RT61SV. */
const RECEIPT = 'NLJ7RT61SV';
const ann: Actor = { id: 'ann', name: 'Ann', email: null, role: 'operator', via: 'token' };
const confirmationOf = (receipt: string) => fixture('c2b-confirmation').replace('RKTQDM7W6S', receipt);

describe('a reversal result about a payment not held as paid', () => {
  it('a payment resolved FAILED: TransactionConflict, no TransactionReversed, nothing counted', async () => {
    // Prepare: an unconfirmed confirmation (AMBIGUOUS), resolved FAILED by a person.
    const w = darajaWorld({ mode: 'log-only' });
    expect(await w.post('c2b/confirmation', confirmationOf(RECEIPT), FORGER_IP)).toBe(200);
    await resolveOrRequest(
      w.services,
      { provider: 'daraja', account: 'ke', reference: RECEIPT },
      { status: 'FAILED', note: 'not on the statement' },
      ann,
    );
    expect((await w.transaction(RECEIPT))?.status).toBe('FAILED');
    // Act
    expect(await w.post('reversal/result', fixture('reversal-result-success'), DARAJA_IP)).toBe(200);
    // Assess
    expect(w.types()).not.toContain('TransactionReversed');
    const conflict = w.events('TransactionConflict').at(-1);
    expect(conflict?.data).toMatchObject({
      reference: RECEIPT,
      conflict: { kind: 'STATUS', currentStatus: 'FAILED' },
    });
    expect(String((conflict?.data as { conflict: { detail: string } }).conflict.detail)).toContain(
      'not counted',
    );
    const tx = await w.transaction(RECEIPT);
    expect(tx?.status).toBe('FAILED');
    expect(tx?.reversals ?? []).toEqual([]);
  });

  it('a paid one (Daraja’s own confirmation) is reversed as before', async () => {
    // Prepare
    const w = darajaWorld({ mode: 'log-only' });
    await w.post('c2b/confirmation', confirmationOf(RECEIPT), DARAJA_IP);
    // Act
    await w.post('reversal/result', fixture('reversal-result-success'), DARAJA_IP);
    // Assess
    expect(w.types()).toEqual(['TransactionSucceeded', 'TransactionReversed']);
    expect((await w.transaction(RECEIPT))?.reversals).toHaveLength(1);
  });
});
