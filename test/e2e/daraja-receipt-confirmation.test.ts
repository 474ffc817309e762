/**
 * A Daraja STK push settled by the relay's own STK query (its answer carries no M-Pesa receipt) learns its
 * receipt when the STK callback comes later, but only from Daraja's own answer: the callback's receipt is
 * a claim the poller asks about with the transaction status query, and it is adopted when the answer,
 * through the query's record, names it with the payment's amount and payer. A forged callback's receipt is
 * asked about too and never adopted. The in-process relay on DynamoDB Local and the simulator (its STK and
 * transaction status APIs, real payload shapes); the poller runs on its own (scaled) schedule.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { darajaStk } from '../../scripts/sim/daraja';
import { runScenario } from '../../scripts/sim/run';
import type { TestRelay } from '../helpers/relay';
import { type DemoWithSimulator, simContext, startDemoWithSimulator } from '../helpers/relay-simulator';

const SAFARICOM_IP = '196.201.214.200';
const FORGED_RECEIPT = 'SBX0FORGED';
/** Generous: the machine may be loaded; every wait ends as soon as its condition holds. */
const WAIT = { timeout: 60_000, interval: 100 };

let pair: DemoWithSimulator;
let relay: TestRelay;

beforeAll(async () => {
  pair = await startDemoWithSimulator('daraja-receipt');
  ({ relay } = pair);
});
afterAll(() => pair?.stop());

interface SimCallback {
  url: string;
  body: string;
  outcome: string;
}

async function stkCallbacks(reference: string): Promise<SimCallback[]> {
  const response = await fetch(
    `${pair.sim.url}/_sim/callbacks?provider=daraja&kind=stk&reference=${reference}`,
  );
  expect(response.status).toBe(200);
  const answer = (await response.json()) as SimCallback[] | { callbacks: SimCallback[] };
  return Array.isArray(answer) ? answer : answer.callbacks;
}

async function darajaFaults(spec: string) {
  const response = await fetch(`${pair.sim.url}/_sim/faults`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(spec ? { daraja: spec } : {}),
  });
  expect(response.status).toBe(200);
}

async function transaction(reference: string) {
  const answer = await relay.admin('GET', `/v1/transactions/daraja/demo/${reference}`);
  expect(answer.status).toBe(200);
  return answer.body;
}

async function eventsOf(reference: string) {
  await relay.flush();
  return relay.sink.events.filter((e) => e.data.reference === reference);
}

/** Posts an STK callback body to the relay's STK route, from a Safaricom address. */
async function postStk(url: string, body: string) {
  return relay.request('POST', new URL(url).pathname, body, { 'x-forwarded-for': SAFARICOM_IP });
}

/** The push, its callback dropped by the simulator, settled SUCCEEDED by the relay's STK query alone. */
async function pushSettledByTheStkQuery() {
  const { reference } = await darajaStk(simContext(pair), { fault: 'drop' });
  const settled = await vi.waitFor(async () => {
    const view = await transaction(reference);
    expect(view.transaction.status).toBe('SUCCEEDED');
    return view;
  }, WAIT);
  const [dropped] = await stkCallbacks(reference);
  expect(dropped?.outcome).toBe('dropped');
  const receipt = /"MpesaReceiptNumber","Value":"([A-Z0-9]+)"/.exec(dropped!.body)?.[1];
  expect(receipt, dropped!.body).toBeDefined();
  return { reference, settled, dropped: dropped!, receipt: receipt! };
}

describe('Daraja: the receipt of an STK push the STK query settled', () => {
  it('is adopted from Daraja’s answer about the callback’s receipt; a forged receipt never is', async () => {
    // Prepare: settled by the STK query, so without a receipt.
    const { reference, settled, dropped, receipt } = await pushSettledByTheStkQuery();
    expect(settled.transaction.providerTransactionId).toBeNull();
    const forged = dropped.body.replace(receipt, FORGED_RECEIPT);
    expect(forged).not.toBe(dropped.body);

    // Act: a forged callback (path secret and a Safaricom address, as an insider could send it).
    const forgedAck = await postStk(dropped.url, forged);
    // The poller asks Daraja about the forged receipt; the answer (not found) reaches the relay.
    const asked = await vi.waitFor(async () => {
      const view = await transaction(reference);
      const answers = view.history.filter(
        (h: { type: string; route?: string }) => h.type === 'callback' && /status/.test(h.route ?? ''),
      );
      expect(answers.length).toBeGreaterThan(0);
      return view;
    }, WAIT);

    // Assess: acknowledged, kept as evidence, never adopted.
    expect(forgedAck.status).toBe(200);
    expect(asked.transaction.providerTransactionId).toBeNull();
    expect(asked.evidence).toContainEqual(
      expect.objectContaining({ source: 'callback', claim: 'SUCCEEDED', conclusive: false }),
    );
    expect(asked.evidence.map((e: { source: string }) => e.source)).not.toContain('receipt');

    // Act: the genuine callback comes late.
    const genuineAck = await postStk(dropped.url, dropped.body);
    const learnt = await vi.waitFor(async () => {
      const view = await transaction(reference);
      expect(view.transaction.providerTransactionId).toBe(receipt);
      return view;
    }, WAIT);

    // Assess: Daraja's own answer is the evidence; one success, no conflict, nothing republished.
    expect(genuineAck.status).toBe(200);
    expect(learnt.transaction.status).toBe('SUCCEEDED');
    expect(learnt.evidence).toContainEqual(
      expect.objectContaining({
        source: 'receipt',
        claim: 'SUCCEEDED',
        authentication: ['receipt'],
        amount: { value: '1', currency: 'KES' },
      }),
    );
    const types = (await eventsOf(reference)).map((e) => e.metadata.type);
    expect(types.filter((t) => t === 'TransactionSucceeded')).toHaveLength(1);
    expect(types).not.toContain('TransactionConflict');
  }, 120_000);

  it('lets `npm run sim -- daraja reversal` reverse a push whose callback came after the STK query', async () => {
    // Prepare: every Daraja callback held back until the STK query has settled the push.
    expect((await fetch(`${pair.sim.url}/_sim/callbacks`, { method: 'DELETE' })).status).toBeLessThan(300);
    await darajaFaults('drop');
    const ctx = { ...simContext(pair), timeoutMs: 60_000 };
    // Its failure is awaited below, not left unhandled meanwhile.
    const running = runScenario(ctx, 'daraja', 'reversal').then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
    const [held] = await vi.waitFor(async () => {
      const response = await fetch(`${pair.sim.url}/_sim/callbacks?provider=daraja&kind=stk`);
      const log = (await response.json()) as SimCallback[] | { callbacks: SimCallback[] };
      const entries = (Array.isArray(log) ? log : log.callbacks).filter((c) => c.outcome === 'dropped');
      const reference = entries.map((c) => /"CheckoutRequestID":"([^"]+)"/.exec(c.body)?.[1]).find(Boolean);
      expect(reference).toBeDefined();
      const view = await transaction(reference!);
      expect(view.transaction.status).toBe('SUCCEEDED');
      return entries.filter((c) => c.body.includes(reference!));
    }, WAIT);
    await darajaFaults('');

    // Act: the STK callback arrives late; the scenario goes on once the receipt is learnt.
    await postStk(held!.url, held!.body);
    const ran = await running;
    if ('error' in ran) throw ran.error;
    const { result } = ran;

    // Assess
    expect(result.problems).toEqual([]);
    expect(result.ok).toBe(true);
    expect(result.transaction?.providerTransactionId).toBe(
      /"MpesaReceiptNumber","Value":"([A-Z0-9]+)"/.exec(held!.body)?.[1],
    );
  }, 180_000);
});
