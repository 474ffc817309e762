import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  ForbiddenSourceError,
  MalformedJsonError,
  SchemaValidationError,
  UnauthorizedError,
} from '../../../../shared/domain/errors';
import { darajaProvider, darajaRouteUrls } from '../../../../shared/providers/daraja';
import { createDarajaStatusApi } from '../../../../shared/providers/daraja/api-client';
import { darajaRegistration } from '../../../../shared/providers/daraja/registration';
import { decisionBudgetMs } from '../../../../shared/app/decisions/answer-question';
import { darajaAccountSchema } from '../../../../shared/providers/daraja/schema';
import { checkUrlRules } from '../../../../shared/util/url-rules';

const account = (pathSecret?: string) => ({
  provider: 'daraja',
  id: 'ke-600638',
  pathSecret,
  settings: darajaAccountSchema.parse({}),
});

describe('Daraja provider module', () => {
  it('serves the thirteen Daraja routes, POST only', () => {
    expect(darajaProvider.routes.map((r) => [r.name, r.path, r.methods])).toEqual([
      ['stk', 'stk', ['POST']],
      ['c2b-validation', 'c2b/validation', ['POST']],
      ['c2b-confirmation', 'c2b/confirmation', ['POST']],
      ['b2c-result', 'b2c/result', ['POST']],
      ['b2c-timeout', 'b2c/timeout', ['POST']],
      ['b2b-result', 'b2b/result', ['POST']],
      ['b2b-timeout', 'b2b/timeout', ['POST']],
      ['status-result', 'status/result', ['POST']],
      ['status-timeout', 'status/timeout', ['POST']],
      ['balance-result', 'balance/result', ['POST']],
      ['balance-timeout', 'balance/timeout', ['POST']],
      ['reversal-result', 'reversal/result', ['POST']],
      ['reversal-timeout', 'reversal/timeout', ['POST']],
    ]);
  });

  it('declares on the validation route the very question its parse asks', () => {
    // Prepare
    const route = darajaProvider.routes.find((r) => r.name === 'c2b-validation')!;
    const body = JSON.parse(
      readFileSync(new URL('../../../fixtures/daraja/c2b-validation.json', import.meta.url), 'utf8'),
    ) as Record<string, unknown>;

    // Act
    const parsed = route.parse({
      account: account(),
      route: route.name,
      params: {},
      body,
      rawBody: Buffer.from(JSON.stringify(body)),
      headers: {},
      sourceIp: '196.201.214.200',
    });

    // Assess
    expect(parsed.type).toBe('decision');
    expect(parsed.type === 'decision' && parsed.useCase).toBe(route.asks);
    expect(darajaProvider.routes.filter((r) => r.asks).map((r) => r.name)).toEqual(['c2b-validation']);
  });

  it("declares as answers to the relay's own queries exactly the routes its status and balance queries name", async () => {
    // Prepare: the status API client, its network playing Daraja's token and query endpoints.
    const sent: Record<string, unknown>[] = [];
    const network = (async (input: string | URL | Request, init?: RequestInit) => {
      if (String(input).includes('/oauth/v1/generate'))
        return Response.json({ access_token: 'token', expires_in: '3599' });
      sent.push(JSON.parse(String(init?.body)) as Record<string, unknown>);
      return Response.json({ OriginatorConversationID: 'oc-1', ConversationID: 'AG_1', ResponseCode: '0' });
    }) as typeof fetch;
    const settings = darajaAccountSchema.parse({
      shortCode: '600638',
      api: {
        baseUrl: 'https://daraja.example.com',
        consumerKey: 'key',
        consumerSecret: 'secret',
        initiator: 'testapi',
        securityCredential: 'c2VjcmV0',
      },
    });
    const api = createDarajaStatusApi(
      { ...account('path-secret-0123456789'), settings },
      { fetch: network, now: () => 0, sleep: async () => {}, log: { warn() {}, info() {} } },
    )!;
    const base = 'https://relay.example.com/v1/daraja/ke-600638/path-secret-0123456789';

    // Act
    const answer = await api.check({
      kind: 'b2c',
      reference: 'oc-payout-1',
      amount: undefined,
      msisdn: undefined,
      externalId: undefined,
      providerTransactionId: undefined,
      attributes: {},
      createdAt: '2026-11-23T10:00:00.000Z',
      callbackBase: base,
    });

    // Assess: callback health leaves out what arrives on these routes (docs/reconciliation.md#callback-health).
    expect(answer.type).toBe('requested');
    const named = [sent[0]!.ResultURL, sent[0]!.QueueTimeOutURL].map((url) =>
      String(url).slice(base.length + 1),
    );
    expect(darajaProvider.routes.filter((r) => r.answersRelayQuery).map((r) => r.path)).toEqual(named);

    // Act: the balance snapshots' Account Balance request.
    const balance = await api.balance!({ callbackBase: base });

    // Assess: its answers arrive on the routes declared to carry balance answers (the partner's too),
    // and it is recorded under the id its result's fact is known by (OriginatorConversationID first).
    expect(balance).toMatchObject({ type: 'requested', requestId: 'oc-1' });
    const balanceNamed = [sent[1]!.ResultURL, sent[1]!.QueueTimeOutURL].map((url) =>
      String(url).slice(base.length + 1),
    );
    expect(darajaProvider.routes.filter((r) => r.answersBalanceRequests).map((r) => r.path)).toEqual(
      balanceNamed,
    );
  });

  it("answers bad input on the validation route in Daraja's format: 200 with C2B00016", () => {
    const schema = darajaProvider.formatError?.(new SchemaValidationError('bad'), 400, 'c2b-validation');
    const json = darajaProvider.formatError?.(new MalformedJsonError('bad'), 400, 'c2b-validation');
    expect(schema).toMatchObject({
      statusCode: 200,
      body: { ResultCode: 'C2B00016', ResultDesc: 'Rejected' },
    });
    expect(json?.body).toEqual({ ResultCode: 'C2B00016', ResultDesc: 'Rejected' });
  });

  it("leaves authentication failures and other routes to the relay's JSON errors", () => {
    expect(
      darajaProvider.formatError?.(new ForbiddenSourceError('no'), 403, 'c2b-validation'),
    ).toBeUndefined();
    expect(darajaProvider.formatError?.(new UnauthorizedError('no'), 401, 'c2b-validation')).toBeUndefined();
    expect(darajaProvider.formatError?.(new SchemaValidationError('bad'), 400, 'stk')).toBeUndefined();
  });

  it('hands out the STK CallBackURL, the B2C ResultURL and the C2B ConfirmationURL, path secret included', () => {
    const urls = (['stk', 'b2c', 'c2b'] as const).map((kind) =>
      darajaRegistration.callbackUrl?.({
        baseUrl: 'https://relay.example.com/',
        account: account('s3cret-path-secret-123'),
        kind,
        reference: 'x',
      }),
    );
    expect(urls).toEqual([
      'https://relay.example.com/v1/daraja/ke-600638/s3cret-path-secret-123/stk',
      'https://relay.example.com/v1/daraja/ke-600638/s3cret-path-secret-123/b2c/result',
      'https://relay.example.com/v1/daraja/ke-600638/s3cret-path-secret-123/c2b/confirmation',
    ]);
  });

  it('generates route URLs that pass the Daraja URL rules', () => {
    const urls = Object.values(darajaRouteUrls('https://relay.example.com', 'ke-600638', undefined));
    expect(urls).toHaveLength(13);
    expect(urls.flatMap((url) => checkUrlRules(url, { requireHttps: true }))).toEqual([]);
  });

  it('accepts CheckoutRequestIDs, OriginatorConversationIDs and TransIDs as references, and refuses others', () => {
    const { validateReference } = darajaRegistration;
    expect(
      [
        'ws_CO_191220191020363925',
        '10571-7910404-1',
        'RKTQDM7W6S',
        '6e0a4ca4-2b77-4c38-9d35-b0f1c1f3c0d2',
      ].map(validateReference),
    ).toEqual([undefined, undefined, undefined, undefined]);
    expect(validateReference('has space')).toMatch(/CheckoutRequestID/);
    expect(validateReference('a/b')).toBeDefined();
  });

  it('declares the partner decision endpoint as a configured URL, so config loading checks it', () => {
    const settings = darajaAccountSchema.parse({
      c2b: { partner: { url: 'https://partner.example.com/decide' } },
    });
    expect(darajaProvider.configuredUrls?.(settings)).toEqual([
      { key: 'c2b.partner.url', url: 'https://partner.example.com/decide' },
    ]);
    expect(darajaProvider.configuredUrls?.(darajaAccountSchema.parse({}))).toEqual([]);
  });

  it('keeps part of the C2B deadline back for the writes that precede the answer', () => {
    expect([decisionBudgetMs(5000), decisionBudgetMs(7500), decisionBudgetMs(300)]).toEqual([
      4500, 7000, 240,
    ]);
  });
});
