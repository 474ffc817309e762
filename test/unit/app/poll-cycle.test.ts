import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../shared/adapters/memory/memory-store';
import { runPollCycle } from '../../../shared/app/reconciliation/poll-cycle';
import { noMetrics } from '../../../shared/app/ports';
import type { ReconcileServices } from '../../../shared/app/reconciliation/reconcile';
import { registerTransaction } from '../../../shared/app/transactions/register-transaction';
import { parseConfig } from '../../../shared/config/load';
import type { StatusAnswer, StatusApi, StatusQuery } from '../../../shared/providers/types';

const START = Date.parse('2026-11-23T10:00:00.000Z');
const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** A MoMo account's status API settings; a high rate so pacing never waits in these tests. */
const api = (concurrency: number) => ({
  baseUrl: 'https://sandbox.momodeveloper.mtn.com',
  apiUser: '11111111-2222-4333-8444-555555555555',
  apiKey: 'test-api-key',
  collectionSubscriptionKey: 'test-subscription-key',
  maxRequestsPerSecond: 1000,
  concurrency,
});

function configWith(overall: number) {
  return parseConfig({
    management: { bearerToken: 'a-long-enough-token' },
    reconciliation: { windowSeconds: 3600, concurrency: overall },
    accounts: {
      momo: {
        a: { pathSecret: 'momo-path-secret-0123', api: api(2) },
        b: { pathSecret: 'momo-path-secret-4567', api: api(3) },
      },
    },
  });
}

const pending = (): StatusAnswer => ({ type: 'pending', providerCode: 'PENDING', detail: 'PENDING' });

/**
 * A provider whose answers the test releases by hand: every call waits until released, so the calls in
 * flight can be counted at any moment, per account and in total.
 */
function heldProvider(answer: (account: string, query: StatusQuery) => StatusAnswer = () => pending()) {
  const inFlight = new Map<string, number>();
  const maxInFlight = new Map<string, number>();
  const calls: { account: string; reference: string }[] = [];
  const waiting: (() => void)[] = [];
  let total = 0;
  let maxTotal = 0;
  /** Moments at which calls of both accounts were in flight together. */
  let together = 0;
  const apiOf = (account: string): StatusApi => ({
    async check(query) {
      calls.push({ account, reference: query.reference });
      inFlight.set(account, (inFlight.get(account) ?? 0) + 1);
      maxInFlight.set(account, Math.max(maxInFlight.get(account) ?? 0, inFlight.get(account)!));
      total++;
      maxTotal = Math.max(maxTotal, total);
      if ((inFlight.get('a') ?? 0) > 0 && (inFlight.get('b') ?? 0) > 0) together++;
      await new Promise<void>((resolve) => waiting.push(resolve));
      inFlight.set(account, inFlight.get(account)! - 1);
      total--;
      return answer(account, query);
    },
  });
  const apis = new Map([
    ['a', apiOf('a')],
    ['b', apiOf('b')],
  ]);
  return {
    statusApi: (_provider: string, account: string) => apis.get(account),
    inFlight: (account: string) => inFlight.get(account) ?? 0,
    maxInFlight: (account: string) => maxInFlight.get(account) ?? 0,
    maxTotal: () => maxTotal,
    together: () => together,
    calls,
    waiting: () => waiting.length,
    /** Answers every call in flight now. */
    releaseAll: () => waiting.splice(0).forEach((release) => release()),
  };
}

/** Waits (event-loop turns, not time) until the condition holds; fails the test if it never does. */
async function until(condition: () => boolean, what: string): Promise<void> {
  for (let turn = 0; turn < 10_000 && !condition(); turn++) await new Promise((r) => setImmediate(r));
  if (!condition()) throw new Error(`never happened: ${what}`);
}

function setup(overall = 16, answer?: (account: string, query: StatusQuery) => StatusAnswer) {
  const store = new MemoryStore();
  const now = START;
  const provider = heldProvider(answer);
  const services: ReconcileServices = {
    config: configWith(overall),
    store,
    clock: { now: () => new Date(now) },
    log: silent,
    scrub: (s) => s,
    statusApi: provider.statusApi,
    metrics: noMetrics,
  };
  return { store, services, provider };
}

async function registerMany(services: ReconcileServices, account: string, count: number) {
  for (let i = 0; i < count; i++)
    await registerTransaction(services, {
      provider: 'momo',
      account,
      kind: 'requesttopay',
      reference: `${account === 'a' ? 'aaaaaaaa' : 'bbbbbbbb'}-4b7d-4e2a-9c3b-${String(i).padStart(12, '0')}`,
      amount: '100',
      currency: 'EUR',
    });
}

/** Runs a cycle at MoMo's first check, answering every call as it comes, until the cycle ends. */
async function drive(s: ReturnType<typeof setup>, owner = 'p1') {
  let done = false;
  const cycle = runPollCycle(
    { ...s.services, clock: { now: () => new Date(START + 300_000) } },
    { owner },
  ).finally(() => (done = true));
  while (!done) {
    await until(() => done || s.provider.waiting() > 0, 'a call or the end of the cycle');
    s.provider.releaseAll();
  }
  return cycle;
}

describe('runPollCycle: concurrency', () => {
  it("checks each account's items concurrently up to its api.concurrency, never more, and both accounts at once", async () => {
    // Prepare: account a allows 2 calls in flight, b 3; 8 due items each.
    const s = setup();
    await registerMany(s.services, 'a', 8);
    await registerMany(s.services, 'b', 8);
    // Act
    let done = false;
    const cycle = runPollCycle(
      { ...s.services, clock: { now: () => new Date(START + 300_000) } },
      { owner: 'p1' },
    ).finally(() => (done = true));
    // Assess: each account's probe goes alone, and the two probes are in flight together.
    await until(() => s.provider.inFlight('a') === 1 && s.provider.inFlight('b') === 1, 'both probes');
    expect(s.provider.waiting()).toBe(2);
    s.provider.releaseAll();
    // After its probe, each account fills its own cap, at the same time as the other.
    await until(() => s.provider.inFlight('a') === 2 && s.provider.inFlight('b') === 3, 'both caps');
    while (!done) {
      s.provider.releaseAll();
      await until(() => done || s.provider.waiting() > 0, 'a call or the end of the cycle');
    }
    const result = await cycle;
    expect(result).toMatchObject({ due: 16, claimed: 16, checked: 16, errors: 0 });
    expect(s.provider.maxInFlight('a')).toBe(2);
    expect(s.provider.maxInFlight('b')).toBe(3);
    expect(s.provider.together()).toBeGreaterThan(2);
    // Every item checked once.
    expect(new Set(s.provider.calls.map((c) => c.reference)).size).toBe(16);
  });

  it('keeps the whole cycle within reconciliation.concurrency across accounts', async () => {
    // Prepare: the accounts would allow 2 + 3 in flight; the cycle allows 3.
    const s = setup(3);
    await registerMany(s.services, 'a', 6);
    await registerMany(s.services, 'b', 6);
    // Act
    const result = await drive(s);
    // Assess
    expect(result).toMatchObject({ claimed: 12, checked: 12 });
    expect(s.provider.maxTotal()).toBe(3);
    expect(s.provider.maxInFlight('a')).toBeLessThanOrEqual(2);
  });

  it('holds only the account whose probe is refused; the other account is checked in the same cycle', async () => {
    // Prepare: account a's credentials are refused.
    const s = setup(16, (account) =>
      account === 'a' ? { type: 'error', error: 'credentials', detail: 'token refused (401)' } : pending(),
    );
    await registerMany(s.services, 'a', 5);
    await registerMany(s.services, 'b', 5);
    // Act
    const result = await drive(s);
    // Assess: a's probe alone, all of b.
    expect(s.provider.calls.filter((c) => c.account === 'a')).toHaveLength(1);
    expect(s.provider.calls.filter((c) => c.account === 'b')).toHaveLength(5);
    expect(result).toMatchObject({ due: 10, claimed: 6, checked: 6 });
  });

  it('two pollers at once: each item is leased by one of them, checked once, with one final event', async () => {
    // Prepare: the provider says SUCCESSFUL.
    const s = setup(16, (account, query) => ({
      type: 'report',
      providerCode: 'SUCCESSFUL',
      detail: 'SUCCESSFUL',
      draft: {
        key: { provider: 'momo', account, reference: query.reference },
        kind: 'requesttopay',
        status: 'SUCCEEDED',
        reason: undefined,
        providerTransactionId: `p-${query.reference}`,
        externalId: undefined,
        amount: { value: '100', currency: 'EUR' },
        party: undefined,
        attributes: undefined,
      },
    }));
    await registerMany(s.services, 'a', 6);
    await registerMany(s.services, 'b', 6);
    // Act
    const [one, two] = await Promise.all([drive(s, 'p1'), drive(s, 'p2')]);
    // Assess
    expect(one.claimed + two.claimed).toBe(12);
    expect(s.provider.calls).toHaveLength(12);
    const succeeded = s.store.published.filter((e) => e.metadata.type === 'TransactionSucceeded');
    expect(succeeded).toHaveLength(12);
    expect(new Set(succeeded.map((e) => e.data.reference)).size).toBe(12);
  });
});

describe('runPollCycle: time budget', () => {
  /** Runs a cycle with `budgetMs` on a clock the test moves; `onCall` runs as each status call starts. */
  async function budgeted(budgetMs: number, onCall: (clock: { advance(ms: number): void }) => void) {
    const s = setup();
    await registerMany(s.services, 'a', 4);
    let now = START + 300_000;
    const clock = { now: () => new Date(now), advance: (ms: number) => void (now += ms) };
    let done = false;
    const cycle = runPollCycle({ ...s.services, clock }, { owner: 'p1', budgetMs }).finally(
      () => (done = true),
    );
    while (!done) {
      await until(() => done || s.provider.waiting() > 0, 'a call or the end of the cycle');
      if (s.provider.waiting() > 0) onCall(clock);
      s.provider.releaseAll();
    }
    return { result: await cycle, calls: s.provider.calls };
  }

  it("stops claiming items once the budget has passed on the services' clock", async () => {
    // Act: the first call (the account's probe) takes 1,001 ms of the cycle's clock; the budget is 1,000.
    const { result, calls } = await budgeted(1_000, (clock) => clock.advance(1_001));
    // Assess: the probe was checked; the other three stay due for the next cycle.
    expect(calls).toHaveLength(1);
    expect(result).toMatchObject({ due: 4, claimed: 1, checked: 1 });
  });

  it('claims every item while the clock stays within the budget', async () => {
    // Act: each call takes 100 ms of the cycle's clock; four of them fit in a budget of 1,000.
    const { result, calls } = await budgeted(1_000, (clock) => clock.advance(100));
    // Assess
    expect(calls).toHaveLength(4);
    expect(result).toMatchObject({ due: 4, claimed: 4, checked: 4 });
  });
});
