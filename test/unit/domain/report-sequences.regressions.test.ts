/**
 * Sequences the model-based review (report-sequences.model.property.test.ts) found deciding wrongly, each
 * as it ends now: an unconfirmed non-final report sets neither the amount nor the payer, a stronger
 * restatement of a conflict is an event of its own, and the very same delivery again is no news.
 */
import { describe, expect, it } from 'vitest';
import { decideReport } from '../../../shared/app/transactions/decide-report';
import { applyReport } from '../../../shared/domain/apply-report';
import { applyRegistration } from '../../../shared/domain/registration';
import type { NormalizedReport, TransactionRecord } from '../../../shared/domain/transaction';
import { KEY, registered, report } from '../../helpers/reports';

const ctx = (now: string) => ({ now, reconcileWindowSeconds: 86_400 });
const T = (m: number) => new Date(Date.parse('2026-11-21T10:00:00.000Z') + m * 60_000).toISOString();
const unsigned = { authenticated: false, authentication: ['path-secret' as const] };

/** Applies each report as the store would: the write's outbox published, the next read without it. */
function applyAll(tx: TransactionRecord, reports: NormalizedReport[]) {
  const events: { type: string; id: string; kind?: string }[] = [];
  for (const r of reports) {
    const o = applyReport(tx, r, ctx(r.receivedAt));
    if (o.kind !== 'write') continue;
    events.push(
      ...o.events.map((e) => ({
        type: e.metadata.type,
        id: e.metadata.id,
        kind: (e.data as { conflict?: { kind: string } }).conflict?.kind,
      })),
    );
    tx = { ...o.next, revision: tx.revision + 1, outbox: [] };
  }
  return { tx, events };
}

/** MTN's own status answer: SUCCESSFUL for the registered 100 EUR. */
const statusSuccess = (at: string, overrides: Partial<NormalizedReport> = {}) =>
  report({ origin: 'poll', receiptId: undefined, authenticated: true, receivedAt: at, ...overrides });

describe('an unconfirmed report that is not an outcome takes nothing it claims', () => {
  it("sets no amount: the provider's answer settles in either order", () => {
    // Prepare: registered without an amount; a forged AMBIGUOUS MoMo callback claims 1 EUR.
    const tx = registered({ amount: undefined });
    const forged = report({
      ...unsigned,
      status: 'AMBIGUOUS',
      amount: { value: '1', currency: 'EUR' },
      needsConfirmation: true,
      receiptId: 'r1',
      receivedAt: T(1),
      providerTransactionId: undefined,
      party: undefined,
    });
    const answer = statusSuccess(T(2), { party: undefined });
    // Act
    const forward = applyAll(tx, [forged, answer]);
    const backward = applyAll(tx, [answer, forged]);
    // Assess
    expect(forward.tx).toMatchObject({ status: 'SUCCEEDED', amount: { value: '100', currency: 'EUR' } });
    expect(backward.tx.status).toBe('SUCCEEDED');
    expect(forward.events.map((e) => e.kind ?? e.type)).not.toContain('AMOUNT_MISMATCH');
  });

  it('replaces no registered payer: the success publishes the registered MSISDN', () => {
    // Prepare
    const tx = registered({ msisdn: '46733123459', party: { idType: 'MSISDN', id: '46733123459' } });
    const forged = report({
      ...unsigned,
      status: 'AMBIGUOUS',
      amount: undefined,
      party: { idType: 'MSISDN', id: '46733999999' },
      needsConfirmation: true,
      receiptId: 'r1',
      receivedAt: T(1),
      providerTransactionId: undefined,
    });
    // Act
    const { tx: after } = applyAll(tx, [forged, statusSuccess(T(2), { party: undefined })]);
    // Assess
    expect(after).toMatchObject({ status: 'SUCCEEDED', party: { id: '46733123459' } });
  });

  it("gives an orphan no MSISDN from an unconfirmed claim: the real payer's signed success settles it", () => {
    // Prepare
    const claim = report({
      ...unsigned,
      party: { idType: 'MSISDN', id: '46733999999' },
      needsConfirmation: true,
      receiptId: 'r1',
      receivedAt: T(1),
    });
    const signed = report({
      party: { idType: 'MSISDN', id: '46733123459' },
      authenticated: true,
      receiptId: 'r2',
      receivedAt: T(2),
    });
    const born = applyReport(undefined, claim, ctx(T(1)));
    if (born.kind !== 'write') throw new Error('expected the orphan');
    // Act
    const { tx, events } = applyAll({ ...born.next, revision: 1, outbox: [] }, [signed]);
    // Assess
    expect(born.next.msisdn).toBeUndefined();
    expect(born.next.providerTransactionId).toBeUndefined();
    expect(tx.status).toBe('SUCCEEDED');
    expect(events.map((e) => e.kind ?? e.type)).not.toContain('MSISDN_MISMATCH');
  });
});

describe('a conflict said again by stronger evidence is an event of its own', () => {
  it('an amount mismatch an unsigned callback said, then a signed one: two events, two ids', () => {
    // Act
    const { events } = applyAll(registered(), [
      report({ ...unsigned, amount: { value: '1', currency: 'EUR' }, receiptId: 'r1', receivedAt: T(1) }),
      report({
        amount: { value: '1', currency: 'EUR' },
        authenticated: true,
        receiptId: 'r2',
        receivedAt: T(2),
      }),
    ]);
    // Assess
    const ids = events.filter((e) => e.type === 'TransactionConflict').map((e) => e.id);
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
  });

  it('a receipt conflict a status answer said, then a signed callback: two events, two ids', () => {
    // Prepare: SUCCEEDED with receipt P1 (a trusted callback).
    let tx = applyAll(registered(), [
      report({ ...unsigned, receiptId: 'r1', receivedAt: T(1), providerTransactionId: 'P1' }),
    ]).tx;
    const ids: string[] = [];
    // Act
    for (const r of [
      statusSuccess(T(2), { providerTransactionId: 'P2' }),
      report({ authenticated: true, receiptId: 'r3', receivedAt: T(3), providerTransactionId: 'P2' }),
    ]) {
      const o = decideReport(tx, r, ctx(r.receivedAt));
      if (o.kind !== 'write') throw new Error('expected a write');
      ids.push(...o.events.map((e) => e.metadata.id));
      tx = { ...o.next, outbox: [] };
    }
    // Assess
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
  });
});

describe('the very same delivery again is no news', () => {
  it('its copy from the ingress buffer after the verdict', () => {
    // Prepare: an unconfirmed success, then the status API says FAILED.
    const direct = report({ ...unsigned, needsConfirmation: true, receiptId: 'r1', receivedAt: T(1) });
    const failed = statusSuccess(T(2), {
      status: 'FAILED',
      amount: undefined,
      reason: { code: 'REJECTED_BY_CUSTOMER', message: undefined, providerCode: 'REJECTED' },
    });
    const settled = applyAll(registered(), [direct, failed]).tx;
    expect(settled.status).toBe('FAILED');
    // Act + Assess
    expect(applyReport(settled, { ...direct, origin: 'buffer' }, ctx(T(3))).kind).toBe('noop');
  });

  it("the orphan's own delivery after its registration named another MSISDN", () => {
    // Prepare
    const orphanCallback = report({
      ...unsigned,
      party: { idType: 'MSISDN', id: '46733999999' },
      receiptId: 'r1',
      receivedAt: T(1),
    });
    const born = applyReport(undefined, orphanCallback, ctx(T(1)));
    if (born.kind !== 'write') throw new Error('expected the orphan');
    const adopted = applyRegistration(
      { ...born.next, revision: 1, outbox: [] },
      {
        key: KEY,
        kind: 'requesttopay',
        amount: { value: '100', currency: 'EUR' },
        msisdn: '46733123459',
        externalId: 'order-8841',
        metadata: undefined,
        reconcileUntil: T(1440),
        firstCheckAt: T(2),
      },
      T(2),
    );
    if (adopted.kind !== 'adopt') throw new Error('expected the adoption');
    // Act
    const replay = applyReport({ ...adopted.next, revision: 2, outbox: [] }, orphanCallback, ctx(T(3)));
    // Assess
    expect(replay.kind).toBe('noop');
  });

  it('an earlier unconfirmed success again after a held failure contradicting it', () => {
    // Prepare
    const success = report({ ...unsigned, needsConfirmation: true, receiptId: 'r1', receivedAt: T(1) });
    const failure = report({
      ...unsigned,
      status: 'FAILED',
      amount: undefined,
      confirmFailure: true,
      receiptId: 'r2',
      receivedAt: T(2),
      reason: { code: 'REJECTED_BY_CUSTOMER', message: undefined, providerCode: 'X' },
    });
    const { tx: held } = applyAll(registered(), [success, failure]);
    // Act + Assess
    expect(applyReport(held, success, ctx(T(3))).kind).toBe('noop');
  });
});
