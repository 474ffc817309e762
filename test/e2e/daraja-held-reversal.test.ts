/**
 * A Daraja reversal result from an address the source-IP list does not admit (the list only logs) is held
 * (ReversalAmbiguous, UNCONFIRMED) and counts nothing; on an account with a status API the poller then asks
 * Daraja's transaction status query about the reversal's own receipt. Daraja's answer confirms it (one
 * TransactionReversed on Daraja's word), refuses it (TransactionConflict) or never settles it (escalated for
 * a person after a fixed number of asks). The in-process relay on DynamoDB Local and the simulator (its STK,
 * reversal and transaction status APIs, real payload shapes); the poller runs on its own (scaled) schedule.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { darajaReversal, darajaStk } from '../../scripts/sim/daraja';
import { darajaRouteUrl } from '../../shared/providers/daraja/route-url';
import type { TestRelay } from '../helpers/relay';
import { type DemoWithSimulator, simContext, startDemoWithSimulator } from '../helpers/relay-simulator';

/** An address outside Safaricom's list: the demo account's list only logs it (log-only). */
const FORGER_IP = '203.0.113.9';
/** Generous: the machine may be loaded; every wait ends as soon as its condition holds. */
const WAIT = { timeout: 90_000, interval: 200 };
/**
 * The relay's reconciliation clock: a held reversal is asked about three times (at once, then after 60 s
 * and 600 s) and escalated 1,800 s after the last ask: 2,460 s of simulated time, 24.6 s at the helpers'
 * usual 0.01, 6.2 s here, the file's longest wait. The simulator keeps its own (faster) clock: Daraja's
 * answer to an ask still comes long before the next one is due.
 */
const TIME_SCALE = 0.0025;

let pair: DemoWithSimulator;
let relay: TestRelay;

beforeAll(async () => {
  pair = await startDemoWithSimulator('daraja-held-reversal', {
    reconciliation: { timeScale: TIME_SCALE },
    edit: (demo) => {
      demo.accounts.daraja.demo.sourceIp = { mode: 'log-only' };
    },
  });
  ({ relay } = pair);
});
afterAll(() => pair?.stop());

interface SimCallback {
  url: string;
  body: string;
  outcome: string;
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

/** Posts a reversal result to the demo account's reversal route from an address the list does not admit. */
async function postReversalFromForger(body: string) {
  const account = pair.config.accounts.get('daraja/demo');
  const url = darajaRouteUrl(relay.url, 'demo', account?.pathSecret, 'reversal-result');
  return relay.request('POST', new URL(url).pathname, body, { 'x-forwarded-for': FORGER_IP });
}

/** A paid STK push and its M-Pesa receipt, as the relay learnt it. */
async function paidPush() {
  const { reference } = await darajaStk(simContext(pair), {});
  const receipt = await vi.waitFor(async () => {
    const view = await transaction(reference);
    expect(view.transaction.status).toBe('SUCCEEDED');
    expect(view.transaction.providerTransactionId).toBeTruthy();
    return view.transaction.providerTransactionId as string;
  }, WAIT);
  return { reference, receipt };
}

/** A reversal result in Daraja's shape, as a forger writes it: `reversal` is its own receipt. */
function forgedReversal(original: string, reversal: string, id: string) {
  return JSON.stringify({
    Result: {
      ResultType: 0,
      ResultCode: 0,
      ResultDesc: 'The service request is processed successfully.',
      OriginatorConversationID: id,
      ConversationID: `AG_20261201_${id}`,
      TransactionID: reversal,
      ResultParameters: {
        ResultParameter: [
          { Key: 'Amount', Value: 1 },
          { Key: 'TransCompletedTime', Value: 20261201040000 },
          { Key: 'OriginalTransactionID', Value: original },
          { Key: 'Charge', Value: 0 },
        ],
      },
      ReferenceData: { ReferenceItem: { Key: 'QueueTimeoutURL', Value: 'https://example.invalid/t' } },
    },
  });
}

/** The relay's finer reason (reasonDetail) where the contract's code is UNKNOWN, else the code. */
const reasonOf = (e: { data: Record<string, unknown> }) =>
  (e.data.reasonDetail as string | undefined) ?? (e.data.reason as { code?: string } | undefined)?.code;

/** Sets the simulator's global Daraja faults ('' clears them). */
async function darajaFaults(spec: string) {
  const response = await fetch(`${pair.sim.url}/_sim/faults`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(spec ? { daraja: spec } : {}),
  });
  expect(response.status).toBe(200);
}

/** A real reversal whose result the simulator holds back (dropped): its payment and the result's body. */
async function droppedReversal() {
  const started = await darajaReversal(simContext(pair), { fault: 'drop' });
  const dropped = await vi.waitFor(async () => {
    const response = await fetch(
      `${pair.sim.url}/_sim/callbacks?provider=daraja&kind=reversal-result&reference=${started.simReference}`,
    );
    const log = (await response.json()) as SimCallback[] | { callbacks: SimCallback[] };
    const [entry] = (Array.isArray(log) ? log : log.callbacks).filter((c) => c.outcome === 'dropped');
    expect(entry).toBeDefined();
    return entry!;
  }, WAIT);
  return { reference: started.reference, body: dropped.body };
}

describe('Daraja: a held reversal on an account with a status API', () => {
  it("is applied on Daraja's word when its status query confirms the reversal's receipt", async () => {
    // Prepare: a real reversal whose result the simulator holds back (dropped), then sends from elsewhere.
    const { reference, body } = await droppedReversal();

    // Act: the result arrives from an address the list does not admit.
    const ack = await postReversalFromForger(body);

    // Assess: held first, then confirmed by the status query's answer: one reversal, Daraja's word.
    expect(ack.status).toBe(200);
    const reversed = await vi.waitFor(async () => {
      const events = await eventsOf(reference);
      const found = events.filter((e) => e.metadata.type === 'TransactionReversed');
      expect(found).toHaveLength(1);
      return { events, found: found[0]! };
    }, WAIT);
    const types = reversed.events.map((e) => e.metadata.type);
    expect(reversed.events.filter((e) => e.metadata.type === 'ReversalAmbiguous').map(reasonOf)).toEqual([
      'UNCONFIRMED',
    ]);
    expect(types).not.toContain('TransactionConflict');
    expect(reversed.found.metadata.origin).toBe('poll');
    expect(reversed.found.data).toMatchObject({ netAmount: { value: '0' } });
    expect(reversed.found.data.evidence).toEqual([
      expect.objectContaining({ source: 'status-api', authentication: ['status-api'], conclusive: true }),
    ]);
    const view = await transaction(reference);
    expect(view.transaction.status).toBe('SUCCEEDED');
  }, 180_000);

  it("is refused with a TransactionConflict when Daraja's answer says the receipt is no reversal", async () => {
    // Prepare: a paid push; a forger names the payment's own receipt (on the customer's SMS) as the reversal's.
    const { reference, receipt } = await paidPush();

    // Act
    const ack = await postReversalFromForger(forgedReversal(receipt, receipt, 'FORGED-1'));

    // Assess
    expect(ack.status).toBe(200);
    const conflict = await vi.waitFor(async () => {
      const found = (await eventsOf(reference)).filter((e) => e.metadata.type === 'TransactionConflict');
      expect(found).toHaveLength(1);
      return found[0]!;
    }, WAIT);
    expect(conflict.data).toMatchObject({
      conflict: { kind: 'STATUS', detail: expect.stringContaining('not a reversal') },
    });
    const types = (await eventsOf(reference)).map((e) => e.metadata.type);
    expect(types).not.toContain('TransactionReversed');
  }, 180_000);

  it('is escalated for a person when no answer settles it after a fixed number of asks', async () => {
    // Prepare: a paid push; a forger names a reversal receipt Daraja does not know.
    const { reference, receipt } = await paidPush();

    // Act
    const ack = await postReversalFromForger(forgedReversal(receipt, 'SBX0FORGED', 'FORGED-2'));

    // Assess: ReversalAmbiguous UNCONFIRMED, then (asks spent) NO_FINAL_ANSWER; never counted.
    expect(ack.status).toBe(200);
    const escalated = await vi.waitFor(async () => {
      const found = (await eventsOf(reference)).filter(
        (e) => e.metadata.type === 'ReversalAmbiguous' && reasonOf(e) === 'NO_FINAL_ANSWER',
      );
      expect(found).toHaveLength(1);
      return found[0]!;
    }, WAIT);
    expect(escalated.data).toMatchObject({ reason: { message: expect.stringContaining('SBX0FORGED') } });
    const types = (await eventsOf(reference)).map((e) => e.metadata.type);
    expect(types).not.toContain('TransactionReversed');
    const statusAnswers = (await transaction(reference)).history.filter(
      (h: { type: string; route?: string }) => h.type === 'callback' && /status/.test(h.route ?? ''),
    );
    expect(statusAnswers.length).toBeGreaterThan(0);
    expect(statusAnswers.length).toBeLessThanOrEqual(3);
  }, 180_000);

  it("is applied once when Daraja's answer beats the poller's record of its query (it waits for it)", async () => {
    // Prepare: Daraja posts every status result before it answers the query (the relay's record comes late).
    const { reference, body } = await droppedReversal();
    const before = relay.sink.events.length;
    await darajaFaults('result-first');
    try {
      // Act
      const ack = await postReversalFromForger(body);

      // Assess: confirmed by that early answer, on Daraja's word; nothing applied elsewhere.
      expect(ack.status).toBe(200);
      const reversed = await vi.waitFor(async () => {
        const found = (await eventsOf(reference)).filter((e) => e.metadata.type === 'TransactionReversed');
        expect(found).toHaveLength(1);
        return found[0]!;
      }, WAIT);
      expect(reversed.data.evidence).toEqual([expect.objectContaining({ source: 'status-api' })]);
      const since = relay.sink.events.slice(before).map((e) => e.metadata.type);
      expect(since).not.toContain('TransactionConflict');
      expect(since).not.toContain('CallbackOrphaned');
      expect(since).not.toContain('TransactionAmbiguous');
    } finally {
      await darajaFaults('');
    }
  }, 180_000);
});
