import { describe, expect, it } from 'vitest';
import type { ReasonCode } from '../../../../shared/domain/reasons';
import type { TransactionStatus } from '../../../../shared/domain/status';
import {
  DARAJA_CODE_TABLE,
  mapDarajaCode,
  mapDarajaTransactionStatus,
} from '../../../../shared/providers/daraja/mapping';

// Written out by hand from seed 001 Part B and the provider notes, independent of the table under test.
const CODE_ROWS: [string | number, TransactionStatus, ReasonCode | undefined][] = [
  [0, 'SUCCEEDED', undefined],
  ['0', 'SUCCEEDED', undefined],
  [1, 'FAILED', 'INSUFFICIENT_FUNDS'],
  [17, 'FAILED', 'DUPLICATE'],
  [1001, 'FAILED', 'SUBSCRIBER_BUSY'],
  [1019, 'FAILED', 'TIMED_OUT'],
  [1025, 'FAILED', 'PROVIDER_ERROR'],
  [1032, 'FAILED', 'REJECTED_BY_CUSTOMER'],
  [1037, 'FAILED', 'UNREACHABLE'],
  [2001, 'FAILED', 'WRONG_PIN'],
  [9999, 'FAILED', 'PROVIDER_ERROR'],
  ['SFC_IC0003', 'FAILED', 'NOT_ALLOWED'],
  ['sfc_ic0003', 'FAILED', 'NOT_ALLOWED'],
  [2028, 'FAILED', 'NOT_ALLOWED'],
  [8006, 'FAILED', 'NOT_ALLOWED'],
  ['C2B00011', 'FAILED', 'PAYER_NOT_FOUND'],
  ['C2B00012', 'FAILED', 'PAYEE_NOT_FOUND'],
  ['C2B00013', 'FAILED', 'AMOUNT_INVALID'],
  ['C2B00014', 'FAILED', 'NOT_ALLOWED'],
  ['C2B00015', 'FAILED', 'PAYEE_NOT_FOUND'],
  ['C2B00016', 'FAILED', 'NOT_ALLOWED'],
  ['500.003.1001', 'AMBIGUOUS', 'PROVIDER_ERROR'],
  ['400.003.01', 'AMBIGUOUS', 'NOT_ALLOWED'],
  ['400.003.02', 'AMBIGUOUS', 'PROVIDER_ERROR'],
  ['500.003.03', 'AMBIGUOUS', 'LIMIT_REACHED'],
  ['500.003.02', 'AMBIGUOUS', 'LIMIT_REACHED'],
  ['404.003.01', 'AMBIGUOUS', 'PROVIDER_ERROR'],
  ['404.001.04', 'AMBIGUOUS', 'NOT_ALLOWED'],
  ['400.002.05', 'AMBIGUOUS', 'PROVIDER_ERROR'],
];

const STATUS_ROWS: [string, TransactionStatus, ReasonCode | undefined][] = [
  ['Completed', 'SUCCEEDED', undefined],
  ['Failed', 'FAILED', 'PROVIDER_ERROR'],
  ['Cancelled', 'FAILED', 'REJECTED_BY_CUSTOMER'],
  ['Expired', 'FAILED', 'TIMED_OUT'],
  ['Declined', 'FAILED', 'NOT_ALLOWED'],
  ['Reversed', 'FAILED', 'PROVIDER_ERROR'],
  ['Pending', 'PENDING', undefined],
  ['Authorised', 'PENDING', undefined],
  ['Something New', 'AMBIGUOUS', 'UNKNOWN'],
];

describe('Daraja result-code mapping', () => {
  it.each(CODE_ROWS)('maps code %s to %s with reason %s', (code, status, reason) => {
    // Act
    const mapped = mapDarajaCode(code, 'any description');
    // Assess
    expect({ status: mapped.status, reason: mapped.reason }).toEqual({ status, reason });
  });

  it('covers every code of the table with a hand-written row', () => {
    const rowCodes = new Set(CODE_ROWS.map(([code]) => String(code).toUpperCase()));
    const untested = Object.keys(DARAJA_CODE_TABLE).filter(
      (code) => code !== '500.001.1001' && !rowCodes.has(code),
    );
    expect(untested).toEqual([]);
  });

  it('treats 500.001.1001 "being processed" as PENDING', () => {
    expect(mapDarajaCode('500.001.1001', 'The transaction is being processed').status).toBe('PENDING');
  });

  it('treats 500.001.1001 with another message (wrong credentials) as AMBIGUOUS, not pending', () => {
    expect(mapDarajaCode('500.001.1001', 'Wrong credentials')).toMatchObject({
      status: 'AMBIGUOUS',
      reason: 'NOT_ALLOWED',
    });
  });

  it('treats an unknown non-zero code as a failure with reason UNKNOWN (seed: any other value is a failure)', () => {
    expect(mapDarajaCode(4242)).toMatchObject({ status: 'FAILED', reason: 'UNKNOWN' });
  });
});

describe('Daraja TransactionStatus mapping (status results)', () => {
  it.each(STATUS_ROWS)('maps TransactionStatus "%s" to %s with reason %s', (value, status, reason) => {
    expect(mapDarajaTransactionStatus(value)).toEqual({ status, reason });
  });
});
