import { STATUS_API_FACTORIES } from '../../../../shared/providers/status-api-registry';
import { describe, expect, it } from 'vitest';
import { momoProvider } from '../../../../shared/providers/momo';
import { createMomoStatusApi } from '../../../../shared/providers/momo/api-client';
import { type MomoAccountSettings, momoAccountSchema } from '../../../../shared/providers/momo/schema';
import type { StatusQuery } from '../../../../shared/providers/types';
import { json, type Reply, scriptedFetch, testDeps } from '../outbound-http/support';

const REF = '5DA24CDC-1453-4031-85E5-90C7E9101B42';
const API = {
  baseUrl: 'https://momo.test/',
  apiUser: '4f6c1a2b-8d3e-4c5f-9a7b-1e2d3c4b5a69',
  apiKey: 'the-api-key',
  collectionSubscriptionKey: 'collection-key',
  disbursementSubscriptionKey: 'disbursement-key',
};

function settings(api: Record<string, unknown> | null = API): MomoAccountSettings {
  return momoAccountSchema.parse({
    targetEnvironment: 'mtnuganda',
    currency: 'UGX',
    ...(api ? { api } : {}),
  });
}

function query(kind: string, reference = REF): StatusQuery {
  return {
    kind,
    reference,
    amount: undefined,
    msisdn: undefined,
    externalId: undefined,
    providerTransactionId: undefined,
    attributes: {},
    createdAt: '2026-11-23T10:00:00Z',
    callbackBase: 'https://relay.test/v1/momo/demo',
  };
}

function client(statusReplies: Reply[], api: Record<string, unknown> = API) {
  const fake = scriptedFetch([
    {
      match: (r) => r.url.endsWith('/token/'),
      replies: [json(200, { access_token: 'tok', expires_in: 3600 })],
    },
    { match: () => true, replies: statusReplies },
  ]);
  const t = testDeps(fake.fetch);
  const c = createMomoStatusApi(
    { provider: 'momo', id: 'demo', pathSecret: undefined, settings: settings(api) },
    t.deps,
  )!;
  return { c, fake, t };
}

describe('MoMo status API client', () => {
  it('is not created for an account without api settings', () => {
    const t = testDeps(scriptedFetch([]).fetch);
    expect(
      STATUS_API_FACTORIES.momo!(
        { provider: 'momo', id: 'demo', pathSecret: undefined, settings: settings(null) },
        t.deps,
      ),
    ).toBeUndefined();
  });

  it('asks for a Collection token with Basic apiUser:apiKey and the collection key, then GETs the status', async () => {
    // Prepare
    const { c, fake } = client([json(200, { status: 'SUCCESSFUL', amount: '100', currency: 'UGX' })]);

    // Act
    const answer = await c.check(query('requesttopay'));

    // Assess
    const [token, status] = fake.requests;
    expect(token).toMatchObject({
      method: 'POST',
      url: 'https://momo.test/collection/token/',
      body: undefined,
    });
    expect(token!.headers.authorization).toBe(
      `Basic ${Buffer.from(`${API.apiUser}:${API.apiKey}`).toString('base64')}`,
    );
    expect(token!.headers['ocp-apim-subscription-key']).toBe('collection-key');
    expect(status).toMatchObject({
      method: 'GET',
      url: `https://momo.test/collection/v1_0/requesttopay/${REF.toLowerCase()}`,
    });
    expect(status!.headers).toMatchObject({
      authorization: 'Bearer tok',
      'x-target-environment': 'mtnuganda',
      'ocp-apim-subscription-key': 'collection-key',
    });
    expect(answer).toMatchObject({
      type: 'report',
      draft: { status: 'SUCCEEDED', amount: { value: '100' } },
    });
  });

  it.each([
    ['requesttowithdraw', '/collection/v1_0/requesttowithdraw/'],
    ['invoice', '/collection/v2_0/invoice/'],
    ['payment', '/collection/v2_0/payment/'],
    ['preapproval', '/collection/v2_0/preapproval/'],
    ['transfer', '/disbursement/v1_0/transfer/'],
    ['deposit', '/disbursement/v1_0/deposit/'],
  ])('reads the status of a %s at %s{ref}', async (kind, path) => {
    const { c, fake } = client([json(200, { status: 'PENDING' })]);
    await c.check(query(kind));
    expect(fake.requests.at(-1)!.url).toBe(`https://momo.test${path}${REF.toLowerCase()}`);
  });

  it('uses the Disbursement token and key for disbursement kinds, apart from the Collection token', async () => {
    // Prepare
    const { c, fake } = client([json(200, { status: 'PENDING' })]);

    // Act
    await c.check(query('requesttopay'));
    await c.check(query('transfer'));
    await c.check(query('deposit'));

    // Assess
    const tokens = fake.requests.filter((r) => r.url.endsWith('/token/'));
    expect(tokens.map((r) => r.url)).toEqual([
      'https://momo.test/collection/token/',
      'https://momo.test/disbursement/token/',
    ]);
    expect(tokens[1]!.headers['ocp-apim-subscription-key']).toBe('disbursement-key');
    expect(fake.requests.at(-1)!.headers['ocp-apim-subscription-key']).toBe('disbursement-key');
    expect(c.tokenRequests('collection')).toBe(1);
    expect(c.tokenRequests('disbursement')).toBe(1);
  });

  it("checks refunds at MTN's path with the Disbursement token, and cash transfers only where api.paths says", async () => {
    // Prepare
    const plain = client([json(200, { status: 'SUCCESSFUL' })]);
    const configured = client([json(200, { status: 'SUCCESSFUL' })], {
      ...API,
      remittanceSubscriptionKey: 'remittance-key',
      paths: {
        refund: '/disbursement/v2_0/refund/{ref}',
        cashtransfer: '/remittance/v2_0/cashtransfer/{ref}',
      },
    });

    // Act
    const refund = await plain.c.check(query('refund'));
    const cash = await plain.c.check(query('cashtransfer'));
    const configuredRefund = await configured.c.check(query('refund'));
    const configuredCash = await configured.c.check(query('cashtransfer'));

    // Assess
    expect(refund).toMatchObject({ type: 'report', draft: { status: 'SUCCEEDED', kind: 'refund' } });
    expect(cash).toMatchObject({ type: 'error', error: 'unsupported' });
    const gets = plain.fake.requests.filter((r) => !r.url.endsWith('/token/'));
    expect(gets.map((r) => r.url)).toEqual([
      `https://momo.test/disbursement/v1_0/refund/${REF.toLowerCase()}`,
    ]);
    expect(configuredCash).toMatchObject({ type: 'report', draft: { kind: 'cashtransfer' } });
    expect(configured.fake.requests.map((r) => r.url)).toContain(
      `https://momo.test/remittance/v2_0/cashtransfer/${REF.toLowerCase()}`,
    );
    expect(gets.every((r) => r.headers['ocp-apim-subscription-key'] === 'disbursement-key')).toBe(true);
    expect(configuredRefund).toMatchObject({ type: 'report', draft: { status: 'SUCCEEDED' } });
    expect(configured.fake.requests.map((r) => r.url)).toContain(
      `https://momo.test/disbursement/v2_0/refund/${REF.toLowerCase()}`,
    );
  });

  it('checks a remittance transfer with the Remittance token and key when api.paths points under /remittance/', async () => {
    // Prepare
    const { c, fake } = client([json(200, { status: 'SUCCESSFUL' })], {
      ...API,
      remittanceSubscriptionKey: 'remittance-key',
      paths: { transfer: '/remittance/v1_0/transfer/{ref}' },
    });

    // Act
    const answer = await c.check(query('transfer'));

    // Assess
    expect(answer).toMatchObject({ type: 'report', draft: { status: 'SUCCEEDED', kind: 'transfer' } });
    expect(fake.requests.map((r) => r.url)).toEqual([
      'https://momo.test/remittance/token/',
      `https://momo.test/remittance/v1_0/transfer/${REF.toLowerCase()}`,
    ]);
    expect(fake.requests.every((r) => r.headers['ocp-apim-subscription-key'] === 'remittance-key')).toBe(
      true,
    );
    expect(c.tokenRequests('remittance')).toBe(1);
  });

  it('answers unsupported, asking nothing, for a kind whose api.paths entry is null (no status GET on this account)', async () => {
    const { c, fake } = client([json(200, { status: 'SUCCESSFUL' })], { ...API, paths: { refund: null } });
    expect(await c.check(query('refund'))).toMatchObject({ type: 'error', error: 'unsupported' });
    expect(fake.requests).toHaveLength(0);
  });

  it('answers unsupported for a product whose subscription key is not configured', async () => {
    const { c, fake } = client([json(200, {})], { ...API, disbursementSubscriptionKey: undefined });
    expect(await c.check(query('transfer'))).toMatchObject({ type: 'error', error: 'unsupported' });
    expect(fake.requests).toHaveLength(0);
  });

  it('calls a 5xx that outlives the retries unclear (TransactionAmbiguous), and a network failure not', async () => {
    // Prepare
    const down = client([json(503, { code: 'SERVICE_UNAVAILABLE' })]);
    const unreachable = client([{ network: 'ECONNREFUSED' }]);

    // Act
    const answer = await down.c.check(query('requesttopay'));
    const none = await unreachable.c.check(query('requesttopay'));

    // Assess
    expect(answer).toMatchObject({ type: 'error', error: 'unavailable', httpStatus: 503, unclear: true });
    expect(none).toMatchObject({ type: 'error' });
    expect(none).not.toHaveProperty('unclear');
  });

  it('does not retry NOT_ALLOWED_TARGET_ENVIRONMENT and holds the account with one warning', async () => {
    // Prepare
    const { c, fake, t } = client([
      json(500, { code: 'NOT_ALLOWED_TARGET_ENVIRONMENT', message: 'forbidden' }),
    ]);

    // Act
    const first = await c.check(query('requesttopay'));
    const second = await c.check(query('requesttopay'));

    // Assess
    expect(first).toMatchObject({ type: 'error', error: 'credentials' });
    expect(second).toMatchObject({ type: 'error', error: 'credentials' });
    expect(fake.requests.filter((r) => !r.url.endsWith('/token/'))).toHaveLength(1);
    expect(t.warnings).toHaveLength(1);
  });

  it('never logs the API key, the subscription keys or the token', async () => {
    // Prepare
    const fake = scriptedFetch([{ match: () => true, replies: [json(401, { error: 'login_failed' })] }]);
    const t = testDeps(fake.fetch);
    const c = createMomoStatusApi(
      { provider: 'momo', id: 'demo', pathSecret: undefined, settings: settings() },
      t.deps,
    )!;

    // Act
    const answer = await c.check(query('requesttopay'));

    // Assess
    const logged = JSON.stringify([t.warnings, t.infos, answer]);
    expect(answer).toMatchObject({ error: 'credentials' });
    for (const secret of [
      API.apiKey,
      'collection-key',
      Buffer.from(`${API.apiUser}:${API.apiKey}`).toString('base64'),
    ])
      expect(logged).not.toContain(secret);
  });

  it('declares every credential of the api settings as a secret', () => {
    expect(momoProvider.secrets!(settings())).toEqual(
      expect.arrayContaining([API.apiUser, API.apiKey, 'collection-key', 'disbursement-key']),
    );
    expect(
      momoProvider.secrets!(settings({ ...API, remittanceSubscriptionKey: 'remittance-key' })),
    ).toContain('remittance-key');
    expect(momoProvider.secrets!(settings(null))).toEqual([]);
  });

  it('checks every MoMo kind', () => {
    expect(momoProvider.statusKinds).toEqual(
      expect.arrayContaining(['requesttopay', 'transfer', 'refund', 'cashtransfer']),
    );
  });

  it('refuses api settings without any subscription key or with a path lacking {ref}', () => {
    expect(
      momoAccountSchema.safeParse({
        api: { ...API, collectionSubscriptionKey: undefined, disbursementSubscriptionKey: undefined },
      }).success,
    ).toBe(false);
    expect(
      momoAccountSchema.safeParse({ api: { ...API, paths: { refund: '/disbursement/v1_0/refund' } } })
        .success,
    ).toBe(false);
    expect(momoAccountSchema.safeParse({ api: { ...API, baseUrl: 'ftp://x' } }).success).toBe(false);
    expect(momoAccountSchema.parse({ api: API }).api).toMatchObject({
      timeoutMs: 5000,
      maxRequestsPerSecond: 10,
    });
  });
});

describe('MoMo status API client: the secondary subscription key', () => {
  /** The gateway's answer to a refused key (the MoMo Open API documentation's code, APIM's sentence), as the simulator sends it. */
  const keyRefused = json(401, {
    statusCode: 401,
    code: 'ACCESS DENIED DUE TO INVALID SUBSCRIPTION KEY',
    message:
      'Access denied due to invalid subscription key. Make sure to provide a valid key for an active subscription.',
  });
  const WITH_SECONDARY = { ...API, collectionSecondarySubscriptionKey: 'collection-secondary' };
  const paid = json(200, { status: 'SUCCESSFUL', amount: '100', currency: 'UGX' });

  /** A gateway that accepts only `accepted` as the collection key, on the token call and on the GET. */
  function gateway(accepted: string, api: Record<string, unknown> = WITH_SECONDARY) {
    const keyOk = (r: { headers: Record<string, string> }) =>
      r.headers['ocp-apim-subscription-key'] === accepted;
    const fake = scriptedFetch([
      { match: (r) => !keyOk(r), replies: [keyRefused] },
      {
        match: (r) => r.url.endsWith('/token/'),
        replies: [json(200, { access_token: 'tok', expires_in: 3600 })],
      },
      { match: () => true, replies: [paid] },
    ]);
    const t = testDeps(fake.fetch);
    const c = createMomoStatusApi(
      { provider: 'momo', id: 'demo', pathSecret: undefined, settings: settings(api) },
      t.deps,
    )!;
    return { c, fake, t };
  }

  it('checks with the secondary key when MoMo refuses the primary with a subscription key error', async () => {
    // Prepare: the primary key was revoked; the secondary still works
    const { c, fake } = gateway('collection-secondary');

    // Act
    const answer = await c.check(query('requesttopay'));

    // Assess: one refused token call with the primary, then token and GET with the secondary
    expect(answer).toMatchObject({ type: 'report', draft: { status: 'SUCCEEDED' } });
    expect(
      fake.requests.map((r) => [
        r.url.endsWith('/token/') ? 'token' : 'status',
        r.headers['ocp-apim-subscription-key'],
      ]),
    ).toEqual([
      ['token', 'collection-key'],
      ['token', 'collection-secondary'],
      ['status', 'collection-secondary'],
    ]);
  });

  it('keeps using the secondary key once it switched, without asking with the primary again', async () => {
    // Prepare
    const { c, fake } = gateway('collection-secondary');
    await c.check(query('requesttopay'));
    const before = fake.requests.length;

    // Act
    const again = await c.check(query('requesttopay', '0b9f6c1e-2a3d-4e5f-8a7b-9c0d1e2f3a4b'));

    // Assess
    expect(again).toMatchObject({ type: 'report' });
    expect(fake.requests.slice(before).map((r) => r.headers['ocp-apim-subscription-key'])).toEqual([
      'collection-secondary',
    ]);
  });

  it('switches when the key is refused on the status GET itself, renewing the token once', async () => {
    // Prepare: the token endpoint accepts the primary, the status GET no longer does
    const fake = scriptedFetch([
      {
        match: (r) => r.url.endsWith('/token/'),
        replies: [json(200, { access_token: 'tok', expires_in: 3600 })],
      },
      { match: (r) => r.headers['ocp-apim-subscription-key'] === 'collection-key', replies: [keyRefused] },
      { match: () => true, replies: [paid] },
    ]);
    const t = testDeps(fake.fetch);
    const c = createMomoStatusApi(
      { provider: 'momo', id: 'demo', pathSecret: undefined, settings: settings(WITH_SECONDARY) },
      t.deps,
    )!;

    // Act
    const answer = await c.check(query('requesttopay'));

    // Assess
    expect(answer).toMatchObject({ type: 'report', draft: { status: 'SUCCEEDED' } });
    expect(
      fake.requests
        .filter((r) => !r.url.endsWith('/token/'))
        .map((r) => r.headers['ocp-apim-subscription-key']),
    ).toEqual(['collection-key', 'collection-secondary']);
  });

  it('answers credentials as before when the product has no secondary key', async () => {
    // Prepare
    const { c, fake } = gateway('collection-secondary', API);

    // Act
    const answer = await c.check(query('requesttopay'));

    // Assess
    expect(answer).toMatchObject({ type: 'error', error: 'credentials' });
    expect(fake.requests).toHaveLength(1);
  });

  it("does not try the secondary key when the API user's credentials are refused (login_failed)", async () => {
    // Prepare
    const fake = scriptedFetch([{ match: () => true, replies: [json(401, { error: 'login_failed' })] }]);
    const t = testDeps(fake.fetch);
    const c = createMomoStatusApi(
      { provider: 'momo', id: 'demo', pathSecret: undefined, settings: settings(WITH_SECONDARY) },
      t.deps,
    )!;

    // Act
    const answer = await c.check(query('requesttopay'));

    // Assess
    expect(answer).toMatchObject({ type: 'error', error: 'credentials' });
    expect(fake.requests.map((r) => r.headers['ocp-apim-subscription-key'])).toEqual(['collection-key']);
  });

  it('scrubs the secondary keys as secrets and refuses a secondary key without its primary', () => {
    // Prepare
    const api = {
      ...API,
      collectionSecondarySubscriptionKey: 'c2',
      disbursementSecondarySubscriptionKey: 'd2',
      remittanceSubscriptionKey: 'r1',
      remittanceSecondarySubscriptionKey: 'r2',
    };

    // Act
    const secrets = momoProvider.secrets!(settings(api));
    const orphan = momoAccountSchema.safeParse({
      api: { ...API, remittanceSecondarySubscriptionKey: 'r2' },
    });

    // Assess
    expect(secrets).toEqual(expect.arrayContaining(['c2', 'd2', 'r2']));
    expect(orphan.success).toBe(false);
    expect(JSON.stringify(orphan.error?.issues)).toContain('remittanceSecondarySubscriptionKey');
  });
});
