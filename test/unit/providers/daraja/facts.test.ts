import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SchemaValidationError } from '../../../../shared/domain/errors';
import {
  parseAccountBalance,
  parseBalanceResult,
  parseBalanceTimeout,
  parseReversalResult,
  parseReversalTimeout,
} from '../../../../shared/providers/daraja/facts';
import { darajaAccountSchema } from '../../../../shared/providers/daraja/schema';
import type { CallbackInput, FactIntent, ParsedCallback } from '../../../../shared/providers/types';

const fixture = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(join(import.meta.dirname, '../../../fixtures/daraja', `${name}.json`), 'utf8'));

const settings = darajaAccountSchema.parse({ shortCode: '600638' });

function input(body: Record<string, unknown>): CallbackInput<typeof settings> {
  return {
    account: { provider: 'daraja', id: 'ke', pathSecret: undefined, settings },
    route: 'test',
    params: {},
    body,
    rawBody: Buffer.from(JSON.stringify(body)),
    headers: {},
    sourceIp: '196.201.214.200',
  };
}

function onlyFact(parsed: ParsedCallback): FactIntent {
  if (parsed.type !== 'reports') throw new Error('not a report');
  expect(parsed.reports).toEqual([]);
  expect(parsed.facts).toHaveLength(1);
  return parsed.facts![0]!;
}

describe('parseAccountBalance', () => {
  it('reads each &-separated account as name, currency and four amounts', () => {
    // Act
    const accounts = parseAccountBalance(
      'Working Account|KES|700000.00|699000.50|1000.00|0.00&Float Account|KES|0.00',
    );
    // Assess
    expect(accounts).toEqual([
      {
        name: 'Working Account',
        currency: 'KES',
        current: '700000',
        available: '699000.5',
        reserved: '1000',
        uncleared: '0',
      },
      {
        name: 'Float Account',
        currency: 'KES',
        current: '0',
        available: null,
        reserved: null,
        uncleared: null,
      },
    ]);
  });

  it('keeps negative balances (the charges-paid account)', () => {
    expect(parseAccountBalance('Charges Paid Account|KES|-1540.00|-1540.00|0.00|0.00')[0]?.current).toBe(
      '-1540',
    );
  });

  it.each([
    ['an empty string', ''],
    ['a segment without currency', 'Working Account'],
    ['a lower-case currency', 'Working Account|kes|1.00'],
    ['an amount that is not a number', 'Working Account|KES|lots'],
    ['a second amount that is not a number', 'Working Account|KES|1.00|n/a'],
    ['a nameless account', '|KES|1.00'],
  ])('refuses %s', (_what, value) => {
    expect(() => parseAccountBalance(value)).toThrow(SchemaValidationError);
  });

  it('refuses a string listing more than 50 accounts', () => {
    const many = Array.from({ length: 51 }, (_, i) => `A${i}|KES|1.00`).join('&');
    expect(() => parseAccountBalance(many)).toThrow(/over 50 accounts/);
  });

  it('parses or refuses any string with a SchemaValidationError, never anything else', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (value) => {
        try {
          const accounts = parseAccountBalance(value);
          expect(accounts.length).toBeGreaterThan(0);
        } catch (error) {
          expect(error).toBeInstanceOf(SchemaValidationError);
        }
      }),
    );
  });
});

describe('Daraja balance and reversal parsers', () => {
  it('turns a balance result into one AccountBalanceReported fact keyed by its OriginatorConversationID', () => {
    const fact = onlyFact(parseBalanceResult(input(fixture('balance-result-success'))));
    expect(fact).toMatchObject({
      event: 'AccountBalanceReported',
      namespace: 'account-balance',
      id: '16917-22577599-3',
    });
    expect(fact.data.accounts).toHaveLength(5);
  });

  it('refuses a successful balance result without an AccountBalance', () => {
    const body = fixture('balance-result-success') as { Result: { ResultParameters: unknown } };
    body.Result.ResultParameters = { ResultParameter: [{ Key: 'BOCompletedTime', Value: 20200109125710 }] };
    expect(() => parseBalanceResult(input(body))).toThrow(/no AccountBalance/);
  });

  it('names the receipt of a reversal as the way to its transaction, receipt alias first', () => {
    const fact = onlyFact(parseReversalResult(input(fixture('reversal-result-success'))));
    expect(fact.event).toBe('TransactionReversed');
    expect(fact.about?.slice(0, 2)).toEqual([
      { via: 'receipt', value: 'NLJ7RT61SV' },
      { via: 'reference', value: 'NLJ7RT61SV' },
    ]);
    expect(fact.amount).toEqual({ value: '1', currency: 'KES' });
  });

  it("reads 2001 on a reversal as the partner's initiator, not a customer's PIN", () => {
    const body = fixture('reversal-result-failure') as { Result: Record<string, unknown> };
    body.Result.ResultCode = 2001;
    const fact = onlyFact(parseReversalResult(input(body)));
    expect(fact.data.reason).toMatchObject({ code: 'INVALID_INITIATOR', providerCode: '2001' });
  });

  it('keys a result-shaped reversal timeout by its ids and marks it superseded by the result', () => {
    const notice = {
      Result: {
        ResultType: 1,
        ResultCode: 1037,
        ResultDesc: 'The request timed out in the queue.',
        OriginatorConversationID: 'OC-9',
        ConversationID: 'AG-9',
        TransactionID: 'XYZ0000000',
      },
    };
    const fact = onlyFact(parseReversalTimeout(input(notice)));
    expect(fact).toMatchObject({
      event: 'ReversalAmbiguous',
      id: 'OC-9',
      aliases: ['AG-9'],
      supersededBy: [
        { namespace: 'reversal', id: 'OC-9' },
        { namespace: 'reversal', id: 'AG-9' },
      ],
      data: { originalReceipt: null, reason: { code: 'TIMED_OUT', providerCode: '1037' } },
    });
  });

  it('keys an id-less balance timeout echo by its bytes, so a repeat is the same fact', () => {
    const first = onlyFact(parseBalanceTimeout(input(fixture('balance-timeout-echo'))));
    const again = onlyFact(parseBalanceTimeout(input(fixture('balance-timeout-echo'))));
    const other = onlyFact(
      parseBalanceTimeout(input({ ...fixture('balance-timeout-echo'), Remarks: 'other' })),
    );
    expect(first.id).toMatch(/^echo-[0-9a-f]{32}$/);
    expect(again.id).toBe(first.id);
    expect(other.id).not.toBe(first.id);
    expect(first.supersededBy).toEqual([]);
  });

  it('refuses a timeout notice that is neither a Result nor an echo with ids', () => {
    expect(() => parseReversalTimeout(input({ hello: 'world' }))).toThrow(SchemaValidationError);
    expect(() => parseBalanceTimeout(input({ CommandID: 'Something' }))).toThrow(SchemaValidationError);
  });
});
