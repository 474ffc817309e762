/**
 * Issue 29 item 1: what a Daraja Pull Transactions answer means. The trap the relay must not fall into:
 * Safaricom answers HTTP 200 with ResponseCode 1001 both for "no transactions" and for a failed pull.
 */
import { describe, expect, it } from 'vitest';
import {
  classifyPullQuery,
  classifyPullRegistration,
  darajaPullDate,
  darajaPullRow,
  parseDarajaTrxDate,
} from '../../../shared/providers/daraja/pull-mapping';

const ok = (json: unknown) => ({ httpStatus: 200, json, garbage: false });

describe('Daraja pull query answers', () => {
  it('reads 1000 with rows as rows, flattening the nested Response list', () => {
    const answer = classifyPullQuery(
      ok({ ResponseCode: '1000', Response: [[{ transactionId: 'QKL1', amount: '10' }]] }),
    );
    expect(answer).toEqual({ type: 'rows', rows: [{ transactionId: 'QKL1', amount: '10' }] });
  });

  it('reads 1001 with the empty list as "no transactions", in either spelling', () => {
    expect(classifyPullQuery(ok({ ResponseCode: '1001', Response: [[]] })).type).toBe('empty');
    expect(classifyPullQuery(ok({ ResponseCode: 1001, Transaction: '[[]]' })).type).toBe('empty');
  });

  it('reads 1001 without a transaction list as a failure, although the HTTP status is 200', () => {
    const answer = classifyPullQuery(
      ok({ ResponseRefID: 'x', ResponseCode: '1001', ResponseMessage: 'Failed' }),
    );
    expect(answer).toMatchObject({ type: 'error', error: 'unavailable', httpStatus: 200 });
    expect(answer.type === 'error' && answer.detail).toContain('failed inside HTTP 200');
  });

  it('reads a 1000 that carries no rows, and any other code, as a failure', () => {
    expect(classifyPullQuery(ok({ ResponseCode: '1000' })).type).toBe('error');
    expect(classifyPullQuery(ok({ ResponseCode: '500', Response: [[]] })).type).toBe('error');
  });

  it('maps an invalid short code (400) to rejected and a refused token to credentials', () => {
    const invalid = classifyPullQuery({
      httpStatus: 400,
      json: { errorCode: '400.001', errorMessage: 'Invalid ShortCode' },
      garbage: false,
    });
    const token = classifyPullQuery({ httpStatus: 401, json: {}, garbage: false });
    expect(invalid).toMatchObject({ type: 'error', error: 'rejected' });
    expect(token).toMatchObject({ type: 'error', error: 'credentials' });
  });
});

describe('Daraja pull registration answers', () => {
  it('takes 1000 (registered) and 1001 (already registered) as registered', () => {
    expect(classifyPullRegistration(ok({ ResponseCode: '1000' }))).toMatchObject({
      type: 'registered',
      alreadyRegistered: false,
    });
    expect(classifyPullRegistration(ok({ ResponseStatus: '1001' }))).toMatchObject({
      type: 'registered',
      alreadyRegistered: true,
    });
  });

  it('refuses any other code', () => {
    expect(classifyPullRegistration(ok({ ResponseCode: '1002' }))).toMatchObject({
      type: 'error',
      error: 'rejected',
    });
  });
});

describe('Daraja pull dates and rows', () => {
  it('writes StartDate/EndDate in East Africa Time', () => {
    expect(darajaPullDate('2026-11-28T21:30:00.000Z')).toBe('2026-11-29 00:30:00');
  });

  it('reads trxDate with a zone, in East Africa Time, and refuses a date that does not exist', () => {
    expect(parseDarajaTrxDate('2020-08-05T10:13:00Z')).toBe('2020-08-05T10:13:00.000Z');
    expect(parseDarajaTrxDate('2020-08-05 13:13:00')).toBe('2020-08-05T10:13:00.000Z');
    expect(parseDarajaTrxDate('20200805131300')).toBe('2020-08-05T10:13:00.000Z');
    expect(parseDarajaTrxDate('2026-02-30 10:00:00')).toBeUndefined();
    expect(parseDarajaTrxDate('yesterday')).toBeUndefined();
  });

  it('maps a row to a payment keyed by its receipt, with the payer masked', () => {
    const row = darajaPullRow(
      {
        transactionId: 'QKL1ABC234',
        trxDate: '2026-11-29T07:00:00Z',
        msisdn: 254722000149,
        transactiontype: 'c2b-pay-bill-debit',
        billreference: 'INV-1',
        amount: '1500.00',
      },
      { ref: 'pull', row: 1 },
      'KES',
    );
    expect(row).toMatchObject({
      providerId: 'QKL1ABC234',
      amountIn: '1500',
      amountOut: '0',
      kind: 'payment',
      externalId: 'INV-1',
    });
    expect(row!.counterparty).not.toContain('722000149');
  });

  it('leaves out a row without a receipt or a readable date', () => {
    expect(
      darajaPullRow({ trxDate: '2026-11-29T07:00:00Z', amount: '1' }, { ref: 'p', row: 1 }, 'KES'),
    ).toBeUndefined();
    expect(
      darajaPullRow({ transactionId: 'A', trxDate: 'soon', amount: '1' }, { ref: 'p', row: 1 }, 'KES'),
    ).toBeUndefined();
  });
});
