/**
 * The one CSV writer (shared/util/csv.ts toCsv) every export uses, the day's close included: RFC 4180
 * quoting, formulas defused, plain numbers (negative ones too) left numbers a spreadsheet can add up.
 */
import { describe, expect, it } from 'vitest';
import { closeCsv } from '../../../shared/app/statements/close-day';
import type { DailyCloseReport } from '../../../shared/domain/statement';
import { toCsv } from '../../../shared/util/csv';

describe('the one CSV writer', () => {
  it('quotes commas, quotes and line breaks, and prefixes a formula with an apostrophe', () => {
    // Act
    const csv = toCsv(
      ['a', 'b'],
      [
        ['x,y', 'say "hi"\nbye'],
        ['=HYPERLINK("x")', '-1+1'],
        ['+2', '@SUM(A1)'],
      ],
    );
    // Assess
    expect(csv).toBe(
      ['a,b', '"x,y","say ""hi""\nbye"', `"'=HYPERLINK(""x"")",'-1+1`, `'+2,'@SUM(A1)`, ''].join('\r\n'),
    );
  });

  it('quotes a cell holding a semicolon or a tab, so that no spreadsheet splitting on them starts a formula cell there', () => {
    // Act
    const csv = toCsv(['a'], [['ACC-1;=1+1'], ['x\t@SUM(A1)']]);
    // Assess
    expect(csv).toBe('a\r\n"ACC-1;=1+1"\r\n"x\t@SUM(A1)"\r\n');
  });

  it('leaves a plain number a number, a negative one included', () => {
    // Act
    const csv = toCsv(
      ['amount', 'drift', 'count'],
      [
        ['12.50', '-100', 3],
        [null, undefined, -7],
      ],
    );
    // Assess
    expect(csv).toBe('amount,drift,count\r\n12.50,-100,3\r\n,,-7\r\n');
  });

  it("writes the day's close through it: a negative drift stays a number, a formula in a detail is defused", () => {
    // Prepare
    const report: DailyCloseReport = {
      provider: 'daraja',
      account: 'ke',
      day: '2026-11-20',
      timeZone: 'Africa/Nairobi',
      state: 'closed',
      closedAt: '2026-11-21T06:00:00.000Z',
      closedBecause: 'sla-passed',
      sources: [],
      verdicts: {},
      rows: {
        payments: 0,
        matched: 0,
        unmatched: 0,
        fees: { count: 0, amount: '0' },
        reversals: 0,
        other: 0,
        amountIn: '0',
        amountOut: '0',
      },
      lateResolutions: 0,
      matchRate: { matched: 0, toMatch: 0, rate: null },
      breaks: [
        {
          id: 'b1',
          provider: 'daraja',
          account: 'ke',
          day: '2026-11-20',
          category: 'balance-drift',
          detectedAt: '2026-11-21T06:00:00.000Z',
          amount: '100',
          expected: '0',
          actual: '-100',
          detail: '-1+1 drift, "see ledger"',
          ageSeconds: 0,
        },
      ],
      retired: [],
    };
    // Act
    const lines = closeCsv(report).split('\r\n');
    // Assess: the summary, a blank line, the breaks' header, the break.
    expect(lines[0]).toBe(
      'provider,account,day,state,matched,toMatch,matchRate,payments,fees,feeAmount,lateResolutions,breaks',
    );
    expect(lines[1]).toBe('daraja,ke,2026-11-20,closed,0,0,,0,0,0,0,1');
    expect(lines[2]).toBe('');
    expect(lines[4]).toBe(`b1,balance-drift,0,,,100,0,-100,"'-1+1 drift, ""see ledger"""`);
  });
});
