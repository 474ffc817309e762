import type { ProviderTimings } from '../types';

const DAY = 86_400;

/**
 * MoMo's own timing (provider notes): MTN advises a first status check about 5 minutes after initiation
 * (the payer's approval window); MoMo retries a callback for hours, so the window runs for days; a
 * callback normally follows within the approval window, so 15 minutes without one while a payment waits
 * is a silence.
 */
export const momoTimings: ProviderTimings = {
  checkSchedules: {
    '*': {
      firstCheckSeconds: 300,
      backoffSeconds: [120, 300, 600, 1800, 3600],
      dailyAfterSeconds: DAY,
      windowSeconds: 3 * DAY,
    },
  },
  callbackSilenceSeconds: 900,
};
