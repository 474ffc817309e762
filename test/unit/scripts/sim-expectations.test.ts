import { describe, expect, it } from 'vitest';
import { BADGE_ACTIONS } from '../../../scripts/sim/badges';
import { finalExpectation, judge, verdictUnpublished } from '../../../scripts/sim/core';
import { findScenario } from '../../../scripts/sim/run';
import { parseExpires, withExpiry } from '../../../scripts/sim/expiry';
import { withFaults } from '../../../scripts/sim/faults';
import type { EventEnvelope } from '../../../shared/domain/events';
import { parseFaults } from '../../../simulator/core/faults';

const event = (type: string, origin: string): EventEnvelope =>
  ({
    metadata: { id: `${type}-${origin}`, version: '1', type, occurredAt: '', correlationId: 'c', origin },
    data: { provider: 'momo', account: 'demo', reference: 'r', status: 'x' },
  }) as unknown as EventEnvelope;

describe('npm run sim: --fault drop', () => {
  it('expects the same final event from a poll, waited for past the dropped callback', () => {
    // Act
    const x = withFaults(
      finalExpectation('TransactionSucceeded', 'payer 1', 1),
      parseFaults('drop'),
      'momo',
      'requesttopay',
    );
    // Assess
    expect(x).toMatchObject({
      events: [{ type: 'TransactionSucceeded', origin: 'poll' }],
      status: 'SUCCEEDED',
      waitFor: 'poll',
      deliveries: 1,
    });
    expect(x.summary).toBe(
      "payer 1 → callback dropped; the relay's status check finds the outcome → TransactionSucceeded, origin poll",
    );
    expect(judge(x, [event('TransactionSucceeded', 'poll')], 'SUCCEEDED')).toEqual([]);
    expect(judge(x, [event('TransactionSucceeded', 'callback')], 'SUCCEEDED')).toEqual([
      'TransactionSucceeded arrived but not (origin poll) (got {"origin":"callback"})',
    ]);
  });

  it('keeps "no event, PENDING" for an outcome a poll does not recover (a queue-timeout notice)', () => {
    const x = withFaults(
      finalExpectation('TransactionAmbiguous', 'PartyB 0408', 1, 'TIMED_OUT'),
      parseFaults('drop'),
      'daraja',
      'b2c',
    );
    expect(x).toMatchObject({ events: [], status: 'PENDING' });
    expect(x.waitFor).toBeUndefined();
  });
});

describe('npm run sim: --expires', () => {
  const pending = {
    summary: 'subscriber 752123904 (enquiry TIP) → no callback: no event, the transaction stays PENDING',
    events: [],
    status: 'PENDING',
    deliveries: 0,
  };

  it('expects TransactionExpired when the outcome never finalizes', () => {
    const x = withExpiry(pending, 15, { what: 'the enquiry keeps answering TIP' });
    expect(x).toMatchObject({
      events: [{ type: 'TransactionExpired' }],
      status: 'EXPIRED',
      waitFor: 'expiry',
      deliveries: 0,
    });
    expect(x.summary).toBe(
      'subscriber 752123904 (enquiry TIP), the enquiry keeps answering TIP → the 15 s window ends → TransactionExpired',
    );
  });

  it('expects expiry only when the provider settles well after the window', () => {
    const failed = finalExpectation('TransactionFailed', 'payer 4', 1);
    const unanswered = { what: 'the payer never answers', settlesAfterMs: 30_000 };
    expect(withExpiry(failed, 15, unanswered).status).toBe('EXPIRED');
    // 28 s + the 5 s margin is past the provider's 30 s: the outcome is the provider's.
    expect(withExpiry(failed, 28, unanswered)).toMatchObject({ status: 'FAILED' });
    expect(withExpiry(failed, 28, unanswered).summary).toBe('payer 4 → TransactionFailed (window 28 s)');
  });

  it('leaves outcomes that finalize on their own unchanged, and no --expires changes nothing', () => {
    const paid = finalExpectation('TransactionSucceeded', 'payer 9', 1);
    expect(withExpiry(paid, 10, undefined).events).toEqual(paid.events);
    expect(withExpiry(paid, undefined, { what: 'x' })).toBe(paid);
  });

  it('parses whole positive seconds only', () => {
    expect(parseExpires('15')).toBe(15);
    expect(parseExpires(undefined)).toBeUndefined();
    for (const bad of ['0', '-3', '1.5', 'soon']) expect(() => parseExpires(bad)).toThrow(/--expires/);
  });
});

describe('npm run sim: an outcome the provider decides (oneOf)', () => {
  it('accepts exactly one event of the listed types and names what arrived otherwise', () => {
    // Prepare
    const x = { summary: 'a reversal', events: [], oneOf: ['TransactionReversed', 'ReversalFailed'] };
    // Act + Assess
    expect(judge(x, [event('ReversalFailed', 'callback')], undefined)).toEqual([]);
    expect(judge(x, [event('TransactionReversed', 'callback')], undefined)).toEqual([]);
    expect(judge(x, [], undefined)).toEqual([
      '0 events of TransactionReversed / ReversalFailed, expected exactly one',
    ]);
    expect(
      judge(x, [event('TransactionReversed', 'callback'), event('ReversalFailed', 'callback')], undefined),
    ).toEqual([
      '2 events of TransactionReversed / ReversalFailed (TransactionReversed, ReversalFailed), expected exactly one',
    ]);
  });

  it('lists balance and reversal results under a dropped or foreign-IP callback without a status to expect', () => {
    const dropped = withFaults(
      {
        summary: 'short code 1 → AccountBalanceReported',
        events: [{ type: 'AccountBalanceReported' }],
        deliveries: 1,
        noTransaction: true as const,
      },
      parseFaults('drop'),
      'daraja',
      'balance',
    );
    expect(dropped).toMatchObject({ events: [], noTransaction: true, deliveries: 1 });
    expect(dropped.forbid).toContain('AccountBalanceReported');
    expect(dropped.status).toBeUndefined();
  });
});

describe('npm run sim: a fault that makes the callback unusable is judged by what the callback does', () => {
  const rejected = (errorCode: string, httpStatus: number): EventEnvelope =>
    ({
      metadata: {
        id: 'rejected',
        version: '1',
        type: 'CallbackRejected',
        occurredAt: '',
        correlationId: 'c',
        origin: 'callback',
      },
      data: { provider: 'airtel', account: 'demo', reference: 'r', errorCode, httpStatus },
    }) as unknown as EventEnvelope;
  const cases = [
    ['a forged Airtel hash', 'corrupt-hash', 'airtel', 'pay', rejected('UNAUTHORIZED', 401)],
    [
      'a Daraja STK result from outside the allow-list',
      'foreign-ip',
      'daraja',
      'stk',
      rejected('FORBIDDEN_SOURCE', 403),
    ],
  ] as const;

  /** What reached the relay besides the refusal, the transaction's status, and the problems judged. */
  const verdicts = [
    ['PENDING with no verdict is as expected', [], 'PENDING', []],
    [
      "a verdict of the relay's own status check (origin poll) is accepted",
      [event('TransactionSucceeded', 'poll')],
      'SUCCEEDED',
      [],
    ],
    [
      "a verdict of the relay's own status check still has its status expected",
      [event('TransactionSucceeded', 'poll')],
      'PENDING',
      ["the relay's transaction is PENDING, expected SUCCEEDED"],
    ],
    [
      'a verdict from the callback still fails the scenario',
      [event('TransactionSucceeded', 'callback')],
      'SUCCEEDED',
      [
        "unexpected TransactionSucceeded not from the relay's status check",
        "the relay's transaction is SUCCEEDED, expected PENDING",
      ],
    ],
    [
      'a verdict from the buffer still fails the scenario',
      [event('TransactionAmbiguous', 'buffer')],
      'AMBIGUOUS',
      [
        "unexpected TransactionAmbiguous not from the relay's status check",
        "the relay's transaction is AMBIGUOUS, expected PENDING",
      ],
    ],
  ] as const;

  describe.each(cases)('%s', (_what, fault, provider, kind, refusal) => {
    it.each(verdicts)('%s', (_verdict, events, status, expected) => {
      // Prepare
      const x = withFaults(
        finalExpectation('TransactionSucceeded', 'payer 1', 1),
        parseFaults(fault),
        provider,
        kind,
      );
      // Act
      const problems = judge(x, [refusal, ...events], status);
      // Assess
      expect(problems).toEqual(expected);
    });
  });

  it('a dropped queue-timeout notice: the relay’s own verdict is accepted, a callback one is not', () => {
    // Prepare
    const x = withFaults(
      finalExpectation('TransactionAmbiguous', 'PartyB 0408', 1, 'TIMED_OUT'),
      parseFaults('drop'),
      'daraja',
      'b2c',
    );
    // Act + Assess
    expect(judge(x, [event('TransactionFailed', 'poll')], 'FAILED')).toEqual([]);
    expect(judge(x, [event('TransactionFailed', 'callback')], 'FAILED')).toHaveLength(2);
  });
});

describe('npm run sim: a verdict written but not published yet', () => {
  it('is told apart from a judged outcome, so the run waits for its event', () => {
    // Prepare
    const x = finalExpectation('TransactionSucceeded', 'payer 1', 1);
    // Act + Assess
    expect(verdictUnpublished(x, [event('TransactionAmbiguous', 'callback')], 'SUCCEEDED')).toBe(true);
    expect(verdictUnpublished(x, [event('TransactionSucceeded', 'poll')], 'SUCCEEDED')).toBe(false);
    expect(verdictUnpublished(x, [], 'PENDING')).toBe(false);
    expect(verdictUnpublished(x, [], 'FAILED')).toBe(false);
  });
});

describe('npm run sim: an unknown scenario', () => {
  it('names every scenario there is, the badge actions and the receiver included', () => {
    // Act
    const message = (() => {
      try {
        findScenario('momo', 'pya');
        return '';
      } catch (error) {
        return (error as Error).message;
      }
    })();
    // Assess
    expect(message).toContain('unknown scenario "momo pya"; scenarios: momo pay');
    expect(message).toContain(`badge ${BADGE_ACTIONS.join('|')} and receiver`);
  });
});
