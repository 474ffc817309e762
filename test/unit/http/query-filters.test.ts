/**
 * The probe's findings E and I through the management router itself: a reference over the limit every
 * registration and report is held to is a 400 INVALID_REFERENCE on reads too, and a filter value that
 * names nothing (a provider not in the registry, an account or shop not configured, a parameter the
 * route does not take) is a 400 naming the parameter and what it may be, never silently ignored.
 */
import { describe, expect, it } from 'vitest';
import { MAX_ID_LENGTH } from '../../../shared/util/text';
import { managementWorld as world } from './management-world';

describe('a reference longer than the relay keeps is refused on every transaction route', () => {
  it('answers 400 INVALID_REFERENCE for reads, checks, resolutions and receipts of a 201-character reference', async () => {
    // Prepare: one character over the limit registration refuses (and far over it).
    const w = world();
    const over = 'a'.repeat(MAX_ID_LENGTH + 1);
    const far = 'a'.repeat(5000);
    const registered = await w.call('ana', 'POST', '/v1/transactions', {
      provider: 'airtel',
      account: 'demo',
      kind: 'payment',
      reference: over,
      amount: '5',
      currency: 'UGX',
    });

    // Act
    const answers = [
      await w.call('vic', 'GET', `/v1/transactions/momo/demo/${over}`),
      await w.call('vic', 'GET', `/v1/transactions/momo/demo/${far}`),
      await w.call('vic', 'GET', `/v1/transactions/momo/demo/${over}/receipts/r1`),
      await w.call('vic', 'GET', `/v1/transactions/momo/demo/${over}/deliveries`),
      await w.call('ana', 'POST', `/v1/transactions/momo/demo/${over}/check`),
      await w.call('ana', 'POST', `/v1/transactions/momo/demo/${over}/resolve`, {
        status: 'FAILED',
        note: 'n',
      }),
    ];
    const atLimit = await w.call('vic', 'GET', `/v1/transactions/momo/demo/${'a'.repeat(MAX_ID_LENGTH)}`);

    // Assess
    expect(registered.status).toBe(400);
    for (const answer of answers) {
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe('INVALID_REFERENCE');
      expect(answer.body.error.message).toContain(String(MAX_ID_LENGTH));
    }
    expect(atLimit.status).toBe(404);
  });
});

describe('a filter value that names nothing is a 400 naming the parameter and the allowed values', () => {
  it('refuses a provider that is not in the registry on the list routes', async () => {
    // Prepare
    const w = world();

    // Act
    const answers = [
      await w.call('vic', 'GET', '/v1/callback-health?provider=nope'),
      await w.call('vic', 'GET', '/v1/transactions?provider=nope'),
      await w.call('vic', 'GET', '/v1/transactions/counts?provider=nope'),
      await w.call('vic', 'GET', '/v1/quarantine?provider=nope'),
    ];
    const known = await w.call('vic', 'GET', '/v1/callback-health?provider=momo');

    // Assess
    for (const answer of answers) {
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({
        code: 'SCHEMA_VALIDATION_FAILED',
        parameter: 'provider',
        allowed: ['momo', 'airtel', 'daraja'],
      });
      expect(answer.body.error.message).toBe('provider: must be one of momo, airtel, daraja');
    }
    expect(known.status).toBe(200);
  });

  it('refuses a provider filter on the report, which has none, naming the parameters it takes', async () => {
    // Prepare
    const w = world();

    // Act
    const filtered = await w.call('vic', 'GET', '/v1/report?provider=momo');
    const unknownProvider = await w.call('vic', 'GET', '/v1/report?provider=nope');
    const plain = await w.call('vic', 'GET', '/v1/report?from=2026-11-22T00:00:00.000Z');

    // Assess
    expect(filtered.status).toBe(400);
    expect(filtered.body.error).toMatchObject({ parameter: 'provider' });
    expect(filtered.body.error.message).toContain('from, to, cursor, format');
    expect(unknownProvider.status).toBe(400);
    expect(plain.status).toBe(200);
  });

  it('refuses a mistyped filter on the transaction list instead of answering every transaction', async () => {
    // Prepare
    const w = world();

    // Act
    const typo = await w.call('vic', 'GET', '/v1/transactions?stauts=FAILED');
    const filtered = await w.call('vic', 'GET', '/v1/transactions?status=FAILED&kind=requesttopay&limit=5');

    // Assess
    expect(typo.status).toBe(400);
    expect(typo.body.error).toMatchObject({ parameter: 'stauts' });
    expect(typo.body.error.message).toContain(
      'provider, account, kind, status, from, to, since, limit, cursor, format',
    );
    expect(filtered.status).toBe(200);
  });

  it.each([
    ['search', '/v1/transactions/search?q=order-1', 'q, limit, from, to, format'],
    ['approvals', '/v1/approvals?state=pending', 'state, format'],
  ])(
    'refuses a cursor on the %s list, which answers in one read, instead of answering its first page again',
    async (_label, path, takes) => {
      // Prepare
      const w = world();

      // Act
      const paged = await w.call('vic', 'GET', `${path}&cursor=eyJrIjoxfQ`);
      const plain = await w.call('vic', 'GET', path);

      // Assess
      expect(paged.status).toBe(400);
      expect(paged.body.error).toMatchObject({ code: 'SCHEMA_VALIDATION_FAILED', parameter: 'cursor' });
      expect(paged.body.error.message).toContain(takes);
      expect(plain.status).toBe(200);
    },
  );

  it('refuses an account of callback health that is not configured, and filters by one that is', async () => {
    // Prepare
    const w = world({ other: {} });

    // Act
    const unknown = await w.call('vic', 'GET', '/v1/callback-health?account=nope');
    const elsewhere = await w.call('vic', 'GET', '/v1/callback-health?provider=airtel&account=demo');
    const known = await w.call('vic', 'GET', '/v1/callback-health?account=other');

    // Assess
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ parameter: 'account', allowed: ['demo', 'other'] });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.error).toMatchObject({ parameter: 'account', allowed: [] });
    expect(known.status).toBe(200);
    expect(known.body.accounts.map((a: { account: string }) => a.account)).toEqual(['other']);
  });

  it('refuses a badge shop that is not configured, and answers only the shop asked for', async () => {
    // Prepare
    const shop = { baseUrl: 'https://badges.example.com' };
    const w = world({}, { badges: { shops: { north: shop, south: shop } } });

    // Act
    const unknown = await w.call('vic', 'GET', '/v1/badges?shop=nope');
    const unknownCsv = await w.call('vic', 'GET', '/v1/badges?shop=nope&format=csv');
    const north = await w.call('vic', 'GET', '/v1/badges?shop=north');
    const all = await w.call('vic', 'GET', '/v1/badges');

    // Assess
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ parameter: 'shop', allowed: ['north', 'south'] });
    expect(unknownCsv.status).toBe(400);
    expect(north.body.shops.map((s: { shop: string }) => s.shop)).toEqual(['north']);
    expect(all.body.shops.map((s: { shop: string }) => s.shop)).toEqual(['north', 'south']);
  });
});

describe('what the probe found in answers (B)', () => {
  it('masks a phone number the partner put in metadata under a provider’s phone member name', async () => {
    // Prepare
    const w = world();
    const reference = '5d2f0c1e-8b7a-4f6e-9c3d-2a1b0e9f8d7c';

    // Act
    const created = await w.call('ana', 'POST', '/v1/transactions', {
      provider: 'momo',
      account: 'demo',
      kind: 'payment',
      reference,
      amount: '5',
      currency: 'EUR',
      metadata: { orderId: 8841, customer: { msisdn: '254708374149' }, note: 'kept' },
    });
    const read = await w.call('vic', 'GET', `/v1/transactions/momo/demo/${reference}`);

    // Assess: the number is masked in both answers; the partner's other members are shown as given
    for (const answer of [created, read]) {
      expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(300);
      expect(JSON.stringify(answer.body)).not.toContain('254708374149');
      const { metadata } = answer.body.transaction ?? answer.body;
      expect(metadata).toEqual({ orderId: 8841, customer: { msisdn: '2547*****149' }, note: 'kept' });
    }
  });
});
