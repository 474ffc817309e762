import type { ProviderTimings } from '../types';

const DAY = 86_400;

/**
 * Airtel's own timing (provider notes): it answers within a minute or two but may stay ambiguous, so the
 * first status check comes early and the window runs for days; 10 minutes without a callback while a
 * payment waits is a silence.
 */
export const airtelTimings: ProviderTimings = {
  checkSchedules: {
    '*': {
      firstCheckSeconds: 90,
      backoffSeconds: [60, 120, 300, 900, 1800, 3600],
      dailyAfterSeconds: DAY,
      windowSeconds: 3 * DAY,
    },
  },
  callbackSilenceSeconds: 600,
};
