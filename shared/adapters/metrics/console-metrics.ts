import type { RelayMetrics } from '../../app/ports';
import { type Dimensions, MetricsCollector } from './collect';

export interface ConsoleMetricsOptions {
  /** Where the line goes. @default console.log */
  write?: (line: string) => void;
  /**
   * Dimensions summed over in the line (they would make it unreadable with many accounts); the rest
   * (origin, error) stay as `Name{origin=poll}`. @default ['provider', 'account']
   */
  collapse?: readonly string[];
  /** @default '  ⇢ metrics' */
  prefix?: string;
  /** Milliseconds now (tests drive it). @default Date.now */
  now?: () => number;
}

/**
 * A line the same as the last one is printed again only this long after it: a poller's routine reads
 * (`BadgeReads{shop=demo}=1` every 2 s under `npm start -- --simulator`) would bury the events a person
 * is watching for.
 */
const REPEATED_LINE_QUIET_MS = 60_000;

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: readonly number[], p: number): number {
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? Number.NaN;
}

/** 850 ms, 12.3 s, 4.2 min, 3.1 h. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  if (ms < 3_600_000) return `${(ms / 60_000).toFixed(1)}min`;
  return `${(ms / 3_600_000).toFixed(1)}h`;
}

function label(name: string, dimensions: Dimensions): string {
  const entries = Object.entries(dimensions).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return entries.length ? `${name}{${entries.map(([k, v]) => `${k}=${v}`).join(',')}}` : name;
}

/**
 * RelayMetrics for `npm start`: one readable line per flush (nothing when nothing was recorded), e.g.
 * `  ⇢ metrics TransactionsExpired=1 TransactionsFinalized{origin=poll}=3 TimeToFinal p50=2.1s p95=9.8s max=9.8s n=3`.
 */
export class ConsoleRelayMetrics implements RelayMetrics {
  private readonly collector = new MetricsCollector();
  private readonly write: (line: string) => void;
  private readonly collapse: ReadonlySet<string>;
  private readonly prefix: string;
  private readonly now: () => number;
  private last: { line: string; at: number; unsaid: number } | undefined;

  constructor(options: ConsoleMetricsOptions = {}) {
    this.write = options.write ?? ((line) => console.log(line));
    this.collapse = new Set(options.collapse ?? ['provider', 'account']);
    this.prefix = options.prefix ?? '  ⇢ metrics';
    this.now = options.now ?? Date.now;
  }

  count(name: string, value = 1, dimensions?: Record<string, string>): void {
    this.collector.add('count', name, value, this.kept(dimensions));
  }

  timing(name: string, ms: number, dimensions?: Record<string, string>): void {
    this.collector.add('timing', name, Math.max(0, ms), this.kept(dimensions));
  }

  flush(): void {
    const series = this.collector.drain();
    if (series.length === 0) return;
    // A zero (a gauge such as SilentAccounts written every cycle) is nothing to tell a person.
    const counts = series
      .filter((s) => s.kind === 'count' && s.values[0] !== 0)
      .map((s) => `${label(s.name, s.dimensions)}=${s.values[0]}`)
      .sort();
    const timings = series
      .filter((s) => s.kind === 'timing')
      .map((s) => {
        const sorted = [...s.values].sort((a, b) => a - b);
        const stats = [
          `p50=${formatDuration(percentile(sorted, 50))}`,
          `p95=${formatDuration(percentile(sorted, 95))}`,
          `max=${formatDuration(sorted[sorted.length - 1]!)}`,
          `n=${sorted.length}`,
        ];
        return `${label(s.name, s.dimensions)} ${stats.join(' ')}`;
      })
      .sort();
    if (counts.length === 0 && timings.length === 0) return;
    const line = [this.prefix, ...counts, ...timings].join(' ');
    const now = this.now();
    const last = this.last;
    if (last?.line === line && now - last.at < REPEATED_LINE_QUIET_MS) {
      last.unsaid++;
      return;
    }
    // The lines left out are counted where the next one is printed: a quiet minute is not a lost one.
    const unsaid = last?.unsaid ? ` (the line before: ${last.unsaid} more like it)` : '';
    this.last = { line, at: now, unsaid: 0 };
    this.write(`${line}${unsaid}`);
  }

  private kept(dimensions: Record<string, string> | undefined): Dimensions {
    const out: Dimensions = {};
    for (const [k, v] of Object.entries(dimensions ?? {})) if (!this.collapse.has(k)) out[k] = v;
    return out;
  }
}
