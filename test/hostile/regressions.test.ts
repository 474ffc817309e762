/**
 * Regression tests of issue 7: one named test per defect found on main by the hostile-input review.
 * Black-box only: requests over HTTP to the real local relay, events through flush(), quarantine and
 * transactions through the store's listQuarantine / listTransactionItems.
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AIRTEL_KEY,
  airtelHash,
  b2cResultBody,
  c2bBody,
  DARAJA_SECRET,
  deepJson,
  eventData,
  eventsOfReference,
  type EventEnvelope,
  eventType,
  findAudited,
  findQuarantined,
  MARKER_HEADER,
  MOMO_SECRET,
  momoSuccessBody,
  newMarker,
  PASSWORD,
  type RawResponse,
  rawRequest,
  type RelayWithCuttableDynamo,
  rejectionFor,
  SAFARICOM_IP,
  SECURITY_CREDENTIAL,
  secretsIn,
  startHostileRelay,
  startRelayWithCuttableDynamo,
  stkBody,
  STRANGER_IP,
  timeoutEchoBody,
  uuid,
} from '../helpers/hostile';
import { ADMIN_HEADERS, type TestRelay } from '../helpers/relay';

/** Small enough that a 413 is cheap to provoke, large enough for the 10,000-level bodies below. */
const MAX_BODY_BYTES = 100_000;

let relay: TestRelay;

beforeAll(async () => {
  relay = await startHostileRelay({ limits: { maxBodyBytes: MAX_BODY_BYTES } });
});

afterAll(async () => {
  await relay?.stop();
});

interface Sent {
  res: RawResponse;
  marker: string;
}

async function send(
  method: string,
  path: string,
  body?: unknown,
  options: { ip?: string; contentType?: string; auth?: boolean } = {},
): Promise<Sent> {
  const marker = newMarker();
  const headers: [string, string][] = [
    [MARKER_HEADER, marker],
    ['x-forwarded-for', options.ip ?? SAFARICOM_IP],
  ];
  if (body !== undefined) headers.push(['content-type', options.contentType ?? 'application/json']);
  if (options.auth) headers.push(...Object.entries(ADMIN_HEADERS));
  const text = body === undefined || typeof body === 'string' ? body : JSON.stringify(body);
  const res = await rawRequest(relay.url, { method, path, headers, body: text });
  return { res, marker };
}

const describeResponse = (res: RawResponse) => `${res.status} ${res.text.slice(0, 300)}`;

/** A 4xx answer, its quarantine entry and (for a configured account) its CallbackRejected event. */
async function expectRefused(
  sent: Sent,
  options: { event?: boolean; c2bValidation?: boolean } = {},
): Promise<{ quarantined: Record<string, unknown>; events: EventEnvelope[] }> {
  const { res, marker } = sent;
  if (options.c2bValidation && res.status === 200) {
    // Bad input on C2B validation is answered with Daraja's own rejection (README: malformed validation requests).
    expect(res.json, describeResponse(res)).toEqual({ ResultCode: 'C2B00016', ResultDesc: 'Rejected' });
    expect(res.headers['x-relay-error'], 'x-relay-error header').toBeTruthy();
  } else {
    expect(res.status, describeResponse(res)).toBeGreaterThanOrEqual(400);
    expect(res.status, describeResponse(res)).toBeLessThan(500);
  }
  const quarantined = await findQuarantined(relay, marker);
  expect(quarantined, `quarantine entry for ${marker}`).toBeDefined();
  const events = await relay.flush();
  if (options.event !== false) {
    expect(rejectionFor(events, quarantined!), 'CallbackRejected for the quarantine entry').toBeDefined();
  }
  return { quarantined: quarantined!, events };
}

async function register(fields: Record<string, unknown>): Promise<RawResponse> {
  return (await send('POST', '/v1/transactions', fields, { auth: true })).res;
}

async function view(provider: string, account: string, reference: string): Promise<any> {
  const res = (
    await send('GET', `/v1/transactions/${provider}/${account}/${encodeURIComponent(reference)}`, undefined, {
      auth: true,
    })
  ).res;
  expect(res.status, describeResponse(res)).toBe(200);
  return res.json;
}

const longId = (prefix: string) => `${prefix}${'A'.repeat(2100)}`;

describe('deeply nested JSON is refused as bad input, never a 5xx', () => {
  it.each([
    ['an allow-listed', SAFARICOM_IP],
    ['a foreign', STRANGER_IP],
  ])(
    'refuses a Daraja STK callback nested 7,000 levels deep from %s address with a 4xx, quarantined, with CallbackRejected',
    async (_, ip) => {
      const body = `{"Body":{"stkCallback":{"CheckoutRequestID":"ws_CO_deep","ResultCode":0,"Deep":${deepJson(7000, 'object')}}}}`;
      await expectRefused(await send('POST', '/v1/daraja/open/stk', body, { ip }));
    },
  );

  it('refuses a Daraja B2C result carrying 7,000 nested arrays with a 4xx, quarantined, with CallbackRejected', async () => {
    const body = `{"Result":{"OriginatorConversationID":"deep-1","ResultCode":0,"Deep":${deepJson(7000, 'array')}}}`;
    await expectRefused(await send('POST', '/v1/daraja/open/b2c/result', body));
  });

  it.each([
    [7000, 'object'],
    [7000, 'array'],
    [10_000, 'object'],
    [10_000, 'array'],
  ] as const)(
    'refuses an Airtel callback nested %i levels deep (%s) with a wrong hash with a 4xx, quarantined, with CallbackRejected',
    async (depth, kind) => {
      const body = `{"transaction":{"id":"AT-deep","status_code":"TS","extra":${deepJson(depth, kind)}},"hash":"bm90IHRoZSBoYXNoIG9mIHRoaXMgYm9keSBhdCBhbGwhIQ=="}`;
      await expectRefused(await send('POST', '/v1/airtel/demo/callback', body));
    },
  );

  it('answers a captured signed Airtel callback replayed with an unsigned 10,000-level top-level member without a 5xx (stored, or refused 4xx and quarantined)', async () => {
    const ref = `AT-${uuid().slice(0, 12)}`;
    const transaction = { id: ref, message: 'Paid', status_code: 'TS', airtel_money_id: 'MP2' };
    // The hash covers {transaction} only, so a member added beside it keeps the hash valid.
    const body = `{"transaction":${JSON.stringify(transaction)},"extra":${deepJson(10_000, 'object')},"hash":"${airtelHash(transaction)}"}`;
    const sent = await send('POST', '/v1/airtel/demo/callback', body);
    if (sent.res.status === 200) {
      const items = await relay.store.listTransactionItems({
        provider: 'airtel',
        account: 'demo',
        reference: ref,
      });
      expect(
        items.some((i) => String(i.sk).startsWith('RCPT#')),
        'receipt stored',
      ).toBe(true);
    } else {
      await expectRefused(sent);
    }
  });

  it.each([
    ['objects', 'object'],
    ['arrays', 'array'],
  ] as const)(
    'answers a correctly signed Airtel callback carrying 10,000 nested %s without a 5xx (stored, or refused 4xx and quarantined)',
    async (_, kind) => {
      const ref = `AT-${uuid().slice(0, 12)}`;
      // Signed as the default recipe does (HMAC of {transaction}), computed over the exact text sent.
      const signedPart = `{"transaction":{"id":"${ref}","message":"Paid","status_code":"TS","airtel_money_id":"MP1","extra":${deepJson(10_000, kind)}}}`;
      const hash = createHmac('sha256', AIRTEL_KEY).update(signedPart, 'utf8').digest('base64');
      const sent = await send(
        'POST',
        '/v1/airtel/demo/callback',
        `${signedPart.slice(0, -1)},"hash":"${hash}"}`,
      );
      if (sent.res.status === 200) {
        const items = await relay.store.listTransactionItems({
          provider: 'airtel',
          account: 'demo',
          reference: ref,
        });
        expect(
          items.some((i) => String(i.sk).startsWith('RCPT#')),
          'receipt stored',
        ).toBe(true);
      } else {
        await expectRefused(sent);
      }
    },
  );
});

describe('Daraja ids and keys that cannot be stored are refused as bad input, not 503', () => {
  it('refuses an STK callback whose CheckoutRequestID is over 2 KB with a 4xx, quarantined', async () => {
    await expectRefused(await send('POST', '/v1/daraja/open/stk', stkBody(longId('ws_CO_'))));
  });

  it('refuses a C2B confirmation whose TransID is over 2 KB with a 4xx, quarantined', async () => {
    await expectRefused(await send('POST', '/v1/daraja/open/c2b/confirmation', c2bBody(longId('RKT'))));
  });

  it('rejects a C2B validation whose TransID is over 2 KB (C2B00016 or a 4xx), quarantined', async () => {
    await expectRefused(await send('POST', '/v1/daraja/open/c2b/validation', c2bBody(longId('RKT'))), {
      c2bValidation: true,
    });
  });

  it('refuses a B2C result whose OriginatorConversationID is over 2 KB with a 4xx, quarantined', async () => {
    await expectRefused(await send('POST', '/v1/daraja/open/b2c/result', b2cResultBody(longId('10571-'))));
  });

  it('refuses a B2C queue-timeout notice whose OriginatorConversationID is over 2 KB with a 4xx, quarantined', async () => {
    await expectRefused(await send('POST', '/v1/daraja/open/b2c/timeout', timeoutEchoBody(longId('10571-'))));
  });

  it('answers a B2C result with a ResultParameter Key "constructor" without a 5xx (acked and stored, or refused 4xx and quarantined)', async () => {
    const ocid = `10571-${uuid().slice(0, 8)}`;
    expect(
      (await register({ provider: 'daraja', account: 'open', kind: 'b2c', reference: ocid })).status,
    ).toBe(201);
    const sent = await send(
      'POST',
      '/v1/daraja/open/b2c/result',
      b2cResultBody(ocid, [
        { Key: 'TransactionAmount', Value: 10 },
        { Key: 'constructor', Value: 'x' },
        { Key: 'TransactionReceipt', Value: 'NLJ41HAY6Q' },
      ]),
    );
    if (sent.res.status === 200) {
      expect(sent.res.json).toEqual({ ResultCode: 0, ResultDesc: 'Accepted' });
      const items = await relay.store.listTransactionItems({
        provider: 'daraja',
        account: 'open',
        reference: ocid,
      });
      expect(
        items.some((i) => String(i.sk).startsWith('RCPT#')),
        'receipt stored',
      ).toBe(true);
    } else {
      await expectRefused(sent);
    }
  });

  it('answers an STK callback with a CallbackMetadata Item named "constructor" without a 5xx (acked and stored, or refused 4xx and quarantined)', async () => {
    const ref = `ws_CO_${uuid().slice(0, 12)}`;
    const body = stkBody(ref);
    (body.Body.stkCallback.CallbackMetadata!.Item as { Name: string; Value?: unknown }[]).push({
      Name: 'constructor',
      Value: 'x',
    });
    const sent = await send('POST', '/v1/daraja/open/stk', body);
    if (sent.res.status === 200) {
      expect(sent.res.json).toEqual({ ResultCode: 0, ResultDesc: 'Accepted' });
      const items = await relay.store.listTransactionItems({
        provider: 'daraja',
        account: 'open',
        reference: ref,
      });
      expect(
        items.some((i) => String(i.sk).startsWith('RCPT#')),
        'receipt stored',
      ).toBe(true);
    } else {
      await expectRefused(sent);
    }
  });
});

describe('registration metadata that cannot be stored is refused with 400, not 503', () => {
  const registration = (metadata: string) =>
    `{"provider":"momo","account":"open","kind":"requesttopay","reference":"${uuid()}","amount":"100","currency":"EUR","metadata":${metadata}}`;

  it.each([
    ['a "constructor" key', '{"constructor":{"prototype":{"polluted":true}}}'],
    ['a "constructor" key with a string value', '{"constructor":"x"}'],
    ['a "__proto__" key', '{"__proto__":{"polluted":true}}'],
    ['an empty key', '{"":"empty"}'],
    ['more than 32 levels of nesting', deepJson(40, 'object', 'n')],
  ])('refuses registration metadata with %s with 400, recorded in the audit log', async (_, metadata) => {
    const since = new Date().toISOString();
    const sent = await send('POST', '/v1/transactions', registration(metadata), { auth: true });
    expect(sent.res.status, describeResponse(sent.res)).toBe(400);
    expect(sent.res.json?.error?.code, describeResponse(sent.res)).toBeTruthy();
    expect(await findAudited(relay, 'POST', 400, since), 'audit entry').toBeDefined();
  });
});

describe('registration metadata numbers DynamoDB cannot hold are not a 503', () => {
  it.each([
    ['1e300 (beyond the safe integer range)', '1e300'],
    ['-1e300', '-1e300'],
    ['9007199254740993 (an unsafe integer)', '9007199254740993'],
    ['1e309 (Infinity once parsed)', '1e309'],
    ["1e-321 (below DynamoDB's smallest number)", '1e-321'],
  ])(
    'answers registration metadata holding the number %s with 201 (stored) or 400 (refused, audited), never 503',
    async (_, literal) => {
      const since = new Date().toISOString();
      const body = `{"provider":"momo","account":"open","kind":"requesttopay","reference":"${uuid()}","amount":"100","currency":"EUR","metadata":{"n":${literal}}}`;
      const sent = await send('POST', '/v1/transactions', body, { auth: true });
      expect([201, 400], describeResponse(sent.res)).toContain(sent.res.status);
      if (sent.res.status === 400)
        expect(await findAudited(relay, 'POST', 400, since), 'audit entry').toBeDefined();
    },
  );
});

describe('management paths with broken percent-escapes', () => {
  it('answers GET /v1/transactions/momo/demo/%zz without a token with a 4xx (401 or 400), not 500', async () => {
    const since = new Date().toISOString();
    const { res } = await send('GET', '/v1/transactions/momo/demo/%zz');
    expect([400, 401], describeResponse(res)).toContain(res.status);
    expect(await findAudited(relay, 'GET', res.status, since), 'audit entry').toBeDefined();
  });

  it('answers GET /v1/transactions/momo/open/%zz with a valid token with a 4xx (400 or 404), not 500', async () => {
    const { res } = await send('GET', '/v1/transactions/momo/open/%zz', undefined, { auth: true });
    expect([400, 404], describeResponse(res)).toContain(res.status);
  });
});

describe('management and server paths that cannot be looked up are refused as bad input', () => {
  it('answers GET /v1/transactions/momo/open/{a 3,000-character reference} with a 4xx (400 or 404), not 503', async () => {
    const { res } = await send('GET', `/v1/transactions/momo/open/${'a'.repeat(3000)}`, undefined, {
      auth: true,
    });
    expect([400, 404], describeResponse(res)).toContain(res.status);
  });

  it('answers a request for the path "//" with a 4xx and quarantines it, not the local server\'s 500', async () => {
    const { res, marker } = await send('DELETE', '//');
    expect(res.status, describeResponse(res)).toBeGreaterThanOrEqual(400);
    expect(res.status, describeResponse(res)).toBeLessThan(500);
    expect(await findQuarantined(relay, marker), 'quarantine entry').toBeDefined();
  });
});

describe('a success that arrives before its registration is not trusted over the registration', () => {
  it('does not let a Daraja STK success for 1 KES read as SUCCEEDED 1000 KES once the partner registers 1000 KES, and raises AMOUNT_MISMATCH', async () => {
    const ref = `ws_CO_${uuid().replaceAll('-', '').slice(0, 18)}`;
    const callback = await send('POST', '/v1/daraja/open/stk', stkBody(ref, { amount: 1 }));
    expect(callback.res.json, describeResponse(callback.res)).toEqual({
      ResultCode: 0,
      ResultDesc: 'Accepted',
    });
    const registration = await register({
      provider: 'daraja',
      account: 'open',
      kind: 'stk',
      reference: ref,
      amount: '1000',
      currency: 'KES',
    });
    expect(registration.status, describeResponse(registration)).toBeLessThan(500);
    const events = eventsOfReference(await relay.flush(), ref);
    const tx = (await view('daraja', 'open', ref)).transaction;
    const readsPaid1000 = tx.status === 'SUCCEEDED' && tx.amount?.value === '1000';
    expect(readsPaid1000, `transaction reads ${tx.status} ${JSON.stringify(tx.amount)}`).toBe(false);
    const conflicts = events.filter(
      (e) => eventType(e) === 'TransactionConflict' && eventData(e).conflict?.kind === 'AMOUNT_MISMATCH',
    );
    expect(conflicts, `events: ${events.map(eventType).join(', ')}`).toHaveLength(1);
  });

  it('does not let a MoMo SUCCESSFUL for 1 EUR read as SUCCEEDED 1000 EUR once the partner registers 1000 EUR, and raises AMOUNT_MISMATCH', async () => {
    const ref = uuid();
    const callback = await send(
      'PUT',
      `/v1/momo/open/requesttopay/${ref}`,
      momoSuccessBody({ amount: '1', currency: 'EUR' }),
    );
    expect(callback.res.status, describeResponse(callback.res)).toBe(200);
    const registration = await register({
      provider: 'momo',
      account: 'open',
      kind: 'requesttopay',
      reference: ref,
      amount: '1000',
      currency: 'EUR',
    });
    expect(registration.status, describeResponse(registration)).toBeLessThan(500);
    const events = eventsOfReference(await relay.flush(), ref);
    const tx = (await view('momo', 'open', ref)).transaction;
    const readsPaid1000 = tx.status === 'SUCCEEDED' && tx.amount?.value === '1000';
    expect(readsPaid1000, `transaction reads ${tx.status} ${JSON.stringify(tx.amount)}`).toBe(false);
    const conflicts = events.filter(
      (e) => eventType(e) === 'TransactionConflict' && eventData(e).conflict?.kind === 'AMOUNT_MISMATCH',
    );
    expect(conflicts, `events: ${events.map(eventType).join(', ')}`).toHaveLength(1);
  });
});

describe('unsigned parts of a signed Airtel callback do not decide the status', () => {
  it('keeps a genuine signed TA (ambiguous) callback AMBIGUOUS when it is replayed with an added top-level status.result_code DP00800001001', async () => {
    const ref = `AT-${uuid().slice(0, 12)}`;
    expect(
      (
        await register({
          provider: 'airtel',
          account: 'demo',
          kind: 'payment',
          reference: ref,
          amount: '5000',
          currency: 'UGX',
        })
      ).status,
    ).toBe(201);
    const transaction = {
      id: ref,
      message: 'Transaction is ambiguous, please check later',
      status_code: 'TA',
      airtel_money_id: '',
    };
    // The default recipe signs {transaction} only; the hash stays valid whatever is added beside it.
    const hash = airtelHash(transaction, AIRTEL_KEY);
    const genuine = await send('POST', '/v1/airtel/demo/callback', { transaction, hash });
    expect(genuine.res.status, describeResponse(genuine.res)).toBe(200);
    const replay = await send('POST', '/v1/airtel/demo/callback', {
      transaction,
      status: { code: '200', message: 'SUCCESS', result_code: 'DP00800001001', success: true },
      hash,
    });
    expect(replay.res.status, describeResponse(replay.res)).toBeLessThan(500);
    const events = eventsOfReference(await relay.flush(), ref);
    const tx = (await view('airtel', 'demo', ref)).transaction;
    expect(events.map(eventType)).not.toContain('TransactionSucceeded');
    expect(tx.status).toBe('AMBIGUOUS');
  });
});

describe('a MoMo success without an amount is not trusted on its own', () => {
  it('does not publish TransactionSucceeded for a SUCCESSFUL callback with no amount to a transaction registered with one', async () => {
    const ref = uuid();
    expect(
      (
        await register({
          provider: 'momo',
          account: 'open',
          kind: 'requesttopay',
          reference: ref,
          amount: '100',
          currency: 'EUR',
        })
      ).status,
    ).toBe(201);
    const body: Record<string, unknown> = momoSuccessBody();
    delete body.amount;
    delete body.currency;
    const callback = await send('PUT', `/v1/momo/open/requesttopay/${ref}`, body);
    expect(callback.res.status, describeResponse(callback.res)).toBeLessThan(500);
    const events = eventsOfReference(await relay.flush(), ref);
    const tx = (await view('momo', 'open', ref)).transaction;
    expect(events.map(eventType)).not.toContain('TransactionSucceeded');
    expect(tx.status).not.toBe('SUCCEEDED');
  });
});

describe('a path secret is never echoed or stored, whatever follows it', () => {
  it.each([
    ['MoMo, an unknown kind', 'POST', `/v1/momo/guarded/${MOMO_SECRET}/nope/x`, 404],
    [
      'MoMo, the reference-less route without an externalId',
      'POST',
      `/v1/momo/guarded/${MOMO_SECRET}/requesttopay`,
      400,
    ],
    ['MoMo, an extra segment', 'PUT', `/v1/momo/guarded/${MOMO_SECRET}/requesttopay/${uuid()}/extra`, 404],
    ['Daraja, an unknown route', 'POST', `/v1/daraja/guarded/${DARAJA_SECRET}/nope/x`, 404],
    ['Daraja, a route one segment short', 'POST', `/v1/daraja/guarded/${DARAJA_SECRET}/c2b`, 404],
    ['Daraja, a wrong method', 'GET', `/v1/daraja/guarded/${DARAJA_SECRET}/stk`, 405],
  ])(
    'keeps the correct path secret out of the answer, CallbackRejected and quarantine on a wrong route after it (%s)',
    async (_, method, path, status) => {
      const sent = await send(method, path, method === 'GET' ? undefined : { status: 'SUCCESSFUL' });
      expect(sent.res.status, describeResponse(sent.res)).toBe(status);
      const { quarantined, events } = await expectRefused(sent);
      const rejected = rejectionFor(events, quarantined)!;
      expect(secretsIn(sent.res.text), 'secrets in the answer').toEqual([]);
      expect(
        secretsIn(String(eventData(rejected).message)),
        'secrets in CallbackRejected.data.message',
      ).toEqual([]);
      expect(secretsIn(JSON.stringify(rejected)), 'secrets in CallbackRejected').toEqual([]);
      expect(secretsIn(String(quarantined.path)), 'secrets in quarantine path').toEqual([]);
      expect(secretsIn(String(quarantined.message)), 'secrets in quarantine message').toEqual([]);
      expect(secretsIn(JSON.stringify(quarantined)), 'secrets anywhere in the quarantine entry').toEqual([]);
    },
  );

  it('keeps a path secret out of quarantine when it is sent to a misspelt (upper-case) account', async () => {
    const sent = await send(
      'PUT',
      `/v1/momo/GUARDED/${MOMO_SECRET}/requesttopay/${uuid()}`,
      momoSuccessBody(),
    );
    expect(sent.res.status, describeResponse(sent.res)).toBe(404);
    const quarantined = await findQuarantined(relay, sent.marker);
    expect(quarantined, 'quarantine entry').toBeDefined();
    expect(secretsIn(sent.res.text), 'secrets in the answer').toEqual([]);
    expect(secretsIn(JSON.stringify(quarantined)), 'secrets in the quarantine entry').toEqual([]);
  });
});

describe('Daraja credentials in a body refused before the Daraja route runs are not stored', () => {
  const echo = () => timeoutEchoBody(`10571-${uuid().slice(0, 8)}`);
  const withPassword = () => ({ ...echo(), Password: PASSWORD });
  const oversized = () => JSON.stringify({ ...withPassword(), Padding: 'x'.repeat(MAX_BODY_BYTES + 1000) });

  it.each([
    [
      '401 wrong path secret',
      'POST',
      '/v1/daraja/guarded/not-the-path-secret-000/b2c/timeout',
      'application/json',
      () => JSON.stringify(withPassword()),
      401,
    ],
    [
      '401 missing path secret',
      'POST',
      '/v1/daraja/guarded/b2c/timeout',
      'application/json',
      () => JSON.stringify(withPassword()),
      401,
    ],
    [
      '404 unknown route',
      'POST',
      '/v1/daraja/open/b2c/nope',
      'application/json',
      () => JSON.stringify(withPassword()),
      404,
    ],
    [
      '404 unknown account',
      'POST',
      '/v1/daraja/nobody/b2c/timeout',
      'application/json',
      () => JSON.stringify(withPassword()),
      404,
    ],
    [
      '405 GET with a body',
      'GET',
      '/v1/daraja/open/b2c/timeout',
      'application/json',
      () => JSON.stringify(withPassword()),
      405,
    ],
    ['413 over the size limit', 'POST', '/v1/daraja/open/b2c/timeout', 'application/json', oversized, 413],
    [
      '415 text/xml',
      'POST',
      '/v1/daraja/open/b2c/timeout',
      'text/xml',
      () => JSON.stringify(withPassword()),
      415,
    ],
    [
      '400 malformed JSON',
      'POST',
      '/v1/daraja/open/b2c/timeout',
      'application/json',
      () => JSON.stringify(withPassword()).slice(0, -1),
      400,
    ],
    [
      '403 foreign source IP (after the route ran)',
      'POST',
      '/v1/daraja/open/b2c/timeout',
      'application/json',
      () => JSON.stringify(withPassword()),
      403,
    ],
  ] as const)(
    'does not store the SecurityCredential or Password of a request refused with %s',
    async (label, method, path, contentType, body, status) => {
      const sent = await send(method, path, body(), {
        contentType,
        ip: label.startsWith('403') ? STRANGER_IP : SAFARICOM_IP,
      });
      expect(sent.res.status, describeResponse(sent.res)).toBe(status);
      const quarantined = await findQuarantined(relay, sent.marker);
      expect(quarantined, 'quarantine entry').toBeDefined();
      const leaked = secretsIn(JSON.stringify(quarantined), {
        securityCredential: SECURITY_CREDENTIAL,
        password: PASSWORD,
      });
      expect(leaked, 'credentials in the quarantine entry').toEqual([]);
      expect(secretsIn(sent.res.text), 'secrets in the answer').toEqual([]);
    },
  );
});

describe('a malformed-JSON error never copies body text', () => {
  /** Every 6-character window of the body: none may appear in an error message. */
  const windows = (text: string) => Array.from({ length: text.length - 5 }, (_, i) => text.slice(i, i + 6));
  const copied = (message: unknown, body: string) =>
    windows(body).filter((w) => String(message ?? '').includes(w));

  it.each([
    ['MoMo, garbage first', 'PUT', `/v1/momo/open/requesttopay/${uuid()}`, 'QZXJ7731WVUTPLMK{"qzxj":"wvut'],
    ['MoMo, garbage later', 'PUT', `/v1/momo/open/requesttopay/${uuid()}`, '{"qzxjwvut": 77311 plmkrsty}'],
    ['Airtel', 'POST', '/v1/airtel/demo/callback', '{"transaction": QZXJ7731WVUTPLMK}'],
    ['Daraja B2C result', 'POST', '/v1/daraja/open/b2c/result', 'QZXJ7731WVUTPLMK{"Result":'],
    ['Daraja C2B validation', 'POST', '/v1/daraja/open/c2b/validation', 'QZXJ7731WVUTPLMK{"TransID":'],
    ['management registration', 'POST', '/v1/transactions', '{"provider": QZXJ7731WVUTPLMK}'],
  ])(
    'keeps body text out of the error message of a malformed body (%s)',
    async (label, method, path, body) => {
      const since = new Date().toISOString();
      const management = label.startsWith('management');
      const sent = await send(method, path, body, { auth: management });
      const c2b = label.includes('C2B');
      if (c2b) expect(sent.res.status, describeResponse(sent.res)).toBe(200);
      else expect(sent.res.status, describeResponse(sent.res)).toBe(400);
      expect(copied(sent.res.text, body), 'body text in the answer').toEqual([]);
      if (management) {
        // A management refusal is the caller's, recorded in the audit log (issue 30), not the quarantine.
        const audited = await findAudited(relay, method, 400, since);
        expect(audited, 'audit entry').toBeDefined();
        expect(copied(audited!.detail, body), 'body text in the audit entry').toEqual([]);
        return;
      }
      const quarantined = await findQuarantined(relay, sent.marker);
      expect(quarantined, 'quarantine entry').toBeDefined();
      expect(quarantined!.errorCode).toBe('MALFORMED_JSON');
      const events = await relay.flush();
      const rejected = rejectionFor(events, quarantined!);
      expect(copied(sent.res.text, body), 'body text in the answer').toEqual([]);
      expect(copied(quarantined!.message, body), 'body text in the quarantine message').toEqual([]);
      expect(copied(rejected && eventData(rejected).message, body), 'body text in CallbackRejected').toEqual(
        [],
      );
    },
  );
});

describe('health endpoints tell liveness from readiness', () => {
  let own: RelayWithCuttableDynamo;
  const get = (path: string) => rawRequest(own.relay.url, { method: 'GET', path });

  beforeAll(async () => {
    own = await startRelayWithCuttableDynamo();
  }, 90_000);
  afterAll(async () => {
    await own?.stop();
  }, 30_000);

  it('answers /health/live 200 and /health/ready 200 while DynamoDB is reachable', async () => {
    const live = await get('/health/live');
    const ready = await get('/health/ready');
    expect(live.status, describeResponse(live)).toBe(200);
    expect(ready.status, describeResponse(ready)).toBe(200);
  });

  it('answers /health/ready 503 while /health/live still answers 200 when DynamoDB is unreachable', async () => {
    await own.cutDynamo();
    const ready = await get('/health/ready');
    const live = await get('/health/live');
    expect(ready.status, describeResponse(ready)).toBe(503);
    expect(live.status, describeResponse(live)).toBe(200);
  }, 60_000);
});

describe('null members a serializer writes for absent ones are not a reason to refuse a final callback', () => {
  /** Registers a transaction of the hostile relay and answers its read after a callback. */
  async function register(provider: string, account: string, kind: string, reference: string) {
    const res = await relay.admin('POST', '/v1/transactions', {
      provider,
      account,
      kind,
      reference,
      currency: provider === 'momo' ? 'EUR' : 'KES',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
  const read = async (provider: string, account: string, reference: string) =>
    (await relay.admin('GET', `/v1/transactions/${provider}/${account}/${reference}`)).body.transaction;

  it('a MoMo failure whose reason object has a null message fails the payment with its reason', async () => {
    // Prepare: MoMo sends a callback once; a 400 here would lose the only word of this failure.
    const reference = uuid();
    await register('momo', 'open', 'requesttopay', reference);
    const body = momoSuccessBody({
      status: 'FAILED',
      financialTransactionId: null,
      reason: { code: 'PAYER_NOT_FOUND', message: null },
    });

    // Act
    const { res } = await send('PUT', `/v1/momo/open/requesttopay/${reference}`, body);

    // Assess
    expect(res.status, describeResponse(res)).toBe(200);
    expect(await read('momo', 'open', reference)).toMatchObject({
      status: 'FAILED',
      reason: { code: 'PAYER_NOT_FOUND', providerCode: 'PAYER_NOT_FOUND' },
    });
  });

  it('Daraja results with a null ResultParameter, ReferenceItem, Item or MerchantRequestID are applied', async () => {
    // Prepare: a B2C failure and an STK cancellation, each with null where the documentation omits a member.
    const ocid = `29112-${uuid().slice(0, 8)}-1`;
    await register('daraja', 'open', 'b2c', ocid);
    const b2c = b2cResultBody(ocid);
    const payout = {
      Result: {
        ...b2c.Result,
        ResultCode: 2001,
        ResultDesc: 'The initiator information is invalid.',
        ResultParameters: { ResultParameter: null },
        ReferenceData: { ReferenceItem: null },
      },
    };
    const checkout = `ws_CO_${uuid().replace(/-/g, '')}`;
    await register('daraja', 'open', 'stk', checkout);
    const stk = stkBody(checkout, { resultCode: 1032 });
    const prompt = {
      Body: {
        stkCallback: {
          ...stk.Body.stkCallback,
          MerchantRequestID: null,
          CallbackMetadata: { Item: null },
        },
      },
    };

    // Act
    const paidOut = await send('POST', '/v1/daraja/open/b2c/result', payout);
    const prompted = await send('POST', '/v1/daraja/open/stk', prompt);

    // Assess
    expect(paidOut.res.status, describeResponse(paidOut.res)).toBe(200);
    expect(prompted.res.status, describeResponse(prompted.res)).toBe(200);
    expect(await read('daraja', 'open', ocid)).toMatchObject({
      status: 'FAILED',
      reason: { code: 'INVALID_INITIATOR' },
    });
    expect(await read('daraja', 'open', checkout)).toMatchObject({
      status: 'FAILED',
      reason: { code: 'REJECTED_BY_CUSTOMER' },
    });
  });
});

describe('a forged X-Forwarded-For entry under npm start', () => {
  it("refuses a Daraja callback whose X-Forwarded-For names Safaricom's address before the caller's own", async () => {
    // Prepare: the caller (the entry a local proxy appends, last) is a stranger that wrote Safaricom's address first.
    const body = stkBody(`ws_CO_${uuid().replace(/-/g, '')}`);

    // Act
    const sent = await send('POST', '/v1/daraja/open/stk', body, { ip: `${SAFARICOM_IP}, ${STRANGER_IP}` });

    // Assess
    expect(sent.res.status, describeResponse(sent.res)).toBe(403);
    const { quarantined } = await expectRefused(sent);
    expect(JSON.stringify(quarantined)).toContain(STRANGER_IP);
  });
});
