import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Simulator } from '../../simulator/server';
import { eventually, parse, type Receiver, startReceiver, startSim } from './helpers';
import {
  basic,
  create,
  formCall,
  MOMO_USER,
  momoHeaders,
  momoToken,
  msisdn,
  type Product,
  subKey,
  transferBody,
} from './momo-helpers';
import { call } from './helpers';

const CIBA = 'urn:openid:params:grant-type:ciba';
/** A consumer outside every trigger table: consents at once. */
const CONSENTING = '46700000077';
const PAYEE = '46700000001';

let sim: Simulator;
let rx: Receiver;

beforeEach(async () => {
  sim = await startSim();
  rx = await startReceiver();
});
afterEach(async () => {
  await sim.close();
  await rx.close();
});

async function bcAuthorize(
  consumer: string,
  opts: { product?: Product; scope?: string; accessType?: string; callbackUrl?: string } = {},
) {
  const product = opts.product ?? 'collection';
  const token = await momoToken(sim, product);
  const extra: Record<string, string> = opts.callbackUrl ? { 'X-Callback-Url': opts.callbackUrl } : {};
  return formCall(sim, `/${product}/v1_0/bc-authorize`, momoHeaders(token, product, extra), {
    login_hint: `ID:${consumer}/MSISDN`,
    scope: opts.scope ?? 'profile',
    access_type: opts.accessType ?? 'offline',
  });
}

function tokenCall(form: Record<string, string>, product: Product = 'collection') {
  return formCall(
    sim,
    `/${product}/oauth2/token/`,
    {
      Authorization: basic(MOMO_USER.id, MOMO_USER.apiKey),
      'X-Target-Environment': 'sandbox',
      'Ocp-Apim-Subscription-Key': subKey(product),
    },
    form,
  );
}

async function authorizeAndRedeem(consumer: string, opts: Parameters<typeof bcAuthorize>[1] = {}) {
  const auth = await bcAuthorize(consumer, opts);
  expect(auth.status).toBe(200);
  return tokenCall({ grant_type: CIBA, auth_req_id: auth.json.auth_req_id }, opts.product);
}

async function consentToken(consumer: string, opts: Parameters<typeof bcAuthorize>[1] = {}) {
  const r = await authorizeAndRedeem(consumer, opts);
  expect(r.status).toBe(200);
  return r.json as { access_token: string; refresh_token?: string; refresh_token_expired_in?: number };
}

const userInfo = (token: string, product: Product = 'collection') =>
  call(sim, 'GET', `/${product}/oauth2/v1_0/userinfo`, { headers: momoHeaders(token, product) });

/** A disbursement transfer made with a consent token; resolves with the callback's status and reason. */
async function consentTransfer(consumer: string) {
  const { access_token } = await consentToken(consumer, { product: 'disbursement' });
  const { res } = await create(sim, access_token, '/disbursement/v1_0/transfer', transferBody(PAYEE), {
    product: 'disbursement',
    callbackUrl: `${rx.url}/cb`,
  });
  expect(res.status).toBe(202);
  const [cb] = await rx.waitFor(1, (r) => r.path === '/cb');
  return parse<{ status: string; reason?: { code: string } }>(cb!);
}

describe('MoMo bc-authorize and the consent token', () => {
  it('answers bc-authorize with an auth_req_id, a polling interval and an expiry', async () => {
    const r = await bcAuthorize(CONSENTING);

    expect(r.status).toBe(200);
    expect(r.json).toEqual({ auth_req_id: expect.any(String), interval: 5, expires_in: 3600 });
  });

  it('redeems a consented auth_req_id for a Bearer consent token with scope and refresh token', async () => {
    const r = await authorizeAndRedeem(CONSENTING, { scope: 'profile email' });

    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      token_type: 'Bearer',
      expires_in: 3600,
      scope: 'profile email',
      refresh_token: expect.stringMatching(/^[0-9a-f-]{36}$/),
      refresh_token_expired_in: expect.any(Number),
    });
    expect(r.json.refresh_token_expired_in).toBeGreaterThan(0);
  });

  it('gives no refresh token for access_type online', async () => {
    const r = await authorizeAndRedeem(CONSENTING, { accessType: 'online' });

    expect(r.status).toBe(200);
    expect(r.json.refresh_token).toBeUndefined();
  });

  it('refuses an auth_req_id that was already redeemed', async () => {
    const auth = await bcAuthorize(CONSENTING);
    await tokenCall({ grant_type: CIBA, auth_req_id: auth.json.auth_req_id });

    const again = await tokenCall({ grant_type: CIBA, auth_req_id: auth.json.auth_req_id });

    expect(again.status).toBe(400);
    expect(again.json.error).toBe('invalid_grant');
  });

  it('refreshes a consent token with the refresh_token grant', async () => {
    const { refresh_token } = await consentToken(CONSENTING);

    const r = await tokenCall({ grant_type: 'refresh_token', refresh_token: refresh_token! });

    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ token_type: 'Bearer', access_token: expect.any(String) });
  });

  it('refuses an unknown grant type with unsupported_grant_type', async () => {
    const r = await tokenCall({ grant_type: 'password' });

    expect(r.status).toBe(400);
    expect(r.json.error).toBe('unsupported_grant_type');
  });

  it('refuses a login_hint that is not ID:<msisdn>/MSISDN with 400', async () => {
    const token = await momoToken(sim);

    const r = await formCall(sim, '/collection/v1_0/bc-authorize', momoHeaders(token), {
      login_hint: CONSENTING,
      scope: 'profile',
    });

    expect(r.status).toBe(400);
  });

  it('pings X-Callback-Url with the auth_req_id once the consumer has answered', async () => {
    const auth = await bcAuthorize(CONSENTING, { callbackUrl: `${rx.url}/consent` });

    const [ping] = await rx.waitFor(1, (r) => r.path === '/consent');

    expect(ping!.method).toBe('POST');
    expect(parse(ping!)).toEqual({ auth_req_id: auth.json.auth_req_id });
  });

  it('serves the same flow on the disbursement and remittance prefixes', async () => {
    const disbursement = await consentToken(CONSENTING, { product: 'disbursement' });
    const remittance = await consentToken(CONSENTING, { product: 'remittance' });

    expect((await userInfo(disbursement.access_token, 'disbursement')).status).toBe(200);
    expect((await userInfo(remittance.access_token, 'remittance')).status).toBe(200);
  });
});

describe('MoMo user info with consent', () => {
  it('returns every user-info field for the all_info scope', async () => {
    const { access_token } = await consentToken(CONSENTING, { scope: 'all_info' });

    const r = await userInfo(access_token);

    expect(r.status).toBe(200);
    expect(Object.keys(r.json).sort()).toEqual(
      [
        'sub',
        'name',
        'given_name',
        'family_name',
        'middle_name',
        'email',
        'gender',
        'locale',
        'phone_number',
        'address',
        'status',
        'birthdate',
        'credit_score',
        'country_of_birth',
        'region_of_birth',
        'city_of_birth',
        'occupation',
        'employer_name',
        'identification_type',
        'identification_value',
        'email_verified',
        'phone_number_verified',
        'active',
        'updated_at',
      ].sort(),
    );
    expect(r.json.phone_number).toBe(CONSENTING);
  });

  it('returns only the claims of the requested OpenID scopes for other scopes', async () => {
    const { access_token } = await consentToken(CONSENTING, { scope: 'openid email' });

    const r = await userInfo(access_token);

    expect(r.status).toBe(200);
    expect(Object.keys(r.json).sort()).toEqual(['email', 'email_verified', 'sub']);
  });

  it('refuses a plain access token (no consent) with 401 invalid_token', async () => {
    const token = await momoToken(sim);

    const r = await userInfo(token);

    expect(r.status).toBe(401);
    expect(r.json.error).toBe('invalid_token');
  });
});

describe('MoMo consent-based financial operations', () => {
  it('lets a consent token of a consenting consumer make a transfer that succeeds', async () => {
    const result = await consentTransfer(CONSENTING);

    expect(result.status).toBe('SUCCESSFUL');
  });
});

/** MoMo Open API docs, sandbox test numbers, "OAuth2 consent flow (MSISDN)": login_hint MSISDN = base + index, row by row. */
describe('MoMo consent trigger table (login_hint MSISDN = base + index)', () => {
  it('0 AccountHolderNotFound: bc-authorize answers 404 ACCOUNT_HOLDER_NOT_FOUND', async () => {
    const r = await bcAuthorize(msisdn(0));

    expect(r.status).toBe(404);
    expect(r.json.code).toBe('ACCOUNT_HOLDER_NOT_FOUND');
  });

  it('1 ConsentRejected: the token call fails with access_denied', async () => {
    const r = await authorizeAndRedeem(msisdn(1));

    expect(r.status).toBe(400);
    expect(r.json.error).toBe('access_denied');
  });

  it('2 ConsentPending: the token call answers authorization_pending until the consumer approves', async () => {
    // The consumer answers after `approvalDelayMs`; only the clock is faked so HTTP keeps working.
    await sim.close();
    sim = await startSim({ approvalDelayMs: 60_000, timeScale: 1 });
    const auth = await bcAuthorize(msisdn(2));
    const redeem = () => tokenCall({ grant_type: CIBA, auth_req_id: auth.json.auth_req_id });

    const early = await redeem();
    vi.useFakeTimers({ toFake: ['Date'] });
    let later;
    try {
      vi.setSystemTime(Date.now() + 61_000);
      later = await redeem();
    } finally {
      vi.useRealTimers();
    }

    expect(early.status).toBe(400);
    expect(early.json.error).toBe('authorization_pending');
    expect(later.status).toBe(200);
    expect(later.json.token_type).toBe('Bearer');
  });

  it('3 ConsentExpired: the token call fails with expired_token', async () => {
    const r = await authorizeAndRedeem(msisdn(3));

    expect(r.status).toBe(400);
    expect(r.json.error).toBe('expired_token');
  });

  it('4 ConsentExpiredRefreshToken: the token works, the refresh grant fails with invalid_grant', async () => {
    const token = await consentToken(msisdn(4));

    const refreshed = await tokenCall({ grant_type: 'refresh_token', refresh_token: token.refresh_token! });

    expect(token.refresh_token_expired_in).toBe(0);
    expect((await userInfo(token.access_token)).status).toBe(200);
    expect(refreshed.status).toBe(400);
    expect(refreshed.json.error).toBe('invalid_grant');
    expect(refreshed.json.error_description).toMatch(/refresh token has expired/);
  });

  it('5 ConsentRevoked: the token call fails with invalid_grant (consent revoked)', async () => {
    const r = await authorizeAndRedeem(msisdn(5));

    expect(r.status).toBe(400);
    expect(r.json.error).toBe('invalid_grant');
    expect(r.json.error_description).toMatch(/revoked/);
  });

  it('6 ConsentDeletedScope: the token is issued, user info is refused with 403 insufficient_scope', async () => {
    const { access_token } = await consentToken(msisdn(6));

    const r = await userInfo(access_token);

    expect(r.status).toBe(403);
    expect(r.json.error).toBe('insufficient_scope');
  });

  it('7 ConsentAlreadyUsed: the first token call already fails with invalid_grant (already used)', async () => {
    const r = await authorizeAndRedeem(msisdn(7));

    expect(r.status).toBe(400);
    expect(r.json.error).toBe('invalid_grant');
    expect(r.json.error_description).toMatch(/already been used/);
  });

  const FINANCIAL_ROWS: [number, string, string][] = [
    [8, 'FinancialNoFunds', 'NOT_ENOUGH_FUNDS'],
    [9, 'FinancialPayeeNotFound', 'PAYEE_NOT_FOUND'],
    [10, 'FinancialConsentMismatch', 'CONSENT_MISMATCH'],
    [11, 'FinancialPayerLimitReached', 'PAYER_LIMIT_REACHED'],
    [12, 'FinancialPayeeNotAllowedToReceive', 'PAYEE_NOT_ALLOWED_TO_RECEIVE'],
  ];
  for (const [index, name, code] of FINANCIAL_ROWS) {
    it(`${index} ${name}: a transfer made with the consent token FAILS with ${code}`, async () => {
      const result = await consentTransfer(msisdn(index));

      expect(result.status).toBe('FAILED');
      expect(result.reason?.code).toBe(code);
    });
  }

  it('8 FinancialNoFunds also fails a collection payment made with the consent token', async () => {
    const { access_token } = await consentToken(msisdn(8));
    const { ref, res } = await create(sim, access_token, '/collection/v2_0/payment', {
      externalTransactionId: 'bill-1',
      money: { amount: '10', currency: 'EUR' },
      customerReference: 'cust-1',
    });
    expect(res.status).toBe(202);

    const status = await eventually(async () => {
      const r = await call(sim, 'GET', `/collection/v2_0/payment/${ref}`, {
        headers: momoHeaders(access_token),
      });
      expect(r.json.status).toBe('FAILED');
      return r;
    });

    expect(status.json.reason.code).toBe('NOT_ENOUGH_FUNDS');
  });
});
