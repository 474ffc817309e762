import { describe, expect, it } from 'vitest';
import { deterministicUuid, isUuid } from '../../../shared/util/ids';
import { maskMsisdn } from '../../../shared/util/mask';
import { sameAmount, toDecimalString } from '../../../shared/util/money';

describe('decimal amounts', () => {
  it.each([
    ['100', '100'],
    ['100.00', '100'],
    [1.0, '1'],
    [10.5, '10.5'],
    ['007.50', '7.5'],
    ['-0.0', '0'],
  ])('canonicalises %s as %s', (input, expected) => {
    expect(toDecimalString(input)).toBe(expected);
  });

  it.each(['', 'abc', '1e5', '1,000'])('refuses %s', (input) => {
    expect(toDecimalString(input)).toBeUndefined();
  });

  it('compares amounts by value', () => {
    expect(sameAmount('100', '100.00')).toBe(true);
    expect(sameAmount('100', '100.01')).toBe(false);
  });
});

describe('MSISDN masking', () => {
  it('keeps the first four and last three digits', () => {
    expect(maskMsisdn('46733123459')).toBe('4673****459');
    expect(maskMsisdn(254708374149)).toBe('2547*****149');
  });
  it('masks short values entirely', () => {
    expect(maskMsisdn('12345')).toBe('*****');
  });
});

describe('deterministic ids', () => {
  it('returns the same UUID for the same parts and another for other parts', () => {
    const a = deterministicUuid('TransactionSucceeded', 'momo:demo:x', 'SUCCEEDED');
    expect(a).toBe(deterministicUuid('TransactionSucceeded', 'momo:demo:x', 'SUCCEEDED'));
    expect(a).not.toBe(deterministicUuid('TransactionFailed', 'momo:demo:x', 'FAILED'));
    expect(isUuid(a)).toBe(true);
  });
});
