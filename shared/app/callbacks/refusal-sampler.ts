import { normalizeIp } from '../../util/ip-allowlist';

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
  /**
   * Full records per second for the whole process (token bucket; bursts up to twice this), once for
   * requests aimed at configured accounts and once more for the rest: a scanner flood cannot use up
   * the allowance that keeps a provider's refused callbacks visible.
   */
  perSecond: number;
  /** Body bytes kept of a request no configured account matches. */
  unknownRouteBodyBytes: number;
}

const DEFAULT_REFUSAL_LIMITS: RefusalLimits = {
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
  /** Refusals per source this minute: [configured accounts, unknown routes], each capped apart. */
  perSource: [Map<string, number>, Map<string, number>];
  notStored: number;
  byErrorCode: Map<string, number>;
  bySource: Map<string, number>;
  byPath: Map<string, number>;
}

/**
 * The allowance's key for a source: an IPv4 address, or an IPv6 /64 (one subscriber's network; a
 * client rotating through its addresses is still one source).
 */
export function sourceKey(given: string): string {
  // An IPv4 client seen through an IPv6 socket is that IPv4 address (normalizeIp unwraps it).
  const ip = normalizeIp(given) ?? given;
  if (!ip.includes(':')) return ip;
  const [head = '', tail] = ip.split('::');
  const left = head ? head.split(':') : [];
  const right = tail === undefined ? [] : tail ? tail.split(':') : [];
  const groups =
    tail === undefined
      ? left
      : [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((group) => (group || '0').toLowerCase().replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
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
  /** Token buckets: [configured accounts, unknown routes]. */
  private readonly buckets = [
    { tokens: 0, refilledAt: 0 },
    { tokens: 0, refilledAt: 0 },
  ];

  constructor(
    limits: Partial<RefusalLimits> = {},
    private readonly now: () => number = Date.now,
  ) {
    this.limits = { ...DEFAULT_REFUSAL_LIMITS, ...limits };
    this.window = this.openWindow(now());
    for (const bucket of this.buckets) {
      bucket.tokens = this.limits.perSecond * 2;
      bucket.refilledAt = now();
    }
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
    const key = sourceKey(refusal.sourceIp);
    const sources = this.window.perSource[refusal.knownAccount ? 0 : 1];
    const seen = sources.get(key) ?? 0;
    const tracked = sources.has(key) || sources.size < MAX_TRACKED_SOURCES;
    if (tracked) sources.set(key, seen + 1);
    const bucket = this.buckets[refusal.knownAccount ? 0 : 1]!;
    this.refill(bucket, now);
    const admitted = tracked && seen < allowance && bucket.tokens >= 1;
    if (admitted) {
      bucket.tokens -= 1;
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

  private refill(bucket: { tokens: number; refilledAt: number }, now: number): void {
    const elapsed = Math.max(0, now - bucket.refilledAt) / 1000;
    bucket.tokens = Math.min(this.limits.perSecond * 2, bucket.tokens + elapsed * this.limits.perSecond);
    bucket.refilledAt = now;
  }

  private openWindow(startedAt: number): Window {
    return {
      startedAt,
      perSource: [new Map(), new Map()],
      notStored: 0,
      byErrorCode: new Map(),
      bySource: new Map(),
      byPath: new Map(),
    };
  }
}
