import { describe, expect, it } from 'vitest';
import {
  ACCOUNT_DAY_SLACK_SECONDS,
  accountDayEntryIn,
  accountDayKeyTime,
  accountDayRangeStart,
} from '../../../shared/adapters/dynamodb/table';

/**
 * The account-day slack as one rule (shared/adapters/dynamodb/table.ts, docs/table-design.md#the-account-
 * day-slack): the writer's key and the reader's range agree, without DynamoDB (the store's use of the rule
 * on DynamoDB Local is test/integration/account-day-index.test.ts).
 */
const SLACK_MS = ACCOUNT_DAY_SLACK_SECONDS * 1000;
const plus = (at: string, ms: number) => new Date(Date.parse(at) + ms).toISOString();
const CREATED = '2026-11-24T20:55:00.000Z';

describe('the account-day key of a transaction', () => {
  it('keeps the creation for a verdict within the slack, the verdict after it', () => {
    expect(ACCOUNT_DAY_SLACK_SECONDS).toBe(900);
    expect(accountDayKeyTime(CREATED, CREATED, false)).toBe(CREATED);
    expect(accountDayKeyTime(plus(CREATED, 10 * 60_000), CREATED, false)).toBe(CREATED);
    expect(accountDayKeyTime(plus(CREATED, SLACK_MS), CREATED, false)).toBe(CREATED);
    expect(accountDayKeyTime(plus(CREATED, SLACK_MS + 1000), CREATED, false)).toBe(
      plus(CREATED, SLACK_MS + 1000),
    );
  });

  it("is the day time itself when it comes from the provider's records or precedes the creation", () => {
    expect(accountDayKeyTime(plus(CREATED, 60_000), CREATED, true)).toBe(plus(CREATED, 60_000));
    expect(accountDayKeyTime(plus(CREATED, -60_000), CREATED, false)).toBe(plus(CREATED, -60_000));
  });
});

describe('the reader of a range of day times', () => {
  const from = '2026-11-24T21:00:00.000Z';
  const to = '2026-11-25T21:00:00.000Z';

  it('queries from the slack before the range', () => {
    expect(accountDayRangeStart(from)).toBe(plus(from, -SLACK_MS));
  });

  it('takes open entries by their key, and asks the item of a final entry keyed within the slack of an edge', () => {
    expect(accountDayEntryIn(plus(from, -1000), false, from, to)).toBe('out');
    expect(accountDayEntryIn(from, false, from, to)).toBe('in');
    expect(accountDayEntryIn(plus(to, -1000), false, from, to)).toBe('in');
    expect(accountDayEntryIn(to, false, from, to)).toBe('out');
    expect(accountDayEntryIn(plus(from, -1000), true, from, to)).toBe('ask');
    expect(accountDayEntryIn(from, true, from, to)).toBe('in');
    expect(accountDayEntryIn(plus(to, -SLACK_MS - 1000), true, from, to)).toBe('in');
    expect(accountDayEntryIn(plus(to, -SLACK_MS), true, from, to)).toBe('ask');
    expect(accountDayEntryIn(to, true, from, to)).toBe('out');
  });

  it('answers, for every key the writer gives, whether the day time is in the range: never wrong, asking only near an edge', () => {
    // Prepare: creations around both edges, verdicts at every lag around the slack, open ones, and day
    // times from the provider's records before and after the creation.
    const edges = [from, to];
    const offsets = [
      -2 * SLACK_MS,
      -SLACK_MS - 1000,
      -SLACK_MS,
      -SLACK_MS + 1000,
      -60_000,
      -1,
      0,
      1,
      60_000,
      SLACK_MS,
    ];
    const lags = [0, 1000, SLACK_MS - 1000, SLACK_MS, SLACK_MS + 1000, 2 * SLACK_MS, -60_000];
    const cases: { createdAt: string; dayAt: string; final: boolean; fromRecords: boolean }[] = [];
    for (const edge of edges)
      for (const offset of offsets) {
        const createdAt = plus(edge, offset);
        cases.push({ createdAt, dayAt: createdAt, final: false, fromRecords: false });
        for (const lag of lags)
          for (const fromRecords of [false, true])
            cases.push({ createdAt, dayAt: plus(createdAt, lag), final: true, fromRecords });
      }

    for (const c of cases) {
      // Act
      const key = accountDayKeyTime(c.dayAt, c.createdAt, c.fromRecords);
      const inRange = c.dayAt >= from && c.dayAt < to;
      const answer =
        key < accountDayRangeStart(from) ? 'not queried' : accountDayEntryIn(key, c.final, from, to);

      // Assess
      const what = JSON.stringify({ ...c, key, answer });
      expect(Date.parse(c.dayAt) - Date.parse(key), what).toBeGreaterThanOrEqual(0);
      expect(Date.parse(c.dayAt) - Date.parse(key), what).toBeLessThanOrEqual(SLACK_MS);
      if (answer === 'not queried' || answer === 'out') expect(inRange, what).toBe(false);
      else if (answer === 'in') expect(inRange, what).toBe(true);
      else {
        expect(c.final, what).toBe(true);
        const nearEdge = edges.some((edge) => Math.abs(Date.parse(key) - Date.parse(edge)) <= SLACK_MS);
        expect(nearEdge, what).toBe(true);
      }
    }
  });
});
