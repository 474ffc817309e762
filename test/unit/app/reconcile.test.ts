import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../shared/adapters/memory/memory-store';
import { ingestIntents, ingestReport } from '../../../shared/app/transactions/ingest-report';
import { forceCheck, resolveByHand } from '../../../shared/app/transactions/operate-transaction';
import type { RelayMetrics } from '../../../shared/app/ports';
import { runPollCycle } from '../../../shared/app/reconciliation/poll-cycle';
import {
  type ReconcileServices,
  UNSUPPORTED_RECHECK_SECONDS,
} from '../../../shared/app/reconciliation/reconcile';
import { reconciliationReport, reportRange } from '../../../shared/app/reconciliation/reconciliation-report';
import { registerTransaction } from '../../../shared/app/transactions/register-transaction';
import { parseConfig } from '../../../shared/config/load';
import { SchemaValidationError, TransactionStateError } from '../../../shared/domain/errors';
import type { NormalizedReport, ReportDraft } from '../../../shared/domain/transaction';
import type { StatusAnswer, StatusApi, StatusQuery } from '../../../shared/providers/types';
import { createScrubber } from '../../../shared/util/redact';

const OPERATOR = {
  id: 'ana',
  name: 'ana',
  email: null,
  role: 'operator',
  via: 'token',
} as const satisfies import('../../../shared/domain/actor').Actor;

const REF = '6f1c2a9e-4b7d-4e2a-9c3b-1a2b3c4d5e6f';
const KEY = { provider: 'momo', account: 'demo', reference: REF };
const START = Date.parse('2026-11-23T10:00:00.000Z');

const config = parseConfig({
  management: { bearerToken: 'a-long-enough-token' },
  reconciliation: {
    // MoMo's first check after 300 s; window 1 h for the tests.
    windowSeconds: 3600,
    escalateAmbiguousAfterSeconds: 600,
    notFoundGraceSeconds: 120,
  },
  accounts: {
    momo: { demo: { pathSecret: 'momo-path-secret-0123' }, other: { pathSecret: 'momo-path-secret-4567' } },
  },
});

const silent = { debug() {}, info() {}, warn() {}, error() {} };

function draft(status: ReportDraft['status'], overrides: Partial<ReportDraft> = {}): ReportDraft {
  return {
    key: KEY,
    kind: 'requesttopay',
    status,
    reason:
      status === 'FAILED'
        ? { code: 'REJECTED_BY_CUSTOMER', message: 'APPROVAL_REJECTED', providerCode: 'APPROVAL_REJECTED' }
        : undefined,
    providerTransactionId: status === 'SUCCEEDED' ? '363440463' : undefined,
    externalId: 'order-8841',
    amount: { value: '100', currency: 'EUR' },
    party: { idType: 'MSISDN', id: '46733123459' },
    attributes: undefined,
    ...overrides,
  };
}

const answers = {
  succeeded: (): StatusAnswer => ({
    type: 'report',
    draft: draft('SUCCEEDED'),
    providerCode: 'SUCCESSFUL',
    detail: 'SUCCESSFUL',
  }),
  failed: (): StatusAnswer => ({
    type: 'report',
    draft: draft('FAILED'),
    providerCode: 'FAILED',
    detail: 'FAILED APPROVAL_REJECTED',
  }),
  pending: (): StatusAnswer => ({ type: 'pending', providerCode: 'PENDING', detail: 'PENDING' }),
  down: (): StatusAnswer => ({
    type: 'error',
    error: 'unavailable',
    detail: 'HTTP 500 after 3 attempts',
    httpStatus: 500,
  }),
  unclear: (): StatusAnswer => ({
    type: 'error',
    error: 'unavailable',
    detail: 'MoMo requesttopay status: HTTP 503 SERVICE_UNAVAILABLE after 3 attempts',
    httpStatus: 503,
    unclear: true,
  }),
  notFound: (): StatusAnswer => ({ type: 'not-found', providerCode: '404', detail: 'RESOURCE_NOT_FOUND' }),
  credentials: (): StatusAnswer => ({ type: 'error', error: 'credentials', detail: 'token refused (401)' }),
};

/** A status API that answers from a script and counts its calls. */
function scriptedApi(next: (query: StatusQuery) => StatusAnswer) {
  const calls: StatusQuery[] = [];
  const api: StatusApi = {
    async check(query) {
      calls.push(query);
      return next(query);
    },
  };
  return { api, calls };
}

function countingMetrics() {
  const counts: Record<string, number> = {};
  const metrics: RelayMetrics = {
    count: (name, value = 1) => void (counts[name] = (counts[name] ?? 0) + value),
    timing: () => {},
    flush: () => {},
  };
  return { metrics, counts };
}

function setup(next: (query: StatusQuery) => StatusAnswer = answers.pending) {
  const store = new MemoryStore();
  let now = START;
  const clock = { now: () => new Date(now) };
  const { api, calls } = scriptedApi(next);
  const { metrics, counts } = countingMetrics();
  const services: ReconcileServices = {
    config,
    store,
    clock,
    log: silent,
    scrub: (s) => s,
    statusApi: () => api,
    metrics,
  };
  return {
    store,
    services,
    calls,
    counts,
    advance: (seconds: number) => void (now += seconds * 1000),
    types: () => store.published.map((e) => e.metadata.type),
    events: store.published,
    metricCounts: (name: string) => counts[name] ?? 0,
    tx: () => store.transactions.get(`${KEY.provider}#${KEY.account}#${KEY.reference}`)!,
  };
}

async function register(services: ReconcileServices, reference = REF, account = 'demo') {
  await registerTransaction(services, {
    provider: 'momo',
    account,
    kind: 'requesttopay',
    reference,
    amount: '100',
    currency: 'EUR',
    msisdn: '46733123459',
    externalId: 'order-8841',
  });
}

function callback(
  status: NormalizedReport['status'],
  overrides: Partial<NormalizedReport> = {},
): NormalizedReport {
  return {
    ...draft(status as ReportDraft['status']),
    receivedAt: new Date(START).toISOString(),
    origin: 'callback',
    receiptId: 'r1',
    ...overrides,
  };
}

const ingestDeps = (s: ReturnType<typeof setup>) => ({
  store: s.store,
  clock: s.services.clock,
  log: silent,
  reconciliation: config.reconciliation,
});

describe('runPollCycle', () => {
  it('leaves a registered transaction alone until its first check is due', async () => {
    // Prepare
    const s = setup(answers.succeeded);
    await register(s.services);
    s.advance(299);
    // Act
    const result = await runPollCycle(s.services, { owner: 'p1' });
    // Assess
    expect(result.due).toBe(0);
    expect(s.calls).toHaveLength(0);
  });

  it('finalizes a transaction whose callback never came, with origin poll, and takes it off the due index', async () => {
    // Prepare
    const s = setup(answers.succeeded);
    await register(s.services);
    s.advance(300);
    // Act
    const result = await runPollCycle(s.services, { owner: 'p1' });
    // Assess
    expect(result).toMatchObject({ due: 1, claimed: 1, checked: 1, finalized: 1 });
    const succeeded = s.store.published.filter((e) => e.metadata.type === 'TransactionSucceeded');
    expect(succeeded).toHaveLength(1);
    expect(succeeded[0]!.metadata.origin).toBe('poll');
    expect(s.tx().status).toBe('SUCCEEDED');
    expect(s.tx().reconcile?.dueAt).toBeUndefined();
    expect((await s.store.listDue(new Date(START + 10 ** 9).toISOString(), 10)).items).toHaveLength(0);
    expect(s.counts.TransactionsFinalized).toBe(1);
    expect(s.counts.FinalizedWithoutCallback).toBe(1);
  });

  it('keeps a pending transaction, records the check and backs off', async () => {
    // Prepare
    const s = setup(answers.pending);
    await register(s.services);
    s.advance(300);
    // Act
    await runPollCycle(s.services, { owner: 'p1' });
    // Assess
    const tx = s.tx();
    expect(tx.status).toBe('PENDING');
    expect(tx.reconcile?.checks).toBe(1);
    expect(tx.reconcile?.recent.at(-1)).toMatchObject({ answer: 'pending' });
    expect(tx.reconcile?.leaseOwner).toBeUndefined();
    // MoMo's first backoff step is 120 s.
    expect(Date.parse(tx.reconcile!.dueAt!) - (START + 300_000)).toBe(120_000);
    expect(s.types()).toEqual([]);
  });

  it('never fails a transaction on a status API outage, and carries on with the next item', async () => {
    // Prepare
    const s = setup((q) => (q.reference === REF ? answers.down() : answers.succeeded()));
    await register(s.services);
    await register(s.services, '7f1c2a9e-4b7d-4e2a-9c3b-1a2b3c4d5e6f');
    s.advance(300);
    // Act
    const result = await runPollCycle(s.services, { owner: 'p1' });
    // Assess
    expect(result).toMatchObject({ claimed: 2, checked: 2, finalized: 1, errors: 0 });
    expect(s.tx().status).toBe('PENDING');
    expect(s.tx().reconcile?.recent.at(-1)).toMatchObject({ answer: 'error:unavailable' });
    expect(s.types()).toEqual(['TransactionSucceeded']);
    expect(s.counts.StatusCallErrors).toBe(1);
  });

  it('expires a transaction at the window end with the last provider answer in the event', async () => {
    // Prepare
    const s = setup(answers.pending);
    await register(s.services);
    // Act: poll until past the window (1 h)
    for (let i = 0; i < 40 && s.tx().status !== 'EXPIRED'; i++) {
      s.advance(300);
      await runPollCycle(s.services, { owner: 'p1' });
    }
    // Assess
    expect(s.tx().status).toBe('EXPIRED');
    expect(s.tx().reason?.code).toBe('NO_FINAL_ANSWER');
    const expired = s.store.published.filter((e) => e.metadata.type === 'TransactionExpired');
    expect(expired).toHaveLength(1);
    expect(expired[0]!.data.lastProviderAnswer).toMatchObject({ answer: 'pending', detail: 'PENDING' });
    expect(s.counts.TransactionsExpired).toBe(1);
    // The window end itself got a check: expiry is never later than the window plus one cycle.
    expect(Date.parse(s.tx().updatedAt) - Date.parse(s.tx().reconcileUntil)).toBeLessThan(300_000);
  });

  it('publishes a final callback after EXPIRED as a late resolution', async () => {
    // Prepare
    const s = setup(answers.pending);
    await register(s.services);
    for (let i = 0; i < 40 && s.tx().status !== 'EXPIRED'; i++) {
      s.advance(300);
      await runPollCycle(s.services, { owner: 'p1' });
    }
    // Act
    await ingestReport(
      ingestDeps(s),
      callback('SUCCEEDED', { receivedAt: new Date(START + 7200_000).toISOString() }),
    );
    // Assess
    expect(s.tx().status).toBe('SUCCEEDED');
    const late = s.store.published.filter((e) => e.metadata.type === 'TransactionSucceeded');
    expect(late).toHaveLength(1);
    expect(late[0]!.data.lateResolution).toBe(true);
  });

  it('confirms an unsigned success with the status API before publishing TransactionSucceeded', async () => {
    // Prepare
    const s = setup(answers.succeeded);
    await register(s.services);
    // Act
    await ingestReport(ingestDeps(s), callback('SUCCEEDED', { needsConfirmation: true }));
    const held = s.tx();
    await runPollCycle(s.services, { owner: 'p1' });
    // Assess
    expect(held.status).toBe('AMBIGUOUS');
    expect(held.reason?.code).toBe('UNCONFIRMED');
    expect(s.calls).toHaveLength(1);
    expect(s.types()).toEqual(['TransactionAmbiguous', 'TransactionSucceeded']);
    expect(s.store.published.at(-1)!.metadata.origin).toBe('poll');
  });

  it('fails a forged unsigned success the status API calls FAILED and raises the security signal', async () => {
    // Prepare
    const s = setup(answers.failed);
    await register(s.services);
    // Act
    await ingestReport(ingestDeps(s), callback('SUCCEEDED', { needsConfirmation: true }));
    await runPollCycle(s.services, { owner: 'p1' });
    // Assess
    expect(s.tx().status).toBe('FAILED');
    expect(s.types()).toEqual(['TransactionAmbiguous', 'TransactionFailed', 'TransactionConflict']);
    const conflict = s.store.published.at(-1)!;
    expect((conflict.data.conflict as { kind: string }).kind).toBe('UNVERIFIED_SUCCESS');
    expect(s.tx().conflicts.map((c) => c.kind)).toEqual(['UNVERIFIED_SUCCESS']);
    expect(s.counts.VerificationDisagreements).toBe(1);
  });

  it('never downgrades a proven success: a FAILED status answer becomes a conflict', async () => {
    // Prepare
    const s = setup(answers.failed);
    await register(s.services);
    await ingestReport(ingestDeps(s), callback('SUCCEEDED', { authenticated: true }));
    // Act
    await forceCheck(s.services, KEY, OPERATOR);
    // Assess
    expect(s.tx().status).toBe('SUCCEEDED');
    expect(s.types()).toEqual(['TransactionSucceeded', 'TransactionConflict']);
  });

  it('gives exactly one final event when a callback and a poll race', async () => {
    // Prepare
    const s = setup(answers.succeeded);
    await register(s.services);
    s.advance(300);
    // Act
    await Promise.all([
      runPollCycle(s.services, { owner: 'p1' }),
      ingestReport(ingestDeps(s), callback('SUCCEEDED', { authenticated: true })),
    ]);
    // Assess
    expect(s.types().filter((t) => t === 'TransactionSucceeded')).toHaveLength(1);
    expect(s.tx().status).toBe('SUCCEEDED');
  });

  it('lets only one of two concurrent pollers check an item', async () => {
    // Prepare
    const s = setup(answers.pending);
    for (let i = 0; i < 20; i++)
      await register(s.services, `${String(i).padStart(8, '0')}-4b7d-4e2a-9c3b-1a2b3c4d5e6f`);
    s.advance(300);
    // Act
    const [a, b] = await Promise.all([
      runPollCycle(s.services, { owner: 'p1' }),
      runPollCycle(s.services, { owner: 'p2' }),
    ]);
    // Assess
    expect(a.claimed + b.claimed).toBe(20);
    expect(s.calls).toHaveLength(20);
    expect(new Set(s.calls.map((c) => c.reference)).size).toBe(20);
  });

  it('brings back the items of a poller that crashed after claiming them, once the lease expires', async () => {
    // Prepare
    const s = setup(answers.succeeded);
    await register(s.services);
    s.advance(300);
    const [item] = (await s.store.listDue(new Date(START + 300_000).toISOString(), 10)).items;
    await s.store.claimDue(item!, { until: new Date(START + 360_000).toISOString(), owner: 'crashed' });
    // Act
    const during = await runPollCycle(s.services, { owner: 'p2' });
    s.advance(60);
    const after = await runPollCycle(s.services, { owner: 'p2' });
    // Assess
    expect(during.due).toBe(0);
    expect(after).toMatchObject({ due: 1, claimed: 1, finalized: 1 });
  });

  it('stops checking an account for the cycle when its credentials are refused', async () => {
    // Prepare
    const s = setup(answers.credentials);
    for (let i = 0; i < 5; i++)
      await register(s.services, `${String(i).padStart(8, '0')}-4b7d-4e2a-9c3b-1a2b3c4d5e6f`);
    s.advance(300);
    // Act
    const result = await runPollCycle(s.services, { owner: 'p1' });
    // Assess: the account's first item probes alone; the others wait for the next cycle.
    expect(s.calls).toHaveLength(1);
    expect(result.claimed).toBe(s.calls.length);
    expect(s.types()).toEqual([]);
    // Its own metric, so a refused credential pages (docs/monitoring.md), not the StatusCallErrors mix.
    expect(s.metricCounts('StatusApiCredentialFailures')).toBe(1);
  });

  it('settles "never accepted" as FAILED only past the grace period, after several answers spread over time', async () => {
    // Prepare: defaults are a 120 s grace and 3 consecutive answers spread over 300 s.
    const s = setup(answers.notFound);
    await register(s.services);
    const statuses: string[] = [];
    // Act
    await forceCheck(s.services, KEY, OPERATOR); // t=0: inside the grace
    statuses.push(s.tx().status);
    for (const step of [100, 100, 150]) {
      s.advance(step); // t=100, 200 (3 answers, 200 s apart), 350 (4 answers over 350 s)
      await forceCheck(s.services, KEY, OPERATOR);
      statuses.push(s.tx().status);
    }
    // Assess
    expect(statuses).toEqual(['PENDING', 'PENDING', 'PENDING', 'FAILED']);
    expect(s.tx().reason?.code).toBe('NOT_ACCEPTED');
    expect(s.events.filter((e) => e.metadata.type === 'TransactionFailed')[0]?.data.evidence).toEqual([
      expect.objectContaining({ source: 'status-api', claim: 'NOT_FOUND', conclusive: true }),
    ]);
  });

  it("takes a transaction's amount only from confirmed evidence: a forged 1 EUR claim never becomes its amount, and is said", async () => {
    // Prepare: registered without an amount; an unsigned success claims 1 EUR; MTN's status answer says 100 EUR.
    const s = setup(answers.succeeded);
    await registerTransaction(s.services, {
      provider: 'momo',
      account: 'demo',
      kind: 'requesttopay',
      reference: REF,
      externalId: 'order-8841',
    });
    // Act
    await ingestReport(
      ingestDeps(s),
      callback('SUCCEEDED', { needsConfirmation: true, amount: { value: '1', currency: 'EUR' } }),
    );
    const afterClaim = s.tx().amount;
    await forceCheck(s.services, KEY, OPERATOR);
    // Assess
    expect(afterClaim).toBeUndefined();
    expect(s.tx().status).toBe('SUCCEEDED');
    expect(s.tx().amount).toEqual({ value: '100', currency: 'EUR' });
    expect(s.tx().conflicts.map((c) => c.kind)).toEqual(['AMOUNT_MISMATCH']);
    expect(s.types()).toContain('TransactionSucceeded');
  });

  it('checks an unsigned FAILED once on an account that confirms: held without an event, the status answer settles', async () => {
    // Prepare
    const s = setup(answers.succeeded);
    await register(s.services);
    // Act
    await ingestReport(ingestDeps(s), callback('FAILED', { confirmFailure: true, needsConfirmation: true }));
    const held = { status: s.tx().status, due: s.tx().reconcile?.dueAt, types: s.types() };
    await forceCheck(s.services, KEY, OPERATOR);
    // Assess: the provider paid; the forged or mistaken failure is surfaced, never the verdict.
    expect(held).toEqual({ status: 'PENDING', due: new Date(START).toISOString(), types: [] });
    expect(s.tx().status).toBe('SUCCEEDED');
    expect(s.tx().conflicts.map((c) => c.kind)).toEqual(['STATUS']);
  });

  it('surfaces and checks an unsigned success reported after FAILED, and leaves the due index once answered', async () => {
    // Prepare: FAILED by the status API.
    const s = setup(answers.failed);
    await register(s.services);
    await forceCheck(s.services, KEY, OPERATOR);
    // Act
    s.advance(60);
    await ingestReport(ingestDeps(s), callback('SUCCEEDED', { needsConfirmation: true, receiptId: 'r9' }));
    const due = (await s.store.listDue(new Date(START + 60_000).toISOString(), 10)).items;
    await runPollCycle(s.services, { owner: 'p1' });
    const dueAfter = (await s.store.listDue(new Date(START + 3_600_000).toISOString(), 10)).items;
    // Assess
    expect(s.tx().status).toBe('FAILED');
    expect(s.types().filter((t) => t === 'TransactionConflict')).toHaveLength(1);
    expect(due.map((d) => d.key.reference)).toEqual([REF]);
    expect(s.calls).toHaveLength(2);
    expect(dueAfter).toEqual([]);
    expect(s.tx().reconcile?.recheckUntil).toBeUndefined();
  });

  it('never settles "not found" when a callback reported on the reference: a NOT_FOUND conflict, AMBIGUOUS and escalated', async () => {
    // Prepare: an unsigned success (another API user made the request, so the status API answers 404).
    const s = setup(answers.notFound);
    await register(s.services);
    await ingestReport(ingestDeps(s), callback('SUCCEEDED', { needsConfirmation: true }));
    // Act: many "not found" answers, long past the grace and the span.
    for (let i = 0; i < 6; i++) {
      s.advance(400);
      await forceCheck(s.services, KEY, OPERATOR);
    }
    // Assess
    expect(s.tx().status).toBe('AMBIGUOUS');
    expect(s.tx().reason?.code).toBe('CONFLICTING_REPORTS');
    expect(s.types()).not.toContain('TransactionFailed');
    const conflicts = s.events.filter((e) => e.metadata.type === 'TransactionConflict');
    expect(conflicts).toHaveLength(1);
    const conflict = conflicts[0]!.data.conflict as {
      kind: string;
      detail: string;
      evidence: { source: string; claim: string }[];
    };
    expect(conflict.kind).toBe('NOT_FOUND');
    expect(conflict.detail).toMatch(/API user/);
    expect(conflict.evidence.map((e) => [e.source, e.claim])).toEqual([
      ['callback', 'SUCCEEDED'],
      ['status-api', 'NOT_FOUND'],
    ]);
    expect(s.types().filter((t) => t === 'TransactionEscalated')).toHaveLength(1);
    expect(s.metricCounts('StatusNotFoundConflicts')).toBe(1);
  });

  it('escalates an AMBIGUOUS transaction once when it outlives the configured age', async () => {
    // Prepare
    const s = setup(answers.pending);
    await register(s.services);
    await ingestReport(ingestDeps(s), callback('AMBIGUOUS', { amount: undefined }));
    // Act
    for (let i = 0; i < 6; i++) {
      s.advance(300);
      await runPollCycle(s.services, { owner: 'p1' });
    }
    // Assess
    expect(s.tx().status).toBe('AMBIGUOUS');
    expect(s.types().filter((t) => t === 'TransactionEscalated')).toHaveLength(1);
    expect(s.counts.AmbiguousEscalated).toBe(1);
  });

  it('records a poll that cannot be made (no status API) without counting it as a check', async () => {
    // Prepare
    const s = setup();
    s.services.statusApi = () => undefined;
    await register(s.services);
    s.advance(300);
    // Act
    const result = await runPollCycle(s.services, { owner: 'p1' });
    // Assess
    expect(result).toMatchObject({ claimed: 1, checked: 0 });
    expect(s.tx().reconcile?.recent.at(-1)?.answer).toBe('error:unsupported');
  });

  it('looks at a transaction nobody can ask about only hourly, not every cycle, and still expires it at the window end', async () => {
    // Prepare
    const s = setup();
    s.services.statusApi = () => undefined;
    await register(s.services);
    s.advance(300);
    await runPollCycle(s.services, { owner: 'p1' });
    const revision = s.tx().revision;
    // Act
    const again = [];
    for (let i = 0; i < 5; i++) {
      s.advance(60);
      again.push(await runPollCycle(s.services, { owner: 'p1' }));
    }
    // Assess
    expect(again.map((r) => r.claimed)).toEqual([0, 0, 0, 0, 0]);
    expect(s.tx().revision).toBe(revision);
    // The window (1 h here) ends before the next hourly look: due then, to expire.
    expect(s.tx().reconcile!.dueAt).toBe(s.tx().reconcileUntil);
    expect(Date.parse(s.tx().reconcileUntil) - START).toBeLessThan(
      (300 + UNSUPPORTED_RECHECK_SECONDS) * 1000,
    );
    for (let i = 0; i < 30 && s.tx().status !== 'EXPIRED'; i++) {
      s.advance(UNSUPPORTED_RECHECK_SECONDS);
      await runPollCycle(s.services, { owner: 'p1' });
    }
    expect(s.tx().status).toBe('EXPIRED');
  });
});

describe('a status call the provider says is unclear (MoMo 5xx on status)', () => {
  it('holds a PENDING transaction AMBIGUOUS (PROVIDER_ERROR, the HTTP status as its code) once, and a later final answer settles it', async () => {
    // Prepare
    let answer = answers.unclear;
    const s = setup(() => answer());
    await register(s.services);

    // Act
    s.advance(300);
    await runPollCycle(s.services, { owner: 'p1' });
    s.advance(300);
    await runPollCycle(s.services, { owner: 'p1' });
    const held = s.tx();
    answer = answers.succeeded;
    s.advance(300);
    await runPollCycle(s.services, { owner: 'p1' });

    // Assess
    expect(held.status).toBe('AMBIGUOUS');
    expect(held.reconcile?.checks).toBe(2);
    const ambiguous = s.events.filter((e) => e.metadata.type === 'TransactionAmbiguous');
    expect(ambiguous).toHaveLength(1);
    expect(ambiguous[0]!.metadata.origin).toBe('poll');
    expect(ambiguous[0]!.data).toMatchObject({
      status: 'AMBIGUOUS',
      reason: { code: 'PROVIDER_ERROR', providerCode: '503' },
    });
    // Held AMBIGUOUS past escalateAmbiguousAfterSeconds (600 s here) it is escalated, like any AMBIGUOUS.
    expect(s.types()).toEqual(['TransactionAmbiguous', 'TransactionEscalated', 'TransactionSucceeded']);
    expect(s.tx().status).toBe('SUCCEEDED');
  });

  it('never downgrades a final status, and leaves an outage the provider does not call unclear alone', async () => {
    // Prepare
    let answer = answers.failed;
    const s = setup(() => answer());
    await register(s.services);
    await register(s.services, '7f1c2a9e-4b7d-4e2a-9c3b-1a2b3c4d5e6f');
    s.advance(300);
    await runPollCycle(s.services, { owner: 'p1' });
    const settled = s.tx();
    answer = answers.down;

    // Act
    await forceCheck(s.services, KEY, OPERATOR);
    answer = answers.unclear;
    await forceCheck(s.services, KEY, OPERATOR);

    // Assess
    expect(settled.status).toBe('FAILED');
    expect(s.tx().status).toBe('FAILED');
    expect(s.types().filter((t) => t === 'TransactionAmbiguous')).toEqual([]);
  });
});

describe('transactions nobody can ask about (no status API)', () => {
  it('looks at an AMBIGUOUS one hourly past its window, escalates it on time and expires it at its maximum age', async () => {
    // Prepare
    const s = setup();
    s.services.statusApi = () => undefined;
    await register(s.services);
    await ingestReport(ingestDeps(s), callback('AMBIGUOUS', { amount: undefined }));
    const claims: number[] = [];
    let escalatedAfter: number | undefined;
    // Act: a poll cycle every minute for 3 hours
    for (let minute = 1; minute <= 180; minute++) {
      s.advance(60);
      claims.push((await runPollCycle(s.services, { owner: 'p1' })).claimed);
      if (escalatedAfter === undefined && s.types().includes('TransactionEscalated')) escalatedAfter = minute;
    }
    // Assess: escalated at 10 minutes (escalateAmbiguousAfterSeconds 600), not an hour late
    expect(escalatedAfter).toBe(10);
    // a handful of looks (first check, escalation, window end, hourly), not one per cycle
    expect(claims.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(6);
    expect(s.tx().status).toBe('AMBIGUOUS');
    const maxAge = config.reconciliation.ambiguousMaxSeconds;
    s.advance(maxAge);
    for (let i = 0; i < 3 && s.tx().status !== 'EXPIRED'; i++) {
      await runPollCycle(s.services, { owner: 'p1' });
      s.advance(UNSUPPORTED_RECHECK_SECONDS);
    }
    expect(s.tx().status).toBe('EXPIRED');
  });
});

describe('a claim held for a status check that cannot be made (the kind cannot be asked)', () => {
  const unsupported = (): StatusAnswer => ({
    type: 'error',
    error: 'unsupported',
    detail:
      'MoMo has no known status path for kind requesttopay; set accounts.momo.demo.api.paths.requesttopay',
  });

  it('hands an unsigned FAILED held for confirmation to a person at the first look: AMBIGUOUS, escalated, never NO_FINAL_ANSWER', async () => {
    // Prepare
    const s = setup(unsupported);
    await register(s.services);
    await ingestReport(ingestDeps(s), callback('FAILED', { confirmFailure: true, needsConfirmation: true }));
    const held = { status: s.tx().status, types: s.types() };
    // Act
    const result = await runPollCycle(s.services, { owner: 'p1' });
    // Assess
    expect(held).toEqual({ status: 'PENDING', types: [] });
    expect(result.claimed).toBe(1);
    expect(s.tx().status).toBe('AMBIGUOUS');
    expect(s.tx().reason).toMatchObject({ code: 'UNCONFIRMED', providerCode: 'APPROVAL_REJECTED' });
    expect(s.tx().reason!.message).toMatch(/callback \(unauthenticated\) said FAILED in receipt r1/);
    expect(s.tx().reason!.message).toMatch(/cannot be confirmed: MoMo has no known status path/);
    expect(s.types()).toEqual(['TransactionAmbiguous', 'TransactionEscalated']);
    expect(s.tx().transitions.at(-1)).toMatchObject({ from: 'PENDING', to: 'AMBIGUOUS', origin: 'poll' });
    expect(s.tx().transitions.at(-1)!.evidence).toMatchObject({ source: 'callback', claim: 'FAILED' });
    expect(s.counts.AmbiguousEscalated).toBe(1);
  });

  it('keeps it AMBIGUOUS past the window (one escalation), and settles it when the status call becomes possible', async () => {
    // Prepare
    let answer = unsupported;
    const s = setup(() => answer());
    await register(s.services);
    await ingestReport(ingestDeps(s), callback('FAILED', { confirmFailure: true, needsConfirmation: true }));
    await runPollCycle(s.services, { owner: 'p1' });
    // Act: looks past the window (1 h here); then the account is configured with the status call.
    for (let i = 0; i < 3; i++) {
      s.advance(UNSUPPORTED_RECHECK_SECONDS);
      await runPollCycle(s.services, { owner: 'p1' });
    }
    const pastWindow = { status: s.tx().status, types: s.types() };
    answer = answers.failed;
    s.advance(UNSUPPORTED_RECHECK_SECONDS);
    await runPollCycle(s.services, { owner: 'p1' });
    // Assess
    expect(pastWindow).toEqual({
      status: 'AMBIGUOUS',
      types: ['TransactionAmbiguous', 'TransactionEscalated'],
    });
    expect(s.tx().status).toBe('FAILED');
    expect(s.types().at(-1)).toBe('TransactionFailed');
  });

  it('escalates an unconfirmed success at once rather than after escalateAmbiguousAfterSeconds', async () => {
    // Prepare
    const s = setup(unsupported);
    await register(s.services);
    await ingestReport(ingestDeps(s), callback('SUCCEEDED', { needsConfirmation: true }));
    // Act
    await runPollCycle(s.services, { owner: 'p1' });
    // Assess
    expect(s.tx().status).toBe('AMBIGUOUS');
    expect(s.tx().reason?.code).toBe('UNCONFIRMED');
    expect(s.types()).toEqual(['TransactionAmbiguous', 'TransactionEscalated']);
    expect(s.types()).not.toContain('TransactionSucceeded');
  });

  it('leaves a held FAILED alone when the status call could be made but failed (an outage is not "cannot ask")', async () => {
    // Prepare
    const s = setup(answers.down);
    await register(s.services);
    await ingestReport(ingestDeps(s), callback('FAILED', { confirmFailure: true, needsConfirmation: true }));
    // Act
    await runPollCycle(s.services, { owner: 'p1' });
    // Assess
    expect(s.tx().status).toBe('PENDING');
    expect(s.types()).toEqual([]);
  });

  it('leaves a transaction with no claim alone: nothing to hand over until its window ends', async () => {
    // Prepare
    const s = setup(unsupported);
    await register(s.services);
    s.advance(300);
    // Act
    await runPollCycle(s.services, { owner: 'p1' });
    // Assess
    expect(s.tx().status).toBe('PENDING');
    expect(s.types()).toEqual([]);
  });
});

describe('operator actions', () => {
  it('resolves an EXPIRED transaction by hand with origin manual, recorded in its history', async () => {
    // Prepare
    const s = setup(answers.pending);
    await register(s.services);
    for (let i = 0; i < 40 && s.tx().status !== 'EXPIRED'; i++) {
      s.advance(300);
      await runPollCycle(s.services, { owner: 'p1' });
    }
    // Act
    const result = await resolveByHand(
      s.services,
      KEY,
      { status: 'SUCCEEDED', note: 'MTN support ticket 4411 confirms payment' },
      { actor: OPERATOR },
    );
    // Assess: the person is named in the history's evidence and in the event.
    expect(result.events).toEqual(['TransactionSucceeded']);
    expect(s.tx().transitions.at(-1)).toMatchObject({ from: 'EXPIRED', to: 'SUCCEEDED', origin: 'manual' });
    expect(s.tx().transitions.at(-1)!.evidence).toMatchObject({ source: 'operator', actor: OPERATOR });
    expect(s.store.published.at(-1)!.data.resolvedByHand).toEqual({
      note: 'MTN support ticket 4411 confirms payment',
      by: OPERATOR,
    });
  });

  it('scrubs configured secrets and masks MSISDNs in a resolve note before the transaction, its history or the event see it', async () => {
    // Prepare
    const s = setup(answers.pending);
    s.services.scrub = createScrubber(['path-secret-0123456789']);
    await register(s.services);
    for (let i = 0; i < 40 && s.tx().status !== 'EXPIRED'; i++) {
      s.advance(300);
      await runPollCycle(s.services, { owner: 'p1' });
    }
    // Act
    await resolveByHand(
      s.services,
      KEY,
      {
        status: 'FAILED',
        note: 'customer 256772123456 pasted /v1/momo/demo/path-secret-0123456789/x; refund',
      },
      { actor: OPERATOR },
    );
    // Assess
    const stored = JSON.stringify({ tx: s.tx(), events: s.store.published });
    expect(stored).not.toContain('path-secret-0123456789');
    expect(stored).not.toContain('256772123456');
    expect(s.store.published.at(-1)!.data.resolvedByHand).toEqual({
      note: 'customer 2567*****456 pasted /v1/momo/demo/[REDACTED]/x; refund',
      by: OPERATOR,
    });
  });

  it.each(['line\nbreak', 'bell\u0007', 'esc\u001b[31m', 'del\u007f', 'c1\u0085'])(
    'refuses a resolve note with a control character (%j) as bad input (400)',
    async (note) => {
      const s = setup();
      await register(s.services);
      await expect(
        resolveByHand(s.services, KEY, { status: 'FAILED', note }, { actor: OPERATOR }),
      ).rejects.toBeInstanceOf(SchemaValidationError);
    },
  );

  it('refuses to resolve a transaction that is still PENDING or already final', async () => {
    // Prepare
    const s = setup();
    await register(s.services);
    // Act / Assess
    await expect(
      resolveByHand(s.services, KEY, { status: 'FAILED', note: 'customer says no' }, { actor: OPERATOR }),
    ).rejects.toBeInstanceOf(TransactionStateError);
  });
});

describe('reconciliationReport', () => {
  it('counts by status and settling origin and lists what a person must act on', async () => {
    // Prepare
    const s = setup((q) => (q.reference.startsWith('0') ? answers.succeeded() : answers.pending()));
    await register(s.services, '00000000-4b7d-4e2a-9c3b-1a2b3c4d5e6f');
    await register(s.services);
    for (let i = 0; i < 40 && s.tx().status !== 'EXPIRED'; i++) {
      s.advance(300);
      await runPollCycle(s.services, { owner: 'p1' });
    }
    // Act
    const report = await reconciliationReport(s.store, {
      from: new Date(START - 1000).toISOString(),
      to: new Date(START + 86_400_000).toISOString(),
    });
    // Assess
    expect(report.transactions).toBe(2);
    expect(report.byStatus).toMatchObject({ SUCCEEDED: 1, EXPIRED: 1 });
    expect(report.finalizedBy).toEqual({ poll: 1 });
    expect(report.act.expired.map((l) => l.reference)).toEqual([REF]);
    expect(report.statusChecks.total).toBeGreaterThan(2);
  });
});

describe('throttling', () => {
  it('retries a check held by the rate limit as soon as the limit allows, without counting it', async () => {
    // Prepare
    const s = setup(() => ({ type: 'error', error: 'throttled', detail: 'rate limit', retryAfterMs: 2000 }));
    await registerTransaction(s.services, {
      provider: 'momo',
      account: 'demo',
      kind: 'requesttopay',
      reference: REF,
      amount: '100',
      currency: 'EUR',
    });
    s.advance(300);
    // Act
    await runPollCycle(s.services, { owner: 'p1' });
    // Assess
    const tx = s.tx();
    expect(tx.reconcile?.checks).toBe(0);
    expect(Date.parse(tx.reconcile!.dueAt!) - (START + 300_000)).toBe(2000);
    expect(tx.status).toBe('PENDING');
  });
});

describe('review findings', () => {
  it('refuses report dates a JavaScript date cannot hold, instead of failing', () => {
    expect(() => reportRange({ to: '-271821-04-20T00:00:00Z' }, new Date(START))).toThrow(
      SchemaValidationError,
    );
    expect(() => reportRange({ from: '+275760-09-13T00:00:00Z' }, new Date(START))).toThrow(
      SchemaValidationError,
    );
  });

  it('raises AMOUNT_MISMATCH for an unsigned success for another amount, instead of holding it as a hint', async () => {
    // Prepare
    const s = setup(answers.succeeded);
    await register(s.services);
    // Act
    await ingestReport(
      ingestDeps(s),
      callback('SUCCEEDED', { needsConfirmation: true, amount: { value: '1', currency: 'EUR' } }),
    );
    // Assess: the sources disagree, so a person is called (never a hint left PENDING for an hour)
    expect(s.tx().status).toBe('AMBIGUOUS');
    expect(s.tx().reconcile?.escalatedAt).toBeDefined();
    expect(s.tx().conflicts.map((c) => c.kind)).toEqual(['AMOUNT_MISMATCH']);
  });

  it('settles a conclusive FAILED callback over an unconfirmed success, surfacing the disagreement (not as a status-API denial)', async () => {
    // Prepare
    const s = setup(answers.pending);
    await register(s.services);
    await ingestReport(ingestDeps(s), callback('SUCCEEDED', { needsConfirmation: true }));
    // Act
    await ingestReport(ingestDeps(s), callback('FAILED', { receiptId: 'r2' }));
    // Assess
    expect(s.tx().status).toBe('FAILED');
    expect(s.tx().conflicts.map((c) => c.kind)).toEqual(['STATUS']);
  });

  it('keeps a poller lease when an unsigned success arrives during the check', async () => {
    // Prepare
    const s = setup(answers.pending);
    await register(s.services);
    s.advance(300);
    const [item] = (await s.store.listDue(new Date(START + 300_000).toISOString(), 10)).items;
    const lease = new Date(START + 360_000).toISOString();
    await s.store.claimDue(item!, { until: lease, owner: 'p1' });
    // Act
    await ingestReport(ingestDeps(s), callback('SUCCEEDED', { needsConfirmation: true }));
    // Assess: not due again while p1 holds it.
    expect(s.tx().status).toBe('AMBIGUOUS');
    expect(s.tx().reconcile?.dueAt).toBe(lease);
  });

  it('masks MSISDNs and scrubs secrets in the status check it stores', async () => {
    // Prepare
    const s = setup(() => ({ type: 'pending', detail: 'TIP for 256752123904, token sek-ret' }));
    s.services.scrub = (text) => text.replaceAll('sek-ret', '[REDACTED]');
    await register(s.services);
    s.advance(300);
    // Act
    await runPollCycle(s.services, { owner: 'p1' });
    // Assess
    const detail = s.tx().reconcile!.recent.at(-1)!.detail;
    expect(detail).not.toContain('256752123904');
    expect(detail).not.toContain('sek-ret');
  });
});

describe("the answer to the relay's own asynchronous status query", () => {
  async function ownQuery(status: ReportDraft['status']) {
    const s = setup();
    await register(s.services);
    await s.store.putRecordIfAbsent({
      provider: 'momo',
      account: 'demo',
      namespace: 'alias:StatusQuery',
      id: 'AG_1',
      data: { reference: REF, origin: 'poll', asked: { OriginatorConversationID: REF } },
      createdAt: new Date(START).toISOString(),
    });
    await ingestIntents(ingestDeps(s), {
      provider: 'momo',
      account: 'demo',
      origin: 'callback',
      receivedAt: new Date(START).toISOString(),
      authenticated: false,
      confirmUnsignedSuccess: true,
      // No amount in it: only an authenticated answer may settle a transaction registered with one.
      intents: [
        {
          draft: draft(status, { amount: undefined }),
          correlate: [{ via: 'StatusQuery', value: 'AG_1' }],
          answersAbout: { OriginatorConversationID: REF },
        },
      ],
    });
    return s;
  }

  it('settles with origin poll even where unsigned successes need confirmation', async () => {
    const s = await ownQuery('SUCCEEDED');
    expect(s.tx().status).toBe('SUCCEEDED');
    expect(s.store.published.at(-1)!.metadata.origin).toBe('poll');
  });

  it('changes nothing when it is only a timeout of the query', async () => {
    const s = await ownQuery('AMBIGUOUS');
    expect(s.tx().status).toBe('PENDING');
    expect(s.types()).toEqual([]);
  });
});

describe('check now names the person who asked', () => {
  it('records the operator on the check, on the evidence it brought and on every event it caused', async () => {
    // Prepare
    const s = setup(() => ({ ...answers.succeeded(), request: 'GET /collection/v1_0/requesttopay/x' }));
    await register(s.services);
    // Act
    const answer = await forceCheck(s.services, KEY, OPERATOR);
    // Assess
    expect(answer.answer.request).toBe('GET /collection/v1_0/requesttopay/x');
    const check = s.tx().reconcile!.recent.at(-1)!;
    expect(check.by?.name).toBe('ana');
    expect(check.request).toBe('GET /collection/v1_0/requesttopay/x');
    expect(s.tx().evidence!.at(-1)).toMatchObject({ source: 'status-api', requestedBy: { id: 'ana' } });
    const succeeded = s.events.find((e) => e.metadata.type === 'TransactionSucceeded')!;
    expect(succeeded.data.checkedByHand).toEqual({ by: OPERATOR });
  });

  it('names nobody on the checks the poller makes on its schedule', async () => {
    // Prepare
    const s = setup(answers.succeeded);
    await register(s.services);
    s.advance(300);
    // Act
    await runPollCycle(s.services, { owner: 'p1' });
    // Assess
    expect(s.tx().reconcile!.recent.at(-1)!.by).toBeUndefined();
    expect(s.events.every((e) => e.data.checkedByHand === undefined)).toBe(true);
  });
});

describe('identical answers in a row', () => {
  it('are kept as one record counting them, so 13 "not found" answers leave the earlier answers in place', async () => {
    // Prepare
    let calls = 0;
    const s = setup(() => (++calls === 1 ? answers.pending() : answers.notFound()));
    await register(s.services);
    // Act
    for (let i = 0; i < 14; i++) {
      await forceCheck(s.services, KEY, OPERATOR);
      s.advance(60);
    }
    // Assess
    const recent = s.tx().reconcile!.recent;
    expect(recent.map((c) => [c.answer, c.count ?? 1])).toEqual([
      ['pending', 1],
      ['not-found', 13],
    ]);
    expect(recent[1]!.since).toBe(new Date(START + 60_000).toISOString());
    expect(recent[1]!.at).toBe(new Date(START + 13 * 60_000).toISOString());
  });
});

describe('a status answer the relay cannot store', () => {
  it('is not settled on: a success whose transaction id is not a storable id leaves the transaction to expire', async () => {
    // Prepare: a provider answer carrying an id with control characters and over 200 characters
    const s = setup(() => ({
      ...answers.succeeded(),
      draft: draft('SUCCEEDED', { providerTransactionId: `363\u0000${'9'.repeat(300)}` }),
    }));
    await register(s.services);

    // Act: poll until past the window (1 h)
    const cycles = [];
    for (let i = 0; i < 40 && s.tx().status === 'PENDING'; i++) {
      s.advance(300);
      cycles.push(await runPollCycle(s.services, { owner: 'p1' }));
    }

    // Assess
    expect(cycles.reduce((n, c) => n + c.errors, 0)).toBe(0);
    expect(s.tx().status).toBe('EXPIRED');
    expect(s.tx().providerTransactionId).toBeUndefined();
    expect(s.tx().reconcile?.recent.at(-1)).toMatchObject({ answer: 'error:garbage' });
    expect(s.types()).toEqual(['TransactionExpired']);
  });
});

describe('a provider asking for a long pause', () => {
  it.each([
    ['throttled', 'HTTP 429'],
    ['unavailable', 'HTTP 503'],
  ] as const)(
    '(%s with a Retry-After of a day) still expires the transaction at its window end',
    async (error, detail) => {
      // Prepare
      const s = setup(() => ({ type: 'error', error, detail, retryAfterMs: 86_400_000 }));
      await register(s.services);
      s.advance(300);
      await runPollCycle(s.services, { owner: 'p1' });

      // Act: the first cycle past the window (1 h)
      s.advance(3600);
      await runPollCycle(s.services, { owner: 'p1' });

      // Assess
      expect(s.tx().status).toBe('EXPIRED');
      expect(s.types()).toEqual(['TransactionExpired']);
    },
  );
});

describe('a Retry-After no date can hold', () => {
  it.each([
    ['past the largest date', 1e16],
    ['too many digits for a number', Infinity],
  ])('(%s) is a check like another, not a failure of every cycle', async (_, retryAfterMs) => {
    // Prepare
    const s = setup(() => ({ type: 'error', error: 'throttled', detail: 'HTTP 429', retryAfterMs }));
    await register(s.services);

    // Act
    const cycles = [];
    for (const seconds of [300, 3600]) {
      s.advance(seconds);
      cycles.push(await runPollCycle(s.services, { owner: 'p1' }));
    }

    // Assess
    expect(cycles.map((c) => c.errors)).toEqual([0, 0]);
    expect(s.tx().status).toBe('EXPIRED');
  });
});
