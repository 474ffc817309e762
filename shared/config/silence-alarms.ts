/**
 * The provider silence tickets' periods, handed by the construct to the poller that writes their metric
 * (`SilentProviders{provider}`, shared/app/callbacks/callback-health.ts): one fact, computed once in
 * infra/monitoring/polling.ts from `callbackSilencePeriod(s)`, read back here. In the poller's
 * environment as JSON, `{"<provider>": <seconds>}`: a provider missing has no ticket (all its accounts
 * turned off, or no monitoring).
 */
export const SILENCE_ALARMS_ENV = 'CALLBACK_SILENCE_ALARMS';

/** The environment variable is not the JSON the construct writes (a hand-edited function configuration). */
class SilenceAlarmsConfigError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SilenceAlarmsConfigError';
  }
}

export function formatSilenceAlarms(periods: Readonly<Record<string, number>>): string {
  return JSON.stringify(periods);
}

/** Seconds per provider; undefined or empty: no provider ticket to feed. */
export function parseSilenceAlarms(value: string | undefined): Readonly<Record<string, number>> {
  if (!value) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (error) {
    throw new SilenceAlarmsConfigError(`${SILENCE_ALARMS_ENV} is not JSON`, { cause: error });
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new SilenceAlarmsConfigError(`${SILENCE_ALARMS_ENV}: expected {"<provider>": <seconds>}`);
  for (const [provider, seconds] of Object.entries(parsed))
    if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds <= 0)
      throw new SilenceAlarmsConfigError(
        `${SILENCE_ALARMS_ENV}: ${provider} has no positive number of seconds`,
      );
  return parsed as Record<string, number>;
}
