import { describe, expect, it } from 'vitest';
import { airtelRegistration } from '../../../../shared/providers/airtel/registration';
import { airtelAccountSchema, airtelCallbackSchema } from '../../../../shared/providers/airtel/schema';
import { fixture } from './support';

describe('Airtel callback schema', () => {
  it.each(['callback-ts', 'callback-tf'] as const)('accepts the %s fixture', (name) => {
    expect(airtelCallbackSchema.safeParse(fixture(name)).success).toBe(true);
  });

  it('keeps unknown members instead of rejecting them', () => {
    const body = {
      ...fixture('callback-ts'),
      extra: { a: 1 },
      transaction: { ...fixture('callback-ts').transaction, fee: '0' },
    };

    const parsed = airtelCallbackSchema.parse(body);

    expect(parsed).toMatchObject({ extra: { a: 1 }, transaction: { fee: '0' } });
  });

  it('accepts a failure without airtel_money_id', () => {
    const { airtel_money_id: _id, ...transaction } = fixture('callback-tf').transaction;

    expect(airtelCallbackSchema.safeParse({ transaction }).success).toBe(true);
  });

  it('accepts null and empty airtel_money_id', () => {
    const transaction = fixture('callback-tf').transaction;

    expect(
      airtelCallbackSchema.safeParse({ transaction: { ...transaction, airtel_money_id: null } }).success,
    ).toBe(true);
    expect(
      airtelCallbackSchema.safeParse({ transaction: { ...transaction, airtel_money_id: '' } }).success,
    ).toBe(true);
  });

  it('reads numeric ids as text', () => {
    const parsed = airtelCallbackSchema.parse({
      transaction: { id: 1002003, status_code: 'TS', airtel_money_id: 987654321, message: 'ok' },
    });

    expect(parsed.transaction.id).toBe('1002003');
    expect(parsed.transaction.airtel_money_id).toBe('987654321');
  });

  it('accepts a lower-case status code', () => {
    expect(airtelCallbackSchema.safeParse({ transaction: { id: 'A', status_code: 'ts' } }).success).toBe(
      true,
    );
  });

  it('tolerates a status member that is not an envelope', () => {
    expect(
      airtelCallbackSchema.safeParse({ transaction: { id: 'A', status_code: 'TS' }, status: 'SUCCESS' })
        .success,
    ).toBe(true);
  });

  it.each([
    ['no transaction', { hash: 'x' }],
    ['no transaction id', { transaction: { status_code: 'TS' } }],
    ['an empty transaction id', { transaction: { id: '', status_code: 'TS' } }],
    ['no status code', { transaction: { id: 'A' } }],
    ['a blank status code', { transaction: { id: 'A', status_code: '  ' } }],
    ['a transaction that is a string', { transaction: 'A' }],
  ])('rejects a body with %s', (_name, body) => {
    expect(airtelCallbackSchema.safeParse(body).success).toBe(false);
  });
});

describe('Airtel account settings', () => {
  it('defaults to enforce with every recipe enabled', () => {
    expect(airtelAccountSchema.parse({ callbackKey: 'k' })).toEqual({
      callbackKey: 'k',
      hashMode: 'enforce',
      hashRecipes: ['stringify-without-hash', 'stringify-transaction', 'raw-without-hash', 'header-hex'],
    });
  });

  it.each(['enforce', 'log-only', undefined])(
    'requires callbackKey when hashMode is %s, naming the key',
    (hashMode) => {
      const result = airtelAccountSchema.safeParse(hashMode ? { hashMode } : {});

      expect(result.success).toBe(false);
      expect(result.error?.issues.map((i) => i.path.join('.'))).toContain('callbackKey');
    },
  );

  it('allows no key when hashMode is off', () => {
    expect(airtelAccountSchema.safeParse({ hashMode: 'off' }).success).toBe(true);
  });

  it.each([
    ['an unknown recipe', { callbackKey: 'k', hashRecipes: ['md5'] }],
    ['no recipes', { callbackKey: 'k', hashRecipes: [] }],
    ['an unknown mode', { callbackKey: 'k', hashMode: 'strict' }],
    ['an empty key', { callbackKey: '' }],
    ['a lower-case currency', { callbackKey: 'k', currency: 'ugx' }],
    ['a three-letter country', { callbackKey: 'k', country: 'UGA' }],
  ])('rejects %s', (_name, input) => {
    expect(airtelAccountSchema.safeParse(input).success).toBe(false);
  });
});

describe('Airtel registration rules', () => {
  const registration = airtelRegistration;

  it.each(['AT-ORDER-1001', '1002003', 'a'.repeat(64), 'order 1 (retry)'])(
    'accepts the reference %j',
    (reference) => {
      expect(registration.validateReference(reference)).toBeUndefined();
    },
  );

  it.each([
    ['empty', ''],
    ['65 characters', 'a'.repeat(65)],
    ['with a slash', 'order/1'],
  ])('refuses a reference that is %s', (_name, reference) => {
    expect(registration.validateReference(reference)).toMatch(/transaction\.id/);
  });

  it('takes payment, refund and disbursement and hands out no per-transaction callback URL', () => {
    expect(registration.kinds).toEqual(['payment', 'refund', 'disbursement']);
    expect(registration.callbackUrl).toBeUndefined();
  });
});
