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

/**
 * The result-code table of Daraja's M-Pesa Express documentation (developer.safaricom.co.ke, APIs → M-Pesa
 * Express → Result codes), row by row, plus 1001 and 9999 of the older table (provider notes). Written out by
 * hand, independent of the table under test. On STK the customer pays: payer = customer, payee = PartyB.
 */
const STK_DOC_ROWS: [code: string | number, docs: string, TransactionStatus, ReasonCode | undefined][] = [
  [0, 'The service request is processed successfully.', 'SUCCEEDED', undefined],
  [1, "The balance is insufficient: the customer's M-PESA account", 'FAILED', 'INSUFFICIENT_FUNDS'],
  [2, 'Declined due to limit rule: less than the C2B minimum', 'FAILED', 'AMOUNT_INVALID'],
  [3, 'Declined due to limit rule: greater than the maximum transaction amount', 'FAILED', 'LIMIT_REACHED'],
  [
    4,
    "Declined due to limit rule: would exceed the customer's daily transfer limit",
    'FAILED',
    'LIMIT_REACHED',
  ],
  [
    8,
    'Declined due to limit rule: would exceed the pay bill or till maximum balance',
    'FAILED',
    'LIMIT_REACHED',
  ],
  [17, 'Rule limited: same amount, same customer within 2 minutes', 'FAILED', 'DUPLICATE'],
  [1001, 'Unable to lock subscriber (older table)', 'FAILED', 'SUBSCRIBER_BUSY'],
  [1019, 'Transaction has expired', 'FAILED', 'TIMED_OUT'],
  [1025, 'Error sending the push request: prompt over 182 characters', 'FAILED', 'INVALID_REQUEST'],
  [1032, 'Request cancelled by user', 'FAILED', 'REJECTED_BY_CUSTOMER'],
  [1037, 'DS timeout user cannot be reached', 'FAILED', 'UNREACHABLE'],
  [2001, 'The initiator information is invalid: the customer entered a wrong PIN', 'FAILED', 'WRONG_PIN'],
  [
    2028,
    'Not permitted according to product assignment (TransactionType or PartyB)',
    'FAILED',
    'NOT_ALLOWED',
  ],
  [8006, 'The security credential is locked: the customer calls customer care', 'FAILED', 'NOT_ALLOWED'],
  [9999, 'Error sending the push request (older table)', 'FAILED', 'PROVIDER_ERROR'],
  [
    'SFC_IC0003',
    'The operator does not exist: PartyB or TransactionType is wrong',
    'FAILED',
    'PAYEE_NOT_FOUND',
  ],
  ['sfc_ic0003', 'the same, in lower case', 'FAILED', 'PAYEE_NOT_FOUND'],
];

/**
 * The result-code table of Daraja's B2C documentation (APIs → Business To Customer → Result Codes), row by row.
 * On B2C the partner pays: payer = the partner's B2C short code, payee = the customer (PartyB).
 */
const B2C_DOC_ROWS: [code: string | number, docs: string, TransactionStatus, ReasonCode | undefined][] = [
  [0, 'The service request is processed successfully.', 'SUCCEEDED', undefined],
  [1, "The balance is insufficient: the B2C account's utility account", 'FAILED', 'INSUFFICIENT_FUNDS'],
  [2, 'Declined due to limit rule: smaller than the allowed B2C amount', 'FAILED', 'AMOUNT_INVALID'],
  [3, 'Declined due to limit rule: greater than the maximum transaction amount', 'FAILED', 'LIMIT_REACHED'],
  [
    4,
    "Declined due to limit rule: would exceed the customer's daily transfer limit",
    'FAILED',
    'LIMIT_REACHED',
  ],
  [8, "Declined due to limit rule: would exceed the customer's maximum balance", 'FAILED', 'LIMIT_REACHED'],
  [11, 'The DebitParty is in an invalid state: the B2C account is not active', 'FAILED', 'NOT_ALLOWED'],
  [
    21,
    'The initiator is not allowed: the API user lacks the ORG B2C API initiator role',
    'FAILED',
    'INVALID_INITIATOR',
  ],
  [2001, "The initiator information is invalid: the API user's credentials", 'FAILED', 'INVALID_INITIATOR'],
  [2006, 'Declined due to account rule: the B2C account is not active', 'FAILED', 'NOT_ALLOWED'],
  [2028, 'Not permitted according to product assignment: PartyA may not do B2C', 'FAILED', 'NOT_ALLOWED'],
  [
    2040,
    'Credit Party customer type not supported: the customer is not registered',
    'FAILED',
    'PAYEE_NOT_FOUND',
  ],
  [8006, "The security credential is locked: the API user's password", 'FAILED', 'INVALID_INITIATOR'],
  [
    'SFC_IC0003',
    "The operator does not exist: the customer's number is invalid",
    'FAILED',
    'PAYEE_NOT_FOUND',
  ],
];

/** C2B validation codes and platform errors: the same on every result. */
const CODE_ROWS: [string | number, TransactionStatus, ReasonCode | undefined][] = [
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
  // Transitional, not final: a callback or result saying "still under processing" must never fail a payment.
  ['4999', 'PENDING', undefined],
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
 * Where the partner's API operator initiates (status, balance and reversal results), 2001, 21 and 8006 are its
 * credential or role (Daraja API docs: Reversal result codes; B2C FAQ), 11 and 2006 its short code's state.
 */
const CONTEXT_ROWS: [string | number, DarajaResultContext, TransactionStatus, ReasonCode | undefined][] = [
  // Not in the B2C table: Safaricom's Daraja tutorial's unsuccessful B2C sample, "System internal error.".
  ['17', 'b2c', 'FAILED', 'PROVIDER_ERROR'],
  ['2001', 'status', 'FAILED', 'INVALID_INITIATOR'],
  ['2001', 'balance', 'FAILED', 'INVALID_INITIATOR'],
  ['2001', 'reversal', 'FAILED', 'INVALID_INITIATOR'],
  ['21', 'status', 'FAILED', 'INVALID_INITIATOR'],
  ['21', 'balance', 'FAILED', 'INVALID_INITIATOR'],
  ['21', 'reversal', 'FAILED', 'INVALID_INITIATOR'],
  ['8006', 'status', 'FAILED', 'INVALID_INITIATOR'],
  ['8006', 'balance', 'FAILED', 'INVALID_INITIATOR'],
  ['8006', 'reversal', 'FAILED', 'INVALID_INITIATOR'],
  ['11', 'status', 'FAILED', 'NOT_ALLOWED'],
  ['11', 'balance', 'FAILED', 'NOT_ALLOWED'],
  ['11', 'reversal', 'FAILED', 'NOT_ALLOWED'],
  ['2006', 'status', 'FAILED', 'NOT_ALLOWED'],
  ['2006', 'balance', 'FAILED', 'NOT_ALLOWED'],
  ['2006', 'reversal', 'FAILED', 'NOT_ALLOWED'],
  ['R000001', 'reversal', 'FAILED', 'DUPLICATE'],
  ['R000002', 'reversal', 'FAILED', 'INVALID_REQUEST'],
];

describe('Daraja result-code mapping', () => {
  it.each(STK_DOC_ROWS)(
    'maps M-Pesa Express ResultCode %s (%s) to %s with reason %s',
    (code, _docs, status, reason) => {
      // Act
      const mapped = mapDarajaCode(code, 'any description', 'stk');
      // Assess
      expect({ status: mapped.status, reason: mapped.reason }).toEqual({ status, reason });
    },
  );

  it.each(B2C_DOC_ROWS)('maps B2C ResultCode %s (%s) to %s with reason %s', (code, _docs, status, reason) => {
    // Act
    const mapped = mapDarajaCode(code, 'any description', 'b2c');
    // Assess
    expect({ status: mapped.status, reason: mapped.reason }).toEqual({ status, reason });
  });

  it('gives no code of either documented table the reason UNKNOWN', () => {
    // Act
    const unknown = [
      ...STK_DOC_ROWS.map(([code]) => ['stk', code] as const),
      ...B2C_DOC_ROWS.map(([code]) => ['b2c', code] as const),
    ].filter(([context, code]) => mapDarajaCode(code, undefined, context).reason === 'UNKNOWN');
    // Assess
    expect(unknown).toEqual([]);
  });

  it('keeps cancelled by the user, phone unreachable and expired apart (1032, 1037, 1019)', () => {
    const reasons = [1032, 1037, 1019].map((code) => mapDarajaCode(code, undefined, 'stk').reason);
    expect(reasons).toEqual(['REJECTED_BY_CUSTOMER', 'UNREACHABLE', 'TIMED_OUT']);
  });

  it.each(CODE_ROWS)('maps code %s to %s with reason %s on every result', (code, status, reason) => {
    for (const context of ['stk', 'b2c', 'status', 'balance', 'reversal'] as const) {
      const mapped = mapDarajaCode(code, 'any description', context);
      expect({ status: mapped.status, reason: mapped.reason }).toEqual({ status, reason });
    }
  });

  it.each(CONTEXT_ROWS)('maps code %s on %s to %s with reason %s', (code, context, status, reason) => {
    const mapped = mapDarajaCode(code, 'The initiator information is invalid.', context);
    expect({ status: mapped.status, reason: mapped.reason }).toEqual({ status, reason });
  });

  it("never reads 2001 on a B2C or status result as the customer's PIN", () => {
    expect(mapDarajaCode(2001, undefined, 'b2c').reason).not.toBe('WRONG_PIN');
    expect(mapDarajaCode(2001, undefined, 'status').reason).not.toBe('WRONG_PIN');
  });

  it('covers every context-specific code with a hand-written row', () => {
    const rows = new Set([
      ...CONTEXT_ROWS.map(([code, context]) => `${context}:${String(code)}`),
      ...B2C_DOC_ROWS.map(([code]) => `b2c:${String(code)}`),
    ]);
    const untested = Object.entries(DARAJA_CONTEXT_CODES).flatMap(([context, codes]) =>
      Object.keys(codes)
        .map((code) => `${context}:${code}`)
        .filter((key) => !rows.has(key)),
    );
    expect(untested).toEqual([]);
  });

  it('covers every code of the table with a hand-written row', () => {
    const rowCodes = new Set([...CODE_ROWS, ...STK_DOC_ROWS].map(([code]) => String(code).toUpperCase()));
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

  it('never fails a payment on an unknown non-zero code: AMBIGUOUS with reason UNKNOWN, on every result', () => {
    // Act
    const mapped = (['stk', 'b2c', 'status', 'balance', 'reversal'] as const).map((context) =>
      mapDarajaCode(4242, 'Something new', context),
    );

    // Assess
    for (const mapping of mapped) expect(mapping).toMatchObject({ status: 'AMBIGUOUS', reason: 'UNKNOWN' });
  });
});

describe('Daraja TransactionStatus mapping (status results)', () => {
  it.each(STATUS_ROWS)('maps TransactionStatus "%s" to %s with reason %s', (value, status, reason) => {
    expect(mapDarajaTransactionStatus(value)).toEqual({ status, reason });
  });
});
