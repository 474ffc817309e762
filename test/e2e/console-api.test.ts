/**
 * The operator console's management reads (issue 21) over HTTP, on the local relay and DynamoDB Local:
 * auth, paging, search by every key, a receipt's body, quarantine, report, callback health, badges, and
 * bad input answered 400 naming the parameter (docs/management-api.md#console-endpoints).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestRelay, type TestRelay } from '../helpers/relay';

const SUCCESS = readFileSync(
  join(import.meta.dirname, '../fixtures/momo/requesttopay-successful.json'),
  'utf8',
);
const SECRET = 'console-path-secret-0123456789';
const refs = ['1', '2', '3'].map((n) => `7c0e7c1a-2d3f-4a5b-8c9d-00000000000${n}`);
const PAID = refs[0]!;

let relay: TestRelay;
let receiptId: string;
beforeAll(async () => {
  relay = await startTestRelay({
    accounts: { momo: { demo: { currency: 'EUR', confirmSuccess: false }, guarded: { pathSecret: SECRET } } },
  });
  for (const [i, reference] of refs.entries()) {
    const registered = await relay.admin('POST', '/v1/transactions', {
      provider: 'momo',
      account: 'demo',
      kind: 'requesttopay',
      reference,
      amount: '100',
      currency: 'EUR',
      externalId: `console-order-${i}`,
      ...(reference === PAID ? { msisdn: '46733123459' } : {}),
    });
    expect(registered.status).toBe(201);
  }
  const paid = await relay.request('PUT', `/v1/momo/demo/requesttopay/${PAID}`, SUCCESS);
  expect(paid.status).toBe(200);
  // Refused: the guarded account's callbacks carry its path secret.
  await relay.request('PUT', `/v1/momo/guarded/requesttopay/${refs[1]}`, '{"status":"SUCCESSFUL"}');
  const story = await relay.admin('GET', `/v1/transactions/momo/demo/${PAID}`);
  receiptId = story.body.history.find((h: { type: string }) => h.type === 'callback').receiptId;
});
afterAll(async () => {
  await relay?.stop();
});

const READS = [
  '/v1/transactions',
  '/v1/transactions/counts',
  '/v1/transactions/search?q=x',
  `/v1/transactions/momo/demo/${refs[0]}/receipts/${'0'.repeat(32)}`,
  '/v1/quarantine',
  '/v1/report',
  '/v1/callback-health',
  '/v1/badges',
];

describe('the console endpoints over HTTP on DynamoDB Local', () => {
  it('answer 401 without the bearer token', async () => {
    // Act
    const answers = await Promise.all(READS.map((path) => relay.request('GET', path)));
    // Assess
    expect(answers.map((a) => [a.status, a.body.error.code])).toEqual(READS.map(() => [401, 'UNAUTHORIZED']));
    expect(answers[0]!.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it('list the transactions newest first, a page at a time, with counts by status', async () => {
    // Act
    const first = await relay.admin('GET', '/v1/transactions?limit=2');
    const second = await relay.admin('GET', `/v1/transactions?limit=2&cursor=${first.body.next}`);
    const paid = await relay.admin('GET', '/v1/transactions?status=SUCCEEDED&provider=momo&account=demo');
    const counts = await relay.admin('GET', '/v1/transactions/counts');
    // Assess
    const seen = [...first.body.transactions, ...second.body.transactions].map((t) => t.reference);
    expect(seen).toEqual([...refs].reverse());
    expect(second.body.next).toBeNull();
    expect(paid.body.transactions).toEqual([
      expect.objectContaining({
        reference: PAID,
        status: 'SUCCEEDED',
        providerTransactionId: '363440463',
        msisdnMasked: '4673****459',
        origin: 'callback',
      }),
    ]);
    expect(counts.body).toMatchObject({ counts: { PENDING: 2, SUCCEEDED: 1 }, total: 3 });
  });

  it('search by reference, externalId, full MSISDN and provider receipt', async () => {
    // Act
    const answers = await Promise.all(
      [PAID, 'console-order-0', '+46733123459', '363440463'].map((q) =>
        relay.admin('GET', `/v1/transactions/search?q=${encodeURIComponent(q)}`),
      ),
    );
    // Assess
    expect(
      answers.map((a) => [a.status, a.body.matchedBy, a.body.transactions.map((t: any) => t.reference)]),
    ).toEqual([
      [200, 'reference', [PAID]],
      [200, 'externalId', [PAID]],
      [200, 'msisdn', [PAID]],
      [200, 'providerTransactionId', [PAID]],
    ]);
  });

  it("answer a receipt's stored body, and 404 for one the transaction does not have", async () => {
    // Act
    const found = await relay.admin('GET', `/v1/transactions/momo/demo/${PAID}/receipts/${receiptId}`);
    const missing = await relay.admin('GET', `/v1/transactions/momo/demo/${PAID}/receipts/${'0'.repeat(32)}`);
    // Assess
    expect(found.status).toBe(200);
    expect(found.body.receipt).toMatchObject({
      receiptId,
      route: 'callback',
      method: 'PUT',
      ack: { statusCode: 200, repeat: { statusCode: 200 } },
    });
    expect(JSON.parse(found.body.receipt.body)).toMatchObject({ financialTransactionId: '363440463' });
    expect([missing.status, missing.body.error.code]).toEqual([404, 'RECEIPT_NOT_FOUND']);
  });

  it('show the refused callback in the quarantine, counted by reason', async () => {
    // Act
    const answer = await relay.admin('GET', '/v1/quarantine?account=guarded');
    // Assess
    expect(answer.status).toBe(200);
    expect(answer.body.entries).toHaveLength(1);
    const [entry] = answer.body.entries;
    expect(entry).toMatchObject({ provider: 'momo', account: 'guarded', body: '{"status":"SUCCESSFUL"}' });
    expect(answer.body.byReason).toEqual({ [entry.reason]: 1 });
    expect(answer.body.next).toBeNull();
  });

  it('answer the report with its charts, callback health and the badge feed', async () => {
    // Act
    const [report, health, badges] = await Promise.all([
      relay.admin('GET', '/v1/report'),
      relay.admin('GET', '/v1/callback-health'),
      relay.admin('GET', '/v1/badges'),
    ]);
    // Assess
    expect(report.body).toMatchObject({ transactions: 3, finalizedBy: { callback: 1 } });
    expect(report.body.charts.timeToFinalByProvider.momo.count).toBe(1);
    expect(health.body.accounts.map((a: any) => `${a.provider}/${a.account}`).sort()).toEqual([
      'momo/demo',
      'momo/guarded',
    ]);
    expect(health.body.accounts.find((a: any) => a.account === 'demo').lastCallbackAt).not.toBeNull();
    expect(badges.body).toEqual({ shops: [] });
  });

  it('stream a new transaction as a Server-Sent Event under npm start, and refuse the stream without a token', async () => {
    // Prepare
    const refused = await fetch(`${relay.url}/v1/events/stream`);
    const abort = new AbortController();
    const stream = await fetch(`${relay.url}/v1/events/stream?access_token=${ADMIN_TOKEN}`, {
      signal: abort.signal,
    });
    const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
    const reference = '7c0e7c1a-2d3f-4a5b-8c9d-000000000099';
    // Act
    await relay.admin('POST', '/v1/transactions', {
      provider: 'momo',
      account: 'demo',
      kind: 'requesttopay',
      reference,
    });
    let text = '';
    while (!text.includes(reference)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    abort.abort();
    // Assess
    expect(refused.status).toBe(401);
    expect(stream.headers.get('content-type')).toBe('text/event-stream');
    const event = text.split('\n\n').find((block) => block.includes(reference))!;
    expect(event).toMatch(/^event: transaction\nid: \S+\ndata: /m);
    expect(JSON.parse(event.split('data: ')[1]!)).toMatchObject({ reference, status: 'PENDING' });
  });

  it('refuse bad input with a 400 naming the parameter', async () => {
    // Act
    const answers = await Promise.all(
      [
        ['/v1/transactions?limit=500', 'limit'],
        ['/v1/transactions?cursor=garbage', 'cursor'],
        ['/v1/transactions?from=2020-01-01&to=2026-01-01', 'from'],
        ['/v1/transactions/counts?to=never', 'to'],
        ['/v1/transactions/search', 'q'],
        [`/v1/transactions/momo/demo/${PAID}/receipts/not-an-id`, 'receiptId'],
        ['/v1/quarantine?reason=lower%20case', 'reason'],
        ['/v1/report?from=soon', 'from'],
      ].map(async ([path, parameter]) => [(await relay.admin('GET', path!)).body, parameter]),
    );
    // Assess
    for (const [body, parameter] of answers)
      expect(body.error).toMatchObject({ code: 'SCHEMA_VALIDATION_FAILED', parameter });
  });
});
