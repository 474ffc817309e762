import fc from 'fast-check';
import { decideReport } from '../../../shared/app/transactions/decide-report';
import type { EventEnvelope } from '../../../shared/domain/event-envelope';
import { applyRegistration, type RegistrationTerms } from '../../../shared/domain/registration';
import type { NormalizedReport, TransactionRecord } from '../../../shared/domain/transaction';
import { KEY } from '../../helpers/reports';

/**
 * The model for report-sequences.model.property.test.ts. Model-based: random sequences of a registration, callbacks, status answers, expiry and operator
 * resolutions, run through the real decision (decideReport → applyReport, applyRegistration) the way the
 * store would (each write's outbox published, the next read without it). Complements
 * precedence.property.test.ts (which covers the precedence rule's local properties) with whole-run
 * invariants: monotone status, final events at most once, outbox/event-id consistency, business checks,
 * bounded lists, and order independence of decisive evidence.
 */

const START = Date.parse('2026-11-21T10:00:00.000Z');
const REG_AMOUNT = { value: '100', currency: 'EUR' };
const OTHER_AMOUNT = { value: '1', currency: 'EUR' };
const REG_MSISDN = '46733123459';
const OTHER_MSISDN = '46733999999';

type Amount = 'reg' | 'other' | 'none';
type Party = 'reg' | 'other' | 'none';

export type Step =
  | { t: 'register'; amount: boolean; msisdn: boolean }
  | {
      t: 'cb';
      status: 'SUCCEEDED' | 'FAILED' | 'AMBIGUOUS' | 'PENDING';
      signed: boolean;
      amount: Amount;
      party: Party;
      ptid: 0 | 1 | 2;
    }
  | {
      t: 'api';
      status: 'SUCCEEDED' | 'FAILED' | 'UNCLEAR' | 'NOT_FOUND';
      amount: Amount;
      party: Party;
      ptid: 0 | 1 | 2;
      settles: boolean;
    }
  | { t: 'expire' }
  | { t: 'resolve'; status: 'SUCCEEDED' | 'FAILED' }
  | { t: 'dup'; back: number; buffer: boolean };

export interface Account {
  /** Unsigned successes are held for the status API (MoMo's default). */
  confirmSuccess: boolean;
  /** Unsigned failures are held too (an account that confirms successes and has a status API). */
  confirmFailure: boolean;
}

const amountArb = fc.constantFrom<Amount>('reg', 'other', 'none');
const partyArb = fc.constantFrom<Party>('reg', 'other', 'none');
const ptidArb = fc.constantFrom<0 | 1 | 2>(0, 1, 2);

/** A callback step: any status, signed or not, with the amounts and payers `amount` and `party` draw. */
export function callbackArb(amount: fc.Arbitrary<Amount>, party: fc.Arbitrary<Party>) {
  return fc.record({
    t: fc.constant('cb' as const),
    status: fc.constantFrom(
      'SUCCEEDED' as const,
      'FAILED' as const,
      'AMBIGUOUS' as const,
      'PENDING' as const,
    ),
    signed: fc.boolean(),
    amount,
    party,
    ptid: ptidArb,
  });
}

export const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 1,
    arbitrary: fc.record({ t: fc.constant('register' as const), amount: fc.boolean(), msisdn: fc.boolean() }),
  },
  { weight: 6, arbitrary: callbackArb(amountArb, partyArb) },
  {
    weight: 3,
    arbitrary: fc.record({
      t: fc.constant('api' as const),
      status: fc.constantFrom(
        'SUCCEEDED' as const,
        'FAILED' as const,
        'UNCLEAR' as const,
        'NOT_FOUND' as const,
      ),
      amount: amountArb,
      party: partyArb,
      ptid: ptidArb,
      settles: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ t: 'expire' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant('resolve' as const),
      status: fc.constantFrom('SUCCEEDED' as const, 'FAILED' as const),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ t: fc.constant('dup' as const), back: fc.nat({ max: 10 }), buffer: fc.boolean() }),
  },
);

export const accountArb: fc.Arbitrary<Account> = fc.record({
  confirmSuccess: fc.boolean(),
  confirmFailure: fc.boolean(),
});

const money = (a: Amount) => (a === 'reg' ? REG_AMOUNT : a === 'other' ? OTHER_AMOUNT : undefined);
const partyOf = (p: Party) =>
  p === 'none' ? undefined : { idType: 'MSISDN' as const, id: p === 'reg' ? REG_MSISDN : OTHER_MSISDN };

const at = (i: number) => new Date(START + (i + 1) * 60_000).toISOString();

/** A callback's report as a provider parser hands it on (same body ⇒ same receipt id). */
export function callbackReport(s: Extract<Step, { t: 'cb' }>, account: Account, i: number): NormalizedReport {
  const success = s.status === 'SUCCEEDED';
  return {
    key: KEY,
    kind: 'requesttopay',
    status: s.status,
    reason:
      s.status === 'FAILED'
        ? { code: 'REJECTED_BY_CUSTOMER', message: undefined, providerCode: 'REJECTED' }
        : undefined,
    providerTransactionId: s.ptid ? `P${s.ptid}` : undefined,
    externalId: 'order-8841',
    amount: money(s.amount),
    party: partyOf(s.party),
    receivedAt: at(i),
    origin: 'callback',
    receiptId: `r-${s.status}-${s.signed}-${s.amount}-${s.party}-${s.ptid}`,
    attributes: undefined,
    authenticated: s.signed,
    authentication: ['path-secret'],
    ...(success && account.confirmSuccess ? { needsConfirmation: true } : {}),
    ...(s.status === 'FAILED' && account.confirmFailure ? { confirmFailure: true } : {}),
  };
}

/** A status answer as reconcile.ts reportFrom builds it (undefined: nothing to apply). */
export function apiReport(
  s: Extract<Step, { t: 'api' }>,
  tx: TransactionRecord | undefined,
  i: number,
): NormalizedReport | undefined {
  if (!tx) return undefined; // the poller only checks stored transactions
  const base = {
    key: KEY,
    kind: tx.kind,
    receivedAt: at(i),
    origin: 'poll' as const,
    receiptId: undefined,
    authenticated: true,
  };
  if (s.status === 'UNCLEAR') {
    if (tx.status !== 'PENDING') return undefined;
    return {
      ...base,
      status: 'AMBIGUOUS',
      reason: { code: 'PROVIDER_ERROR', message: '500', providerCode: '500' },
      said: { providerCode: '500', description: '500' },
      providerTransactionId: undefined,
      externalId: undefined,
      amount: undefined,
      party: undefined,
      attributes: undefined,
    };
  }
  if (s.status === 'NOT_FOUND')
    return {
      ...base,
      status: 'FAILED',
      reason: { code: 'NOT_ACCEPTED', message: 'not found', providerCode: 'RESOURCE_NOT_FOUND' },
      providerTransactionId: undefined,
      externalId: undefined,
      amount: undefined,
      party: undefined,
      attributes: undefined,
      notFound: { settles: s.settles, answers: 3, since: new Date(START).toISOString() },
    };
  return {
    ...base,
    status: s.status,
    reason:
      s.status === 'FAILED'
        ? { code: 'REJECTED_BY_CUSTOMER', message: 'rejected', providerCode: 'REJECTED' }
        : undefined,
    said: { providerCode: s.status === 'FAILED' ? 'REJECTED' : 'SUCCESSFUL', description: 'status answer' },
    providerTransactionId: s.ptid ? `P${s.ptid}` : undefined,
    externalId: 'order-8841',
    amount: money(s.amount),
    party: partyOf(s.party),
    attributes: undefined,
  };
}

function expiryReport(tx: TransactionRecord, i: number): NormalizedReport {
  return {
    key: tx.key,
    kind: tx.kind,
    status: 'EXPIRED',
    reason: {
      code: 'NO_FINAL_ANSWER',
      message: 'no final answer within the reconciliation window',
      providerCode: undefined,
    },
    providerTransactionId: undefined,
    externalId: undefined,
    amount: undefined,
    party: undefined,
    attributes: undefined,
    receivedAt: at(i),
    origin: 'poll',
    receiptId: undefined,
    eventDetail: { lastProviderAnswer: null, statusChecks: 1 },
  };
}

function resolveReport(tx: TransactionRecord, status: 'SUCCEEDED' | 'FAILED', i: number): NormalizedReport {
  return {
    key: tx.key,
    kind: tx.kind,
    status,
    reason:
      status === 'FAILED'
        ? { code: 'UNKNOWN', message: 'resolved by hand: x', providerCode: undefined }
        : undefined,
    said: { providerCode: undefined, description: 'resolved by hand: x' },
    providerTransactionId: undefined,
    externalId: undefined,
    amount: tx.amount,
    party: undefined,
    receivedAt: at(i),
    origin: 'manual',
    receiptId: undefined,
    attributes: undefined,
    authenticated: true,
    actor: { kind: 'user', id: 'ana' } as never,
    eventDetail: { resolvedByHand: { note: 'x', by: { kind: 'user', id: 'ana' } } },
  };
}

export interface Write {
  step: Step;
  report?: NormalizedReport;
  before: TransactionRecord | undefined;
  after: TransactionRecord;
  events: EventEnvelope[];
}

export interface Run {
  writes: Write[];
  events: EventEnvelope[];
  final: TransactionRecord | undefined;
  /** The registration's terms, when it happened, and whether it came before any report. */
  registration?: { amount: boolean; msisdn: boolean; first: boolean };
  /** The reports applied, in order (after resolving dups and skipping what the pipeline would not apply). */
  applied: NormalizedReport[];
}

/** Runs the steps through the real decisions, committing each write as the store would. */
export function run(steps: readonly Step[], account: Account): Run {
  let tx: TransactionRecord | undefined;
  const writes: Write[] = [];
  const events: EventEnvelope[] = [];
  const applied: NormalizedReport[] = [];
  const history: NormalizedReport[] = [];
  let registration: Run['registration'];
  const commit = (
    step: Step,
    report: NormalizedReport | undefined,
    next: TransactionRecord,
    evs: EventEnvelope[],
  ) => {
    writes.push({ step, report, before: tx, after: next, events: evs });
    events.push(...evs);
    tx = { ...next, revision: (tx?.revision ?? 0) + 1, outbox: [] };
  };
  steps.forEach((step, i) => {
    const now = at(i);
    const ctx = { now, reconcileWindowSeconds: 86_400, firstCheckSeconds: 0, hintRecheckSeconds: 60 };
    if (step.t === 'register') {
      if (registration) return; // the partner registers once (a repeat is 'repeat' / 'different')
      registration = { amount: step.amount, msisdn: step.msisdn, first: tx === undefined };
      const terms: RegistrationTerms = {
        key: KEY,
        kind: 'requesttopay',
        amount: step.amount ? REG_AMOUNT : undefined,
        msisdn: step.msisdn ? REG_MSISDN : undefined,
        externalId: 'order-8841',
        metadata: undefined,
        reconcileUntil: new Date(START + 86_400_000).toISOString(),
        firstCheckAt: now,
      };
      const outcome = applyRegistration(tx, terms, now);
      if (outcome.kind === 'create' || outcome.kind === 'adopt')
        commit(step, undefined, outcome.next, outcome.next.outbox);
      return;
    }
    let report: NormalizedReport | undefined;
    if (step.t === 'cb') report = callbackReport(step, account, i);
    else if (step.t === 'api') report = apiReport(step, tx, i);
    else if (step.t === 'expire')
      report = tx && (tx.status === 'PENDING' || tx.status === 'AMBIGUOUS') ? expiryReport(tx, i) : undefined;
    else if (step.t === 'resolve')
      report =
        tx && (tx.status === 'EXPIRED' || tx.status === 'AMBIGUOUS')
          ? resolveReport(tx, step.status, i)
          : undefined;
    else if (step.t === 'dup') {
      // The very same delivery again (a buffered copy, a redelivery): same body, same receipt, same time.
      const earlier = history[history.length - 1 - (step.back % Math.max(1, history.length))];
      // The buffered copy of a direct write that landed late: origin `buffer`, same receipt and time.
      if (earlier && earlier.origin === 'callback')
        report = step.buffer ? { ...earlier, origin: 'buffer' } : earlier;
    }
    if (!report) return;
    history.push(report);
    const outcome = decideReport(tx, report, ctx);
    if (report.origin === 'manual' && !(outcome.kind === 'write' && outcome.effect === 'advanced')) return;
    applied.push(report);
    if (outcome.kind !== 'write') return;
    commit(step, report, outcome.next, outcome.events);
  });
  return { writes, events, final: tx, registration, applied };
}

export const ARB = { amountArb, partyArb, ptidArb, REG_AMOUNT, REG_MSISDN };
