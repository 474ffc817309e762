import { describe, expect, it } from 'vitest';
import { applyReport } from '../../../shared/domain/apply-report';
import { KindMismatchError } from '../../../shared/domain/errors';
import { registered, report } from '../../helpers/reports';

const ctx = { now: '2026-11-21T10:00:01.000Z', reconcileWindowSeconds: 3600 };

describe('applyReport', () => {
  it('moves a registered PENDING transaction to SUCCEEDED and emits TransactionSucceeded', () => {
    // Prepare
    const tx = registered();
    // Act
    const outcome = applyReport(tx, report(), ctx);
    // Assess
    expect(outcome.kind).toBe('write');
    if (outcome.kind !== 'write') return;
    expect(outcome.next.status).toBe('SUCCEEDED');
    expect(outcome.next.providerTransactionId).toBe('363440463');
    expect(outcome.events.map((e) => e.metadata.type)).toEqual(['TransactionSucceeded']);
    expect(outcome.events[0]!.data).toMatchObject({
      status: 'SUCCEEDED',
      amount: { value: '100', currency: 'EUR' },
    });
    expect(outcome.next.outbox).toEqual(outcome.events);
    expect(outcome.next.transitions).toEqual([
      {
        from: 'PENDING',
        to: 'SUCCEEDED',
        at: '2026-11-21T10:00:00.000Z',
        origin: 'callback',
        receiptId: 'r1',
        evidence: expect.objectContaining({ source: 'callback', claim: 'SUCCEEDED', receiptId: 'r1' }),
      },
    ]);
  });

  it('gives the same fact the same event id whichever path reported it', () => {
    const byCallback = applyReport(registered(), report({ origin: 'callback', receiptId: 'a' }), ctx);
    const byPoll = applyReport(
      registered(),
      report({ origin: 'poll', receiptId: undefined, receivedAt: '2026-11-21T11:00:00.000Z' }),
      ctx,
    );
    if (byCallback.kind !== 'write' || byPoll.kind !== 'write') throw new Error('expected writes');
    expect(byCallback.events[0]!.metadata.id).toBe(byPoll.events[0]!.metadata.id);
    const failed = applyReport(registered(), report({ status: 'FAILED' }), ctx);
    if (failed.kind !== 'write') throw new Error('expected write');
    expect(failed.events[0]!.metadata.id).not.toBe(byCallback.events[0]!.metadata.id);
  });

  it('does nothing when the same final status is reported again', () => {
    const outcome = applyReport(registered({ status: 'SUCCEEDED' }), report(), ctx);
    expect(outcome).toEqual({ kind: 'noop', why: 'same-status' });
  });

  it('ignores a PENDING report that arrives after SUCCESSFUL (out of order)', () => {
    const outcome = applyReport(registered({ status: 'SUCCEEDED' }), report({ status: 'PENDING' }), ctx);
    expect(outcome).toEqual({ kind: 'noop', why: 'stale' });
  });

  it('keeps the first final status and emits TransactionConflict when a different final status is reported', () => {
    const outcome = applyReport(
      registered({ status: 'SUCCEEDED' }),
      report({
        status: 'FAILED',
        reason: { code: 'PROVIDER_ERROR', message: undefined, providerCode: 'INTERNAL_PROCESSING_ERROR' },
      }),
      ctx,
    );
    expect(outcome.kind).toBe('write');
    if (outcome.kind !== 'write') return;
    expect(outcome.effect).toBe('conflict');
    expect(outcome.next.status).toBe('SUCCEEDED');
    expect(outcome.events.map((e) => e.metadata.type)).toEqual(['TransactionConflict']);
    expect(outcome.events[0]!.data).toMatchObject({
      status: 'SUCCEEDED',
      conflict: { kind: 'STATUS', currentStatus: 'SUCCEEDED', reportedStatus: 'FAILED' },
    });
  });

  it('records a repeated conflicting report only once', () => {
    const first = applyReport(registered({ status: 'SUCCEEDED' }), report({ status: 'FAILED' }), ctx);
    if (first.kind !== 'write') throw new Error('expected write');
    const second = applyReport(first.next, report({ status: 'FAILED' }), ctx);
    expect(second).toEqual({ kind: 'noop', why: 'conflict-already-recorded' });
  });

  it('raises the conflict again when the status API confirms a success a callback claimed after a FAILED', () => {
    // Prepare: failed (the relay's verdict), then a late unconfirmed success callback: one conflict.
    const failed = registered({ status: 'FAILED' });
    const late = applyReport(failed, report({ status: 'SUCCEEDED', needsConfirmation: true }), ctx);
    if (late.kind !== 'write') throw new Error('expected write');
    const answer = report({ status: 'SUCCEEDED', origin: 'poll', receiptId: undefined, authenticated: true });
    // Act
    const confirmed = applyReport(late.next, answer, ctx);
    if (confirmed.kind !== 'write') throw new Error('expected write');
    const again = applyReport(confirmed.next, answer, ctx);
    // Assess: the provider's own answer is named in a conflict of its own, once; the status stays FAILED.
    expect(confirmed.next.status).toBe('FAILED');
    const [event] = confirmed.events;
    expect(event?.metadata.type).toBe('TransactionConflict');
    expect(event?.metadata.id).not.toBe(late.events[0]?.metadata.id);
    const evidence = (event?.data as { conflict: { evidence: { source: string }[] } }).conflict.evidence;
    expect(evidence.at(-1)?.source).toBe('status-api');
    expect(again).toEqual({ kind: 'noop', why: 'conflict-already-recorded' });
  });

  it('never reports success when the amount differs from the registered one: AMBIGUOUS and escalated', () => {
    const outcome = applyReport(registered(), report({ amount: { value: '10', currency: 'EUR' } }), ctx);
    if (outcome.kind !== 'write') throw new Error('expected write');
    expect(outcome.next.status).toBe('AMBIGUOUS');
    expect(outcome.next.reason).toMatchObject({
      code: 'CONFLICTING_REPORTS',
      message: expect.stringContaining('amount 10'),
    });
    expect(outcome.next.reconcile?.escalatedAt).toBe(ctx.now);
    expect(outcome.events.map((e) => e.metadata.type)).toEqual([
      'TransactionAmbiguous',
      'TransactionConflict',
      'TransactionEscalated',
    ]);
    expect(outcome.next.conflicts[0]).toMatchObject({ kind: 'AMOUNT_MISMATCH', reportedStatus: 'SUCCEEDED' });
    // The claim is about another payment: it is kept in the conflict, never as evidence for the status.
    expect(outcome.next.evidence ?? []).toEqual(registered().evidence ?? []);
  });

  it('makes a second, different mismatching success its own conflict; an identical repeat only counts', () => {
    // Prepare: a success for another amount has made the transaction AMBIGUOUS
    const first = applyReport(
      registered(),
      report({
        amount: { value: '100.004', currency: 'EUR' },
        providerTransactionId: 'RCPTAMT1',
        receiptId: 'r1',
      }),
      ctx,
    );
    if (first.kind !== 'write') throw new Error('expected write');
    // Act: another success, another amount and receipt; then the first one again in another delivery
    const second = applyReport(
      first.next,
      report({
        amount: { value: '7000', currency: 'EUR' },
        providerTransactionId: 'RCPTAMT2',
        receiptId: 'r2',
      }),
      ctx,
    );
    if (second.kind !== 'write') throw new Error('expected write');
    const repeat = applyReport(
      second.next,
      report({
        amount: { value: '100.004', currency: 'EUR' },
        providerTransactionId: 'RCPTAMT1',
        receiptId: 'r3',
      }),
      ctx,
    );
    if (repeat.kind !== 'write') throw new Error('expected write');
    // Assess
    expect(second.next.status).toBe('AMBIGUOUS');
    expect(second.events.map((e) => e.metadata.type)).toEqual(['TransactionConflict']);
    expect(second.events[0]!.metadata.id).not.toBe(first.events[1]!.metadata.id);
    expect(second.events[0]!.data).toMatchObject({
      conflict: { reportedAmount: { value: '7000' }, reportedProviderTransactionId: 'RCPTAMT2' },
    });
    expect(repeat.events).toEqual([]);
    expect(repeat.next.conflicts).toMatchObject([
      { kind: 'AMOUNT_MISMATCH', receiptId: 'r1', repeats: 1, lastReceiptId: 'r3' },
      { kind: 'AMOUNT_MISMATCH', receiptId: 'r2', detail: expect.stringContaining('7000') },
    ]);
    expect(repeat.next.conflicts[1]!.repeats).toBeUndefined();
  });

  it('never downgrades a final status for a mismatching success: the conflict is said, the status kept', () => {
    const outcome = applyReport(
      registered({ status: 'FAILED' }),
      report({ amount: { value: '10', currency: 'EUR' } }),
      ctx,
    );
    if (outcome.kind !== 'write') throw new Error('expected write');
    expect(outcome.next.status).toBe('FAILED');
    expect(outcome.events.map((e) => e.metadata.type)).toEqual(['TransactionConflict']);
  });

  it('treats 100 and 100.00 as the same amount but a different currency as a mismatch', () => {
    const same = applyReport(registered(), report({ amount: { value: '100.00', currency: 'EUR' } }), ctx);
    expect(same.kind === 'write' && same.next.status).toBe('SUCCEEDED');
    const otherCurrency = applyReport(
      registered(),
      report({ amount: { value: '100', currency: 'UGX' } }),
      ctx,
    );
    expect(otherCurrency.kind === 'write' && otherCurrency.next.status).toBe('AMBIGUOUS');
  });

  it('never reports success when another MSISDN paid than the one registered', () => {
    const tx = registered({ msisdn: '254708374149' });
    const other = applyReport(tx, report({ party: { idType: 'MSISDN', id: '254700000001' } }), ctx);
    if (other.kind !== 'write') throw new Error('expected write');
    expect(other.next.status).toBe('AMBIGUOUS');
    expect(other.next.conflicts[0]).toMatchObject({ kind: 'MSISDN_MISMATCH' });
    // The event and the record carry masked numbers only.
    expect(JSON.stringify(other.events)).not.toContain('254700000001');
    // The same number in another notation, or a masked one, is not a mismatch.
    const same = applyReport(tx, report({ party: { idType: 'MSISDN', id: '+254 708 374149' } }), ctx);
    expect(same.kind === 'write' && same.next.status).toBe('SUCCEEDED');
    const masked = applyReport(tx, report({ party: { idType: 'MSISDN', id: '25470****149' } }), ctx);
    expect(masked.kind === 'write' && masked.next.status).toBe('SUCCEEDED');
  });

  it('creates an unregistered transaction for an orphan callback and emits CallbackOrphaned first', () => {
    const outcome = applyReport(undefined, report(), ctx);
    if (outcome.kind !== 'write') throw new Error('expected write');
    expect(outcome.effect).toBe('orphan-created');
    expect(outcome.next.registered).toBe(false);
    expect(outcome.next.status).toBe('SUCCEEDED');
    expect(outcome.next.reconcileUntil).toBe('2026-11-21T11:00:01.000Z');
    expect(outcome.events.map((e) => e.metadata.type)).toEqual(['CallbackOrphaned', 'TransactionSucceeded']);
  });

  it('stores an orphan PENDING report as a pending transaction with only CallbackOrphaned', () => {
    const outcome = applyReport(undefined, report({ status: 'PENDING' }), ctx);
    if (outcome.kind !== 'write') throw new Error('expected write');
    expect(outcome.next.status).toBe('PENDING');
    expect(outcome.events.map((e) => e.metadata.type)).toEqual(['CallbackOrphaned']);
  });

  it('moves PENDING to AMBIGUOUS and then to FAILED, emitting an event for each', () => {
    const ambiguous = applyReport(registered(), report({ status: 'AMBIGUOUS' }), ctx);
    if (ambiguous.kind !== 'write') throw new Error('expected write');
    expect(ambiguous.events.map((e) => e.metadata.type)).toEqual(['TransactionAmbiguous']);
    const failed = applyReport(ambiguous.next, report({ status: 'FAILED' }), ctx);
    if (failed.kind !== 'write') throw new Error('expected write');
    expect(failed.next.status).toBe('FAILED');
    expect(failed.events.map((e) => e.metadata.type)).toEqual(['TransactionFailed']);
    expect(failed.next.events.map((e) => e.type)).toEqual(['TransactionAmbiguous', 'TransactionFailed']);
    // The outbox holds only what this write adds; earlier events were published with earlier writes.
    expect(failed.next.outbox.map((e) => e.metadata.type)).toEqual(['TransactionFailed']);
  });
});

describe('applyReport: hostile corners', () => {
  it('refuses a callback whose path names another kind than the registration (a FAILED on /deposit never fails a requesttopay)', () => {
    // Act
    const attempt = () =>
      applyReport(registered(), report({ kind: 'deposit', kindFromPath: true, status: 'FAILED' }), ctx);
    // Assess
    expect(attempt).toThrow(KindMismatchError);
    expect(attempt).toThrow(/registered as a requesttopay/);
  });

  it('lets hints bring a status check forward at most once per hintRecheckSeconds', () => {
    // Prepare: checked 10 s ago, next check an hour away.
    const checkedAt = '2026-11-21T10:00:00.000Z';
    const tx = registered({
      reconcile: {
        dueAt: '2026-11-21T11:00:00.000Z',
        checks: 1,
        recent: [{ at: checkedAt, answer: 'pending', detail: 'PENDING' }],
      },
    });
    const hint = (receiptId: string, now: string) =>
      applyReport(tx, report({ hint: true, receiptId, receivedAt: now }), {
        ...ctx,
        now,
        hintRecheckSeconds: 60,
      });
    // Act
    const soon = hint('h1', '2026-11-21T10:00:10.000Z');
    const later = hint('h2', '2026-11-21T10:02:00.000Z');
    // Assess
    expect(soon.kind === 'write' && soon.next.reconcile?.dueAt).toBe('2026-11-21T10:01:00.000Z');
    expect(later.kind === 'write' && later.next.reconcile?.dueAt).toBe('2026-11-21T10:02:00.000Z');
  });
});

describe('applyReport: contradicting claims and floods of them (issue 27)', () => {
  const write = (outcome: ReturnType<typeof applyReport>) => {
    if (outcome.kind !== 'write') throw new Error(`expected a write, got ${JSON.stringify(outcome)}`);
    return outcome;
  };

  it('surfaces a success claimed after a held FAILED as a conflict, whatever the account confirms', () => {
    // Prepare: an unsigned FAILED the account holds for confirmation; the transaction stays PENDING.
    const held = write(
      applyReport(registered(), report({ status: 'FAILED', confirmFailure: true, receiptId: 'f1' }), ctx),
    );

    // Act: an unsigned success on an account that confirms successes.
    const claimed = write(applyReport(held.next, report({ needsConfirmation: true, receiptId: 's1' }), ctx));

    // Assess
    expect(held.next.status).toBe('PENDING');
    expect(claimed.next.status).toBe('AMBIGUOUS');
    expect(claimed.events.map((e) => e.metadata.type)).toEqual([
      'TransactionConflict',
      'TransactionAmbiguous',
    ]);
    expect(claimed.next.conflicts).toHaveLength(1);
    expect(claimed.next.conflicts[0]!.evidence!.map((e) => e.claim)).toEqual(['FAILED', 'SUCCEEDED']);
  });

  it('surfaces a held FAILED claimed after an unconfirmed success as a conflict', () => {
    // Prepare
    const unconfirmed = write(
      applyReport(registered(), report({ needsConfirmation: true, receiptId: 's1' }), ctx),
    );

    // Act
    const failed = write(
      applyReport(unconfirmed.next, report({ status: 'FAILED', confirmFailure: true, receiptId: 'f1' }), ctx),
    );

    // Assess
    expect(failed.next.status).toBe('AMBIGUOUS');
    expect(failed.events.map((e) => e.metadata.type)).toEqual(['TransactionConflict']);
    expect(failed.next.reconcile?.dueAt).toBe(ctx.now);
  });

  it("keeps an unconfirmed success's transaction id and payer off the verdict that refutes it", () => {
    // Prepare: an unsigned success naming its own id and payer, held AMBIGUOUS for the status API.
    const unconfirmed = write(
      applyReport(
        registered({ party: undefined }),
        report({
          needsConfirmation: true,
          receiptId: 's1',
          providerTransactionId: '999',
          party: { idType: 'MSISDN', id: '46733123451' },
        }),
        ctx,
      ),
    );

    // Act: the provider's own answer, FAILED, with no id of its own.
    const failed = write(
      applyReport(
        unconfirmed.next,
        report({
          status: 'FAILED',
          origin: 'poll',
          receiptId: undefined,
          providerTransactionId: undefined,
          party: undefined,
        }),
        ctx,
      ),
    );

    // Assess: a claim to ask about, never the payment's id; not on the failed transaction or its event.
    expect(unconfirmed.next.status).toBe('AMBIGUOUS');
    expect(unconfirmed.next.providerTransactionId).toBeUndefined();
    expect(unconfirmed.next.receiptClaims).toEqual(['999']);
    expect(failed.next.status).toBe('FAILED');
    expect(failed.next.providerTransactionId).toBeUndefined();
    expect(failed.next.party).toBeUndefined();
    const final = failed.events.find((e) => e.metadata.type === 'TransactionFailed')!;
    expect(final.data.providerTransactionId ?? null).toBeNull();
    expect(final.data.party ?? null).toBeNull();
  });

  it("keeps an unconfirmed success's receipt a claim to ask about when a confirmation that names none settles it", () => {
    // Prepare: an STK success from outside the allow-list (log-only), with its M-Pesa receipt.
    const unconfirmed = write(
      applyReport(
        registered({ party: undefined }),
        report({ needsConfirmation: true, receiptId: 's1', providerTransactionId: 'NLJ7RT61SV' }),
        ctx,
      ),
    );

    // Act: the STK query's SUCCEEDED, which carries no receipt.
    const confirmed = write(
      applyReport(
        unconfirmed.next,
        report({ origin: 'poll', receiptId: undefined, providerTransactionId: undefined }),
        ctx,
      ),
    );

    // Assess: the sender's word names the receipt, the provider's does not: not published as the
    // payment's; the payment stays due for one window so the poller asks the provider about the claim.
    expect(confirmed.next.status).toBe('SUCCEEDED');
    expect(confirmed.next.providerTransactionId).toBeUndefined();
    expect(confirmed.next.receiptClaims).toEqual(['NLJ7RT61SV']);
    expect(confirmed.next.reconcile).toMatchObject({
      dueAt: ctx.now,
      recheckUntil: new Date(Date.parse(ctx.now) + ctx.reconcileWindowSeconds * 1000).toISOString(),
    });
    const final = confirmed.events.find((e) => e.metadata.type === 'TransactionSucceeded')!;
    expect(final.data.providerTransactionId ?? null).toBeNull();
  });

  it('publishes one conflict for 25 forged FAILED claims on a SUCCEEDED transaction and counts the repeats', () => {
    // Prepare: a genuine conflict recorded first (another amount claimed), then the payment succeeded.
    const mismatch = write(
      applyReport(registered(), report({ amount: { value: '1', currency: 'EUR' }, receiptId: 'm' }), ctx),
    );
    let tx = write(applyReport(mismatch.next, report({ receiptId: 'ok' }), ctx)).next;
    const published: string[] = [];

    // Act: 25 distinct unsigned FAILED bodies.
    for (let i = 0; i < 25; i++) {
      const outcome = write(
        applyReport(tx, report({ status: 'FAILED', confirmFailure: true, receiptId: `forged-${i}` }), ctx),
      );
      published.push(...outcome.events.map((e) => e.metadata.type));
      tx = outcome.next;
    }

    // Assess
    expect(tx.status).toBe('SUCCEEDED');
    expect(published).toEqual(['TransactionConflict']);
    expect(tx.conflicts.map((c) => c.kind)).toEqual(['AMOUNT_MISMATCH', 'STATUS']);
    expect(tx.conflicts[1]).toMatchObject({ repeats: 24, lastReceiptId: 'forged-24' });
    expect(new Set(tx.events.map((e) => e.id)).size).toBe(tx.events.length);
  });

  it('leaves a conflict untouched when the very same delivery comes again', () => {
    // Prepare
    const tx = write(
      applyReport(registered({ status: 'SUCCEEDED' }), report({ status: 'FAILED', receiptId: 'x' }), ctx),
    ).next;

    // Act
    const again = applyReport(tx, report({ status: 'FAILED', receiptId: 'x' }), ctx);

    // Assess
    expect(again).toEqual({ kind: 'noop', why: 'conflict-already-recorded' });
  });
});
