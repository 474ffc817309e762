import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EventEnvelope } from '../../../shared/domain/event-envelope';
import { contradicts, rankOf } from '../../../shared/domain/evidence';
import type { TransactionStatus } from '../../../shared/domain/status';
import {
  type Account,
  accountArb,
  ARB,
  callbackArb,
  run,
  type Run,
  type Step,
  stepArb,
} from './report-sequences.model';

const { ptidArb, REG_AMOUNT, REG_MSISDN } = ARB;
type Amount = 'reg' | 'other' | 'none';
type Party = 'reg' | 'other' | 'none';

const RANK: Record<TransactionStatus, number> = {
  PENDING: 0,
  AMBIGUOUS: 1,
  SUCCEEDED: 2,
  FAILED: 2,
  EXPIRED: 2,
};
const FINAL_EVENTS = new Set(['TransactionSucceeded', 'TransactionFailed', 'TransactionExpired']);

const sequences = fc.tuple(accountArb, fc.array(stepArb, { minLength: 1, maxLength: 16 }));
/** PROP_SCALE=10 for a longer search. */
const SCALE = Number(process.env.PROP_SCALE ?? 1);
const RUNS = { numRuns: 1500 * SCALE };

describe('report sequences against the contract (model-based)', () => {
  it('status never moves backward; SUCCEEDED/FAILED never change; EXPIRED only to SUCCEEDED/FAILED', () => {
    fc.assert(
      fc.property(sequences, ([account, steps]) => {
        for (const w of run(steps, account).writes) {
          if (!w.before) continue;
          const from = w.before.status;
          const to = w.after.status;
          if (from === to) continue;
          expect(RANK[to], `${from} → ${to}`).toBeGreaterThanOrEqual(RANK[from]);
          expect(from === 'SUCCEEDED' || from === 'FAILED', `${from} → ${to}`).toBe(false);
          if (from === 'EXPIRED') expect(['SUCCEEDED', 'FAILED']).toContain(to);
        }
      }),
      RUNS,
    );
  });

  it('publishes each final event at most once; after EXPIRED only a late resolution; one of Succeeded/Failed', () => {
    fc.assert(
      fc.property(sequences, ([account, steps]) => {
        const { events, final } = run(steps, account);
        const finals = events.filter((e) => FINAL_EVENTS.has(e.metadata.type));
        const outcomes = finals.filter((e) => e.metadata.type !== 'TransactionExpired');
        expect(outcomes.length).toBeLessThanOrEqual(1);
        expect(finals.filter((e) => e.metadata.type === 'TransactionExpired').length).toBeLessThanOrEqual(1);
        const expiredAt = finals.findIndex((e) => e.metadata.type === 'TransactionExpired');
        if (expiredAt >= 0)
          for (const late of finals.slice(expiredAt + 1)) expect(late.data.lateResolution).toBe(true);
        if (final && (final.status === 'SUCCEEDED' || final.status === 'FAILED')) {
          expect(outcomes).toHaveLength(1);
          expect(outcomes[0]!.data.status).toBe(final.status);
        }
        if (final?.status === 'EXPIRED')
          expect(finals.map((e) => e.metadata.type)).toEqual(['TransactionExpired']);
      }),
      RUNS,
    );
  });

  it('every published event is in its write’s outbox exactly once, listed on the record, never reusing an id', () => {
    fc.assert(
      fc.property(sequences, ([account, steps]) => {
        const seen = new Map<string, EventEnvelope>();
        for (const w of run(steps, account).writes) {
          expect(w.after.outbox).toEqual(w.events);
          const ids = w.events.map((e) => e.metadata.id);
          expect(new Set(ids).size).toBe(ids.length);
          for (const e of w.events) {
            const listed = w.after.events.filter((x) => x.id === e.metadata.id);
            expect(listed).toHaveLength(1);
            // an id already published is dropped by consumers (ids are deterministic): a second,
            // different event under the same id would be lost
            const earlier = seen.get(e.metadata.id);
            expect(earlier, `${e.metadata.type} id reused`).toBeUndefined();
            seen.set(e.metadata.id, e);
          }
        }
      }),
      RUNS,
    );
  });

  it('never SUCCEEDED for another amount or MSISDN than registered (registration first)', () => {
    fc.assert(
      fc.property(sequences, ([account, steps]) => {
        const r = run(steps, account);
        if (!r.registration?.first || !r.final) return;
        const succeeded = r.events.filter((e) => e.metadata.type === 'TransactionSucceeded');
        for (const e of succeeded) {
          if (r.registration.amount) expect(e.data.amount).toEqual(REG_AMOUNT);
          const party = e.data.party as { id: string } | null;
          if (r.registration.msisdn && party) expect(party.id).toBe(REG_MSISDN);
        }
        // the settling evidence must not name another amount / MSISDN either
        for (const w of r.writes) {
          if (w.after.status !== 'SUCCEEDED' || w.before?.status === 'SUCCEEDED' || !w.report) continue;
          if (r.registration.amount && w.report.amount) expect(w.report.amount).toEqual(REG_AMOUNT);
          if (r.registration.msisdn && w.report.party) expect(w.report.party.id).toBe(REG_MSISDN);
        }
      }),
      RUNS,
    );
  });

  it('an unsigned success without the registered amount is only a claim (AMBIGUOUS/UNCONFIRMED) until confirmed', () => {
    fc.assert(
      fc.property(sequences, ([account, steps]) => {
        const r = run(steps, account);
        if (!r.registration?.first || !r.registration.amount) return;
        for (const w of r.writes) {
          if (!w.report || w.report.origin !== 'callback') continue;
          if (w.report.status !== 'SUCCEEDED' || w.report.authenticated || w.report.amount) continue;
          expect(w.after.status === 'SUCCEEDED' && w.before?.status !== 'SUCCEEDED').toBe(false);
        }
      }),
      RUNS,
    );
  });

  it('settles an outcome only over contradicting evidence of lower rank, and never silently', () => {
    fc.assert(
      fc.property(sequences, ([account, steps]) => {
        const r = run(steps, account);
        const published: EventEnvelope[] = [];
        for (const w of r.writes) {
          published.push(...w.events);
          if (!w.before || w.before.status === w.after.status) continue;
          if (w.after.status !== 'SUCCEEDED' && w.after.status !== 'FAILED') continue;
          const settling = w.after.transitions.at(-1)!.evidence!;
          const against = (w.before.evidence ?? []).filter(
            (e) => e.claim !== 'NOT_FOUND' && contradicts(e.claim, settling.claim),
          );
          if (settling.claim === 'NOT_FOUND') {
            // the not-found rule: only when no callback reported on the reference (status answers aside)
            expect(against.filter((e) => e.source !== 'status-api')).toEqual([]);
            continue;
          }
          for (const e of against) {
            if (settling.source !== 'operator')
              expect(
                rankOf(settling),
                `${settling.source} ${settling.claim} over ${e.source} ${e.claim}`,
              ).toBeGreaterThan(rankOf(e));
            // said: some TransactionConflict so far names that evidence
            const named = published.some(
              (ev) =>
                ev.metadata.type === 'TransactionConflict' &&
                (
                  (ev.data as { conflict: { evidence: { claim: string; at: string; source: string }[] } })
                    .conflict.evidence ?? []
                ).some(
                  // a repeat of a claim is counted on its conflict, without an event of its own (by design)
                  (x) => x.claim === e.claim,
                ),
            );
            expect(named, `silent override of ${e.source} ${e.claim}`).toBe(true);
          }
        }
      }),
      RUNS,
    );
  });

  it('keeps evidence, conflicts and event ids bounded', () => {
    fc.assert(
      fc.property(accountArb, fc.array(stepArb, { minLength: 30, maxLength: 60 }), (account, steps) => {
        const { final } = run(steps, account);
        if (!final) return;
        expect((final.evidence ?? []).length).toBeLessThanOrEqual(16);
        expect(final.conflicts.length).toBeLessThanOrEqual(20);
        expect(final.events.length).toBeLessThanOrEqual(64);
        expect(final.transitions.length).toBeLessThanOrEqual(4);
      }),
      { numRuns: 300 * SCALE },
    );
  });

  it.each([false, true])(
    'replaying the very same delivery publishes nothing new (buffered copy: %s)',
    (buffer) => {
      fc.assert(
        fc.property(sequences, ([account, steps]) => {
          const r = run(
            steps.map((s) => (s.t === 'dup' ? { ...s, buffer } : s)),
            account,
          );
          // After a registration adopted an orphan, a delivery the orphan took unchecked (nothing was
          // registered then) meets the registration's terms for the first time: a conflict is news there.
          if (r.registration && !r.registration.first) return;
          for (const w of r.writes) {
            if (w.step.t !== 'dup') continue;
            // Already applied (kept as evidence or in a conflict): it publishes nothing, moves nothing.
            expect(w.events.map((e) => e.metadata.type)).toEqual([]);
            expect(w.after.status).toBe(w.before?.status);
          }
        }),
        RUNS,
      );
    },
  );
});

/**
 * Decisive evidence: every report that may settle on its own (docs/reconciliation.md#precedence, rank ≥ 2,
 * business checks passed) claims the same outcome X. Then whatever the order, the transaction ends X.
 */
type Decisive = Extract<Step, { t: 'cb' }> | Extract<Step, { t: 'api' }>;

/**
 * Rank per the docs table (independent of the code under test): a success without the registered amount
 * is only a claim.
 */
function docRank(s: Decisive, account: Account, registeredAmount: boolean): number {
  if (s.t === 'api') return s.status === 'NOT_FOUND' ? 0 : s.status === 'UNCLEAR' ? -1 : 2;
  if (s.status !== 'SUCCEEDED' && s.status !== 'FAILED') return -1;
  if (s.signed) return 3;
  if (s.status === 'SUCCEEDED')
    return account.confirmSuccess || (registeredAmount && s.amount === 'none') ? 1 : 2;
  return account.confirmFailure ? 1 : 2;
}

/** An amount the transaction has: registered, or adopted from a trusted non-final report (its move). */
function amountKnown(account: Account, registeredAmount: boolean, reports: readonly Decisive[]): boolean {
  return (
    registeredAmount ||
    reports.some(
      (r) =>
        r.t === 'cb' &&
        (r.status === 'AMBIGUOUS' || r.status === 'PENDING') &&
        r.amount === 'reg' &&
        (r.signed || !account.confirmSuccess),
    )
  );
}

const decisiveArb = fc
  .record({
    account: accountArb,
    registeredAmount: fc.boolean(),
    registeredMsisdn: fc.boolean(),
    reports: fc.array(
      fc.oneof(
        callbackArb(fc.constantFrom<Amount>('reg', 'none'), fc.constantFrom<Party>('reg', 'none')),
        fc.record({
          t: fc.constant('api' as const),
          status: fc.constantFrom('SUCCEEDED' as const, 'FAILED' as const, 'UNCLEAR' as const),
          amount: fc.constantFrom<Amount>('reg', 'none'),
          party: fc.constantFrom<Party>('reg', 'none'),
          ptid: ptidArb,
          settles: fc.constant(false),
        }),
      ),
      { minLength: 1, maxLength: 7 },
    ),
    expire: fc.boolean(),
  })
  .filter(({ account, registeredAmount, reports }) => {
    // An amount-less success settles while no amount is known, and is a claim once a trusted report gave
    // one (the move adopts it): which comes first decides, by design. Such sets are not decisive.
    const amountLess = reports.some((r) => r.t === 'cb' && r.status === 'SUCCEEDED' && r.amount === 'none');
    if (!registeredAmount && amountLess && amountKnown(account, false, reports)) return false;
    const settling = reports.filter((s) => docRank(s, account, registeredAmount) >= 2);
    return settling.length > 0 && new Set(settling.map((s) => s.status)).size === 1;
  });

function decisiveRun(
  account: Account,
  registeredAmount: boolean,
  registeredMsisdn: boolean,
  order: readonly Step[],
): Run {
  return run([{ t: 'register', amount: registeredAmount, msisdn: registeredMsisdn }, ...order], account);
}

describe('order independence of decisive evidence', () => {
  it('every order of the same decisive reports (with or without an expiry among them) ends in the same outcome', () => {
    fc.assert(
      fc.property(
        decisiveArb.chain((d) =>
          fc.tuple(
            fc.constant(d),
            fc.shuffledSubarray([...d.reports.map((_, i) => i), ...(d.expire ? [-1] : [])], {
              minLength: d.reports.length + (d.expire ? 1 : 0),
            }),
          ),
        ),
        ([d, order]) => {
          const steps: Step[] = order.map((i) => (i === -1 ? { t: 'expire' } : d.reports[i]!));
          const settling = d.reports.filter((s) => docRank(s, d.account, d.registeredAmount) >= 2);
          const expected = settling[0]!.status;
          const r = decisiveRun(d.account, d.registeredAmount, d.registeredMsisdn, steps);
          expect(r.final?.status).toBe(expected);
        },
      ),
      { numRuns: 3000 * SCALE },
    );
  });
});
