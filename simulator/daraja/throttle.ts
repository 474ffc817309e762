/**
 * The platform policies in front of every Daraja operation (Daraja API docs, platform errors): spike arrest
 * (500.003.02) and a per-second quota (500.003.03). Daraja's docs give no thresholds, so both are off unless
 * `daraja.spikeArrestPerSecond` / `daraja.quotaPerSecond` are set. Time is passed in so the rules can be
 * checked without waiting.
 */

export type ThrottleVerdict =
  { admitted: true } | { admitted: false; rule: 'spike' | 'quota'; retryAfterSeconds: number };

export interface ThrottleLimits {
  quotaPerSecond: number | undefined;
  spikeArrestPerSecond: number | undefined;
}

const WINDOW_MS = 1000;

export class DarajaThrottle {
  /** Times of admitted calls within the last second, oldest first. */
  private admittedAt: number[] = [];
  private lastAdmittedAt: number | undefined;

  /**
   * Spike arrest first, as an API gateway evaluates it before the quota. Only admitted calls are counted,
   * so a client that backs off for the `Retry-After` it was given gets through.
   */
  check(now: number, limits: ThrottleLimits): ThrottleVerdict {
    const { quotaPerSecond, spikeArrestPerSecond } = limits;
    this.admittedAt = this.admittedAt.filter((t) => now - t < WINDOW_MS);
    if (spikeArrestPerSecond !== undefined && this.lastAdmittedAt !== undefined) {
      // Smoothed like a gateway's spike arrest: N per second means one call per 1000/N ms, not bursts of N.
      const interval = WINDOW_MS / spikeArrestPerSecond;
      const waited = now - this.lastAdmittedAt;
      if (waited < interval)
        return { admitted: false, rule: 'spike', retryAfterSeconds: seconds(interval - waited) };
    }
    if (quotaPerSecond !== undefined && this.admittedAt.length >= quotaPerSecond) {
      const oldest = this.admittedAt[0] ?? now;
      return { admitted: false, rule: 'quota', retryAfterSeconds: seconds(WINDOW_MS - (now - oldest)) };
    }
    this.admittedAt.push(now);
    this.lastAdmittedAt = now;
    return { admitted: true };
  }

  reset(): void {
    this.admittedAt = [];
    this.lastAdmittedAt = undefined;
  }
}

/** `Retry-After` carries whole seconds; never 0, which would invite an immediate retry. */
function seconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}
