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

  it('accepts a transaction whose evidence is the status check alone, its history still listing the callback', () => {
    // Prepare: the README's promised read of the transaction, in order
    const promised = [
      '"status":"SUCCEEDED"',
      '"evidence":[',
      '"source":"callback"',
      '"source":"status-api"',
      '"history":[',
      '"type":"callback"',
      '"type":"status-check"',
    ];
    const checkedFirst =
      '"status":"SUCCEEDED" "evidence":[{"source":"status-api"}] "history":[{"type":"callback"},{"type":"status-check"}]';
    const noCallback =
      '"status":"SUCCEEDED" "evidence":[{"source":"status-api"}] "history":[{"type":"status-check"}]';
    const noCheck =
      '"status":"SUCCEEDED" "evidence":[{"source":"callback"}] "history":[{"type":"callback"},{"type":"status-check"}]';

    // Act and assess: the evidence may lack the callback; the history may not, nor the status check
    expect(accepts(promised, checkedFirst)).toBe(true);
    expect(accepts(promised, noCallback)).toBe(false);
    expect(accepts(promised, noCheck)).toBe(false);
  });
});
