import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyReport } from '../../../shared/domain/apply-report';
import type { EventEnvelope, EventOrigin } from '../../../shared/domain/event-envelope';
import { contradicts, decideByPrecedence, type Evidence, rankOf } from '../../../shared/domain/evidence';
import type { NormalizedReport, TransactionRecord } from '../../../shared/domain/transaction';
import { KEY, registered as registeredTx } from '../../helpers/reports';

/**
 * The precedence rule over random sequences of reports from every origin, in any order, authenticated
 * or not, with matching or mismatching amounts (docs/reconciliation.md#precedence).
 */

const START = Date.parse('2026-11-21T10:00:00.000Z');

const registered = (amount: boolean): TransactionRecord =>
  registeredTx({
    amount: amount ? { value: '100', currency: 'EUR' } : undefined,
    reconcile: { dueAt: new Date(START).toISOString(), checks: 0, recent: [] },
  });

interface Step {
  origin: EventOrigin;
  status: 'SUCCEEDED' | 'FAILED' | 'PENDING' | 'AMBIGUOUS' | 'NOT_FOUND' | 'EXPIRED';
  signed: boolean;
  pathSecret: boolean;
  hint: boolean;
  amount: 'registered' | 'other' | 'none';
  notFoundSettles: boolean;
  receipt: number;
}

const stepArb: fc.Arbitrary<Step> = fc.record({
  origin: fc.constantFrom<EventOrigin>('callback', 'buffer', 'poll', 'manual'),
  status: fc.constantFrom('SUCCEEDED', 'FAILED', 'PENDING', 'AMBIGUOUS', 'NOT_FOUND', 'EXPIRED'),
  signed: fc.boolean(),
  pathSecret: fc.boolean(),
  hint: fc.boolean(),
  amount: fc.constantFrom('registered', 'other', 'none'),
  notFoundSettles: fc.boolean(),
  receipt: fc.integer({ min: 1, max: 4 }),
});

const accountArb = fc.record({
  confirmSuccess: fc.boolean(),
  confirmFailure: fc.boolean(),
  registeredAmount: fc.boolean(),
});

/** A step as the pipeline would hand it to applyReport (or undefined when no origin can say that). */
function reportOf(
  step: Step,
  index: number,
  account: { confirmSuccess: boolean; confirmFailure: boolean },
  tx: TransactionRecord,
): NormalizedReport | undefined {
  const at = new Date(START + (index + 1) * 60_000).toISOString();
  const isCallback = step.origin === 'callback' || step.origin === 'buffer';
  // Only the poller reports "not found" and EXPIRED; an operator resolves only EXPIRED/AMBIGUOUS ones.
  if ((step.status === 'NOT_FOUND' || step.status === 'EXPIRED') && step.origin !== 'poll') return undefined;
  if (step.origin === 'manual') {
    if (tx.status !== 'EXPIRED' && tx.status !== 'AMBIGUOUS') return undefined;
    if (step.status !== 'SUCCEEDED' && step.status !== 'FAILED') return undefined;
  }
  const status = step.status === 'NOT_FOUND' ? 'FAILED' : step.status;
  return {
    key: KEY,
    kind: 'requesttopay',
    status,
    reason:
      status === 'FAILED'
        ? {
            code: step.status === 'NOT_FOUND' ? 'NOT_ACCEPTED' : 'REJECTED_BY_CUSTOMER',
            message: undefined,
            providerCode: 'X',
          }
        : undefined,
    providerTransactionId: undefined,
    externalId: undefined,
    amount:
      step.amount === 'none' || status !== 'SUCCEEDED'
        ? undefined
        : { value: step.amount === 'registered' ? '100' : '1', currency: 'EUR' },
    party: undefined,
    receivedAt: at,
    origin: step.origin,
    receiptId: isCallback ? `r${step.receipt}` : undefined,
    attributes: undefined,
    authenticated: isCallback ? step.signed : step.origin !== 'callback',
    ...(isCallback ? { authentication: step.pathSecret ? ['path-secret' as const] : [] } : {}),
    ...(isCallback && account.confirmSuccess ? { needsConfirmation: true } : {}),
    ...(isCallback && account.confirmFailure ? { confirmFailure: true } : {}),
    ...(isCallback && step.hint ? { hint: true } : {}),
    ...(step.status === 'NOT_FOUND'
      ? { notFound: { settles: step.notFoundSettles, answers: 3, since: new Date(START).toISOString() } }
      : {}),
  };
}

interface Run {
  events: EventEnvelope[];
  /** Every state after a write, with the report that made it. */
  writes: { before: TransactionRecord; after: TransactionRecord; report: NormalizedReport }[];
  final: TransactionRecord;
}

type Account = { confirmSuccess: boolean; confirmFailure: boolean; registeredAmount: boolean };

function run(steps: readonly Step[], account: Account): Run {
  let tx = registered(account.registeredAmount);
  const events: EventEnvelope[] = [];
  const writes: Run['writes'] = [];
  steps.forEach((step, index) => {
    const report = reportOf(step, index, account, tx);
    if (!report) return;
    const outcome = applyReport(tx, report, {
      now: report.receivedAt,
      reconcileWindowSeconds: 86_400,
    });
    if (outcome.kind !== 'write') return;
    writes.push({ before: tx, after: outcome.next, report });
    events.push(...outcome.events);
    tx = { ...outcome.next, revision: tx.revision + 1, outbox: [] };
  });
  return { events, writes, final: tx };
}

const sequences = fc.tuple(accountArb, fc.array(stepArb, { minLength: 1, maxLength: 14 }));
const RUNS = { numRuns: 1500 };

describe('the precedence rule over random report sequences', () => {
  it('never reaches SUCCEEDED without authenticated or status-confirmed success evidence', () => {
    fc.assert(
      fc.property(sequences, ([account, steps]) => {
        for (const { before, after } of run(steps, account).writes) {
          if (after.status !== 'SUCCEEDED' || before.status === 'SUCCEEDED') continue;
          const settling = after.transitions.at(-1)?.evidence;
          expect(settling?.claim).toBe('SUCCEEDED');
          expect(settling?.conclusive).toBe(true);
        }
      }),
      RUNS,
    );
  });

  it('never moves to FAILED while authenticated success evidence exists (an operator aside, recorded as such)', () => {
    fc.assert(
      fc.property(sequences, ([account, steps]) => {
        for (const { before, after, report } of run(steps, account).writes) {
          if (after.status !== 'FAILED' || before.status === 'FAILED' || report.origin === 'manual') continue;
          const provenSuccess = (before.evidence ?? []).filter(
            (e) => e.claim === 'SUCCEEDED' && e.conclusive,
          );
          expect(provenSuccess).toEqual([]);
        }
      }),
      RUNS,
    );
  });

  it('publishes exactly one final outcome per transaction (never both, never twice)', () => {
    fc.assert(
      fc.property(sequences, ([account, steps]) => {
        const { events, final } = run(steps, account);
        const outcomes = events.filter(
          (e) => e.metadata.type === 'TransactionSucceeded' || e.metadata.type === 'TransactionFailed',
        );
        expect(outcomes.length).toBeLessThanOrEqual(1);
        expect(events.filter((e) => e.metadata.type === 'TransactionExpired').length).toBeLessThanOrEqual(1);
        if (final.status === 'SUCCEEDED' || final.status === 'FAILED') expect(outcomes).toHaveLength(1);
        if (outcomes[0]) expect(outcomes[0].data.status).toBe(final.status);
      }),
      RUNS,
    );
  });

  it('raises a TransactionConflict for every disagreement that involves evidence able to settle', () => {
    fc.assert(
      fc.property(sequences, ([account, steps]) => {
        const { events, final } = run(steps, account);
        const recorded = final.evidence ?? [];
        const disagreement = recorded.some((a) =>
          recorded.some(
            (b) =>
              a !== b &&
              contradicts(a.claim, b.claim) &&
              (a.conclusive || b.conclusive) &&
              // "not found" disagrees with what a callback said (the status API's own answers aside)
              !(a.claim === 'NOT_FOUND' && b.source === 'status-api') &&
              !(b.claim === 'NOT_FOUND' && a.source === 'status-api'),
          ),
        );
        if (disagreement) expect(events.map((e) => e.metadata.type)).toContain('TransactionConflict');
      }),
      RUNS,
    );
  });

  it('lists the report that settled a final outcome in the event evidence', () => {
    fc.assert(
      fc.property(sequences, ([account, steps]) => {
        const { events, writes } = run(steps, account);
        for (const event of events) {
          if (event.metadata.type !== 'TransactionSucceeded' && event.metadata.type !== 'TransactionFailed')
            continue;
          const write = writes.find((w) => w.after.outbox.includes(event))!;
          const settling = write.after.transitions.at(-1)?.evidence;
          expect(event.data.evidence).toContainEqual(settling);
        }
      }),
      RUNS,
    );
  });

  it('never settles on "not found" while a callback reported on the reference', () => {
    fc.assert(
      fc.property(sequences, ([account, steps]) => {
        for (const { before, after, report } of run(steps, account).writes) {
          if (!report.notFound || after.status !== 'FAILED' || before.status === 'FAILED') continue;
          expect(
            (before.evidence ?? []).filter((e) => e.source === 'callback' || e.source === 'buffer'),
          ).toEqual([]);
        }
      }),
      RUNS,
    );
  });
});

describe('decideByPrecedence', () => {
  const evidence = (overrides: Partial<Evidence>): Evidence => ({
    source: 'callback',
    claim: 'SUCCEEDED',
    authenticated: true,
    authentication: ['path-secret'],
    conclusive: false,
    at: '2026-11-25T10:00:00.000Z',
    providerCode: null,
    description: null,
    amount: null,
    receiptId: 'r1',
    ...overrides,
  });

  it('ranks operator > signed callback or receipt > status answer > unconfirmed callback > not found', () => {
    // Prepare
    const ranked = [
      evidence({ source: 'operator', authentication: ['operator'], conclusive: true }),
      evidence({ authentication: ['signature'], conclusive: true }),
      evidence({ source: 'receipt', authentication: ['receipt'], conclusive: true }),
      evidence({ source: 'status-api', authentication: ['status-api'], conclusive: true }),
      evidence({}),
      evidence({
        source: 'status-api',
        claim: 'NOT_FOUND',
        authentication: ['status-api'],
        conclusive: true,
      }),
    ];
    // Act
    const ranks = ranked.map(rankOf);
    // Assess
    expect(ranks).toEqual([4, 3, 3, 2, 1, 0]);
  });

  it('makes a status answer that contradicts a signed success a conflict, never a verdict', () => {
    // Act
    const verdict = decideByPrecedence(
      [evidence({ authentication: ['signature'], conclusive: true })],
      evidence({ source: 'status-api', claim: 'FAILED', authentication: ['status-api'], conclusive: true }),
    );
    // Assess
    expect(verdict.kind).toBe('conflict');
  });

  it('lets a status answer settle over an unconfirmed callback, naming what it overrules', () => {
    // Act
    const verdict = decideByPrecedence(
      [evidence({})],
      evidence({ source: 'status-api', claim: 'FAILED', authentication: ['status-api'], conclusive: true }),
    );
    // Assess
    expect(verdict).toMatchObject({ kind: 'settle', status: 'FAILED', against: { source: 'callback' } });
  });

  it('makes "not found" after any callback report a conflict, and holds it otherwise', () => {
    const notFound = evidence({ source: 'status-api', claim: 'NOT_FOUND', authentication: ['status-api'] });
    expect(decideByPrecedence([evidence({ claim: 'PENDING' })], notFound).kind).toBe('conflict');
    expect(decideByPrecedence([], notFound)).toEqual({ kind: 'hold', check: false });
  });
});
