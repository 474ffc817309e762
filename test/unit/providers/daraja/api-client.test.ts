import { readFileSync } from 'node:fs';
import { STATUS_API_FACTORIES } from '../../../../shared/providers/status-api-registry';
import { describe, expect, it } from 'vitest';
import { darajaProvider } from '../../../../shared/providers/daraja';
import { createDarajaStatusApi, statusQueryTarget } from '../../../../shared/providers/daraja/api-client';
import { statusQueryOccasion } from '../../../../shared/providers/daraja/correlation';
import { type DarajaAccountSettings, darajaAccountSchema } from '../../../../shared/providers/daraja/schema';
import type { StatusQuery } from '../../../../shared/providers/types';
import { json, type Reply, scriptedFetch, testDeps } from '../outbound-http/support';

const API = {
  baseUrl: 'https://daraja.test',
  consumerKey: 'ck',
  consumerSecret: 'cs',
  passkey: 'the-passkey',
  stkShortCode: '174379',
  initiator: 'apiop',
  securityCredential: 'ENCRYPTED==',
};

function settings(api: Record<string, unknown> | null = API): DarajaAccountSettings {
  return darajaAccountSchema.parse({ shortCode: '600638', ...(api ? { api } : {}) });
}

function query(kind: string, overrides: Partial<StatusQuery> = {}): StatusQuery {
  return {
    kind,
    reference: kind === 'stk' ? 'ws_CO_191220191020363925' : '10571-7910404-1',
    amount: undefined,
    msisdn: undefined,
    externalId: undefined,
    providerTransactionId: undefined,
    attributes: {},
    trusted: { providerTransactionId: undefined, attributes: {} },
    createdAt: '2026-11-23T10:00:00Z',
    callbackBase: 'https://relay.test/v1/daraja/demo/s3cr3t-path-secret',
    ...overrides,
  };
}

const TOKEN = json(200, { access_token: 'dar-tok', expires_in: '3599' });

function client(replies: Reply[], api: Record<string, unknown> | null = API) {
  const fake = scriptedFetch([
    { match: (r) => r.url.includes('/oauth/v1/generate'), replies: [TOKEN] },
    { match: () => true, replies },
  ]);
  const t = testDeps(fake.fetch, Date.parse('2026-11-23T10:00:00Z'));
  const c = createDarajaStatusApi(
    { provider: 'daraja', id: 'demo', pathSecret: undefined, settings: settings(api) },
    t.deps,
  )!;
  const calls = () => fake.requests.filter((r) => !r.url.includes('/oauth/'));
  return { c, fake, t, calls };
}

describe('Daraja status API client', () => {
  it('is not created without api settings', () => {
    const t = testDeps(scriptedFetch([]).fetch);
    expect(
      STATUS_API_FACTORIES.daraja!(
        { provider: 'daraja', id: 'demo', pathSecret: undefined, settings: settings(null) },
        t.deps,
      ),
    ).toBeUndefined();
  });

  it('gets its token with a GET and Basic consumerKey:consumerSecret', async () => {
    const { c, fake } = client([json(200, { ResultCode: '0' })]);
    await c.check(query('stk'));
    expect(fake.requests[0]).toMatchObject({
      method: 'GET',
      url: 'https://daraja.test/oauth/v1/generate?grant_type=client_credentials',
    });
    expect(fake.requests[0]!.headers.authorization).toBe(`Basic ${Buffer.from('ck:cs').toString('base64')}`);
  });

  it('queries an STK push with the short code, its password and an EAT timestamp', async () => {
    // Prepare
    const { c, calls } = client([
      json(200, { ResponseCode: '0', ResultCode: '1032', ResultDesc: 'Request cancelled by user' }),
    ]);

    // Act
    const answer = await c.check(query('stk'));

    // Assess
    const [call] = calls();
    expect(call!.url).toBe('https://daraja.test/mpesa/stkpushquery/v1/query');
    expect(call!.headers.authorization).toBe('Bearer dar-tok');
    expect(JSON.parse(call!.body!)).toEqual({
      BusinessShortCode: '174379',
      Password: Buffer.from('174379the-passkey20261123130000').toString('base64'),
      Timestamp: '20261123130000',
      CheckoutRequestID: 'ws_CO_191220191020363925',
    });
    expect(answer).toMatchObject({
      type: 'report',
      draft: { status: 'FAILED', reason: { code: 'REJECTED_BY_CUSTOMER' } },
    });
  });

  it('uses the neutral /wallet prefix when configured', async () => {
    const { c, calls } = client([json(200, { ResultCode: '0' })], { ...API, pathPrefix: '/wallet' });
    await c.check(query('stk'));
    expect(calls()[0]!.url).toBe('https://daraja.test/wallet/stkpushquery/v1/query');
  });

  it('sends a transaction status query with the ResultURL and QueueTimeOutURL under the callback base and answers requested', async () => {
    // Prepare
    const { c, calls } = client([
      json(200, {
        OriginatorConversationID: '5118-111210482-1',
        ConversationID: 'AG_20231123_0000',
        ResponseCode: '0',
      }),
    ]);

    // Act
    const answer = await c.check(query('b2c'));

    // Assess
    const [call] = calls();
    expect(call!.url).toBe('https://daraja.test/mpesa/transactionstatus/v1/query');
    expect(JSON.parse(call!.body!)).toEqual({
      Initiator: 'apiop',
      SecurityCredential: 'ENCRYPTED==',
      CommandID: 'TransactionStatusQuery',
      OriginatorConversationID: '10571-7910404-1',
      PartyA: '600638',
      IdentifierType: '4',
      ResultURL: 'https://relay.test/v1/daraja/demo/s3cr3t-path-secret/status/result',
      QueueTimeOutURL: 'https://relay.test/v1/daraja/demo/s3cr3t-path-secret/status/timeout',
      Remarks: 'Relay status check',
      Occasion: statusQueryOccasion({
        secret: 'cs',
        account: 'demo',
        kind: 'b2c',
        reference: '10571-7910404-1',
      }),
    });
    expect(JSON.parse(call!.body!).Occasion).toMatch(/^rq1\.b2c\.[\w-]{16}\.10571-7910404-1$/);
    expect(answer).toMatchObject({
      type: 'requested',
      alias: { namespace: 'StatusQuery', id: 'AG_20231123_0000' },
    });
  });

  it('asks about a trusted receipt when one is known, and about the TransID of a C2B payment', () => {
    const trusted = (t: Partial<StatusQuery['trusted']>) => ({
      trusted: { providerTransactionId: undefined, attributes: {}, ...t },
    });
    expect(statusQueryTarget(query('b2c', trusted({ providerTransactionId: 'NLJ41HAY6Q' })))).toEqual({
      TransactionID: 'NLJ41HAY6Q',
    });
    expect(
      statusQueryTarget(query('b2c', trusted({ attributes: { TransactionReceipt: 'NLJ41HAY6Q' } }))),
    ).toEqual({ TransactionID: 'NLJ41HAY6Q' });
    expect(statusQueryTarget(query('b2c', trusted({ attributes: { TransactionID: 'NLJ0000000' } })))).toEqual(
      { OriginatorConversationID: '10571-7910404-1' },
    );
    expect(statusQueryTarget(query('c2b', { reference: 'NLJ7RT61SV' }))).toEqual({
      TransactionID: 'NLJ7RT61SV',
    });
  });

  it('never builds a query on ids only an unauthenticated report supplied (a forged result or timeout echo)', () => {
    // A forged b2c/result named another payout's receipt; a forged queue-timeout echo carried a TransactionID.
    const forged = query('b2c', {
      providerTransactionId: 'OTHERPAY01',
      attributes: { TransactionReceipt: 'OTHERPAY01', TransactionID: 'OTHERPAY02' },
    });
    expect(statusQueryTarget(forged)).toEqual({ OriginatorConversationID: '10571-7910404-1' });
    // A poller that does not fill `trusted` yet trusts nothing.
    const { trusted: _unset, ...withoutTrusted } = forged;
    expect(statusQueryTarget(withoutTrusted as StatusQuery)).toEqual({
      OriginatorConversationID: '10571-7910404-1',
    });
    expect(statusQueryTarget(query('c2b', { reference: 'NLJ7RT61SV', providerTransactionId: 'X1' }))).toEqual(
      { TransactionID: 'NLJ7RT61SV' },
    );
  });

  it('refreshes the token once when the platform answers 400.003.01', async () => {
    // Prepare
    const { c, calls } = client([
      json(401, { errorCode: '400.003.01', errorMessage: 'Invalid Access Token' }),
      json(200, { ResultCode: '0' }),
    ]);

    // Act
    const answer = await c.check(query('stk'));

    // Assess
    expect(answer).toMatchObject({ type: 'report', draft: { status: 'SUCCEEDED' } });
    expect(c.tokenRequests()).toBe(2);
    expect(calls()).toHaveLength(2);
  });

  it('refreshes the token once on 404.001.03 "Invalid Access Token" (HTTP 404), and refuses a fresh token refused again', async () => {
    // Prepare: Daraja's answer to a token it does not accept, as integrators record it.
    const invalidToken = JSON.parse(
      readFileSync(
        new URL('../../../fixtures/daraja/integrators/error-invalid-access-token.json', import.meta.url),
        'utf8',
      ),
    ) as Record<string, unknown>;
    const renewed = client([json(404, invalidToken), json(200, { ResultCode: '0' })]);
    const refused = client([json(404, invalidToken), json(404, invalidToken)]);

    // Act
    const answers = [await renewed.c.check(query('stk')), await refused.c.check(query('stk'))];

    // Assess: never a "pending" answer that hides a token Daraja refuses.
    expect(answers[0]).toMatchObject({ type: 'report', draft: { status: 'SUCCEEDED' } });
    expect(renewed.c.tokenRequests()).toBe(2);
    expect(answers[1]).toMatchObject({ type: 'error', error: 'rejected' });
    expect(refused.calls()).toHaveLength(2);
  });

  it('holds the account on "Wrong credentials" (500.001.1001) without retrying it', async () => {
    const { c, calls, t } = client([
      json(500, { errorCode: '500.001.1001', errorMessage: 'Wrong credentials' }),
    ]);
    expect(await c.check(query('stk'))).toMatchObject({ type: 'error', error: 'credentials' });
    expect(await c.check(query('stk'))).toMatchObject({ type: 'error', error: 'credentials' });
    expect(calls()).toHaveLength(1);
    expect(t.warnings).toHaveLength(1);
  });

  it('spends at most stkQueriesPerMinute STK queries and answers throttled, without calling, beyond them', async () => {
    // Prepare
    const { c, calls } = client([json(200, { ResultCode: '0' })], { ...API, stkQueriesPerMinute: 2 });

    // Act
    const answers = [await c.check(query('stk')), await c.check(query('stk')), await c.check(query('stk'))];

    // Assess
    expect(calls()).toHaveLength(2);
    expect(answers[2]).toMatchObject({ type: 'error', error: 'throttled', retryAfterMs: 30_000 });
  });

  it('answers unsupported for STK without a passkey and for B2C without an initiator', async () => {
    const noPasskey = client([json(200, {})], { ...API, passkey: undefined });
    const noInitiator = client([json(200, {})], { ...API, initiator: undefined });
    expect(await noPasskey.c.check(query('stk'))).toMatchObject({ error: 'unsupported' });
    expect(await noInitiator.c.check(query('b2c'))).toMatchObject({ error: 'unsupported' });
    expect(noPasskey.fake.requests).toHaveLength(0);
  });

  it('declares the consumer key and secret, passkey, initiator and security credential as secrets', () => {
    expect(darajaProvider.secrets!(settings())).toEqual(
      expect.arrayContaining(['ck', 'cs', 'the-passkey', 'apiop', 'ENCRYPTED==']),
    );
    expect(darajaProvider.statusKinds).toEqual(['stk', 'b2c', 'b2b', 'c2b']);
  });
});

describe('Daraja pull client', () => {
  const PULL_API = { ...API, timeoutMs: 100, pull: { nominatedNumber: '254708374149' } };
  const WINDOW = { from: '2026-11-23T08:00:00Z', to: '2026-11-23T10:00:00Z', offset: 0 };
  const NOTHING = json(200, { ResponseCode: '1001', ResponseMessage: 'No transactions', Response: [[]] });

  it('asks a timed-out query again, at most twice more: a pull is a read the poller waits for', async () => {
    // Prepare: the first two queries never answer (100 ms each), the third says "no transactions".
    const late = client([{ hang: true }, { hang: true }, NOTHING], PULL_API);
    const never = client([{ hang: true }], PULL_API);

    // Act
    const answered = await late.c.pull!.query(WINDOW);
    const given = await never.c.pull!.query(WINDOW);

    // Assess
    expect(answered).toEqual({ type: 'empty', detail: 'No transactions' });
    expect(late.calls()).toHaveLength(3);
    expect(given).toMatchObject({ type: 'error', error: 'timeout' });
    expect(never.calls()).toHaveLength(3);
  });

  it('asks a timed-out registration again; a failure that is no time-out is not repeated', async () => {
    // Prepare
    const late = client(
      [{ hang: true }, json(200, { ResponseCode: '1001', ResponseDescription: 'exists' })],
      PULL_API,
    );
    const refused = client(
      [json(200, { ResponseCode: '1002', ResponseDescription: 'invalid' }), NOTHING],
      PULL_API,
    );

    // Act
    const registered = await late.c.pull!.register('https://relay.test/v1/daraja/demo/pull/callback');
    const failed = await refused.c.pull!.register('https://relay.test/v1/daraja/demo/pull/callback');

    // Assess
    expect(registered.type).not.toBe('error');
    expect(late.calls()).toHaveLength(2);
    expect(failed).toMatchObject({ type: 'error' });
    expect(refused.calls()).toHaveLength(1);
  });
});
