import { answeredAck } from '../../../shared/app/callbacks/answered-ack';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../shared/adapters/memory/memory-store';
import { callbackHealthView } from '../../../shared/app/console/account-health';
import { badgeShops } from '../../../shared/app/console/badge-shops';
import { consoleReport } from '../../../shared/app/console/console-report';
import { listQuarantine } from '../../../shared/app/console/list-quarantine';
import { countTransactions, listTransactions } from '../../../shared/app/console/list-transactions';
import { receiptBody } from '../../../shared/app/console/receipt-body';
import { searchTransactions } from '../../../shared/app/console/search-transactions';
import type { QuarantineInput } from '../../../shared/app/ports';
import { ingestReport } from '../../../shared/app/transactions/ingest-report';
import { getTransaction } from '../../../shared/app/transactions/get-transaction';
import { registerTransaction } from '../../../shared/app/transactions/register-transaction';
import { parseConfig } from '../../../shared/config/load';
import { reconciliationSchema } from '../../../shared/config/schema';
import {
  ReceiptNotFoundError,
  SchemaValidationError,
  TransactionNotFoundError,
} from '../../../shared/domain/errors';
import type { TransactionKey } from '../../../shared/domain/transaction';

const config = parseConfig({
  management: { bearerToken: 'a-long-enough-token', searchKey: 'a-search-key-of-at-least-32-chars' },
  reconciliation: { windowSeconds: 3600 },
  accounts: {
    daraja: { ke: { pathSecret: 'daraja-path-secret-0123', shortCode: '600638' } },
    momo: { demo: { pathSecret: 'momo-path-secret-0123' } },
  },
  badges: { shops: { 'shop-1': { baseUrl: 'https://badges.example.com' } } },
});

const NOW = '2026-11-26T12:00:00.000Z';

function setup() {
  let now = NOW;
  const clock = { now: () => new Date(now) };
  const store = new MemoryStore(clock);
  const deps = { config, store, clock };
  const at = (iso: string) => {
    now = iso;
  };
  const register = async (iso: string, body: Record<string, unknown>) => {
    at(iso);
    const result = await registerTransaction(deps, {
      provider: 'daraja',
      account: 'ke',
      kind: 'stk',
      amount: '1000',
      currency: 'KES',
      ...body,
    });
    at(NOW);
    return result.transaction;
  };
  const succeed = async (key: TransactionKey, receipt: string) =>
    ingestReport(
      { store, clock, reconciliation: reconciliationSchema.parse({ windowSeconds: 3600 }) },
      {
        key,
        kind: 'stk',
        status: 'SUCCEEDED',
        reason: undefined,
        providerTransactionId: receipt,
        externalId: undefined,
        amount: { value: '1000', currency: 'KES' },
        party: undefined,
        receivedAt: NOW,
        origin: 'callback',
        receiptId: undefined,
        attributes: { MpesaReceiptNumber: receipt },
      },
    );
  return { store, deps, register, succeed };
}

const rejected = (day: string, n: number, errorCode: string, sourceIp = '203.0.113.9'): QuarantineInput => ({
  id: `q-${day}-${n}`,
  receivedAt: `${day}T10:00:0${n}.000Z`,
  httpStatus: 403,
  errorCode,
  message: 'refused',
  provider: 'daraja',
  account: 'ke',
  routeName: 'stk',
  method: 'POST',
  path: '/v1/daraja/ke/{secret}/stk',
  headers: {},
  sourceIp,
  body: 'x'.repeat(5000),
  bodyEncoding: 'utf8',
  bodyBytes: 5000,
  bodySha256: 'ab'.repeat(32),
  bodyTruncated: false,
  outbox: [],
});

async function expectBadParameter(run: Promise<unknown>, parameter: string) {
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SchemaValidationError);
  expect((error as SchemaValidationError).details).toEqual({ parameter });
}

describe('the console list', () => {
  it('pages every transaction of the range newest first, each once', async () => {
    // Prepare
    const { deps, register } = setup();
    for (let i = 0; i < 7; i++)
      await register(`2026-11-2${i}T08:00:00.000Z`, { reference: `ws_CO_${i}`, externalId: `order-${i}` });
    await register('2026-11-25T08:00:00.000Z', { reference: 'ws_CO_same_time' });

    // Act
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await listTransactions(deps, {
        from: '2026-11-20',
        to: '2026-11-26',
        limit: '3',
        ...(cursor ? { cursor } : {}),
      });
      seen.push(...page.transactions.map((t) => t.reference));
      cursor = page.next ?? undefined;
      pages++;
    } while (cursor);

    // Assess
    expect(seen).toEqual([
      'ws_CO_6',
      // Same createdAt: the key decides (descending), as in the index.
      'ws_CO_same_time',
      'ws_CO_5',
      'ws_CO_4',
      'ws_CO_3',
      'ws_CO_2',
      'ws_CO_1',
      'ws_CO_0',
    ]);
    expect(pages).toBe(3);
  });

  it('filters by status and answers summaries with the MSISDN masked', async () => {
    // Prepare
    const { deps, register, succeed } = setup();
    const paid = await register('2026-11-25T08:00:00.000Z', {
      reference: 'ws_CO_paid',
      msisdn: '254708374149',
    });
    await register('2026-11-25T09:00:00.000Z', { reference: 'ws_CO_waiting' });
    await succeed(paid, 'NLJ7RT61SV');

    // Act
    const page = await listTransactions(deps, { status: 'SUCCEEDED' });

    // Assess
    expect(page.transactions).toEqual([
      expect.objectContaining({
        reference: 'ws_CO_paid',
        status: 'SUCCEEDED',
        amount: '1000',
        currency: 'KES',
        msisdnMasked: '2547*****149',
        providerTransactionId: 'NLJ7RT61SV',
        origin: 'callback',
      }),
    ]);
    expect(JSON.stringify(page)).not.toContain('254708374149');
    expect(page.next).toBeNull();
  });

  it('answers only the transactions updated since `since`, for polling', async () => {
    // Prepare
    const { deps, register, succeed } = setup();
    const older = await register('2026-11-26T08:00:00.000Z', { reference: 'ws_CO_old' });
    await register('2026-11-26T09:00:00.000Z', { reference: 'ws_CO_untouched' });
    await succeed(older, 'NLJ7RT61SV');

    // Act
    const page = await listTransactions(deps, { since: '2026-11-26T11:00:00Z' });

    // Assess
    expect(page.transactions.map((t) => t.reference)).toEqual(['ws_CO_old']);
  });

  it('refuses bad parameters with a 400 naming each', async () => {
    const { deps } = setup();
    await expectBadParameter(listTransactions(deps, { limit: '0' }), 'limit');
    await expectBadParameter(listTransactions(deps, { limit: '201' }), 'limit');
    await expectBadParameter(listTransactions(deps, { cursor: 'not-a-cursor' }), 'cursor');
    await expectBadParameter(listTransactions(deps, { from: 'yesterday' }), 'from');
    await expectBadParameter(listTransactions(deps, { from: '2026-01-01', to: '2026-11-26' }), 'from');
    await expectBadParameter(listTransactions(deps, { status: 'PAID' }), 'status');
    await expectBadParameter(listTransactions(deps, { since: 'soon' }), 'since');
  });

  it('counts the range by status', async () => {
    // Prepare
    const { deps, register, succeed } = setup();
    const paid = await register('2026-11-25T08:00:00.000Z', { reference: 'ws_CO_a' });
    await register('2026-11-25T09:00:00.000Z', { reference: 'ws_CO_b' });
    await succeed(paid, 'R1');

    // Act
    const counts = await countTransactions(deps, {});

    // Assess
    expect(counts.counts).toEqual({ PENDING: 1, AMBIGUOUS: 0, SUCCEEDED: 1, FAILED: 0, EXPIRED: 0 });
    expect(counts.total).toBe(2);
  });
});

describe('the console search', () => {
  it('finds a transaction by reference, externalId, full or masked MSISDN and receipt', async () => {
    // Prepare
    const { deps, store, register, succeed } = setup();
    const tx = await register('2026-11-25T08:00:00.000Z', {
      reference: 'ws_CO_8841',
      externalId: 'order-8841',
      msisdn: '+254708374149',
    });
    await register('2026-11-25T09:00:00.000Z', { reference: 'ws_CO_other', externalId: 'order-1' });
    await succeed(tx, 'NLJ7RT61SV');

    // Act
    const found = await Promise.all(
      ['ws_CO_8841', 'order-8841', '254708374149', '2547*****149', 'NLJ7RT61SV', 'nothing-like-it'].map((q) =>
        searchTransactions(deps, { q }),
      ),
    );

    // Assess
    expect(found.map((f) => [f.matchedBy, f.transactions.map((t) => t.reference)])).toEqual([
      ['reference', ['ws_CO_8841']],
      ['externalId', ['ws_CO_8841']],
      ['msisdn', ['ws_CO_8841']],
      ['msisdn', ['ws_CO_8841']],
      ['providerTransactionId', ['ws_CO_8841']],
      [null, []],
    ]);
    expect(found[4]!.receiptSearch).toMatchObject({ complete: true, searched: 2 });
    // Only the masked form is kept for lookups, with the keyed hash of the number: never the number.
    expect([...store.lookups.keys()].sort()).toEqual([
      'externalId#order-1',
      'externalId#order-8841',
      'msisdn#2547*****149',
    ]);
    expect(JSON.stringify([...store.lookups.values()])).not.toContain('708374149');
  });

  it('finds a number in any common spelling, and never another customer who only shares its mask', async () => {
    // Prepare: two customers whose numbers share the mask 2547*****149.
    const { deps, register } = setup();
    await register('2026-11-25T08:00:00.000Z', { reference: 'ws_CO_mine', msisdn: '0708374149' });
    await register('2026-11-25T09:00:00.000Z', { reference: 'ws_CO_theirs', msisdn: '254711111149' });

    // Act
    const spellings = ['+254 708 374 149', '254708374149', '0708374149', '0708-374-149', '708374149'];
    const found = await Promise.all(spellings.map((q) => searchTransactions(deps, { q })));
    const sharingTheMask = await searchTransactions(deps, { q: '254700000149' });
    const byMask = await searchTransactions(deps, { q: '2547*****149' });
    const byListedMask = await searchTransactions(deps, { q: '070****149' });

    // Assess
    for (const answer of found) {
      expect(answer.matchedBy).toBe('msisdn');
      expect(answer.transactions.map((t) => t.reference)).toEqual(['ws_CO_mine']);
    }
    expect(sharingTheMask.transactions).toEqual([]);
    // A masked query means every number under that mask.
    expect(byMask.transactions.map((t) => t.reference)).toEqual(['ws_CO_theirs', 'ws_CO_mine']);
    expect(byListedMask.transactions.map((t) => t.reference)).toEqual(['ws_CO_theirs', 'ws_CO_mine']);
  });

  it('does not confirm a number held in a provider attribute (no oracle), but still finds other attributes', async () => {
    // Prepare: an orphan-like success whose callback named the payer's number in PhoneNumber.
    const { deps, store, register } = setup();
    const tx = await register('2026-11-25T08:00:00.000Z', { reference: 'ws_CO_paid' });
    await ingestReport(
      { store, clock: deps.clock, reconciliation: reconciliationSchema.parse({ windowSeconds: 3600 }) },
      {
        key: tx,
        kind: 'stk',
        status: 'SUCCEEDED',
        reason: undefined,
        providerTransactionId: 'NLJ7RT61SV',
        externalId: undefined,
        amount: { value: '1000', currency: 'KES' },
        party: { idType: 'MSISDN', id: '254708374149' },
        receivedAt: NOW,
        origin: 'callback',
        receiptId: undefined,
        attributes: { PhoneNumber: '254708374149', MerchantRequestID: '29115-34620561-1' },
      },
    );

    // Act
    const byNumber = await searchTransactions(deps, { q: '254708374149' });
    const byMerchantRequest = await searchTransactions(deps, { q: '29115-34620561-1' });

    // Assess
    expect(byNumber.transactions).toEqual([]);
    expect(byMerchantRequest.transactions.map((t) => t.reference)).toEqual(['ws_CO_paid']);
  });

  it('answers the read with the numbers in provider words masked: the reason and the evidence', async () => {
    // Prepare: a failure whose provider message names the payer's number.
    const { deps, store, register } = setup();
    const tx = await register('2026-11-25T08:00:00.000Z', { reference: 'ws_CO_words' });
    await ingestReport(
      { store, clock: deps.clock, reconciliation: reconciliationSchema.parse({ windowSeconds: 3600 }) },
      {
        key: tx,
        kind: 'stk',
        status: 'FAILED',
        reason: {
          code: 'REJECTED_BY_CUSTOMER',
          message: 'Request cancelled by 254708374149',
          providerCode: '1032',
        },
        providerTransactionId: undefined,
        externalId: undefined,
        amount: undefined,
        party: undefined,
        receivedAt: NOW,
        origin: 'callback',
        receiptId: undefined,
        attributes: {},
      },
    );

    // Act
    const read = await getTransaction(deps, tx);

    // Assess
    expect(read.transaction.status).toBe('FAILED');
    expect(read.transaction.reason?.message).toBe('Request cancelled by 2547*****149');
    expect(JSON.stringify(read)).not.toContain('708374149');
  });

  it('finds no transaction by full number without a search key (the number is never compared in clear)', async () => {
    // Prepare
    const { store, clock } = setup().deps;
    const keyless = parseConfig({
      management: { bearerToken: 'a-long-enough-token' },
      accounts: { daraja: { ke: { pathSecret: 'daraja-path-secret-0123', shortCode: '600638' } } },
    });
    const deps = { config: keyless, store, clock };
    await registerTransaction(deps, {
      provider: 'daraja',
      account: 'ke',
      kind: 'stk',
      reference: 'ws_CO_keyless',
      msisdn: '254708374149',
    });

    // Act
    const answer = await searchTransactions(deps, { q: '254708374149' });

    // Assess
    expect(answer.transactions).toEqual([]);
  });

  it('refuses an empty or oversized q', async () => {
    const { deps } = setup();
    await expectBadParameter(searchTransactions(deps, {}), 'q');
    await expectBadParameter(searchTransactions(deps, { q: 'x'.repeat(201) }), 'q');
    await expectBadParameter(searchTransactions(deps, { q: 'a\u0000b' }), 'q');
  });
});

describe("a receipt's body", () => {
  it('answers the body as stored, and names what is missing', async () => {
    // Prepare
    const { store, register } = setup();
    const tx = await register('2026-11-25T08:00:00.000Z', { reference: 'ws_CO_r' });
    const key = { provider: tx.provider, account: tx.account, reference: tx.reference };
    const { receiptId } = await store.recordReceipt({
      key,
      routeName: 'stk',
      method: 'POST',
      path: '/v1/daraja/ke/{secret}/stk',
      headers: { 'content-type': 'application/json' },
      sourceIp: '196.201.214.200',
      body: '{"Body":{"stkCallback":{}}}',
      receivedAt: NOW,
      verification: { sourceIp: 'allowed' },
      dedupeKey: 'f'.repeat(64),
    });

    // Act
    const answer = await receiptBody(store, key, receiptId);

    // Assess
    expect(answer.receipt).toMatchObject({
      receiptId,
      route: 'stk',
      body: '{"Body":{"stkCallback":{}}}',
      bodyDropped: false,
      // Daraja's ack for a stored result callback (not stored: it follows from the provider and route).
      ack: { statusCode: 200, body: { ResultCode: 0, ResultDesc: 'Accepted' } },
    });
    await expect(receiptBody(store, key, '0'.repeat(32))).rejects.toBeInstanceOf(ReceiptNotFoundError);
    await expect(receiptBody(store, { ...key, reference: 'ws_CO_none' }, receiptId)).rejects.toBeInstanceOf(
      TransactionNotFoundError,
    );
    await expectBadParameter(receiptBody(store, key, 'nope'), 'receiptId');
  });
});

describe('the quarantine view', () => {
  it('pages refused requests newest first across days, filtered, counted by reason, bodies cut to 4 KB', async () => {
    // Prepare
    const { deps, store } = setup();
    await store.quarantine(rejected('2026-11-24', 1, 'ORIGIN_NOT_VERIFIED'));
    await store.quarantine(rejected('2026-11-25', 1, 'ORIGIN_NOT_VERIFIED'));
    await store.quarantine(rejected('2026-11-25', 2, 'MALFORMED_JSON'));
    await store.quarantine(rejected('2026-11-26', 1, 'ORIGIN_NOT_VERIFIED', '198.51.100.7'));

    // Act
    const first = await listQuarantine(deps, { limit: '2' });
    const second = await listQuarantine(deps, { limit: '2', cursor: first.next! });
    const filtered = await listQuarantine(deps, { reason: 'ORIGIN_NOT_VERIFIED', source: '203.0.113.9' });

    // Assess
    expect([...first.entries, ...second.entries].map((e) => e.id)).toEqual([
      'q-2026-11-26-1',
      'q-2026-11-25-2',
      'q-2026-11-25-1',
      'q-2026-11-24-1',
    ]);
    expect(second.next).toBeNull();
    expect(first.byReason).toEqual({ ORIGIN_NOT_VERIFIED: 3, MALFORMED_JSON: 1 });
    expect(first.entries[0]).toMatchObject({ reason: 'ORIGIN_NOT_VERIFIED', bodyTruncated: true });
    expect(first.entries[0]!.body).toHaveLength(4096);
    expect(filtered.entries.map((e) => e.id)).toEqual(['q-2026-11-25-1', 'q-2026-11-24-1']);
    expect(filtered.byReason).toEqual({ ORIGIN_NOT_VERIFIED: 2, MALFORMED_JSON: 1 });
    await expectBadParameter(listQuarantine(deps, { reason: 'not a code' }), 'reason');
  });

  it('finds a source’s refusals beneath 2,100 newer ones by following next, reading at most 2000 per request', async () => {
    // Prepare: 3 refusals from one source, then 2,100 from another on the same day, all newer.
    const { deps, store } = setup();
    for (let n = 0; n < 3; n++)
      await store.quarantine({
        ...rejected('2026-11-26', 0, 'ORIGIN_NOT_VERIFIED', '198.51.100.7'),
        id: `attempt-${n}`,
        receivedAt: `2026-11-26T09:00:0${n}.000Z`,
      });
    for (let n = 0; n < 2100; n++)
      await store.quarantine({
        ...rejected('2026-11-26', 0, 'ROUTE_NOT_FOUND'),
        id: `junk-${n}`,
        receivedAt: new Date(Date.parse('2026-11-26T10:00:00.000Z') + n).toISOString(),
      });

    // Act
    const pages = [await listQuarantine(deps, { source: '198.51.100.7' })];
    while (pages.at(-1)!.next)
      pages.push(await listQuarantine(deps, { source: '198.51.100.7', cursor: pages.at(-1)!.next! }));

    // Assess: the first request stops at its read bound with nothing found and a continuation.
    expect(pages[0]).toMatchObject({ entries: [], examined: 2000, inRange: 2103, byReasonComplete: true });
    expect(pages[0]!.next).not.toBeNull();
    expect(pages[0]!.byReason).toEqual({ ORIGIN_NOT_VERIFIED: 3 });
    expect(pages.flatMap((p) => p.entries.map((e) => e.id))).toEqual(['attempt-2', 'attempt-1', 'attempt-0']);
    expect(pages.reduce((sum, p) => sum + p.examined, 0)).toBe(2103);
    expect(pages.slice(1).every((p) => p.byReason === null && p.inRange === null)).toBe(true);
  });
});

describe('the console report, callback health and badges', () => {
  it('charts time to final by provider, finals by origin per day and status calls', async () => {
    // Prepare
    const { deps, register, succeed } = setup();
    const paid = await register('2026-11-26T11:59:00.000Z', { reference: 'ws_CO_a' });
    await register('2026-11-25T08:00:00.000Z', { reference: 'ws_CO_b' });
    await succeed(paid, 'R1');

    // Act
    const report = await consoleReport(deps, { from: '2026-11-25', to: '2026-11-26' });

    // Assess
    expect(report.transactions).toBe(2);
    expect(report.charts.timeToFinalByProvider).toEqual({
      daraja: { count: 1, p50Ms: 60_000, p90Ms: 60_000 },
    });
    expect(report.charts.finalsByOriginPerDay).toEqual([
      { day: '2026-11-25', byOrigin: {} },
      { day: '2026-11-26', byOrigin: { callback: 1 } },
    ]);
    expect(report.charts.statusCallsPerTransaction).toMatchObject({ '0': 2, '1': 0, '10+': 0 });
    expect(report.charts.problemsPerDay).toHaveLength(2);
  });

  it("lists each account's last callback and its transactions per hour, and each shop's feed state", async () => {
    // Prepare
    const { deps, store, register } = setup();
    await register('2026-11-26T11:10:00.000Z', { reference: 'ws_CO_a' });
    await store.putRecord({
      provider: 'daraja',
      account: 'ke',
      namespace: 'callback-health',
      id: 'last-callback',
      data: { lastCallbackAt: '2026-11-26T11:11:00.000Z' },
      createdAt: '2026-11-26T11:11:00.000Z',
    });

    // Act
    const health = await callbackHealthView(deps);
    const badges = await badgeShops(deps);

    // Assess
    const ke = health.accounts.find((a) => a.provider === 'daraja')!;
    expect(ke).toMatchObject({ lastCallbackAt: '2026-11-26T11:11:00.000Z', silent: false });
    expect(ke.transactionsPerHour).toHaveLength(24);
    expect(ke.transactionsPerHour.at(-2)).toEqual({ hour: '2026-11-26T11:00:00.000Z', count: 1 });
    expect(badges.shops).toEqual([expect.objectContaining({ shop: 'shop-1', read: false, badges: [] })]);
  });
});

describe('answeredAck', () => {
  it("names the provider's ack of a stored callback and of its repeats", () => {
    // Act
    const ack = answeredAck('daraja', 'stk', 'a'.repeat(32));

    // Assess
    expect(ack).toEqual({
      statusCode: 200,
      body: { ResultCode: 0, ResultDesc: 'Accepted' },
      repeat: { statusCode: 200, body: { ResultCode: 0, ResultDesc: 'Accepted' } },
    });
  });

  it('leaves a question to its decision record: no ack derived for C2B validation', () => {
    expect(answeredAck('daraja', 'c2b-validation', 'a'.repeat(32))).toBeNull();
  });
});
