import { describe, expect, it } from 'vitest';
import { formatSilenceAlarms, parseSilenceAlarms } from '../../../shared/config/silence-alarms';

describe('the provider silence periods handed to the poller', () => {
  it('reads back what the construct writes, and nothing when unset', () => {
    // Act / Assess
    expect(parseSilenceAlarms(formatSilenceAlarms({ momo: 21_600, daraja: 3_600 }))).toEqual({
      momo: 21_600,
      daraja: 3_600,
    });
    expect(parseSilenceAlarms(undefined)).toEqual({});
  });

  it('refuses a hand-edited value by name rather than ticketing with a wrong period', () => {
    // Act / Assess
    expect(() => parseSilenceAlarms('momo=6h')).toThrow(/CALLBACK_SILENCE_ALARMS is not JSON/);
    expect(() => parseSilenceAlarms('{"momo":0}')).toThrow(/momo has no positive number of seconds/);
    expect(() => parseSilenceAlarms('[1]')).toThrow(/SilenceAlarmsConfigError|expected/);
  });
});
