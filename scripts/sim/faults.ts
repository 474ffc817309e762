/**
 * How a `--fault` (the simulator's X-Sim-Fault header) changes what a scenario should produce. Covered:
 * repeat, delay, drop, stale-after-final, corrupt-hash (Airtel) and foreign-ip (Daraja STK and B2C);
 * other faults are sent as given and the expectation stays the one without faults.
 *
 * `drop`: the callback never comes, so a final outcome (succeeded, failed) reaches the relay through
 * reconciliation: its status check after the first scheduled delay publishes the same event with origin
 * `poll`. Other outcomes (a B2C queue-timeout notice) are not recovered by a poll: no event, PENDING.
 *
 * A fault that makes the callback unusable (forged hash, foreign address, dropped) is judged by what the
 * callback does: no verdict from it, the transaction left PENDING by it. The relay's own status check keeps
 * running and may settle the transaction before the scenario is judged (origin `poll`): accepted
 * (Expectation.pollMayDecide), so the scenario never races the poller.
 */
import { FACT_EVENT_TYPES } from '../../shared/providers/types';
import type { FaultSet } from '../../simulator/core/faults';
import { type Expectation, FINAL_EVENTS } from './core';

const NO_OUTCOME = [...FINAL_EVENTS, 'TransactionAmbiguous'];
/** Scenarios whose results are facts (shared/app/transactions/ingest-facts.ts), not transaction statuses. */
const FACT_KINDS = ['balance', 'reversal'];
const FACT_EVENTS: string[] = [...FACT_EVENT_TYPES];

export function withFaults(
  expectation: Expectation,
  faults: FaultSet,
  provider: 'momo' | 'airtel' | 'daraja',
  kind: string,
): Expectation {
  if (expectation.refusedWith !== undefined || expectation.deliveries === undefined) return expectation;
  let x: Expectation = { ...expectation };
  if (FACT_KINDS.includes(kind) && (faults.drop || faults.foreignIp)) {
    // Facts change no transaction: whatever the fault, the status and the (absent) transaction stay as expected.
    const why = faults.drop
      ? 'result dropped: no event'
      : 'from an address outside the allow-list → 403, CallbackRejected';
    return {
      ...x,
      summary: `${x.summary.replace(/ →.*$/, '')} → ${why}`,
      events: faults.drop
        ? []
        : [{ type: 'CallbackRejected', data: { errorCode: 'FORBIDDEN_SOURCE', httpStatus: 403 } }],
      forbid: FACT_EVENTS,
    };
  }
  if (faults.drop) {
    const final = x.events.filter((e) => FINAL_EVENTS.includes(e.type));
    if (final.length === x.events.length && final.length > 0 && x.status) {
      return {
        summary: `${x.summary.replace(/ →.*$/, '')} → callback dropped; the relay's status check finds the outcome → ${x.summary.replace(/^.* → /, '').replace(/, origin poll$/, '')}, origin poll`,
        events: x.events.map((e) => ({ ...e, origin: 'poll' })),
        forbid: x.forbid,
        status: x.status,
        deliveries: 1,
        waitFor: 'poll',
      };
    }
    return {
      summary: `${x.summary.replace(/ →.*$/, '')} → callback dropped: no event, the transaction stays PENDING unless the relay's status check settles it`,
      events: [],
      forbid: NO_OUTCOME,
      pollMayDecide: true,
      status: 'PENDING',
      deliveries: 1,
    };
  }
  if (faults.corruptHash && provider === 'airtel') {
    x = {
      summary: `${x.summary.replace(/ →.*$/, '')} with a forged hash → 401, CallbackRejected, no verdict from the callback (PENDING until the relay's status check settles it)`,
      events: [{ type: 'CallbackRejected', data: { errorCode: 'UNAUTHORIZED', httpStatus: 401 } }],
      forbid: NO_OUTCOME,
      pollMayDecide: true,
      status: 'PENDING',
      deliveries: x.deliveries,
    };
  }
  if (faults.foreignIp && provider === 'daraja' && kind !== 'c2b') {
    x = {
      summary: `${x.summary.replace(/ →.*$/, '')} from an address outside the allow-list → 403, CallbackRejected, no verdict from the callback (PENDING until the relay's status check settles it)`,
      events: [{ type: 'CallbackRejected', data: { errorCode: 'FORBIDDEN_SOURCE', httpStatus: 403 } }],
      forbid: NO_OUTCOME,
      pollMayDecide: true,
      status: 'PENDING',
      deliveries: x.deliveries,
    };
  }
  if (faults.repeat && faults.repeat > 1) {
    x.deliveries = (x.deliveries ?? 1) * faults.repeat;
    x.summary += ` — callback sent ${faults.repeat} times, still one event`;
  }
  if (faults.staleAfterFinal) {
    x.deliveries = (x.deliveries ?? 0) + 1;
    x.summary += ' — then a stale status';
  }
  return x;
}
