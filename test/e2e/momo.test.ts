import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awaitRecord, findAudited } from '../helpers/hostile';
import { startTestRelay, type TestRelay } from '../helpers/relay';

const fixture = (name: string) => readFileSync(join(import.meta.dirname, '../fixtures/momo', name), 'utf8');
const SECRET = 'e2e-path-secret-0123456789';

let relay: TestRelay;
beforeAll(async () => {
  relay = await startTestRelay({
    limits: { maxBodyBytes: 4096 },
    accounts: { momo: { demo: { currency: 'EUR', confirmSuccess: false }, guarded: { pathSecret: SECRET } } },
  });
});
afterAll(async () => {
  await relay.stop();
});

let n = 0;
const newRef = () => `0b6e7c1a-2d3f-4a5b-8c9d-${String(++n).padStart(12, '0')}`;

async function register(reference: string, account = 'demo', kind = 'requesttopay') {
  const res = await relay.admin('POST', '/v1/transactions', {
    provider: 'momo',
    account,
    kind,
    reference,
    amount: '100',
    currency: 'EUR',
    externalId: 'order-8841',
  });
  expect(res.status).toBe(201);
  return res.body as { callbackUrl: string };
}

function pathOf(url: string): string {
  return new URL(url).pathname;
}

async function quarantinedToday() {
  return relay.store.listQuarantine(new Date().toISOString().slice(0, 10), 200);
}

describe('MoMo end to end through the local HTTP server', () => {
  it('registers, receives the callback, publishes one TransactionSucceeded and shows the history', async () => {
    // Prepare
    const ref = newRef();
    const { callbackUrl } = await register(ref);
    expect(callbackUrl).toMatch(new RegExp(`/v1/momo/demo/requesttopay/${ref}$`));
    // Act
    const first = await relay.request('PUT', pathOf(callbackUrl), fixture('requesttopay-successful.json'));
    const repeat = await relay.request('PUT', pathOf(callbackUrl), fixture('requesttopay-successful.json'));
    const events = (await relay.flush()).filter((e) => (e.data as { reference?: string }).reference === ref);
    const view = await relay.admin('GET', `/v1/transactions/momo/demo/${ref}`);
    // Assess
    expect(first.status).toBe(200);
    expect(repeat.status).toBe(200);
    expect(events.map((e) => e.metadata.type)).toEqual(['TransactionSucceeded']);
    expect(events[0]!.data).toMatchObject({
      status: 'SUCCEEDED',
      providerTransactionId: '363440463',
      amount: { value: '100', currency: 'EUR' },
    });
    expect(view.status).toBe(200);
    expect(view.body.transaction.status).toBe('SUCCEEDED');
    expect(view.body.history.map((h: { type: string }) => h.type)).toEqual([
      'registered',
      'callback',
      'transition',
      'event',
    ]);
    expect(view.body.history[1]).toMatchObject({ deliveries: 2, method: 'PUT' });
  });

  it('accepts the callback as POST as well as PUT', async () => {
    const ref = newRef();
    const { callbackUrl } = await register(ref);
    const res = await relay.request(
      'POST',
      pathOf(callbackUrl),
      fixture('requesttopay-failed-object-reason.json'),
    );
    expect(res.status).toBe(200);
    const events = (await relay.flush()).filter((e) => (e.data as { reference?: string }).reference === ref);
    expect(events.map((e) => e.metadata.type)).toEqual(['TransactionFailed']);
    expect(events[0]!.data).toMatchObject({
      reason: { code: 'REJECTED_BY_CUSTOMER', providerCode: 'APPROVAL_REJECTED' },
    });
  });

  it('answers an identical registration with 200 and a different one with 409', async () => {
    const ref = newRef();
    await register(ref);
    const same = await relay.admin('POST', '/v1/transactions', {
      provider: 'momo',
      account: 'demo',
      kind: 'requesttopay',
      reference: ref,
      amount: '100',
      currency: 'EUR',
      externalId: 'order-8841',
    });
    const different = await relay.admin('POST', '/v1/transactions', {
      provider: 'momo',
      account: 'demo',
      kind: 'requesttopay',
      reference: ref,
      amount: '999',
      currency: 'EUR',
    });
    expect(same.status).toBe(200);
    expect(different.status).toBe(409);
    expect(different.body.error.code).toBe('REGISTRATION_CONFLICT');
  });

  it('puts the path secret in the callback URL and refuses callbacks without it', async () => {
    const ref = newRef();
    const { callbackUrl } = await register(ref, 'guarded');
    expect(callbackUrl).toContain(`/v1/momo/guarded/${SECRET}/requesttopay/${ref}`);
    const without = await relay.request(
      'PUT',
      `/v1/momo/guarded/requesttopay/${ref}`,
      fixture('requesttopay-successful.json'),
    );
    const wrong = await relay.request(
      'PUT',
      `/v1/momo/guarded/not-the-secret-000000/requesttopay/${ref}`,
      fixture('requesttopay-successful.json'),
    );
    const right = await relay.request('PUT', pathOf(callbackUrl), fixture('requesttopay-successful.json'));
    expect([without.status, wrong.status, right.status]).toEqual([401, 401, 200]);
    // A provider cannot answer an auth challenge; only the bearer-token API sends one.
    expect(without.headers.get('www-authenticate')).toBeNull();
    const events = await relay.flush();
    expect(
      events.filter(
        (e) =>
          e.metadata.type === 'CallbackRejected' && (e.data as { account: string }).account === 'guarded',
      ),
    ).toHaveLength(2);
    // The stored receipt never contains the secret itself.
    const view = await relay.admin('GET', `/v1/transactions/momo/guarded/${ref}`);
    expect(JSON.stringify(view.body)).not.toContain(SECRET);
  });

  describe('bad input gets a clear 4xx, is quarantined, and never a 5xx', () => {
    const ref = '11111111-2222-4333-8444-555555555555';
    const cases: {
      name: string;
      method: string;
      path: string;
      body?: string;
      headers?: Record<string, string>;
      status: number;
      code: string;
    }[] = [
      {
        name: 'malformed JSON',
        method: 'PUT',
        path: `/v1/momo/demo/requesttopay/${ref}`,
        body: '{"status":',
        status: 400,
        code: 'MALFORMED_JSON',
      },
      {
        name: 'a JSON array',
        method: 'PUT',
        path: `/v1/momo/demo/requesttopay/${ref}`,
        body: '[1,2]',
        status: 400,
        code: 'SCHEMA_VALIDATION_FAILED',
      },
      {
        name: 'a body without status',
        method: 'PUT',
        path: `/v1/momo/demo/requesttopay/${ref}`,
        body: '{"amount":"1"}',
        status: 400,
        code: 'SCHEMA_VALIDATION_FAILED',
      },
      {
        name: 'a wrong content type',
        method: 'PUT',
        path: `/v1/momo/demo/requesttopay/${ref}`,
        body: 'status=SUCCESSFUL',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        status: 415,
        code: 'UNSUPPORTED_MEDIA_TYPE',
      },
      {
        name: 'a body over the limit',
        method: 'PUT',
        path: `/v1/momo/demo/requesttopay/${ref}`,
        body: JSON.stringify({ status: 'SUCCESSFUL', pad: 'x'.repeat(5000) }),
        status: 413,
        code: 'PAYLOAD_TOO_LARGE',
      },
      {
        name: 'an unknown account',
        method: 'PUT',
        path: `/v1/momo/nobody/requesttopay/${ref}`,
        body: '{"status":"SUCCESSFUL"}',
        status: 404,
        code: 'UNKNOWN_ACCOUNT',
      },
      {
        name: 'an unknown kind',
        method: 'PUT',
        path: `/v1/momo/demo/teleport/${ref}`,
        body: '{"status":"SUCCESSFUL"}',
        status: 404,
        code: 'UNKNOWN_KIND',
      },
      {
        name: 'a reference that is not a UUID',
        method: 'PUT',
        path: '/v1/momo/demo/requesttopay/order-1',
        body: '{"status":"SUCCESSFUL"}',
        status: 400,
        code: 'INVALID_REFERENCE',
      },
      {
        name: 'a wrong method',
        method: 'GET',
        path: `/v1/momo/demo/requesttopay/${ref}`,
        status: 405,
        code: 'METHOD_NOT_ALLOWED',
      },
      {
        name: 'an unknown route',
        method: 'POST',
        path: '/wp-login.php',
        body: '{}',
        status: 404,
        code: 'ROUTE_NOT_FOUND',
      },
      {
        name: 'an unknown provider',
        method: 'POST',
        path: '/v1/paypal/demo/callback',
        body: '{}',
        status: 404,
        code: 'ROUTE_NOT_FOUND',
      },
      {
        name: 'a registration without bearer token',
        method: 'POST',
        path: '/v1/transactions',
        body: '{}',
        status: 401,
        code: 'UNAUTHORIZED',
      },
      {
        name: 'a registration with a wrong bearer token',
        method: 'POST',
        path: '/v1/transactions',
        body: '{}',
        headers: { authorization: 'Bearer nope-nope-nope' },
        status: 401,
        code: 'UNAUTHORIZED',
      },
    ];

    it.each(cases)('$name → $status $code', async ({ method, path, body, headers, status, code }) => {
      const marker = `marker-${Math.random().toString(36).slice(2)}`;
      const since = new Date().toISOString();
      const res = await relay.request(method, path, body, { 'x-test-marker': marker, ...(headers ?? {}) });
      expect(res.status).toBe(status);
      expect(res.body.error.code).toBe(code);
      expect(res.body.error.message).toEqual(expect.any(String));
      if (path === '/v1/transactions') {
        // A management refusal is the caller's: the audit log has it, the callback quarantine does not (issue 30).
        expect(await findAudited(relay, method, status, since)).toMatchObject({ outcome: 'refused' });
        expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
        return;
      }
      // A refusal waits at most 1 s for its quarantine write: on a loaded machine it lands after the answer.
      const recorded = await awaitRecord(async () =>
        (await quarantinedToday()).find(
          (q) => (q.headers as Record<string, string>)['x-test-marker'] === marker,
        ),
      );
      expect(recorded).toMatchObject({ errorCode: code, httpStatus: status, method });
      if (body && code !== 'PAYLOAD_TOO_LARGE') expect(recorded?.body).toBe(body);
      if (path === '/v1/transactions' && status === 401)
        expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    });

    it('answers registrations with invalid fields with 400 naming them', async () => {
      const res = await relay.admin('POST', '/v1/transactions', {
        provider: 'momo',
        account: 'demo',
        kind: 'requesttopay',
        reference: 'not-a-uuid',
      });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('INVALID_REFERENCE');
      const missing = await relay.admin('POST', '/v1/transactions', { provider: 'momo', amount: -3 });
      expect(missing.status).toBe(400);
      expect(JSON.stringify(missing.body.error.issues)).toContain('account');
    });

    it('raises CallbackRejected for rejections on a configured account, not for scanners', async () => {
      const events = await relay.flush();
      const rejected = events.filter((e) => e.metadata.type === 'CallbackRejected');
      const codes = rejected.map((e) => (e.data as { errorCode: string }).errorCode);
      expect(codes).toEqual(
        expect.arrayContaining(['MALFORMED_JSON', 'UNKNOWN_KIND', 'INVALID_REFERENCE', 'PAYLOAD_TOO_LARGE']),
      );
      expect(codes).not.toContain('ROUTE_NOT_FOUND');
      expect(codes).not.toContain('UNKNOWN_ACCOUNT');
    });
  });

  it('answers a lookup of an unknown transaction with 404 without quarantining it', async () => {
    const ref = newRef();
    const res = await relay.admin('GET', `/v1/transactions/momo/demo/${ref}`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('TRANSACTION_NOT_FOUND');
    // No entry names it (a count before and after would also move with an earlier refusal's late write).
    expect((await quarantinedToday()).filter((q) => JSON.stringify(q).includes(ref))).toEqual([]);
  });

  it('opens the history of an orphan with its first sighting', async () => {
    const ref = newRef();
    await relay.request('PUT', `/v1/momo/demo/requesttopay/${ref}`, fixture('requesttopay-successful.json'));
    const view = await relay.admin('GET', `/v1/transactions/momo/demo/${ref}`);
    expect(view.body.history[0].type).toBe('first-seen');
  });

  it('answers GET /health', async () => {
    const res = await relay.request('GET', '/health');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('ok');
  });
});
