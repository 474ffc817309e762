/**
 * Issue 27 items 7 and 8, black-box over HTTP to the real local relay on DynamoDB Local: a flood of junk
 * newer than a forged attempt does not hide the attempt from the quarantine's filters; a wrong token on
 * the console's event stream leaves an audit log entry as on every other management route (issue 30:
 * management refusals go to the audit log, not the provider-callback quarantine); every
 * management answer, success or error, and the callback answers say `Cache-Control: no-store`,
 * `X-Content-Type-Options: nosniff`, a deny-all Content-Security-Policy, `X-Frame-Options: DENY` and
 * `Referrer-Policy: no-referrer`; the console's files say them with the page's own policy.
 *
 * The local relay stores every refusal (its recordRejection has no RefusalSampler; the Lambda wiring
 * samples a flood per source and per second, docs/guarantees.md): the junk requests are as many
 * quarantine entries here, all newer than the attempt.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MANAGEMENT_ROUTES } from '../../infra/relay/api';
import type { AuditPage, QuarantinePage } from '../../shared/app/management-answers';
import {
  airtelBody,
  momoSuccessBody,
  type RawResponse,
  rawRequest,
  startHostileRelay,
  uuid,
} from '../helpers/hostile';
import { ADMIN_HEADERS, type TestRelay } from '../helpers/relay';

const ATTEMPT_IP = '198.51.100.23';
const JUNK_IP = '203.0.113.66';
const STREAM_PROBE_IP = '198.51.100.77';
/**
 * Entries one quarantine page request looks at here: lowered from the production 2,000 (RelayLimits), so
 * that JUNK, half as many again, buries the attempt past the first page with 150 requests, not 2,100.
 */
const EXAMINED = 100;
const JUNK = 150;
/**
 * Requests in flight at once while flooding (the relay answers each; this only paces the test). DynamoDB
 * Local takes the writes one after another anyway: a deeper queue only adds to each write's wait.
 */
const IN_FLIGHT = 8;
const WAIT_MS = 60_000;

let relay: TestRelay;

beforeAll(async () => {
  relay = await startHostileRelay({}, { limits: { quarantineExamined: EXAMINED } });
});

afterAll(async () => {
  await relay?.stop();
});

function send(
  method: string,
  path: string,
  options: { body?: unknown; raw?: string; admin?: boolean; ip?: string; headers?: [string, string][] } = {},
): Promise<RawResponse> {
  const headers: [string, string][] = [
    ['content-type', options.raw === undefined ? 'application/json' : 'text/csv'],
    ...(options.headers ?? []),
  ];
  if (options.admin) headers.push(...Object.entries(ADMIN_HEADERS));
  if (options.ip) headers.push(['x-forwarded-for', options.ip]);
  return rawRequest(relay.url, {
    method,
    path,
    headers,
    body: options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
  });
}

async function quarantinePage(query: Record<string, string>): Promise<QuarantinePage> {
  const res = await send('GET', `/v1/quarantine?${new URLSearchParams(query)}`, { admin: true });
  expect(res.status, res.text).toBe(200);
  return res.json as QuarantinePage;
}

/** Every page of a filtered quarantine read, following `next` to the end of the range. */
async function allPages(query: Record<string, string>): Promise<QuarantinePage[]> {
  const pages = [await quarantinePage(query)];
  while (pages.at(-1)!.next) pages.push(await quarantinePage({ ...query, cursor: pages.at(-1)!.next! }));
  return pages;
}

describe('a forged attempt beneath a flood of junk', () => {
  it('is found by the quarantine filtered by its source or its account, following next past the flood', async () => {
    // Prepare: 3 forged Airtel callbacks (a wrong hash on the enforcing account), then JUNK junk
    // requests from another source to routes no account matches, all newer than the attempt.
    const forged = [];
    for (let i = 0; i < 3; i++)
      forged.push(
        await send('POST', '/v1/airtel/demo/callback', {
          body: { ...airtelBody(), hash: 'forged'.repeat(8) },
          ip: ATTEMPT_IP,
        }),
      );
    let sent = 0;
    const junkAnswers: number[] = [];
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (sent < JUNK) {
          const n = sent++;
          junkAnswers.push((await send('GET', `/wp-login.php?probe=${n}`, { ip: JUNK_IP })).status);
        }
      }),
    );
    // Each refusal's write is awaited within a budget before its answer: wait until all are readable.
    await vi.waitFor(
      async () => expect((await quarantinePage({})).inRange).toBeGreaterThanOrEqual(JUNK + 3),
      {
        timeout: WAIT_MS,
        interval: 500,
      },
    );

    // Act: the first page (all the console read before) and every page, by source and by account.
    const bySource = await allPages({ source: ATTEMPT_IP });
    const byAccount = await allPages({ provider: 'airtel', account: 'demo' });

    // Assess
    expect(forged.map((r) => r.status)).toEqual([401, 401, 401]);
    expect(junkAnswers.filter((s) => s === 404)).toHaveLength(JUNK);
    // The first page read its EXAMINED entries, all junk: nothing found yet, and a next to go on.
    expect(bySource[0]).toMatchObject({ entries: [], examined: EXAMINED, byReason: { UNAUTHORIZED: 3 } });
    expect(bySource[0]!.next).not.toBeNull();
    for (const pages of [bySource, byAccount]) {
      const found = pages.flatMap((p) => p.entries);
      expect(found).toHaveLength(3);
      expect(found.every((e) => e.sourceIp === ATTEMPT_IP && e.account === 'demo')).toBe(true);
      expect(pages.every((p) => p.examined <= EXAMINED)).toBe(true);
      expect(pages.reduce((sum, p) => sum + p.examined, 0)).toBe(pages[0]!.inRange);
    }
    // A bound on a hang (each request waits for its quarantine write), not a speed check.
  }, 300_000);
});

describe('a wrong token on the console event stream', () => {
  it('is answered 401 and recorded in the audit log like any management route’s, without the token', async () => {
    // Prepare
    const wrong = `wrong-${uuid()}`;
    // Act: as EventSource sends it (?access_token=) and as fetch does (Authorization).
    const inQuery = await send('GET', `/v1/events/stream?access_token=${wrong}`, { ip: STREAM_PROBE_IP });
    const inHeader = await send('GET', '/v1/events/stream', {
      ip: STREAM_PROBE_IP,
      headers: [['authorization', `Bearer ${wrong}`]],
    });
    const recorded = await vi.waitFor(
      async () => {
        const res = await send('GET', '/v1/audit?action=sign-in&outcome=refused&limit=200', { admin: true });
        const page = res.json as AuditPage;
        const mine = page.entries.filter((e) => e.sourceIp === STREAM_PROBE_IP);
        expect(mine).toHaveLength(2);
        return mine;
      },
      { timeout: WAIT_MS, interval: 200 },
    );
    const quarantined = await quarantinePage({ source: STREAM_PROBE_IP });
    // Assess
    expect([inQuery.status, inHeader.status]).toEqual([401, 401]);
    expect(recorded.map((e) => [e.action, e.path, e.httpStatus, e.actor])).toEqual([
      ['sign-in', '/v1/events/stream', 401, null],
      ['sign-in', '/v1/events/stream', 401, null],
    ]);
    expect(JSON.stringify(recorded)).not.toContain(wrong);
    expect(quarantined.entries).toEqual([]);
  });
});

describe('every management and callback answer', () => {
  /** What an answer opened in a browser must never do: be kept, sniffed, run or load anything, be framed, name its URL. */
  const SECURITY_HEADERS = {
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'content-security-policy':
      "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
  };
  const headersOf = (res: { headers: Record<string, unknown> }) =>
    Object.fromEntries(Object.keys(SECURITY_HEADERS).map((name) => [name, res.headers[name]]));

  it('says no-store, nosniff, a deny-all policy, DENY and no-referrer on success and on error, route by route', async () => {
    // Prepare: a transaction with a stored callback (a receipt to read).
    const reference = uuid();
    const registration = {
      provider: 'momo',
      account: 'open',
      kind: 'requesttopay',
      reference,
      amount: '100',
      currency: 'EUR',
    };
    const registered = await send('POST', '/v1/transactions', { body: registration, admin: true });
    const callback = await send('PUT', `/v1/momo/open/requesttopay/${reference}`, {
      body: momoSuccessBody(),
    });
    const story = await send('GET', `/v1/transactions/momo/open/${reference}`, { admin: true });
    const receiptId = story.json.history.find((h: { type: string }) => h.type === 'callback').receiptId;
    // One left to expire (a 1 s window), for the resolution by hand.
    const expiring = uuid();
    await send('POST', '/v1/transactions', {
      body: { ...registration, reference: expiring, expiresInSeconds: 1 },
      admin: true,
    });
    await vi.waitFor(
      async () =>
        expect(
          (await send('GET', `/v1/transactions/momo/open/${expiring}`, { admin: true })).json.transaction
            .status,
        ).toBe('EXPIRED'),
      { timeout: WAIT_MS, interval: 250 },
    );
    const concrete = (path: string) =>
      path
        .replace('{provider}/{account}/{reference}/resolve', `momo/open/${expiring}/resolve`)
        .replace('{provider}/{account}/{reference}', `momo/open/${reference}`)
        .replace('{receiptId}', receiptId)
        .replace('{provider}/{account}', 'momo/open')
        .replace('{day}', '2026-11-21')
        .replace('{id}', 'no-such-approval');
    /** A request each route answers with success, and one it refuses for its input (besides no token). */
    type Ask = { suffix?: string; method?: string; body?: unknown; raw?: string };
    const statement =
      'STORE_NAME,RECEIPT_NUMBER,ACCOUNT_TYPE_NAME,TRANSACTION_TYPE,START_TIMESTAMP,TRANSACTION_PARTY_DETAILS,CREDIT_AMOUNT,DEBIT_AMOUNT,BALANCE,LINKED_TRANSACTION_ID\n' +
      'Main,SKH0000001,Merchant Account,Pay Merchant,2026-11-21 10:00:00,x,100.00,0.00,100.00,\n';
    const dryRun = '?dryRun=true&template=mpesa-merchant';
    const requests: Record<string, { ok: Ask; bad: Ask; okStatus?: number[] }> = {
      'POST /v1/transactions': {
        ok: { body: { ...registration, reference: uuid() } },
        bad: { body: { provider: 'momo' } },
      },
      'GET /v1/transactions/{provider}/{account}/{reference}': {
        ok: {},
        bad: { suffix: '?receiptsLimit=100000' },
      },
      'POST /v1/transactions/{provider}/{account}/{reference}/check': {
        ok: { body: {} },
        bad: { method: 'GET' },
      },
      'POST /v1/transactions/{provider}/{account}/{reference}/resolve': {
        ok: { body: { status: 'FAILED', note: 'MoMo support: never approved (ticket 12)' } },
        bad: { body: { status: 'FAILED' } },
      },
      'GET /v1/reconciliation/report': { ok: {}, bad: { suffix: '?from=yesterday' } },
      'GET /v1/transactions': { ok: {}, bad: { suffix: '?limit=0' } },
      'GET /v1/transactions/counts': { ok: {}, bad: { suffix: '?from=nope' } },
      'GET /v1/transactions/search': { ok: { suffix: `?q=${reference}` }, bad: {} },
      'GET /v1/transactions/{provider}/{account}/{reference}/receipts/{receiptId}': {
        ok: {},
        bad: { suffix: 'x' },
      },
      'GET /v1/quarantine': { ok: {}, bad: { suffix: '?reason=lower' } },
      // No such entry: answered (404), not refused for its input.
      'POST /v1/quarantine/{id}/accept': {
        ok: { body: { receivedAt: '2026-11-21T10:00:00.000Z', note: 'reviewed: genuine' } },
        okStatus: [404],
        bad: { body: { note: 'x' } },
      },
      'POST /v1/quarantine/{id}/dismiss': {
        ok: { body: { receivedAt: '2026-11-21T10:00:00.000Z', note: 'reviewed: a scanner' } },
        okStatus: [404],
        bad: { method: 'GET' },
      },
      'GET /v1/report': { ok: {}, bad: { suffix: '?from=nope' } },
      'GET /v1/callback-health': { ok: {}, bad: { method: 'POST' } },
      'GET /v1/badges': { ok: {}, bad: { method: 'POST' } },
      'POST /v1/statements/{provider}/{account}/import': {
        ok: { suffix: dryRun, raw: statement },
        bad: { suffix: dryRun, raw: `${statement}Main,SKH0000002,x,Pay Merchant,yesterday,x,1,0,1,\n` },
      },
      'GET /v1/statements/{provider}/{account}/days': { ok: {}, bad: { suffix: '?from=not-a-day' } },
      'GET /v1/statements/{provider}/{account}/days/{day}': { ok: {}, bad: { method: 'POST' } },
      'POST /v1/statements/{provider}/{account}/days/{day}/close': { ok: {}, bad: { method: 'GET' } },
      'GET /v1/me': { ok: {}, bad: { method: 'POST' } },
      'GET /v1/approvals': { ok: {}, bad: { suffix: '?state=maybe' } },
      // No approval request exists (this relay has no resolve limit): answered, not refused for its input.
      'POST /v1/approvals/{id}/approve': { ok: {}, okStatus: [404], bad: { method: 'GET' } },
      'POST /v1/approvals/{id}/reject': { ok: {}, okStatus: [404], bad: { body: ['not', 'an object'] } },
      'GET /v1/audit': { ok: {}, bad: { suffix: '?outcome=maybe' } },
      // This relay has no destination: a named one is answered 404, not refused for its input.
      'GET /v1/destinations': { ok: {}, bad: { method: 'POST' } },
      'GET /v1/destinations/{id}/deliveries': { ok: {}, okStatus: [404], bad: { method: 'POST' } },
      'POST /v1/destinations/{id}/pause': { ok: {}, okStatus: [404], bad: { method: 'GET' } },
      'POST /v1/destinations/{id}/replay': {
        ok: { body: { dryRun: true } },
        okStatus: [404],
        bad: { method: 'GET' },
      },
      'POST /v1/destinations/{id}/resume': { ok: {}, okStatus: [404], bad: { method: 'GET' } },
      'POST /v1/destinations/{id}/rotate': { ok: {}, okStatus: [404], bad: { method: 'GET' } },
      'GET /v1/transactions/{provider}/{account}/{reference}/deliveries': { ok: {}, bad: { method: 'POST' } },
    };

    // Act
    const answers: Array<{
      route: string;
      what: 'success' | 'refused input' | 'no token';
      res: RawResponse;
      okStatus?: number[];
    }> = [];
    for (const { method, path } of MANAGEMENT_ROUTES) {
      const route = `${method} ${path}`;
      const given = requests[route];
      expect(given, `a request for ${route}`).toBeDefined();
      const ask = (a: Ask, admin: boolean) =>
        send(a.method ?? method, concrete(path) + (a.suffix ?? ''), {
          body: a.body,
          ...(a.raw === undefined ? {} : { raw: a.raw }),
          admin,
        });
      answers.push(
        { route, what: 'success', res: await ask(given!.ok, true), okStatus: given!.okStatus },
        { route, what: 'refused input', res: await ask(given!.bad, true) },
        { route, what: 'no token', res: await ask(given!.ok, false) },
      );
    }
    const unknown = await send('GET', '/v1/transactions/a/b/c/d/e/f/g', { admin: true });
    const refusedCallback = await send('POST', '/v1/airtel/demo/callback', {
      body: { ...airtelBody(), hash: 'x' },
    });

    // Assess
    expect(registered.status).toBe(201);
    expect(callback.status).toBe(200);
    for (const { route, what, res, okStatus } of answers) {
      const expected =
        what === 'success' ? (okStatus ?? [200, 201]) : what === 'no token' ? [401] : [400, 404, 405, 409];
      expect(expected, `${route} (${what}) answered ${res.status}: ${res.text}`).toContain(res.status);
      expect(headersOf(res), `${route} (${what})`).toEqual(SECURITY_HEADERS);
    }
    for (const res of [unknown, callback, refusedCallback]) expect(headersOf(res)).toEqual(SECURITY_HEADERS);
    expect([unknown.status, refusedCallback.status]).toEqual([404, 401]);
  });

  it('says no-store, nosniff, a deny-all policy, DENY and no-referrer on the event stream, accepted or refused', async () => {
    // Act
    const refused = await send('GET', '/v1/events/stream', { headers: [['authorization', 'Bearer nope']] });
    const controller = new AbortController();
    const accepted = await fetch(`${relay.url}/v1/events/stream`, {
      headers: ADMIN_HEADERS,
      signal: controller.signal,
    });
    controller.abort();
    // Assess
    expect(refused.status).toBe(401);
    expect(headersOf(refused)).toEqual(SECURITY_HEADERS);
    expect(accepted.status).toBe(200);
    expect(
      Object.fromEntries(Object.keys(SECURITY_HEADERS).map((name) => [name, accepted.headers.get(name)])),
    ).toEqual(SECURITY_HEADERS);
  });

  it("serves the console's page, scripts, config, 404 and redirect with its own policy, DENY, no-referrer and no-store", async () => {
    // Act
    const answers = await Promise.all(
      ['/console', '/console/', '/console/console.js', '/console/config.json', '/console/no-such-file'].map(
        async (path) => ({ path, res: await send('GET', path) }),
      ),
    );
    // Assess
    expect(answers.map(({ res }) => res.status)).toEqual([301, 200, 200, 200, 404]);
    for (const { path, res } of answers) {
      const { 'content-security-policy': policy, ...rest } = headersOf(res);
      const { 'content-security-policy': _apiPolicy, ...expected } = SECURITY_HEADERS;
      expect(rest, path).toEqual(expected);
      // The page's policy: its own scripts only (no inline script), framed by nobody.
      expect(policy, path).toMatch(/^default-src 'none'; script-src 'self';/);
      expect(policy, path).toContain("frame-ancestors 'none'");
      expect(policy, path).not.toMatch(/unsafe-inline|unsafe-eval/);
    }
  });
});
