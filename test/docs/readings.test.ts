/**
 * What the docs check accepts for a promised output (test/docs/runner.ts `readings`): the text as written,
 * the buffered reading, and, for a held success the relay's status check settled first, the events
 * without the held one. Nothing else.
 */
import { describe, expect, it } from 'vitest';
import { inOrder } from './markdown';
import { readings } from './runner';

const HELD = '"detail-type":"TransactionAmbiguous"';
const SETTLED = '"detail-type":"TransactionSucceeded"';
const accepts = (fragments: string[], output: string) => readings(fragments).some((r) => inOrder(output, r));

describe('the readings of a promised output', () => {
  it('accepts the success without the held event, since the status check may settle it first', () => {
    // Act and assess
    expect(accepts([HELD, SETTLED], `${HELD}\n${SETTLED}`)).toBe(true);
    expect(accepts([HELD, SETTLED], SETTLED)).toBe(true);
  });

  it('still refuses a held event with no success, or events in the wrong order', () => {
    // Act and assess
    expect(accepts([HELD, SETTLED], HELD)).toBe(false);
    expect(accepts([HELD, SETTLED], '"detail-type":"TransactionFailed"')).toBe(false);
    expect(accepts([SETTLED, HELD], SETTLED)).toBe(false);
  });

  it('reads `callback` as `buffer` when the relay acked from its ingress buffer, and nothing else changes', () => {
    // Act
    const all = readings(['evidence=callback(unauthenticated)+status-api (callback)']);
    // Assess
    expect(all).toEqual([
      ['evidence=callback(unauthenticated)+status-api (callback)'],
      ['evidence=buffer(unauthenticated)+status-api (buffer)'],
    ]);
  });
});
