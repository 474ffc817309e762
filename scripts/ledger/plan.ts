/**
 * What `npm run ledger` will drive: N transactions spread over MoMo request-to-pay, Airtel push payment,
 * Daraja STK and B2C, each with a sandbox number that picks a success, a failure or (a small share) an
 * outcome that never finalizes, and fault knobs drawn with the requested probabilities. Pure: the random
 * source is passed in (seeded by the CLI), so a run can be repeated with `--seed`.
 */
import type { ScenarioOptions } from '../sim/core';
import { AIRTEL_FAILING_MSISDN, AIRTEL_IN_PROGRESS_MSISDN, AIRTEL_PAYING_MSISDN } from '../sim/airtel';
import { DARAJA_PHONE, STK_CANCELLING_PHONE } from '../sim/daraja';
import { EXPIRY_MARGIN_MS } from '../sim/expiry';
import { MOMO_PAYING_MSISDN } from '../sim/momo';

export type Flow = 'momo pay' | 'airtel pay' | 'daraja stk' | 'daraja b2c';
export const FLOWS: readonly Flow[] = ['momo pay', 'airtel pay', 'daraja stk', 'daraja b2c'];

export type FinalStatus = 'SUCCEEDED' | 'FAILED' | 'EXPIRED';
export type Intent = 'success' | 'failure' | 'never-final';

export interface PlanOptions {
  transactions: number;
  /** Probability that the final callback is dropped (`drop`). */
  drop: number;
  /** Probability that the final callback is sent 2 or 3 times (`repeat=N`). */
  duplicate: number;
  /** Probability that the first 1–2 status calls answer a 5xx (`status-5xx=CODE,status-5xx-times=K`). */
  status5xx: number;
  /** Share of transactions whose outcome never finalizes, registered with `expiresInSeconds`. */
  neverFinal: number;
  /** Share of failures among the others. */
  failure: number;
  /** Their window. */
  expiresInSeconds: number;
}

export const DEFAULT_PLAN: Omit<PlanOptions, 'transactions' | 'drop' | 'duplicate' | 'status5xx'> = {
  neverFinal: 0.05,
  failure: 0.3,
  expiresInSeconds: 20,
};

/** What the simulator does with time, read from it (`GET /_sim/config`). */
export interface SimTiming {
  momoSandboxBase: string;
  /** Real ms after which a MoMo payer who never answers (Ongoing, Delayed) is FAILED by the sandbox. */
  momoApprovalWindowMs: number;
}

export interface PlannedTransaction {
  /** 1-based, for people. */
  n: number;
  flow: Flow;
  intent: Intent;
  /** The outcome picked by the number, for people: "payer +1 Rejected". */
  outcome: string;
  /** What the run passes to the scenario (the number, the faults, the window). */
  options: ScenarioOptions;
  faults: string;
  /** What the ledger expects at the end. */
  expected: FinalStatus;
}

interface Candidate {
  outcome: string;
  options: ScenarioOptions;
}

const momoPayer = (base: string, offset: number) => String(Number(base) + offset);

/** The numbers of each flow and intent (the sandbox outcome tables of each provider under simulator/). */
function candidates(flow: Flow, intent: Intent, timing: SimTiming): Candidate[] {
  const base = timing.momoSandboxBase;
  switch (flow) {
    case 'momo pay':
      if (intent === 'success') return [{ outcome: 'payer paid', options: { msisdn: MOMO_PAYING_MSISDN } }];
      if (intent === 'failure')
        return [
          { outcome: 'payer +0 Failed', options: { msisdn: momoPayer(base, 0) } },
          { outcome: 'payer +1 Rejected', options: { msisdn: momoPayer(base, 1) } },
          { outcome: 'payer +2 Expired', options: { msisdn: momoPayer(base, 2) } },
        ];
      return [
        { outcome: 'payer +3 Ongoing (never answers)', options: { msisdn: momoPayer(base, 3) } },
        { outcome: 'payer +4 Delayed (never answers)', options: { msisdn: momoPayer(base, 4) } },
      ];
    case 'airtel pay':
      if (intent === 'success')
        return [{ outcome: 'subscriber paid (TS)', options: { msisdn: AIRTEL_PAYING_MSISDN } }];
      if (intent === 'failure')
        return [
          { outcome: 'subscriber …901 TF insufficient funds', options: { msisdn: AIRTEL_FAILING_MSISDN } },
          { outcome: 'subscriber …902 TF incorrect PIN', options: { msisdn: '752123902' } },
        ];
      return [{ outcome: 'subscriber …904 stays TIP', options: { msisdn: AIRTEL_IN_PROGRESS_MSISDN } }];
    case 'daraja stk':
      if (intent === 'success') return [{ outcome: 'phone paid', options: { phone: DARAJA_PHONE } }];
      return [
        { outcome: 'phone …1032 cancelled', options: { phone: STK_CANCELLING_PHONE } },
        { outcome: 'phone …0001 insufficient balance', options: { phone: '254708370001' } },
      ];
    case 'daraja b2c':
      if (intent === 'success') return [{ outcome: 'PartyB paid', options: { partyB: DARAJA_PHONE } }];
      return [
        { outcome: 'PartyB …2001 initiator invalid', options: { partyB: '254708372001' } },
        { outcome: 'PartyB …0001 insufficient balance', options: { partyB: '254708370001' } },
      ];
  }
}

/** Flows that have an outcome which never finalizes within `expiresInSeconds` on this simulator. */
export function neverFinalFlows(timing: SimTiming, expiresInSeconds: number): Flow[] {
  const flows: Flow[] = ['airtel pay'];
  // Ongoing/Delayed fail when the approval window ends: they must outlive the transaction's window.
  if (expiresInSeconds * 1000 + EXPIRY_MARGIN_MS < timing.momoApprovalWindowMs) flows.unshift('momo pay');
  return flows;
}

/** One fault spec from the probabilities; `drop` and `repeat` exclude each other (nothing to repeat). */
export function drawFaults(
  options: Pick<PlanOptions, 'drop' | 'duplicate' | 'status5xx'>,
  random: () => number,
): string {
  const tokens: string[] = [];
  if (random() < options.drop) tokens.push('drop');
  else if (random() < options.duplicate) tokens.push(`repeat=${random() < 0.5 ? 2 : 3}`);
  if (random() < options.status5xx) {
    const code = [500, 502, 503][Math.floor(random() * 3)];
    tokens.push(`status-5xx=${code}`, `status-5xx-times=${1 + Math.floor(random() * 2)}`);
  }
  return tokens.join(',');
}

function choose<T>(items: readonly T[], random: () => number): T {
  return items[Math.floor(random() * items.length)]!;
}

export function planTransactions(
  options: PlanOptions,
  timing: SimTiming,
  random: () => number,
): PlannedTransaction[] {
  const neverFinal = neverFinalFlows(timing, options.expiresInSeconds);
  const planned: PlannedTransaction[] = [];
  for (let i = 0; i < options.transactions; i++) {
    // Round-robin over the flows keeps every provider in even a short run.
    let flow = FLOWS[i % FLOWS.length]!;
    const intent: Intent =
      random() < options.neverFinal ? 'never-final' : random() < options.failure ? 'failure' : 'success';
    if (intent === 'never-final' && !neverFinal.includes(flow)) flow = choose(neverFinal, random);
    const pick = choose(candidates(flow, intent, timing), random);
    const faults = drawFaults(options, random);
    // Each STK push its own amount (from 1,000 KES: apart from the day's C2B payments of 100 and up), as
    // real pushes mostly are: a till row whose callback was dropped is paired with its push by amount, time
    // and payer (docs/statements.md#pairing); same-amount pushes of one payer would be a break for a person.
    const amount = flow === 'daraja stk' ? { amount: String(1000 + i) } : {};
    planned.push({
      n: i + 1,
      flow,
      intent,
      outcome: pick.outcome,
      options: {
        ...pick.options,
        ...amount,
        ...(faults ? { fault: faults } : {}),
        ...(intent === 'never-final' ? { expires: String(options.expiresInSeconds) } : {}),
      },
      faults,
      expected: intent === 'success' ? 'SUCCEEDED' : intent === 'failure' ? 'FAILED' : 'EXPIRED',
    });
  }
  return planned;
}

/** A small seeded generator (mulberry32): the same seed gives the same plan. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
