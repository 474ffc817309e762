/**
 * What both metric adapters share: counts summed and timings listed per metric name and dimension
 * values, until the next flush.
 */
export type Dimensions = Record<string, string>;

export interface CollectedSeries {
  name: string;
  dimensions: Dimensions;
  kind: 'count' | 'timing';
  /** A count's sum (one element), or every timing recorded, in milliseconds. */
  values: number[];
}

/** A stable key of a dimension set: keys sorted, so `{a,b}` and `{b,a}` are one series. */
function dimensionsKey(dimensions: Dimensions): string {
  return JSON.stringify(Object.entries(dimensions).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Drops undefined or empty dimension values (a metric cannot carry an empty dimension). */
function cleanDimensions(dimensions: Dimensions | undefined): Dimensions {
  const out: Dimensions = {};
  for (const [name, value] of Object.entries(dimensions ?? {})) {
    if (typeof value === 'string' && value.length > 0) out[name] = value;
  }
  return out;
}

export class MetricsCollector {
  private readonly series = new Map<string, CollectedSeries>();

  add(kind: 'count' | 'timing', name: string, value: number, dimensions?: Dimensions): void {
    if (!Number.isFinite(value)) return;
    const clean = cleanDimensions(dimensions);
    const key = `${kind}\u0000${name}\u0000${dimensionsKey(clean)}`;
    const existing = this.series.get(key);
    if (!existing) {
      this.series.set(key, { name, dimensions: clean, kind, values: [value] });
    } else if (kind === 'count') {
      existing.values[0] = (existing.values[0] ?? 0) + value;
    } else {
      existing.values.push(value);
    }
  }

  /** Everything collected since the last drain, in recording order; the collector is empty afterwards. */
  drain(): CollectedSeries[] {
    const all = [...this.series.values()];
    this.series.clear();
    return all;
  }

  get size(): number {
    return this.series.size;
  }
}

export { dimensionsKey };
