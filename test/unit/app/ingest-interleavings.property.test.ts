/**
 * Random interleavings of genuine and forged Daraja deliveries (STK results, C2B confirmations, status
 * results), duplicates, buffered replays, registrations, poll cycles with a scripted Daraja, pulled
 * statement rows and operator resolutions, through the real endpoint on the in-memory store; the
 * contract's invariants checked over the published events and the final records.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyBufferedCallback } from '../../../shared/app/buffer/apply-buffered-callback';
import {
  c2bBody,
  DARAJA_IP,
  FORGED_RECEIPT,
  FORGER_IP,
  GEN_RECEIPT,
  ingestWorld,
  OTHER_PHONE,
  REF,
  REG_PHONE,
  statusResultBody,
  stkBody,
  type Truth,
} from './ingest-world';

type Amt = 'truth' | 'other';
type Step =
  | { t: 'register'; amount: Amt | 'none'; msisdn: boolean }
  | { t: 'genuine'; down: boolean }
  | {
      t: 'forged';
      status: 'paid' | 'cancelled';
      amount: Amt;
      receipt: 'gen' | 'forged';
      phone: 'reg' | 'other';
      down: boolean;
    }
  | { t: 'genuineC2b'; down: boolean }
  | { t: 'forgedC2b'; receipt: 'gen' | 'forged'; amount: Amt; down: boolean }
  | { t: 'dup'; back: number; down: boolean }
  | { t: 'drain'; again: boolean }
  | { t: 'poll'; up: boolean; late: boolean }
  | { t: 'statusAnswer'; down: boolean }
  | { t: 'pull' }
  | { t: 'resolve' };

const amt = fc.constantFrom<Amt>('truth', 'other');
const down = fc.boolean();
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant('register' as const),
      amount: fc.constantFrom<Amt | 'none'>('truth', 'truth', 'other', 'none'),
      msisdn: fc.boolean(),
    }),
  },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('genuine' as const), down }) },
  {
    weight: 4,
    arbitrary: fc.record({
      t: fc.constant('forged' as const),
      status: fc.constantFrom<'paid' | 'cancelled'>('paid', 'cancelled'),
      amount: amt,
      receipt: fc.constantFrom<'gen' | 'forged'>('gen', 'forged'),
      phone: fc.constantFrom<'reg' | 'other'>('reg', 'other'),
      down,
    }),
  },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('genuineC2b' as const), down }) },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant('forgedC2b' as const),
      receipt: fc.constantFrom<'gen' | 'forged'>('gen', 'forged'),
      amount: amt,
      down,
    }),
  },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('dup' as const), back: fc.nat(20), down }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('drain' as const), again: fc.boolean() }) },
  {
    weight: 3,
    arbitrary: fc.record({ t: fc.constant('poll' as const), up: fc.boolean(), late: fc.boolean() }),
  },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('statusAnswer' as const), down }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('pull' as const) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('resolve' as const) }) },
);

const truthArb: fc.Arbitrary<Truth> = fc.record({
  outcome: fc.constantFrom<'paid' | 'cancelled'>('paid', 'cancelled'),
  amount: fc.constant('5'),
});
const modeArb = fc.constantFrom<'log-only' | 'off' | 'enforce'>('log-only', 'off', 'enforce');

const RANK: Record<string, number> = { PENDING: 0, AMBIGUOUS: 1, SUCCEEDED: 2, FAILED: 2, EXPIRED: 2 };
const OTHER_AMOUNT = '7';

interface Delivery {
  route: string;
  body: string;
  ip: string;
  genuine: boolean;
}

export async function runScenario(mode: 'log-only' | 'off' | 'enforce', truth: Truth, steps: Step[]) {
  const w = ingestWorld({ mode, truth });
  const amountOf = (a: Amt) => (a === 'truth' ? truth.amount : OTHER_AMOUNT);
  const deliveries: Delivery[] = [];
  /** Deliveries (route|ip|body) applied once already: applying one again must publish nothing. */
  const applied = new Set<string>();
  const id = (d: Delivery) => `${d.route}|${d.ip}|${d.body}`;
  let registration: { amount?: string; msisdn?: string; atEvent: number } | undefined;
  const statuses = new Map<string, string>();
  const log: string[] = [];
  let drained = 0;

  const checkMonotone = async (label: string) => {
    for (const ref of [REF, GEN_RECEIPT, FORGED_RECEIPT]) {
      const status = (await w.tx(ref))?.status;
      const before = statuses.get(ref);
      if (before && status) {
        if (before !== status) {
          expect(RANK[status]! >= RANK[before]!, `${ref} ${before} → ${status} at ${label}`).toBe(true);
          expect(
            before === 'SUCCEEDED' || before === 'FAILED',
            `${ref} ${before} → ${status} at ${label}`,
          ).toBe(false);
          if (before === 'EXPIRED') expect(['SUCCEEDED', 'FAILED']).toContain(status);
        }
      }
      if (status) statuses.set(ref, status);
    }
  };
  const deliver = async (d: Delivery, isDown: boolean) => {
    const before = w.store.published.length;
    const wasApplied = applied.has(id(d));
    const code = await w.post(d.route, d.body, d.ip, isDown);
    log.push(`  → ${code}${isDown ? ' (buffered?)' : ''}`);
    if (!isDown && code === 200) {
      if (wasApplied && !(REPLAY_MAY_MOVE && d.route === 'c2b/confirmation'))
        expect(
          w.store.published.slice(before).map((e) => e.metadata.type),
          `the same delivery again published (${d.route} from ${d.ip})`,
        ).toEqual([]);
      applied.add(id(d));
    }
  };

  for (const [i, step] of steps.entries()) {
    log.push(`${i}: ${JSON.stringify(step)}`);
    const label = `step ${i} ${JSON.stringify(step)}`;
    switch (step.t) {
      case 'register': {
        const amount = step.amount === 'none' ? undefined : amountOf(step.amount);
        const msisdn = step.msisdn ? REG_PHONE : undefined;
        try {
          await w.register({ amount, msisdn });
          if (!registration) registration = { amount, msisdn, atEvent: w.store.published.length };
        } catch (e) {
          log.push(`  register refused: ${(e as Error).message.slice(0, 80)}`);
        }
        break;
      }
      case 'genuine': {
        const d: Delivery = {
          route: 'stk',
          body: stkBody({
            status: truth.outcome,
            amount: truth.amount,
            receipt: GEN_RECEIPT,
            phone: REG_PHONE,
          }),
          ip: DARAJA_IP,
          genuine: true,
        };
        deliveries.push(d);
        await deliver(d, step.down);
        break;
      }
      case 'forged': {
        const d: Delivery = {
          route: 'stk',
          body: stkBody({
            status: step.status,
            amount: amountOf(step.amount),
            receipt: step.receipt === 'gen' ? GEN_RECEIPT : FORGED_RECEIPT,
            phone: step.phone === 'reg' ? REG_PHONE : OTHER_PHONE,
          }),
          ip: FORGER_IP,
          genuine: false,
        };
        deliveries.push(d);
        await deliver(d, step.down);
        break;
      }
      case 'genuineC2b': {
        if (truth.outcome !== 'paid') break;
        const d: Delivery = {
          route: 'c2b/confirmation',
          body: c2bBody({ receipt: GEN_RECEIPT, amount: truth.amount, phone: REG_PHONE }),
          ip: DARAJA_IP,
          genuine: true,
        };
        deliveries.push(d);
        await deliver(d, step.down);
        break;
      }
      case 'forgedC2b': {
        const d: Delivery = {
          route: 'c2b/confirmation',
          body: c2bBody({
            receipt: step.receipt === 'gen' ? GEN_RECEIPT : FORGED_RECEIPT,
            amount: amountOf(step.amount),
            phone: OTHER_PHONE,
          }).replace('ACC-001', 'ATTACKER-ACC'),
          ip: FORGER_IP,
          genuine: false,
        };
        deliveries.push(d);
        await deliver(d, step.down);
        break;
      }
      case 'dup': {
        if (deliveries.length === 0) break;
        const d = deliveries[step.back % deliveries.length]!;
        log.push(`  dup of ${d.route} from ${d.ip}`);
        await deliver(d, step.down);
        break;
      }
      case 'drain': {
        const from = step.again ? 0 : drained;
        for (const m of w.buffer.messages.slice(from)) {
          const parsed = JSON.parse(m.body) as { route: string; sourceIp: string; body: string };
          const before = w.store.published.length;
          const key = `${parsed.route}|${parsed.sourceIp}|${parsed.body}`;
          const was = applied.has(key);
          try {
            await applyBufferedCallback(w.services, JSON.parse(m.body));
          } catch (e) {
            log.push(`  buffered refused: ${(e as Error).message.slice(0, 120)}`);
            continue;
          }
          if (was && !(REPLAY_MAY_MOVE && parsed.route === 'c2b-confirmation'))
            expect(
              w.store.published.slice(before).map((e) => e.metadata.type),
              `a buffered copy of a delivery already applied published (${parsed.route} from ${parsed.sourceIp})`,
            ).toEqual([]);
          applied.add(key);
        }
        drained = w.buffer.messages.length;
        break;
      }
      case 'poll': {
        w.setApi(step.up);
        await w.poll(step.late ? 2 * 3600_000 : 60_000);
        break;
      }
      case 'statusAnswer': {
        const q = w.queries.at(-1);
        if (!q) break;
        const receipt = String(q.body.TransactionID ?? '');
        // Daraja answers about a receipt it knows: the genuine one, when the push was paid.
        if (receipt !== GEN_RECEIPT || truth.outcome !== 'paid') break;
        const d: Delivery = {
          route: 'status/result',
          body: statusResultBody({
            query: q,
            receipt,
            amount: truth.amount,
            completed: true,
            occasion: typeof q.body.Occasion === 'string' ? q.body.Occasion : undefined,
          }),
          ip: DARAJA_IP,
          genuine: true,
        };
        deliveries.push(d);
        await deliver(d, step.down);
        break;
      }
      case 'pull': {
        if (truth.outcome !== 'paid') break;
        await w.pullRow({ receipt: GEN_RECEIPT, amount: truth.amount });
        break;
      }
      case 'resolve': {
        const consistent =
          truth.outcome === 'cancelled' || !registration?.amount || registration.amount === truth.amount;
        if (!consistent) break;
        try {
          await w.resolve(truth.outcome === 'paid' ? 'SUCCEEDED' : 'FAILED');
        } catch (e) {
          log.push(`  resolve refused: ${(e as Error).message.slice(0, 80)}`);
        }
        break;
      }
    }
    await checkMonotone(label);
  }

  // Whole-run invariants.
  const events = w.store.published;
  const of = (ref: string, type: string) =>
    events.filter((e) => e.data.reference === ref && e.metadata.type === type);
  const describe = () =>
    `\n${log.join('\n')}\nevents:\n${events.map((e) => `  ${e.metadata.type} ${String(e.data.reference)} ${JSON.stringify({ s: e.data.status, a: e.data.amount, p: e.data.providerTransactionId, k: (e.data as { kind?: string }).kind ?? e.data.conflictKind, late: e.data.lateResolution })}`).join('\n')}`;

  const refOutcomes = [...of(REF, 'TransactionSucceeded'), ...of(REF, 'TransactionFailed')];
  expect(refOutcomes.length, `more than one outcome for the push${describe()}`).toBeLessThanOrEqual(1);
  expect(of(REF, 'TransactionExpired').length, describe()).toBeLessThanOrEqual(1);
  if (of(REF, 'TransactionFailed').length)
    expect(truth.outcome, `the push FAILED though Daraja says it was paid${describe()}`).toBe('cancelled');
  for (const e of events.filter((x) => x.metadata.type === 'TransactionSucceeded')) {
    expect(truth.outcome, `a success published though Daraja says cancelled${describe()}`).toBe('paid');
    const data = e.data as {
      amount?: { value: string } | null;
      providerTransactionId?: string | null;
      party?: { id?: string } | null;
      reference: string;
    };
    // Documented (reconciliation.md#verify-before-trusting): the STK query carries no amount, so a push it
    // confirms is paid for the registered amount.
    const evidence = (e.data as { evidence?: { source: string; amount?: unknown }[] }).evidence ?? [];
    const byStkQuery = evidence.some((x) => x.source === 'status-api' && !x.amount);
    if (data.amount && !(byStkQuery && data.amount.value === registration?.amount))
      expect(Number(data.amount.value), `a success for another amount${describe()}`).toBe(
        Number(truth.amount),
      );
    if (data.providerTransactionId)
      expect(data.providerTransactionId, `a success naming a forged receipt${describe()}`).toBe(GEN_RECEIPT);
    if (data.party?.id)
      expect(data.party.id, `a success naming a forged payer${describe()}`).not.toBe(OTHER_PHONE);
    expect(
      (e.data as { externalId?: string | null }).externalId,
      `a success naming a forged bill reference${describe()}`,
    ).not.toBe('ATTACKER-ACC');
    expect([REF, GEN_RECEIPT], `a success for a transaction that is no payment${describe()}`).toContain(
      data.reference,
    );
  }
  // One payment, one TransactionSucceeded (across the push and a C2B transaction of its receipt).
  // (Per transaction only: the STK query names no receipt, so a push it settles can repeat a C2B
  // confirmation's success; see the report.)
  for (const ref of [REF, GEN_RECEIPT, FORGED_RECEIPT])
    expect(
      events.filter((e) => e.data.reference === ref && e.metadata.type === 'TransactionSucceeded').length,
      `one transaction published twice${describe()}`,
    ).toBeLessThanOrEqual(1);
  // A success for the push, registered with another amount before it was published: never.
  if (registration?.amount && registration.amount !== truth.amount) {
    const idx = events.findIndex(
      (e) => e.data.reference === REF && e.metadata.type === 'TransactionSucceeded',
    );
    const ev = events[idx]?.data as { evidence?: { source: string; amount?: unknown }[] } | undefined;
    const byStkQuery = (ev?.evidence ?? []).some((x) => x.source === 'status-api' && !x.amount);
    if (idx >= registration.atEvent && !byStkQuery)
      expect.fail(`a success for a push registered with another amount${describe()}`);
  }
  const final = await w.tx(REF);
  if (final && registration) {
    if (registration.amount)
      expect(
        (final.registeredAmount ?? final.amount)?.value,
        `the registered amount moved${describe()}`,
      ).toBe(registration.amount);
    if (registration.msisdn)
      expect(final.msisdn, `the registered payer moved${describe()}`).toBe(registration.msisdn);
  }
  const forgedAlias = await w.alias('receipt', FORGED_RECEIPT);
  expect(forgedAlias?.data.reference, `a forged receipt teaches an alias${describe()}`).not.toBe(REF);
  if (truth.outcome === 'cancelled') {
    const genAlias = await w.alias('receipt', GEN_RECEIPT);
    expect(
      genAlias?.data.reference,
      `a forged receipt (of a cancelled push) teaches an alias${describe()}`,
    ).toBeUndefined();
  }
  return { w, log, events };
}

const RUNS = Number(process.env.PROP_RUNS ?? 300);
/**
 * Known, left open (closing note of issue 32): a C2B confirmation delivered again after a genuine report
 * taught its receipt as another transaction's alias lands on that transaction, as a new receipt there, and
 * is decided afresh (receipts dedupe per transaction). STRICT_REPLAY=1 checks those replays too.
 */
const REPLAY_MAY_MOVE = process.env.STRICT_REPLAY !== '1';

describe('Daraja deliveries through the endpoint (interleavings)', () => {
  it('keep the contract', async () => {
    await fc.assert(
      fc.asyncProperty(
        modeArb,
        truthArb,
        fc.array(stepArb, { minLength: 1, maxLength: Number(process.env.PROP_LEN ?? 18) }),
        async (mode, truth, steps) => {
          await runScenario(mode, truth, steps);
        },
      ),
      { numRuns: RUNS },
    );
  }, 600_000);
});
