/**
 * Issue 29, "Done when", end to end: the in-process relay (DynamoDB Local) wired to the simulator as
 * `npm start -- --simulator` wires them, the Daraja pull served from the simulator's books.
 *
 * - A C2B payment whose confirmation the simulator dropped is found by the pull and published once, origin
 *   `statement`, with the pulled row as its evidence (source `statement`, authentication `provider-api`).
 * - A pull answered HTTP 200 with a failure (`pullFailure`) is not a good pull: the last good pull stands, its
 *   age grows and the failure is counted.
 * - Over HTTP (POST /v1/statements/…/import): a row contradicting a final verdict is a conflict, the verdict
 *   stays; the simulator's statement file imported again changes nothing.
 *
 * Time: the poller of the relay is left on its (long) interval; each tick is run here with a clock moved by
 * hand past the account's pull interval, so nothing waits on the real clock.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  readPullState,
  PULL_AGE_METRIC,
  PULL_FAILURES_METRIC,
} from '../../shared/app/provider-records/pull-cycle';
import { runProviderRecordsTick } from '../../shared/app/provider-records/tick';
import type { RelayMetrics } from '../../shared/app/ports';
import type { EventEnvelope } from '../../shared/domain/events';
import type { Simulator } from '../../simulator/server';
import { simulatedDemoConfig, startRelayWithSimulator } from '../helpers/relay-simulator';
import { ADMIN_HEADERS, type TestRelay } from '../helpers/relay';

const SHORT_CODE = '600638';
const eventsFile = join(mkdtempSync(join(tmpdir(), 'statements-pull-')), 'events.ndjson');
/** `reconciliation.timeScale` of this file: the pull interval (900 s) is 9 s of test time. */
const TIME_SCALE = 0.01;
const PULL_INTERVAL_MS = 900 * TIME_SCALE * 1000;

let relay: TestRelay;
let sim: Simulator;
/** The clock the pull ticks run on: real time moved forward by hand. */
let shiftMs = 0;
const clock = { now: () => new Date(Date.now() + shiftMs) };
const metrics: { name: string; value: number; dimensions?: Record<string, string> }[] = [];
const recording: RelayMetrics = {
  count: (name, value = 1, dimensions) => void metrics.push({ name, value, dimensions }),
  flush: () => {},
} as RelayMetrics;

beforeAll(async () => {
  ({ relay, sim } = await startRelayWithSimulator({
    eventsFile,
    configFor: (relayUrl, simUrl) =>
      simulatedDemoConfig(relayUrl, simUrl, {
        eventsFile,
        // The relay's own poller stays out of the way (one tick an hour): this file runs the ticks.
        reconciliation: { timeScale: TIME_SCALE, pollIntervalSeconds: 3600 },
      }),
  }));
});
afterAll(async () => {
  await sim?.close();
  await relay?.stop();
});

/** One poller tick of the provider records, `advanceMs` later than the previous one. */
async function tick(advanceMs = PULL_INTERVAL_MS + 1) {
  shiftMs += advanceMs;
  const result = await runProviderRecordsTick({ ...relay.services, clock, metrics: recording });
  const pull = result?.pulls.find((p) => p.provider === 'daraja' && p.account === 'demo');
  expect(pull, 'the tick pulled daraja/demo').toBeDefined();
  return pull!;
}

async function sim200(path: string, init: RequestInit = {}) {
  const response = await fetch(`${sim.url}${path}`, init);
  const text = await response.text();
  expect(response.status, `${path}: ${text}`).toBeLessThan(300);
  return text ? JSON.parse(text) : undefined;
}

async function darajaToken(): Promise<string> {
  const basic = Buffer.from('sim-daraja-consumer-key:sim-daraja-consumer-secret').toString('base64');
  const answer = await sim200('/oauth/v1/generate?grant_type=client_credentials', {
    headers: { authorization: `Basic ${basic}` },
  });
  return answer.access_token;
}

/** A C2B payment into the demo short code, with simulator faults on its callbacks. */
async function c2bPayment(amount: number, fault?: string): Promise<string> {
  const answer = await sim200('/mpesa/c2b/v1/simulate', {
    method: 'POST',
    headers: {
      authorization: `Bearer ${await darajaToken()}`,
      'content-type': 'application/json',
      ...(fault ? { 'x-sim-fault': fault } : {}),
    },
    body: JSON.stringify({
      ShortCode: SHORT_CODE,
      CommandID: 'CustomerPayBillOnline',
      Amount: amount,
      Msisdn: '254708374149',
      BillRefNumber: 'INV-29',
    }),
  });
  return answer.SimulatorOutcome.TransID as string;
}

async function eventsAbout(reference: string): Promise<EventEnvelope[]> {
  return (await relay.flush()).filter((e) => (e.data as { reference?: string }).reference === reference);
}

/** Awaits a condition on the relay's events (the stream pump is flushed on each look), never a fixed sleep. */
async function eventually<T>(look: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const value = await look();
    if (done(value)) return value;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`never happened: ${what}`);
}

describe('the Daraja pull against the simulator (issue 29)', () => {
  it('finds a C2B payment whose confirmation was dropped and publishes it once, with the pulled row as evidence', async () => {
    // Prepare: the simulator moves the money and drops the confirmation.
    const receipt = await c2bPayment(250, 'drop');
    const logged = await sim200(`/_sim/callbacks?provider=daraja&reference=${receipt}`);
    expect(JSON.stringify(logged)).toContain('dropped');
    expect((await eventsAbout(receipt)).filter((e) => e.metadata.type === 'TransactionSucceeded')).toEqual(
      [],
    );

    // Act: two pulls, the second overlapping the first.
    const first = await tick();
    const second = await tick();

    // Assess
    expect(first).toMatchObject({ outcome: 'pulled' });
    expect(first.rows).toBeGreaterThanOrEqual(1);
    expect(second).toMatchObject({ outcome: 'pulled' });
    const succeeded = await eventually(
      async () => (await eventsAbout(receipt)).filter((e) => e.metadata.type === 'TransactionSucceeded'),
      (found) => found.length > 0,
      `TransactionSucceeded for ${receipt}`,
    );
    await relay.flush();
    expect(
      (await eventsAbout(receipt)).filter((e) => e.metadata.type === 'TransactionSucceeded'),
    ).toHaveLength(1);
    // The relay's own pull: origin poll (the contract's list); the evidence says statement.
    expect(succeeded[0]!.metadata.origin).toBe('poll');
    expect(succeeded[0]!.data).toMatchObject({
      reference: receipt,
      providerTransactionId: receipt,
      settledByStatement: { source: 'pull-api' },
    });
    const tx = await relay.admin('GET', `/v1/transactions/daraja/demo/${receipt}`);
    expect(tx.status).toBe(200);
    expect(tx.body.transaction).toMatchObject({ status: 'SUCCEEDED', kind: 'c2b' });
    expect(tx.body.evidence).toEqual([
      expect.objectContaining({
        source: 'statement',
        authentication: ['provider-api'],
        claim: 'SUCCEEDED',
        amount: { value: '250', currency: 'KES' },
      }),
    ]);
    expect(tx.body.history).toContainEqual(
      expect.objectContaining({ type: 'transition', to: 'SUCCEEDED', origin: 'poll' }),
    );
  });

  it('a pull answered 200 with a failure is not a good pull: the last good pull stands and its age grows', async () => {
    // Prepare: a good pull, then the simulator's pulls fail inside a 200.
    const good = await tick();
    expect(good).toMatchObject({ outcome: 'pulled' });
    const before = await readPullState(relay.store, 'daraja', 'demo');
    await sim200('/_sim/books/faults', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ pullFailure: true }),
    });
    metrics.length = 0;

    // Act
    const failed = await tick();
    const again = await tick();

    // Assess
    await sim200('/_sim/books/faults', { method: 'DELETE' });
    expect(failed).toMatchObject({ outcome: 'failed', rows: 0 });
    expect(again).toMatchObject({ outcome: 'failed' });
    expect(again.ageSeconds).toBeGreaterThan(failed.ageSeconds);
    expect(failed.ageSeconds).toBeGreaterThanOrEqual(Math.floor(PULL_INTERVAL_MS / 1000));
    const after = await readPullState(relay.store, 'daraja', 'demo');
    expect(after.lastGoodPullAt).toBe(before.lastGoodPullAt);
    expect(after.consecutiveFailures).toBe(2);
    expect(after.lastError?.detail).toMatch(/1001|fail/i);
    // One series per provider (the stored state above is per account): a failure counted on each failed
    // pull; the age only from half the ticket threshold on (12 h scaled: far from these seconds), so a
    // short failure bills no age series (issue 28).
    const ofDaraja = (name: string) =>
      metrics.filter((m) => m.name === name && m.dimensions?.provider === 'daraja');
    expect(ofDaraja(PULL_FAILURES_METRIC).length).toBeGreaterThanOrEqual(2);
    for (const m of ofDaraja(PULL_FAILURES_METRIC)) expect(m.dimensions).toEqual({ provider: 'daraja' });
    expect(ofDaraja(PULL_AGE_METRIC)).toEqual([]);
  });
});

/** POST /v1/statements/daraja/demo/import as the management token's operator, the file's text as the body. */
async function importFile(text: string, file: string) {
  return relay.request('POST', `/v1/statements/daraja/demo/import?file=${encodeURIComponent(file)}`, text, {
    ...ADMIN_HEADERS,
    'content-type': 'text/csv',
  });
}

async function simStatement(layout: string): Promise<string> {
  const response = await fetch(`${sim.url}/_sim/statements/daraja/${SHORT_CODE}?layout=${layout}`);
  expect(response.status).toBe(200);
  return response.text();
}

describe('statement files over HTTP against the running relay (issue 29)', () => {
  it('a row contradicting a final verdict is a TransactionConflict; the verdict stays SUCCEEDED', async () => {
    // Prepare: a C2B payment confirmed by its callback, then the simulator's paybill statement with that
    // payment's row saying it failed.
    const receipt = await c2bPayment(400);
    await eventually(
      async () => (await eventsAbout(receipt)).filter((e) => e.metadata.type === 'TransactionSucceeded'),
      (found) => found.length === 1,
      `TransactionSucceeded for ${receipt}`,
    );
    const statement = await simStatement('mpesa-paybill');
    const lines = statement.split(/\r?\n/);
    const header = lines.findIndex((l) => l.startsWith('Receipt No.'));
    const row = lines.find((l) => l.startsWith(`${receipt},`));
    expect(header, statement).toBeGreaterThanOrEqual(0);
    expect(row, statement).toBeDefined();
    const failedRow = row!.replace(/,Completed,/, ',Failed,');
    expect(failedRow).not.toBe(row);
    const contradicting = [...lines.slice(0, header + 1), failedRow].join('\n');

    // Act
    const answer = await importFile(contradicting, `contradicting-${receipt}.csv`);

    // Assess
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.result).toMatchObject({ rows: 1, conflicts: 1, settled: 0, opened: 0 });
    const conflicts = await eventually(
      async () => (await eventsAbout(receipt)).filter((e) => e.metadata.type === 'TransactionConflict'),
      (found) => found.length > 0,
      `TransactionConflict for ${receipt}`,
    );
    expect(conflicts).toHaveLength(1);
    // A statement file: origin manual (the contract's list); the evidence names the statement.
    expect(conflicts[0]!.metadata.origin).toBe('manual');
    const types = (await eventsAbout(receipt)).map((e) => e.metadata.type);
    expect(types.filter((t) => t.startsWith('Transaction') && t !== 'TransactionConflict')).toEqual([
      'TransactionSucceeded',
    ]);
    const tx = await relay.admin('GET', `/v1/transactions/daraja/demo/${receipt}`);
    expect(tx.body.transaction.status).toBe('SUCCEEDED');
  });

  it("the simulator's statement file imported again changes nothing", async () => {
    // Prepare: the books' merchant export (the rows pulled and imported above among them), imported once.
    const file = await simStatement('mpesa-merchant');
    const first = await importFile(file, 'merchant.csv');
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.result.rows).toBeGreaterThanOrEqual(2);
    await relay.flush();
    // Publishing is at least once (docs/events.md): a fact is new when its event id is, not each delivery.
    const idsBefore = new Set(relay.sink.events.map((e) => e.metadata.id));
    const listed = async () =>
      (await relay.admin('GET', '/v1/transactions?provider=daraja&account=demo')).body.transactions;
    const itemsBefore = await listed();
    // The business day in Nairobi time (UTC+3); a break's age is the only thing that moves on its own.
    const today = new Date(Date.now() + 3 * 3600_000).toISOString().slice(0, 10);
    const day = async () =>
      JSON.parse(
        JSON.stringify((await relay.admin('GET', `/v1/statements/daraja/demo/days/${today}`)).body),
        (key, value) => (key === 'ageSeconds' ? undefined : value),
      );
    const dayBefore = await day();

    // Act
    const dryRun = await relay.request(
      'POST',
      '/v1/statements/daraja/demo/import?file=merchant-again.csv&dryRun=true',
      file,
      { ...ADMIN_HEADERS, 'content-type': 'text/csv' },
    );
    const again = await importFile(file, 'merchant-again.csv');

    // Assess
    const nothing = { matched: 0, settled: 0, opened: 0, conflicts: 0, breaks: 0, feesLinked: 0 };
    expect(dryRun.body.result).toMatchObject({ rows: first.body.result.rows, ...nothing });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body.result).toMatchObject({ rows: first.body.result.rows, ...nothing });
    await relay.flush();
    // Named, so a failure says what was published (type, origin, about what).
    // About the account whose statement was imported, balances aside: the relay keeps working meanwhile,
    // and a balance answer (asked on each account's balance schedule) arrives by callback whenever it
    // comes (captured: AccountBalanceReported for demo-slow; demo's balance is asked the same way). An
    // import reports no balance.
    expect(
      relay.sink.events
        .filter(
          (e) =>
            !idsBefore.has(e.metadata.id) &&
            e.metadata.correlationId.startsWith('daraja:demo:') &&
            e.metadata.type !== 'AccountBalanceReported',
        )
        .map((e) => `${e.metadata.type} ${e.metadata.origin} ${e.metadata.correlationId}`),
    ).toEqual([]);
    expect(await listed()).toEqual(itemsBefore);
    expect(await day()).toEqual(dayBefore);
  });
});
