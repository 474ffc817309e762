/**
 * Issue 29 item 3, end to end for MoMo and Airtel: balance snapshots from MoMo's GetAccountBalance (every
 * product of the account, summed) and Airtel's balance API, served by the simulator from its books, are
 * compared across each interval with the relay's finals and known fees at the day's close
 * (docs/statements.md#breaks). The in-process relay (DynamoDB Local) and the simulator, wired as
 * `npm start -- --simulator` wires them; payments go through `npm run sim`'s scenarios.
 *
 * - A payment the relay published SUCCEEDED moves the balance by its amount: no break.
 * - Under the simulator's `feePercent` fault the provider charges a fee the relay never heard of (no
 *   statement brings its row): the interval drifts by the fee, a balance-drift break with that amount.
 *
 * Time: the balance interval is 1 s of provider time (10 ms at timeScale 0.01); each snapshot is taken
 * here on the relay's own clock once the payment's final event has arrived, never after a sleep.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScenario } from '../../scripts/sim/run';
import { runBalanceCycle } from '../../shared/app/provider-records/balance-cycle';
import { closeDay } from '../../shared/app/statements/close-day';
import { statementSettings } from '../../shared/app/statements/statement-sink';
import { businessDayOf, businessDaySpan } from '../../shared/domain/statement-match';
import type { StatementBreak } from '../../shared/domain/statement';
import type { Simulator } from '../../simulator/server';
import type { TestRelay } from '../helpers/relay';
import { type DemoWithSimulator, simContext, startDemoWithSimulator } from '../helpers/relay-simulator';

const FEE_PERCENT = 2;

let pair: DemoWithSimulator;
let relay: TestRelay;
let sim: Simulator;

beforeAll(async () => {
  pair = await startDemoWithSimulator('momo-airtel-balances', {
    // The relay's own poller stays out of the way (one tick an hour): this file takes the snapshots.
    reconciliation: { pollIntervalSeconds: 3600 },
    edit: (demo) => {
      demo.providerRecords = { balanceIntervalSeconds: 1 };
      // A MoMo success is final on its callback: no confirming status query (the poller is held back).
      demo.accounts.momo.demo.confirmSuccess = false;
    },
  });
  ({ relay, sim } = pair);
});
afterAll(() => pair?.stop());

async function simFaults(body: Record<string, unknown> | undefined) {
  const response = await fetch(`${sim.url}/_sim/books/faults`, {
    method: body ? 'PUT' : 'DELETE',
    headers: { 'content-type': 'application/json' },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  expect(response.status).toBeLessThan(300);
}

/** One balance cycle of the relay; the account's snapshot, as stored, with its instant. */
async function snapshot(provider: string): Promise<{ at: string }> {
  const sink = relay.services.statementSink;
  if (!sink) throw new Error('the relay has no statement sink');
  const before = relay.services.clock.now().toISOString();
  // The interval (10 ms) must have passed since the last ask: wait for the clock, not a fixed sleep.
  for (;;) {
    const results = await runBalanceCycle({ ...relay.services, statementSink: sink });
    const mine = results.find((r) => r.provider === provider && r.account === 'demo');
    expect(mine?.outcome, `${provider} balance: ${mine?.detail ?? ''}`).not.toBe('failed');
    if (mine?.outcome === 'recorded') break;
    await new Promise((r) => setTimeout(r, 20));
  }
  return { at: before };
}

/** A payment through `npm run sim`'s scenario, published SUCCEEDED by the relay. */
async function pay(provider: 'momo' | 'airtel', amount: string) {
  const result = await runScenario(simContext(pair), provider, 'pay', { amount });
  expect(result.problems).toEqual([]);
  expect(result.events.map((e) => e.envelope.metadata.type)).toContain('TransactionSucceeded');
}

/** The balance-drift breaks of every business day the snapshots touched, each day closed past its SLA. */
async function driftsOf(provider: string, since: string): Promise<StatementBreak[]> {
  const { statements } = relay;
  const settings = statementSettings(relay.services.config, provider, 'demo');
  const days = new Set([
    businessDayOf(since, settings),
    businessDayOf(relay.services.clock.now().toISOString(), settings),
  ]);
  const drifts: StatementBreak[] = [];
  for (const day of [...days].sort()) {
    const span = businessDaySpan(day, settings);
    const report = await closeDay(
      {
        config: relay.services.config,
        store: relay.services.store,
        statements,
        clock: { now: () => new Date(span.end + settings.slaSeconds * 1000 + 1000) },
        log: relay.services.log,
      },
      { provider, account: 'demo', day },
      { actor: { kind: 'system', name: 'balances-test' } },
    );
    drifts.push(...report.breaks.filter((b) => b.category === 'balance-drift'));
  }
  return drifts;
}

describe.each([
  { provider: 'momo' as const, amount: '100', fee: '2' },
  { provider: 'airtel' as const, amount: '1000', fee: '20' },
])('$provider balance intervals', ({ provider, amount, fee }) => {
  it('a payment the relay published moves the balance by its amount; a fee it never heard of is a drift of the fee', async () => {
    // Prepare: a snapshot, a payment, a snapshot: the interval adds up.
    const first = await snapshot(provider);
    await pay(provider, amount);
    const paid = await snapshot(provider);
    const clean = await driftsOf(provider, first.at);

    // Act: the provider charges a fee on the next payment; no statement brings its row.
    await simFaults({ feePercent: FEE_PERCENT });
    try {
      await pay(provider, amount);
    } finally {
      await simFaults(undefined);
    }
    const charged = await snapshot(provider);
    const drifts = await driftsOf(provider, first.at);

    // Assess
    expect(clean).toEqual([]);
    expect(drifts.map((d) => [d.category, Number(d.amount), Number(d.expected), Number(d.actual)])).toEqual([
      ['balance-drift', Number(fee), Number(amount), Number(amount) - Number(fee)],
    ]);
    // The drift is the charged payment's interval: from the clean one's snapshot to the next.
    const [, from, to] = /between (\S+) and (\S+);/.exec(drifts[0]!.detail)!;
    expect(from! >= paid.at && to! >= charged.at).toBe(true);
  });
});
