import { describe, expect, it } from 'vitest';
import type { ReasonCode } from '../../../../shared/domain/reasons';
import type { TransactionStatus } from '../../../../shared/domain/status';
import {
  DARAJA_CODE_TABLE,
  DARAJA_CONTEXT_CODES,
  type DarajaResultContext,
  mapDarajaCode,
  mapDarajaTransactionStatus,
} from '../../../../shared/providers/daraja/mapping';

// Written out by hand from the Daraja API documentation and the provider notes, independent of the table under test.
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

/**
 * Codes whose meaning depends on the result that carries them. 2001, Daraja API docs: "invalid initiator information
 * (wrong credential or wrong PIN)". On STK the customer enters a PIN; on B2C and status results the initiator
 * is the partner's API operator (InitiatorName / Initiator + SecurityCredential).
 */
const CONTEXT_ROWS: [string | number, DarajaResultContext, TransactionStatus, ReasonCode | undefined][] = [
  [2001, 'stk', 'FAILED', 'WRONG_PIN'],
  [2001, 'b2c', 'FAILED', 'INVALID_INITIATOR'],
  ['2001', 'status', 'FAILED', 'INVALID_INITIATOR'],
  ['2001', 'balance', 'FAILED', 'INVALID_INITIATOR'],
  ['2001', 'reversal', 'FAILED', 'INVALID_INITIATOR'],
  ['R000001', 'reversal', 'FAILED', 'DUPLICATE'],
  ['R000002', 'reversal', 'FAILED', 'INVALID_REQUEST'],
];

describe('Daraja result-code mapping', () => {
  it.each(CODE_ROWS)('maps code %s to %s with reason %s on STK', (code, status, reason) => {
    // Act
    const mapped = mapDarajaCode(code, 'any description', 'stk');
    // Assess
    expect({ status: mapped.status, reason: mapped.reason }).toEqual({ status, reason });
  });

  it.each(CODE_ROWS.filter(([code]) => String(code) !== '2001'))(
    'maps code %s the same on B2C and status results',
    (code, status, reason) => {
      for (const context of ['b2c', 'status'] as const) {
        const mapped = mapDarajaCode(code, 'any description', context);
        expect({ status: mapped.status, reason: mapped.reason }).toEqual({ status, reason });
      }
    },
  );

  it.each(CONTEXT_ROWS)('maps code %s on %s to %s with reason %s', (code, context, status, reason) => {
    const mapped = mapDarajaCode(code, 'The initiator information is invalid.', context);
    expect({ status: mapped.status, reason: mapped.reason }).toEqual({ status, reason });
  });

  it("never reads 2001 on a B2C or status result as the customer's PIN", () => {
    expect(mapDarajaCode(2001, undefined, 'b2c').reason).not.toBe('WRONG_PIN');
    expect(mapDarajaCode(2001, undefined, 'status').reason).not.toBe('WRONG_PIN');
  });

  it('covers every context-specific code with a hand-written row', () => {
    const rows = new Set(CONTEXT_ROWS.map(([code, context]) => `${context}:${String(code)}`));
    const untested = Object.entries(DARAJA_CONTEXT_CODES).flatMap(([context, codes]) =>
      Object.keys(codes)
        .map((code) => `${context}:${code}`)
        .filter((key) => !rows.has(key)),
    );
    expect(untested).toEqual([]);
  });

  it('covers every code of the table with a hand-written row', () => {
    const rowCodes = new Set(CODE_ROWS.map(([code]) => String(code).toUpperCase()));
    const untested = Object.keys(DARAJA_CODE_TABLE).filter(
      (code) => code !== '500.001.1001' && !rowCodes.has(code),
    );
    expect(untested).toEqual([]);
  });

  it('treats 500.001.1001 "being processed" as PENDING', () => {
    expect(mapDarajaCode('500.001.1001', 'The transaction is being processed', 'status').status).toBe(
      'PENDING',
    );
  });

  it('treats 500.001.1001 with another message (wrong credentials) as AMBIGUOUS, not pending', () => {
    expect(mapDarajaCode('500.001.1001', 'Wrong credentials', 'status')).toMatchObject({
      status: 'AMBIGUOUS',
      reason: 'NOT_ALLOWED',
    });
  });

  it('treats an unknown non-zero code as a failure with reason UNKNOWN (docs: any other value is a failure)', () => {
    expect(mapDarajaCode(4242, undefined, 'stk')).toMatchObject({ status: 'FAILED', reason: 'UNKNOWN' });
  });
});

describe('Daraja TransactionStatus mapping (status results)', () => {
  it.each(STATUS_ROWS)('maps TransactionStatus "%s" to %s with reason %s', (value, status, reason) => {
    expect(mapDarajaTransactionStatus(value)).toEqual({ status, reason });
  });
});
