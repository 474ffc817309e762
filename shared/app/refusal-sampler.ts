/**
 * Bounds what refusals cost in storage under a flood, without making any of them invisible.
 *
 * Every refusal is normally a quarantine item (up to 64 KB: up to 64 write units). A scanner at the
 * API's 500 rps stage limit would cost about 32,000 write units per second, all on the day's one
 * quarantine partition. So each process keeps a full record only while a source stays under its
 * per-minute allowance and the process under its per-second rate; the rest are counted (by error
 * code, source and path) and written as one summary item per minute, and counted in the
 * `RefusalsNotStored` metric, which is flushed with every invocation.
 */
export interface RefusalLimits {
  /** Full records per source IP per minute for requests aimed at a configured account. */
  perSourcePerMinute: number;
  /** Full records per source IP per minute for requests no configured account matches (scanners). */
  unknownRoutePerSourcePerMinute: number;
  /** Full records per second for the whole process (token bucket; bursts up to twice this). */
  perSecond: number;
  /** Body bytes kept of a request no configured account matches. */
  unknownRouteBodyBytes: number;
}

export const DEFAULT_REFUSAL_LIMITS: RefusalLimits = {
  perSourcePerMinute: 30,
  unknownRoutePerSourcePerMinute: 3,
  perSecond: 10,
  unknownRouteBodyBytes: 2 * 1024,
};

/** Sources tracked per minute; beyond it a new source shares the over-the-limit fate. */
const MAX_TRACKED_SOURCES = 10_000;
const WINDOW_MS = 60_000;
const TOP = 20;

export interface RefusalSummary {
  from: string;
  to: string;
  notStored: number;
  byErrorCode: Record<string, number>;
  /** The busiest sources (at most 20) and how many refusals of theirs were not stored. */
  topSources: Record<string, number>;
  topPaths: Record<string, number>;
  limits: RefusalLimits;
}

interface Window {
  startedAt: number;
  perSource: Map<string, number>;
  notStored: number;
  byErrorCode: Map<string, number>;
  bySource: Map<string, number>;
  byPath: Map<string, number>;
}

function bump(map: Map<string, number>, key: string, cap = MAX_TRACKED_SOURCES): void {
  if (map.has(key) || map.size < cap) map.set(key, (map.get(key) ?? 0) + 1);
  else map.set('(other)', (map.get('(other)') ?? 0) + 1);
}

function top(map: Map<string, number>): Record<string, number> {
  return Object.fromEntries([...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, TOP));
}

export class RefusalSampler {
  readonly limits: RefusalLimits;
  private window: Window;
  private tokens: number;
  private refilledAt: number;

  constructor(
    limits: Partial<RefusalLimits> = {},
    private readonly now: () => number = Date.now,
  ) {
    this.limits = { ...DEFAULT_REFUSAL_LIMITS, ...limits };
    this.window = this.openWindow(now());
    this.tokens = this.limits.perSecond * 2;
    this.refilledAt = now();
  }

  /**
   * Whether this refusal gets its own quarantine item. When it does not, it is counted for the
   * minute's summary.
   */
  admit(refusal: { sourceIp: string; knownAccount: boolean; errorCode: string; path: string }): boolean {
    const now = this.now();
    const allowance = refusal.knownAccount
      ? this.limits.perSourcePerMinute
      : this.limits.unknownRoutePerSourcePerMinute;
    const key = `${refusal.knownAccount ? 'k' : 'u'}|${refusal.sourceIp}`;
    const seen = this.window.perSource.get(key) ?? 0;
    const tracked = this.window.perSource.has(key) || this.window.perSource.size < MAX_TRACKED_SOURCES;
    if (tracked) this.window.perSource.set(key, seen + 1);
    this.refill(now);
    const admitted = tracked && seen < allowance && this.tokens >= 1;
    if (admitted) {
      this.tokens -= 1;
      return true;
    }
    this.window.notStored++;
    bump(this.window.byErrorCode, refusal.errorCode);
    bump(this.window.bySource, refusal.sourceIp);
    bump(this.window.byPath, refusal.path.slice(0, 200));
    return false;
  }

  /**
   * The finished minute's counts, once, when something in it was not stored; the window restarts.
   * Called on each refusal, so a summary is written by the first refusal after its minute ends.
   */
  takeSummary(): RefusalSummary | undefined {
    const now = this.now();
    if (now - this.window.startedAt < WINDOW_MS) return undefined;
    const finished = this.window;
    this.window = this.openWindow(now);
    if (finished.notStored === 0) return undefined;
    return {
      from: new Date(finished.startedAt).toISOString(),
      to: new Date(now).toISOString(),
      notStored: finished.notStored,
      byErrorCode: top(finished.byErrorCode),
      topSources: top(finished.bySource),
      topPaths: top(finished.byPath),
      limits: this.limits,
    };
  }

  private refill(now: number): void {
    const elapsed = Math.max(0, now - this.refilledAt) / 1000;
    this.tokens = Math.min(this.limits.perSecond * 2, this.tokens + elapsed * this.limits.perSecond);
    this.refilledAt = now;
  }

  private openWindow(startedAt: number): Window {
    return {
      startedAt,
      perSource: new Map(),
      notStored: 0,
      byErrorCode: new Map(),
      bySource: new Map(),
      byPath: new Map(),
    };
  }
}
