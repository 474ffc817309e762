import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ReasonCode } from '../../../../shared/domain/reasons';
import type { TransactionStatus } from '../../../../shared/domain/status';
import {
  AIRTEL_MESSAGE_PHRASES,
  AIRTEL_RESULT_CODES,
  AIRTEL_STATUS_TABLE,
  decideAirtelOutcome,
  findResultCode,
  reasonFromMessage,
} from '../../../../shared/providers/airtel/mapping';

type Row = [code: string, status: TransactionStatus, reason: ReasonCode | undefined];

/** Written out by hand from the Airtel Money Open API documentation and the provider notes, not derived from the code's table. */
const STATUS_ROWS: Row[] = [
  ['TS', 'SUCCEEDED', undefined],
  ['TF', 'FAILED', 'UNKNOWN'],
  ['TA', 'AMBIGUOUS', undefined],
  ['TIP', 'PENDING', undefined],
  // "Transaction initiated": what production enquiries answer before TS/TF (README, "Status and reason mapping").
  ['TI', 'PENDING', undefined],
  ['TE', 'FAILED', 'TIMED_OUT'],
];

/** Each result code on its own (status_code is the code itself), and its reason under TF. */
const RESULT_ROWS: [code: string, alone: TransactionStatus, reasonWithTf: ReasonCode][] = [
  ['DP00800001000', 'AMBIGUOUS', 'UNKNOWN'],
  ['DP00800001001', 'SUCCEEDED', 'UNKNOWN'],
  ['DP00800001002', 'FAILED', 'WRONG_PIN'],
  ['DP00800001003', 'FAILED', 'LIMIT_REACHED'],
  ['DP00800001004', 'FAILED', 'AMOUNT_INVALID'],
  ['DP00800001005', 'FAILED', 'TIMED_OUT'],
  ['DP00800001006', 'PENDING', 'UNKNOWN'],
  ['DP00800001007', 'FAILED', 'INSUFFICIENT_FUNDS'],
  ['DP00800001008', 'FAILED', 'REJECTED_BY_CUSTOMER'],
  // "Do not honor", Airtel's collection error-code page: a refusal whose cause the message may name.
  ['DP00800001009', 'FAILED', 'UNKNOWN'],
  ['DP00800001010', 'FAILED', 'NOT_ALLOWED'],
  ['DP00800001024', 'FAILED', 'TIMED_OUT'],
  ['DP00800001025', 'AMBIGUOUS', 'UNKNOWN'],
  ['DP00800001026', 'FAILED', 'NOT_ALLOWED'],
  ['DP00800001029', 'FAILED', 'TIMED_OUT'],
  ['DP02010001000', 'FAILED', 'PROVIDER_ERROR'],
  ['DP02010001001', 'PENDING', 'UNKNOWN'],
  // Disbursement codes: Airtel's disbursement error-code page (README, "Disbursement result codes").
  ['DP00900001000', 'AMBIGUOUS', 'UNKNOWN'],
  ['DP00900001001', 'SUCCEEDED', 'UNKNOWN'],
  ['DP00900001003', 'FAILED', 'LIMIT_REACHED'],
  ['DP00900001004', 'FAILED', 'AMOUNT_INVALID'],
  ['DP00900001005', 'FAILED', 'UNKNOWN'],
  ['DP00900001006', 'PENDING', 'UNKNOWN'],
  ['DP00900001007', 'FAILED', 'INSUFFICIENT_FUNDS'],
  ['DP00900001009', 'FAILED', 'INVALID_INITIATOR'],
  ['DP00900001010', 'FAILED', 'NOT_ALLOWED'],
  ['DP00900001011', 'FAILED', 'DUPLICATE'],
  ['DP00900001012', 'FAILED', 'PAYEE_NOT_FOUND'],
  ['DP00900001013', 'FAILED', 'INVALID_REQUEST'],
  // "May be processed or failed … do the transaction enquiry": never a failure on its own.
  ['DP00900001014', 'AMBIGUOUS', 'TIMED_OUT'],
  ['DP00900001015', 'AMBIGUOUS', 'UNKNOWN'],
  ['DP00900001016', 'FAILED', 'NOT_ALLOWED'],
  // A duplicate transaction id: the id is the original's, which may have gone through.
  ['DP00900001017', 'AMBIGUOUS', 'DUPLICATE'],
  ['DP00900001018', 'FAILED', 'NOT_ALLOWED'],
];

const outcome = (statusCode: string, message?: string, resultCodes: string[] = []) =>
  decideAirtelOutcome({ statusCode, message, resultCodes });

describe('Airtel status codes', () => {
  it.each(STATUS_ROWS)('maps %s to %s (reason %s)', (code, status, reason) => {
    expect(outcome(code)).toEqual({ status, reason, resultCode: undefined });
  });

  it.each(STATUS_ROWS)('maps lower-case %s the same way', (code, status) => {
    expect(outcome(` ${code.toLowerCase()} `).status).toBe(status);
  });

  it('has a test row for every status in the table', () => {
    expect(Object.keys(AIRTEL_STATUS_TABLE).sort()).toEqual(STATUS_ROWS.map((r) => r[0]).sort());
  });
});

describe('Airtel result codes', () => {
  it.each(RESULT_ROWS)('maps %s on its own to %s', (code, alone, reasonWithTf) => {
    const got = outcome(code);
    expect(got.status).toBe(alone);
    expect(got.reason).toBe(alone === 'FAILED' ? reasonWithTf : undefined);
    expect(got.resultCode).toBe(code);
  });

  it.each(RESULT_ROWS)('gives %s under TF the reason %s', (code, _alone, reasonWithTf) => {
    expect(outcome('TF', undefined, [code])).toEqual({
      status: 'FAILED',
      reason: reasonWithTf,
      resultCode: code,
    });
  });

  it('has a test row for every result code in the table', () => {
    expect(Object.keys(AIRTEL_RESULT_CODES).sort()).toEqual(RESULT_ROWS.map((r) => r[0]).sort());
  });

  it('leaves ESB000045 non-final: the sources do not define it (README, note 6)', () => {
    // On its own: AMBIGUOUS, so the enquiry is asked; no DP… code is read from it.
    expect(outcome('ESB000045')).toEqual({ status: 'AMBIGUOUS', reason: undefined, resultCode: undefined });
    expect(outcome('SUCCESS', 'ESB000045', ['ESB000045']).status).toBe('AMBIGUOUS');
    // With TF the status decides, the reason from the message or UNKNOWN.
    expect(outcome('TF', undefined, ['ESB000045'])).toEqual({
      status: 'FAILED',
      reason: 'UNKNOWN',
      resultCode: undefined,
    });
  });
});

/** The README's result code table: code, status on its own, reason when FAILED (first word of each cell). */
function readmeResultRows(): Array<{ code: string; alone: string; reason: string }> {
  const readme = readFileSync(
    new URL('../../../../shared/providers/airtel/README.md', import.meta.url),
    'utf8',
  );
  return readme
    .split('\n')
    .filter((line) => /^\| (DP|ESB)\d+ /.test(line))
    .map((line) => {
      const [code, , alone, reason] = line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim());
      return { code: code!, alone: alone!.split(' ')[0]!, reason: reason!.split(' ')[0]! };
    });
}

describe("the Airtel README's result code table", () => {
  it('says what the mapping does, row by row, ESB000045 included', () => {
    // Prepare
    const rows = readmeResultRows();

    // Act: each code on its own, and under TF ("none" and "from the message" are UNKNOWN without a message).
    const found = rows.map(({ code }) => ({
      code,
      alone: outcome(code).status,
      reason: outcome('TF', undefined, [code]).reason,
    }));

    // Assess
    expect(rows.map((r) => r.code)).toContain('ESB000045');
    expect(rows.map((r) => r.code).sort()).toEqual([...Object.keys(AIRTEL_RESULT_CODES), 'ESB000045'].sort());
    expect(found).toEqual(
      rows.map(({ code, alone, reason }) => ({
        code,
        alone,
        reason: /^[A-Z_]+$/.test(reason) ? reason : 'UNKNOWN',
      })),
    );
  });
});

describe('Airtel status decisions', () => {
  it('treats SUCCESS with DP00800001006 as in progress, not paid', () => {
    expect(outcome('SUCCESS', undefined, ['DP00800001006']).status).toBe('PENDING');
  });

  it('treats a bare SUCCESS (request accepted) as ambiguous', () => {
    expect(outcome('SUCCESS')).toEqual({ status: 'AMBIGUOUS', reason: undefined, resultCode: undefined });
  });

  it('treats an unknown status code as ambiguous', () => {
    expect(outcome('XX').status).toBe('AMBIGUOUS');
  });

  it('treats an unknown result code on its own as ambiguous', () => {
    expect(outcome('DP00800001099').status).toBe('AMBIGUOUS');
  });

  it('lets the transaction status win over a result code that disagrees', () => {
    expect(outcome('TS', 'DP00800001006 in process').status).toBe('SUCCEEDED');
  });

  it('reads a result code named in the message', () => {
    expect(outcome('TF', 'DP00800001002: Incorrect PIN entered')).toEqual({
      status: 'FAILED',
      reason: 'WRONG_PIN',
      resultCode: 'DP00800001002',
    });
  });

  it('prefers the result code over the message phrase', () => {
    expect(outcome('TF', 'insufficient balance', ['DP00800001003']).reason).toBe('LIMIT_REACHED');
  });

  it('falls back to the message phrase when there is no result code', () => {
    expect(outcome('TF', 'Transaction failed: insufficient balance').reason).toBe('INSUFFICIENT_FUNDS');
  });

  it('falls back to UNKNOWN for a failure nothing explains', () => {
    expect(outcome('TF', 'Something went wrong').reason).toBe('UNKNOWN');
  });

  it('keeps TE timed out unless a result code says otherwise', () => {
    expect(outcome('TE', 'insufficient balance').reason).toBe('TIMED_OUT');
    expect(outcome('TE', undefined, ['DP00800001007']).reason).toBe('INSUFFICIENT_FUNDS');
  });
});

describe('findResultCode', () => {
  it.each([
    ['DP00800001007', 'DP00800001007'],
    ['dp00800001007', 'DP00800001007'],
    ['Error DP00800001002: wrong', 'DP00800001002'],
    ['DP008000010070', undefined],
    ['DP0080000100', undefined],
    ['', undefined],
  ])('finds the code in %j', (text, want) => {
    expect(findResultCode(text)).toBe(want);
  });
});

describe('Airtel message phrases', () => {
  /** Messages as the provider writes them, each mapped by hand. */
  const MESSAGES: [message: string, reason: ReasonCode][] = [
    ['Transaction failed: insufficient balance', 'INSUFFICIENT_FUNDS'],
    ['Insufficient funds', 'INSUFFICIENT_FUNDS'],
    ['Not enough balance', 'INSUFFICIENT_FUNDS'],
    ['not enough funds in wallet', 'INSUFFICIENT_FUNDS'],
    ['Low balance', 'INSUFFICIENT_FUNDS'],
    ['Incorrect PIN entered', 'WRONG_PIN'],
    ['Invalid PIN', 'WRONG_PIN'],
    ['Wrong pin', 'WRONG_PIN'],
    ['User did not enter the PIN', 'TIMED_OUT'],
    ["User didn't enter the pin.", 'TIMED_OUT'],
    ['User wallet does not have enough money to cover the payable amount.', 'INSUFFICIENT_FUNDS'],
    ['Transaction with similar information already exists in this system.', 'DUPLICATE'],
    ['Wallet transaction limit exceeded', 'LIMIT_REACHED'],
    ['Invalid amount', 'AMOUNT_INVALID'],
    ['Amount below the minimum allowed', 'AMOUNT_INVALID'],
    ['Duplicate transaction id', 'DUPLICATE'],
    ['Transaction timed out', 'TIMED_OUT'],
    ['Request timeout', 'TIMED_OUT'],
    ['Transaction expired', 'TIMED_OUT'],
    ['Refused', 'REJECTED_BY_CUSTOMER'],
    ['Rejected by user', 'REJECTED_BY_CUSTOMER'],
    ['Payment declined', 'REJECTED_BY_CUSTOMER'],
    ['Cancelled by customer', 'REJECTED_BY_CUSTOMER'],
    ['Canceled', 'REJECTED_BY_CUSTOMER'],
    ['Transaction not permitted to payee', 'NOT_ALLOWED'],
    ['Not allowed', 'NOT_ALLOWED'],
    ['Subscriber barred', 'NOT_ALLOWED'],
    ['Payee churned', 'NOT_ALLOWED'],
    ['x-signature and payload did not match', 'NOT_ALLOWED'],
    ['Forbidden', 'NOT_ALLOWED'],
  ];

  it.each(MESSAGES)('maps %j to %s', (message, reason) => {
    expect(reasonFromMessage(message)).toBe(reason);
  });

  it('has a message row for every phrase in the table', () => {
    for (const [phrase] of AIRTEL_MESSAGE_PHRASES) {
      expect(
        MESSAGES.some(([m]) => m.toLowerCase().includes(phrase)),
        phrase,
      ).toBe(true);
    }
  });

  it('maps a message with no known phrase to nothing', () => {
    expect(reasonFromMessage('Paid UGX 5,000 to MERCHANT')).toBeUndefined();
    expect(reasonFromMessage(undefined)).toBeUndefined();
  });
});
