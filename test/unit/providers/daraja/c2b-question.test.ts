import { describe, expect, it } from 'vitest';
import { SchemaValidationError } from '../../../../shared/domain/errors';
import {
  BILL_REF_MAX_LENGTH,
  billRefProblem,
  knownAccountRecord,
} from '../../../../shared/providers/daraja/c2b-question';

describe('Daraja known account numbers (BillRefNumber from the partner; Daraja API docs: up to 20 characters)', () => {
  it('refuses a known account number over 20 characters with an error naming the limit', () => {
    // Prepare
    const billRef = 'INVOICE-2026-000000042'; // 22 characters
    // Act
    const load = () => knownAccountRecord({ account: 'ke', billRef, active: true });
    // Assess
    expect(load).toThrow(SchemaValidationError);
    expect(load).toThrow(
      `BillRefNumber "${billRef}" is 22 characters: Daraja carries at most 20 (Daraja API docs)`,
    );
  });

  it('stores one of exactly 20 characters, trimmed and upper case', () => {
    // Prepare
    const billRef = ` ${'a'.repeat(BILL_REF_MAX_LENGTH)} `;
    // Act
    const record = knownAccountRecord({ account: 'ke', billRef, active: true, now: '2026-11-25T00:00:00Z' });
    // Assess
    expect(record).toMatchObject({ namespace: 'c2b-account', id: 'A'.repeat(20), data: { active: true } });
  });

  it('refuses an empty one, and says nothing against a short one', () => {
    expect(billRefProblem('   ')).toBe('BillRefNumber is empty');
    expect(billRefProblem('ACC-001')).toBeUndefined();
  });
});
