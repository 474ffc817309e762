/**
 * The HTTP adapter of callbacks (shared/http/callback-endpoint.ts): routing, path secret, guards, the
 * status of each refusal, quarantine, the provider's budget for the answer. What a callback becomes is the
 * use case's, tested directly in accept-callback.test.ts.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { receiveCallback } from '../../../shared/http/callback-endpoint';
import type { InboundRequest } from '../../../shared/http/types';
import { darajaProvider } from '../../../shared/providers/daraja';
import { momoProvider } from '../../../shared/providers/momo';
import { REDACTED } from '../../../shared/util/redact';
import { ANSWER_MARGIN_MS } from '../../../shared/app/callbacks/receive-callback';
import {
  AIRTEL_KEY,
  c2bRules,
  callbackWorld,
  DARAJA_SECRET,
  fixture,
  MOMO_KEY,
  MOMO_SECRET,
  REFERENCE,
  SAFARICOM_IP,
  typesOf,
} from '../../helpers/callback-world';
import { driveTimers, useDrivenTimers, watched } from '../../helpers/driven-timers';
import { registered } from '../../helpers/reports';
import { hmacB64 } from '../providers/airtel/support';

const setup = callbackWorld;

function request(
  method: string,
  path: string,
  body: string,
  overrides: Partial<InboundRequest> = {},
): InboundRequest {
  return {
    requestId: 'req-1',
    method,
    path,
    headers: { 'content-type': 'application/json' },
    query: {},
    rawBody: Buffer.from(body, 'utf8'),
    sourceIp: '198.51.100.7',
    receivedAt: new Date('2026-11-21T10:00:00.000Z'),
    ...overrides,
  };
}

const momoCallback = (body = fixture('momo/requesttopay-successful.json')) =>
  request('PUT', `/v1/momo/demo/${MOMO_SECRET}/requesttopay/${REFERENCE}`, body);

useDrivenTimers();

describe('receiveCallback', () => {
  const route = momoProvider.routes[0]!;
  const originalParse = route.parse;
  afterEach(() => {
    (route as { parse: typeof originalParse }).parse = originalParse;
  });

  it('stores a MoMo callback, applies it, then acknowledges it with 200', async () => {
    // Prepare
    const { store, services } = setup();
    await store.createTransaction(registered());

    // Act
    const response = await receiveCallback(services, momoCallback());

    // Assess
    expect(response.statusCode).toBe(200);
    const receipts = store.receiptsOf(MOMO_KEY);
    expect(receipts).toHaveLength(1);
    expect(response.body).toEqual({ received: true, duplicate: false, receiptId: receipts[0]!.receiptId });
    expect(receipts[0]!).toMatchObject({
      routeName: 'callback',
      path: `/v1/momo/demo/{secret}/requesttopay/${REFERENCE}`,
      verification: { pathSecret: 'verified' },
    });
    expect((await store.getTransaction(MOMO_KEY))!.status).toBe('SUCCEEDED');
    expect(typesOf(store)).toEqual(['TransactionSucceeded']);
  });

  it('answers an unknown route after a correct path secret with 404, and the secret appears nowhere', async () => {
    // Prepare
    const { store, lines, services } = setup();
    const req = request('POST', `/v1/momo/demo/${MOMO_SECRET}/nope/x/y`, `{"note":"${MOMO_SECRET}"}`, {
      headers: {
        'content-type': 'application/json',
        'x-forwarded-uri': `/v1/momo/demo/${MOMO_SECRET}/nope/x/y`,
      },
    });

    // Act
    const response = await receiveCallback(services, req);

    // Assess
    expect(response.statusCode).toBe(404);
    expect(store.quarantined).toHaveLength(1);
    expect(store.quarantined[0]!).toMatchObject({
      httpStatus: 404,
      errorCode: 'ROUTE_NOT_FOUND',
      provider: 'momo',
      account: 'demo',
    });
    expect(typesOf(store)).toEqual(['CallbackRejected']);
    const everything = JSON.stringify({
      response,
      quarantined: store.quarantined,
      published: store.published,
      lines,
    });
    expect(everything).not.toContain(MOMO_SECRET);
    expect(store.quarantined[0]!.path).toBe('/v1/momo/demo/{secret}/nope/x/y');
    expect(store.quarantined[0]!.headers['x-forwarded-uri']).toBe(`/v1/momo/demo/${REDACTED}/nope/x/y`);
  });

  it('answers a wrong path secret with 401 and quarantines it', async () => {
    // Prepare
    const { store, services } = setup();

    // Act
    const response = await receiveCallback(
      services,
      request(
        'PUT',
        `/v1/momo/demo/not-the-secret-at-all/requesttopay/${REFERENCE}`,
        '{"status":"SUCCESSFUL"}',
      ),
    );

    // Assess
    expect(response.statusCode).toBe(401);
    expect(store.quarantined[0]!.errorCode).toBe('UNAUTHORIZED');
    expect(store.transactions.size).toBe(0);
  });

  it('keeps no part of a near-miss path secret: the quarantine, its event and the log show {wrong-secret}', async () => {
    // Prepare: the secret one character short, and in another case (a URL rewritten on the way).
    const { store, lines, services } = setup();
    const nearMisses = [MOMO_SECRET.slice(0, -1), MOMO_SECRET.toUpperCase()];

    // Act
    const answers = [];
    for (const wrong of nearMisses)
      answers.push(
        await receiveCallback(
          services,
          request('PUT', `/v1/momo/demo/${wrong}/requesttopay/${REFERENCE}`, '{"status":"SUCCESSFUL"}'),
        ),
      );

    // Assess
    expect(answers.map((a) => a.statusCode)).toEqual([401, 401]);
    expect(store.quarantined.map((q) => q.path)).toEqual([
      `/v1/momo/demo/{wrong-secret}/requesttopay/${REFERENCE}`,
      `/v1/momo/demo/{wrong-secret}/requesttopay/${REFERENCE}`,
    ]);
    const everything = JSON.stringify({ quarantined: store.quarantined, published: store.published, lines });
    for (const wrong of nearMisses) expect(everything).not.toContain(wrong);

    // Nothing after the account: nothing to hide, and no segment the caller never sent.
    const bare = await receiveCallback(services, request('PUT', '/v1/momo/demo', '{}'));
    expect(bare.statusCode).toBe(401);
    expect(store.quarantined.at(-1)!.path).toBe('/v1/momo/demo');
  });

  it('answers 503 and acknowledges nothing when the store is down', async () => {
    // Prepare
    const { store, services } = setup();
    store.failure = 'error';

    // Act
    const response = await receiveCallback(services, momoCallback());

    // Assess
    expect(response.statusCode).toBe(503);
    expect(response.body).toMatchObject({ error: { code: 'STORAGE_UNAVAILABLE' } });
    expect(store.receipts.size).toBe(0);
    expect(store.transactions.size).toBe(0);
  });

  it('never answers 2xx when the store is down', async () => {
    // Prepare
    const { store, services } = setup();
    store.failure = 'error';

    // Act
    const response = await receiveCallback(services, momoCallback());

    // Assess
    expect(response.statusCode).toBeGreaterThanOrEqual(500);
    expect(store.receipts.size).toBe(0);
  });

  it('answers an unexpected exception with 500 and still quarantines the request', async () => {
    // Prepare
    const { store, lines, services } = setup();
    (route as { parse: typeof originalParse }).parse = () => {
      throw new TypeError("Cannot read properties of undefined (reading 'status')");
    };

    // Act
    const response = await receiveCallback(services, momoCallback());

    // Assess
    expect(response.statusCode).toBe(500);
    expect(response.body).toEqual({
      error: { code: 'INTERNAL_ERROR', message: 'Unexpected error; it has been logged', requestId: 'req-1' },
    });
    expect(store.quarantined).toHaveLength(1);
    expect(store.quarantined[0]!).toMatchObject({
      httpStatus: 500,
      errorCode: 'INTERNAL_ERROR',
      routeName: 'callback',
    });
    expect(typesOf(store)).toEqual(['CallbackRejected']);
    expect(
      lines.some((l) => l.level === 'error' && l.message === 'unexpected error while handling a callback'),
    ).toBe(true);
    expect(store.receipts.size).toBe(0);
  });

  it('refuses JSON nested 40 levels deep with 400, quarantines it and raises CallbackRejected', async () => {
    // Prepare
    const { store, services } = setup();
    const deep = `${'{"a":'.repeat(40)}1${'}'.repeat(40)}`;

    // Act
    const response = await receiveCallback(services, momoCallback(deep));

    // Assess
    expect(response.statusCode).toBe(400);
    expect(response.body).toMatchObject({ error: { code: 'SCHEMA_VALIDATION_FAILED' } });
    expect(store.quarantined).toHaveLength(1);
    expect(store.quarantined[0]!.httpStatus).toBe(400);
    expect(typesOf(store)).toEqual(['CallbackRejected']);
    expect(store.transactions.size).toBe(0);
  });

  it.each([
    ['reject', 'ke', { ResultCode: 'C2B00016', ResultDesc: 'Rejected' }],
    ['accept', 'kea', { ResultCode: '0', ResultDesc: 'Accepted' }],
  ] as const)(
    'answers a Daraja C2B validation with the default (%s) at the deadline while the store hangs',
    async (_decision, account, answer) => {
      // Prepare
      const { store, lines, services } = setup();
      store.failure = 'hang';
      const req = request(
        'POST',
        `/v1/daraja/${account}/${DARAJA_SECRET}/c2b/validation`,
        fixture('daraja/c2b-validation.json'),
        {
          sourceIp: SAFARICOM_IP,
        },
      );
      driveTimers();

      // Act: the request's clock runs to the account's deadline (300 ms) less the answer's margin.
      const answered = watched(receiveCallback(services, req));
      await vi.advanceTimersByTimeAsync(c2bRules('accept').deadlineMs - ANSWER_MARGIN_MS);

      // Assess: answered then, without waiting for the store.
      expect(answered.settled()).toBe(true);
      const response = await answered.promise;
      expect(response.statusCode).toBe(200);
      expect(response.body).toEqual(answer);
      expect(
        lines.some(
          (l) => l.level === 'error' && l.message === 'c2b validation answered before it was stored',
        ),
      ).toBe(true);
    },
  );

  it('answers 500 and records no decision when a route asks a question it does not declare', async () => {
    // Prepare
    const { store, services } = setup();
    const validation = darajaProvider.routes.find((r) => r.name === 'c2b-validation')! as { asks?: string };
    const declared = validation.asks;
    validation.asks = undefined;
    const req = request(
      'POST',
      `/v1/daraja/ke/${DARAJA_SECRET}/c2b/validation`,
      fixture('daraja/c2b-validation.json'),
      {
        sourceIp: SAFARICOM_IP,
      },
    );

    // Act
    const response = await receiveCallback(services, req).finally(() => {
      validation.asks = declared;
    });

    // Assess
    expect(response.statusCode).toBe(500);
    expect(typesOf(store)).toEqual(['CallbackRejected']);
    expect(store.quarantined).toHaveLength(1);
  });

  it('refuses a Daraja body from outside the allow-list with 403 and keeps its SecurityCredential out of quarantine', async () => {
    // Prepare
    const { store, lines, services } = setup();
    const body = fixture('daraja/b2c-timeout-echo.json');
    const req = request('POST', `/v1/daraja/ke/${DARAJA_SECRET}/b2c/timeout`, body, {
      sourceIp: '203.0.113.9',
    });

    // Act
    const response = await receiveCallback(services, req);

    // Assess
    expect(response.statusCode).toBe(403);
    expect(store.quarantined).toHaveLength(1);
    const entry = store.quarantined[0]!;
    expect(entry.errorCode).toBe('FORBIDDEN_SOURCE');
    expect(entry.body).toContain(`"SecurityCredential":"${REDACTED}"`);
    const everything = JSON.stringify({
      response,
      quarantined: store.quarantined,
      published: store.published,
      lines,
    });
    expect(everything).not.toContain('REDACT-ME-c2VjcmV0');
    expect(everything).not.toContain(DARAJA_SECRET);
    expect(typesOf(store)).toEqual(['CallbackRejected']);
  });

  it('refuses an Airtel callback with a bad hash with 401 and never shows the key', async () => {
    // Prepare
    const { store, lines, services } = setup();
    const transaction = { id: 'AT-ORDER-8', status_code: 'TS' };
    const body = JSON.stringify({
      transaction,
      hash: hmacB64('wrong-key-0123456789', JSON.stringify({ transaction })),
    });

    // Act
    const response = await receiveCallback(services, request('POST', '/v1/airtel/ug/callback', body));

    // Assess
    expect(response.statusCode).toBe(401);
    expect(store.transactions.size).toBe(0);
    expect(JSON.stringify({ response, store: store.quarantined, lines })).not.toContain(AIRTEL_KEY);
  });
});
