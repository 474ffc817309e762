import { STATUS_API_FACTORIES } from '../../../../shared/providers/status-api-registry';
import { describe, expect, it } from 'vitest';
import { airtelProvider } from '../../../../shared/providers/airtel';
import { createAirtelStatusApi } from '../../../../shared/providers/airtel/api-client';
import { type AirtelAccountSettings, airtelAccountSchema } from '../../../../shared/providers/airtel/schema';
import type { StatusQuery } from '../../../../shared/providers/types';
import { json, type Reply, scriptedFetch, testDeps } from '../outbound-http/support';

const API = { baseUrl: 'https://airtel.test', clientId: 'client-id', clientSecret: 'client-secret' };

function settings(
  api: Record<string, unknown> | null = API,
  extra: Record<string, unknown> = {},
): AirtelAccountSettings {
  return airtelAccountSchema.parse({
    callbackKey: 'k',
    country: 'UG',
    currency: 'UGX',
    ...extra,
    ...(api ? { api } : {}),
  });
}

const query = (kind = 'payment', reference = 'ord 1'): StatusQuery => ({
  kind,
  reference,
  amount: undefined,
  msisdn: undefined,
  externalId: undefined,
  providerTransactionId: undefined,
  attributes: {},
  createdAt: '2026-11-23T10:00:00Z',
  callbackBase: 'https://relay.test/v1/airtel/demo',
});

function client(tokenReplies: Reply[], statusReplies: Reply[], s = settings()) {
  const fake = scriptedFetch([
    { match: (r) => r.url.endsWith('/auth/oauth2/token'), replies: tokenReplies },
    { match: () => true, replies: statusReplies },
  ]);
  const t = testDeps(fake.fetch);
  const c = createAirtelStatusApi(
    { provider: 'airtel', id: 'demo', pathSecret: undefined, settings: s },
    t.deps,
  )!;
  return { c, fake, t };
}

const TOKEN = json(200, { access_token: 'air-tok', expires_in: '180', token_type: 'bearer' });
const TS = json(200, {
  data: { transaction: { id: 'ord 1', status: 'TS', airtel_money_id: 'MP1' } },
  status: { response_code: 'DP00800001001' },
});

describe('Airtel status API client', () => {
  it('is not created without api settings', () => {
    const t = testDeps(scriptedFetch([]).fetch);
    expect(
      STATUS_API_FACTORIES.airtel!(
        { provider: 'airtel', id: 'demo', pathSecret: undefined, settings: settings(null) },
        t.deps,
      ),
    ).toBeUndefined();
  });

  it('gets an OAuth token with a JSON client-credentials body, then GETs the enquiry with X-Country and X-Currency', async () => {
    // Prepare
    const { c, fake } = client([TOKEN], [TS]);

    // Act
    const answer = await c.check(query());

    // Assess
    const [token, enquiry] = fake.requests;
    expect(token).toMatchObject({ method: 'POST', url: 'https://airtel.test/auth/oauth2/token' });
    expect(JSON.parse(token!.body!)).toEqual({
      client_id: 'client-id',
      client_secret: 'client-secret',
      grant_type: 'client_credentials',
    });
    expect(enquiry).toMatchObject({ method: 'GET', url: 'https://airtel.test/standard/v1/payments/ord%201' });
    expect(enquiry!.headers).toMatchObject({
      authorization: 'Bearer air-tok',
      'x-country': 'UG',
      'x-currency': 'UGX',
    });
    expect(answer).toMatchObject({
      type: 'report',
      draft: { status: 'SUCCEEDED', providerTransactionId: 'MP1' },
    });
  });

  it('keeps the "180" string token for its lifetime minus the margin', async () => {
    // Prepare
    const { c, t } = client([TOKEN], [TS]);

    // Act
    await c.check(query());
    t.advance(80_000);
    await c.check(query());
    t.advance(40_000); // 120 s after issue: past 180 s − 60 s
    await c.check(query());

    // Assess
    expect(c.tokenRequests()).toBe(2);
  });

  it('prefers api.country/api.currency over the account values', async () => {
    const { c, fake } = client([TOKEN], [TS], settings({ ...API, country: 'KE', currency: 'KES' }));
    await c.check(query());
    expect(fake.requests.at(-1)!.headers).toMatchObject({ 'x-country': 'KE', 'x-currency': 'KES' });
  });

  it('refreshes the token once on a 401 from the enquiry', async () => {
    // Prepare
    const { c, fake } = client([TOKEN], [json(401, { error: 'invalid_token' }), TS]);

    // Act
    const answer = await c.check(query());

    // Assess
    expect(answer).toMatchObject({ type: 'report', draft: { status: 'SUCCEEDED' } });
    expect(c.tokenRequests()).toBe(2);
    expect(fake.requests).toHaveLength(4);
  });

  it("checks a refund at Airtel's refund enquiry without any api.paths, keyed by the refund's own id", async () => {
    // Prepare
    const { c, fake } = client([TOKEN], [TS]);

    // Act
    const answer = await c.check(query('refund', 'refund 7'));

    // Assess
    expect(answer).toMatchObject({ type: 'report', draft: { kind: 'refund', status: 'SUCCEEDED' } });
    expect(fake.requests.at(-1)).toMatchObject({
      method: 'GET',
      url: 'https://airtel.test/standard/v1/payments/refund/refund%207',
    });
  });

  it('answers unsupported, asking nothing, for refund when api.paths.refund is null (no refund enquiry on this account)', async () => {
    const { c, fake } = client([TOKEN], [TS], settings({ ...API, paths: { refund: null } }));
    expect(await c.check(query('refund'))).toMatchObject({ type: 'error', error: 'unsupported' });
    expect(fake.requests).toHaveLength(0);
  });

  it('answers unsupported for disbursement unless api.paths names its enquiry', async () => {
    const plain = client([TOKEN], [TS]);
    expect(await plain.c.check(query('disbursement'))).toMatchObject({ type: 'error', error: 'unsupported' });
    expect(plain.fake.requests).toHaveLength(0);
    const configured = client(
      [TOKEN],
      [TS],
      settings({ ...API, paths: { disbursement: '/standard/v1/disbursements/{id}' } }),
    );
    expect(await configured.c.check(query('disbursement'))).toMatchObject({
      type: 'report',
      draft: { kind: 'disbursement' },
    });
    expect(configured.fake.requests.at(-1)!.url).toBe(
      'https://airtel.test/standard/v1/disbursements/ord%201',
    );
  });

  it('answers credentials for invalid client credentials, once per cooldown, with one warning', async () => {
    // Prepare
    const { c, fake, t } = client([json(401, { error: 'invalid_client' })], [TS]);

    // Act
    const answers = [await c.check(query()), await c.check(query())];

    // Assess
    expect(answers.map((a) => a.type === 'error' && a.error)).toEqual(['credentials', 'credentials']);
    expect(fake.requests).toHaveLength(1);
    expect(t.warnings).toHaveLength(1);
    expect(JSON.stringify(t.warnings)).not.toContain('client-secret');
  });

  it('requires X-Country and X-Currency from the api settings or the account', () => {
    expect(airtelAccountSchema.safeParse({ callbackKey: 'k', api: API }).success).toBe(false);
    expect(
      airtelAccountSchema.safeParse({ callbackKey: 'k', api: { ...API, country: 'UG', currency: 'UGX' } })
        .success,
    ).toBe(true);
  });

  it('declares the client credentials as secrets', () => {
    expect(airtelProvider.secrets!(settings())).toEqual(['k', 'client-id', 'client-secret']);
  });
});
