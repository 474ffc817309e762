import { describe, expect, it } from 'vitest';
import {
  ACCOUNT_DAY_SLACK_SECONDS,
  accountDayKeyTime,
  accountDayRangeStart,
  inAccountDayIndex,
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

  it('answers, for every key the writer gives, whether the day time is in the range: each transaction it must find is in a key range it queries', () => {
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
    const cases: { createdAt: string; dayAt: string; fromRecords: boolean }[] = [];
    for (const edge of edges)
      for (const offset of offsets) {
        const createdAt = plus(edge, offset);
        cases.push({ createdAt, dayAt: createdAt, fromRecords: false });
        for (const lag of lags)
          for (const fromRecords of [false, true])
            cases.push({ createdAt, dayAt: plus(createdAt, lag), fromRecords });
      }
    const queried = (at: string) => at >= accountDayRangeStart(from) && at <= to;

    for (const c of cases) {
      // Act: the keys it has, its creation in byDay and, when it has one, its account-day entry.
      const key = accountDayKeyTime(c.dayAt, c.createdAt, c.fromRecords);
      const indexed = inAccountDayIndex(key, c.createdAt);
      const inRange = c.dayAt >= from && c.dayAt < to;

      // Assess: a key is at most the slack before the day time; one in the range is in a queried range.
      const what = JSON.stringify({ ...c, key, indexed });
      expect(Date.parse(c.dayAt) - Date.parse(key), what).toBeGreaterThanOrEqual(0);
      expect(Date.parse(c.dayAt) - Date.parse(key), what).toBeLessThanOrEqual(SLACK_MS);
      if (inRange) expect(queried(indexed ? key : c.createdAt), what).toBe(true);
    }
  });

  it('keeps out of the account-day index a transaction its creation places: open, or a verdict within the slack', () => {
    expect(inAccountDayIndex(CREATED, CREATED)).toBe(false);
    expect(inAccountDayIndex(accountDayKeyTime(plus(CREATED, 10 * 60_000), CREATED, false), CREATED)).toBe(
      false,
    );
    expect(
      inAccountDayIndex(accountDayKeyTime(plus(CREATED, SLACK_MS + 1000), CREATED, false), CREATED),
    ).toBe(true);
    expect(inAccountDayIndex(accountDayKeyTime(plus(CREATED, 60_000), CREATED, true), CREATED)).toBe(true);
  });
});
