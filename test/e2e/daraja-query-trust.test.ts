/**
 * Issue 17, "no query built on unverified data", end to end: the in-process relay (DynamoDB Local) and the
 * simulator. A forged `b2c/result` naming another payout's receipt, or a forged queue-timeout echo carrying
 * a `TransactionID`, must not make the poller ask Daraja about that other receipt: the status query goes by
 * the payout's own OriginatorConversationID, Daraja says it failed, and no TransactionSucceeded is published.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimContext } from '../../scripts/sim/core';
import { darajaB2c } from '../../scripts/sim/daraja';
import { runScenario } from '../../scripts/sim/run';
import type { RelayConfig } from '../../shared/config/schema';
import { darajaRouteUrl } from '../../shared/providers/daraja';
import { statusQueryOccasion } from '../../shared/providers/daraja/correlation';
import type { Simulator } from '../../simulator/server';
import { darajaStatusResult } from '../helpers/daraja-status-result';
import type { TestRelay } from '../helpers/relay';
import {
  type RelayWithSimulator,
  simContext,
  simulatedDemoConfig,
  startRelayWithSimulator,
} from '../helpers/relay-simulator';

const SAFARICOM_IP = '196.201.214.200';
/** PartyB suffix 0001: the simulator fails the payout (ResultCode 1, insufficient balance). */
const FAILING_PARTY_B = '254708370001';

let pair: RelayWithSimulator;
let relay: TestRelay;
let sim: Simulator;
let config: RelayConfig;
const eventsFile = join(mkdtempSync(join(tmpdir(), 'daraja-trust-')), 'events.ndjson');

/** The demo config on this relay and simulator; daraja/demo confirms unsigned successes with the status API. */
const trustConfig = (relayUrl: string, simUrl: string) =>
  simulatedDemoConfig(relayUrl, simUrl, {
    eventsFile,
    reconciliation: { timeScale: 0.01, pollIntervalSeconds: 0.2 },
    edit: (demo) => {
      demo.accounts.daraja.demo.confirmSuccess = true;
      // The one secret a forger who can post to the callback URL already has.
      demo.accounts.daraja.demo.pathSecret = 'dQ7vK2pX9mR4tW8yB3nL6cF1';
    },
  });

beforeAll(async () => {
  pair = await startRelayWithSimulator({ eventsFile, configFor: trustConfig });
  ({ relay, sim, config } = pair);
});
afterAll(async () => {
  await sim?.close();
  await relay?.stop();
});

const context = (): SimContext => simContext(pair);

function routePath(route: 'b2c-result' | 'b2c-timeout' | 'status-result'): string {
  const account = config.accounts.get('daraja/demo')!;
  return new URL(darajaRouteUrl(relay.url, 'demo', account.pathSecret, route)).pathname;
}

async function transaction(reference: string) {
  return (await relay.admin('GET', `/v1/transactions/daraja/demo/${reference}`)).body;
}

/** Waits until the transaction is final (or the time is up) and returns it with its events. */
async function settled(reference: string, timeoutMs = 12_000) {
  const until = Date.now() + timeoutMs;
  let view = await transaction(reference);
  while (!['SUCCEEDED', 'FAILED'].includes(view.transaction.status) && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 100));
    view = await transaction(reference);
  }
  await relay.flush();
  const events = relay.sink.events.filter((e) => e.data.reference === reference);
  return { view, events, types: events.map((e) => e.metadata.type) };
}

/** A payout the simulator pays, confirmed by the status API: its receipt is what the forgeries name. */
async function paidPayoutReceipt(): Promise<string> {
  const paid = await runScenario(context(), 'daraja', 'b2c', {});
  const { view } = await settled(paid.started.reference);
  expect(view.transaction.status).toBe('SUCCEEDED');
  return view.transaction.providerTransactionId as string;
}

/** A payout the simulator fails, its result callback dropped: only the poller can learn the outcome. */
async function failedPayoutWithoutCallback(): Promise<string> {
  const started = await darajaB2c(context(), { partyB: FAILING_PARTY_B, fault: 'drop' });
  return started.reference;
}

describe('Daraja: no status query built on unverified data (issue 17)', () => {
  it("a forged b2c/result naming another payout's receipt never makes the failed payout succeed", async () => {
    // Prepare
    const otherReceipt = await paidPayoutReceipt();
    const reference = await failedPayoutWithoutCallback();

    // Act: a success for the failed payout, from a Safaricom address, carrying the paid payout's receipt.
    const forged = await relay.request(
      'POST',
      routePath('b2c-result'),
      {
        Result: {
          ResultType: 0,
          ResultCode: 0,
          ResultDesc: 'The service request is processed successfully.',
          OriginatorConversationID: reference,
          ConversationID: 'AG_20260101_forged0000000001',
          TransactionID: otherReceipt,
          ResultParameters: {
            ResultParameter: [
              { Key: 'TransactionAmount', Value: 10 },
              { Key: 'TransactionReceipt', Value: otherReceipt },
            ],
          },
        },
      },
      { 'x-forwarded-for': SAFARICOM_IP },
    );
    const { view, types } = await settled(reference);

    // Assess: the poller asked about the payout itself; Daraja says it failed.
    expect(forged.status).toBe(200);
    expect(types).not.toContain('TransactionSucceeded');
    expect(view.transaction.status).toBe('FAILED');
    expect(types).toContain('TransactionFailed');
  });

  it('a forged queue-timeout echo carrying a TransactionID never makes the failed payout succeed', async () => {
    // Prepare
    const otherReceipt = await paidPayoutReceipt();
    const reference = await failedPayoutWithoutCallback();

    // Act: a queue-timeout echo of the payout request, with the paid payout's receipt as TransactionID.
    const forged = await relay.request(
      'POST',
      routePath('b2c-timeout'),
      {
        InitiatorName: 'testapi',
        SecurityCredential: 'c2VjcmV0',
        CommandID: 'BusinessPayment',
        Amount: '10',
        PartyA: '600638',
        PartyB: FAILING_PARTY_B,
        Remarks: 'Payout',
        OriginatorConversationID: reference,
        TransactionID: otherReceipt,
      },
      { 'x-forwarded-for': SAFARICOM_IP },
    );
    const { view, types } = await settled(reference);

    // Assess
    expect(forged.status).toBe(200);
    expect(types).toContain('TransactionAmbiguous');
    expect(types).not.toContain('TransactionSucceeded');
    expect(view.transaction.status).toBe('FAILED');
  });

  it('a forged status result with a token keyed by the path secret is an unconfirmed claim: the payout ends FAILED', async () => {
    // Prepare: a payout Daraja fails, its result dropped; the forger knows the callback URL (path secret).
    const reference = await failedPayoutWithoutCallback();
    const pathSecret = config.accounts.get('daraja/demo')!.pathSecret!;
    const occasion = statusQueryOccasion({ secret: pathSecret, account: 'demo', kind: 'b2c', reference });

    // Act: "Completed", as the answer to a status query the relay never made.
    const forged = await relay.request(
      'POST',
      routePath('status-result'),
      darajaStatusResult({
        query: { oc: '5118-111210482-1', c: 'AG_20260101_forged0000000002' },
        about: reference,
        receipt: 'SBX0FORGED',
        occasion,
      }),
      { 'x-forwarded-for': SAFARICOM_IP },
    );
    const { view, types, events } = await settled(reference);

    // Assess: never a success; Daraja's own answer (FAILED) settles it; the forgery stays a claim on record.
    expect(forged.status).toBe(200);
    expect(types).not.toContain('TransactionSucceeded');
    expect(view.transaction.status).toBe('FAILED');
    const failed = events.find((e) => e.metadata.type === 'TransactionFailed')!;
    expect(failed.metadata.origin).toBe('poll');
    const history = view.history as { type: string; to?: string; origin?: string; evidence?: unknown }[];
    expect(history.some((h) => h.type === 'callback')).toBe(true);
    // The forged "Completed" was held as a claim (AMBIGUOUS, not conclusive), then Daraja's answer ended it,
    // the disagreement on record.
    const held = history.find((h) => h.type === 'transition' && h.to === 'AMBIGUOUS');
    expect(held).toMatchObject({ origin: 'callback' });
    expect(held).toMatchObject({ evidence: { source: 'callback', claim: 'SUCCEEDED', conclusive: false } });
    expect(history.find((h) => h.type === 'transition' && h.to === 'FAILED')).toMatchObject({
      origin: 'poll',
    });
    // The forged claim's disagreement is on record. (On a loaded machine the relay's own answer can also
    // arrive before its query record: then it is a claim too, and its disagreement is recorded beside.)
    const conflicts = history.filter((h) => h.type === 'conflict') as unknown as {
      reportedStatus: string;
      evidence?: { claim: string }[];
    }[];
    expect(
      conflicts.some(
        (c) => c.reportedStatus === 'SUCCEEDED' || c.evidence?.some((e) => e.claim === 'SUCCEEDED'),
      ),
      JSON.stringify(conflicts),
    ).toBe(true);
  });
});
