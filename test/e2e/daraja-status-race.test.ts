/**
 * A Daraja transaction-status result that reaches the relay before the poller has written the record of
 * its query (Daraja answered the query fast, the relay's write was slow) cannot be told apart from a
 * result nobody here asked for. On an account that trusts its sender (`confirmSuccess` off) it used to
 * settle the payout as a callback's claim; now it is held (AMBIGUOUS, UNCONFIRMED) and the relay's own
 * question settles it (origin poll). The in-process relay on DynamoDB Local and the simulator.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { darajaB2c } from '../../scripts/sim/daraja';
import type { RelayConfig } from '../../shared/config/schema';
import { darajaRouteUrl } from '../../shared/providers/daraja';
import { statusQueryKeys, statusQueryOccasion } from '../../shared/providers/daraja/correlation';
import { darajaStatusResult } from '../helpers/daraja-status-result';
import type { TestRelay } from '../helpers/relay';
import { type DemoWithSimulator, simContext, startDemoWithSimulator } from '../helpers/relay-simulator';

const SAFARICOM_IP = '196.201.214.200';

let pair: DemoWithSimulator;
let relay: TestRelay;
let config: RelayConfig;

beforeAll(async () => {
  pair = await startDemoWithSimulator('daraja-race', {
    edit: (demo) => {
      // The ledger run's account: it trusts its sender, so a callback's success settles on its own.
      delete demo.accounts.daraja.demo.confirmSuccess;
    },
  });
  ({ relay, config } = pair);
});
afterAll(() => pair?.stop());

async function darajaFaults(spec: string) {
  const response = await fetch(`${pair.sim.url}/_sim/faults`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(spec ? { daraja: spec } : {}),
  });
  expect(response.status).toBe(200);
}

async function transaction(reference: string) {
  return (await relay.admin('GET', `/v1/transactions/daraja/demo/${reference}`)).body;
}

async function eventsOf(reference: string) {
  await relay.flush();
  return relay.sink.events.filter((e) => e.data.reference === reference);
}

describe("Daraja: a status result that beats the poller's query record", () => {
  it('is held as an unconfirmed claim, and the relay’s own question settles the payout (origin poll)', async () => {
    // Prepare: a payout the simulator pays, its result callback dropped; the status API down for now.
    const account = config.accounts.get('daraja/demo')!;
    expect(account.settings.confirmSuccess).not.toBe(true);
    await darajaFaults('status-5xx=503');
    const { reference } = await darajaB2c(simContext(pair), { fault: 'drop' });
    const [secret] = statusQueryKeys(account as never);
    const occasion = statusQueryOccasion({ secret: secret!, account: 'demo', kind: 'b2c', reference });
    const path = new URL(darajaRouteUrl(relay.url, 'demo', account.pathSecret, 'status-result')).pathname;

    // Act: "Completed" with the relay's own token, as Daraja would post it, but no query record exists.
    const early = await relay.request(
      'POST',
      path,
      darajaStatusResult({
        query: { oc: '5118-111210482-9', c: 'AG_20261129_race000000000001' },
        about: reference,
        receipt: 'SBX0RACE01',
        occasion,
      }),
      { 'x-forwarded-for': SAFARICOM_IP },
    );
    const held = await transaction(reference);
    const beforeAnswer = await eventsOf(reference);

    // Assess: acknowledged, held, nothing final published.
    expect(early.status).toBe(200);
    expect(held.transaction.status).toBe('AMBIGUOUS');
    expect(held.transaction.reason).toMatchObject({ code: 'UNCONFIRMED' });
    expect(beforeAnswer.map((e) => e.metadata.type)).not.toContain('TransactionSucceeded');

    // Act: the status API is back; the poller asks and Daraja answers through the query's record.
    await darajaFaults('');
    const settled = await vi.waitFor(
      async () => {
        const view = await transaction(reference);
        expect(view.transaction.status).toBe('SUCCEEDED');
        return view;
      },
      { timeout: 30_000, interval: 100 },
    );

    // Assess: one success, from the relay's own question.
    const succeeded = (await eventsOf(reference)).filter((e) => e.metadata.type === 'TransactionSucceeded');
    expect(settled.transaction.status).toBe('SUCCEEDED');
    expect(succeeded).toHaveLength(1);
    expect(succeeded[0]!.metadata.origin).toBe('poll');
  }, 60_000);
});
