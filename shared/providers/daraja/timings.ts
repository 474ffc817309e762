import type { ProviderTimings } from '../types';

const DAY = 86_400;

/**
 * Daraja's own timing (provider notes): an STK prompt lives 1–3 minutes; B2C payouts queue longer;
 * Daraja callbacks go missing, so the window runs for days; 10 minutes without a callback while a payment
 * waits is a silence.
 */
export const darajaTimings: ProviderTimings = {
  checkSchedules: {
    stk: {
      firstCheckSeconds: 120,
      backoffSeconds: [60, 120, 300, 900, 3600],
      dailyAfterSeconds: DAY,
      windowSeconds: 3 * DAY,
    },
    b2c: {
      firstCheckSeconds: 300,
      backoffSeconds: [300, 600, 1800, 3600],
      dailyAfterSeconds: DAY,
      windowSeconds: 3 * DAY,
    },
    '*': {
      firstCheckSeconds: 300,
      backoffSeconds: [300, 600, 1800, 3600],
      dailyAfterSeconds: DAY,
      windowSeconds: 3 * DAY,
    },
  },
  callbackSilenceSeconds: 600,
};
