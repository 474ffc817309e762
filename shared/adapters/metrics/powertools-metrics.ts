import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { RelayMetrics } from '../../app/ports';
import { type CollectedSeries, dimensionsKey, MetricsCollector } from './collect';

import { DEFAULT_METRICS_NAMESPACE, METRICS_WITHOUT_ROLL_UP } from '../../config/metric-names';
export { DEFAULT_METRICS_NAMESPACE };

/** EMF limits: at most 100 metrics per document and 100 values per metric. */
const MAX_METRICS_PER_DOCUMENT = 100;
const MAX_VALUES_PER_METRIC = 100;

export interface PowertoolsMetricsOptions {
  /** @default POWERTOOLS_METRICS_NAMESPACE, else `MobileMoneyRelay` */
  namespace?: string;
  /** For tests: the Powertools instance to write through. */
  metrics?: Metrics;
  /** Where a failed flush is reported (a metric must never fail an invocation). @default console.error */
  onError?: (error: Error) => void;
}

/**
 * RelayMetrics as CloudWatch Embedded Metric Format lines through Powertools Metrics.
 *
 * Every metric is published twice, in one EMF document: without dimensions (the roll-up the
 * alarms watch: "TransactionsExpired > 0 anywhere in this relay") and with the dimensions the use case
 * gave (provider/account, origin, error) for dashboards; those in METRICS_WITHOUT_ROLL_UP (read only per
 * dimension, a roll-up would be a series billed for nothing) with their dimensions only. No `service` default dimension: the alarms
 * must see a metric the same way whichever function emitted it (the poller, or the management API's
 * "check now"). An EMF document carries one value per dimension, so each distinct set of dimension
 * values gets its own document; counts are summed before they are written.
 */
export class PowertoolsRelayMetrics implements RelayMetrics {
  private readonly collector = new MetricsCollector();
  private readonly metrics: Metrics;
  private readonly onError: (error: Error) => void;

  constructor(options: PowertoolsMetricsOptions = {}) {
    this.metrics =
      options.metrics ??
      new Metrics({
        namespace:
          options.namespace ?? (process.env.POWERTOOLS_METRICS_NAMESPACE || DEFAULT_METRICS_NAMESPACE),
      });
    this.metrics.clearDefaultDimensions();
    this.onError = options.onError ?? ((error) => console.error(`metrics flush failed: ${error.message}`));
  }

  count(name: string, value = 1, dimensions?: Record<string, string>): void {
    this.collector.add('count', name, value, dimensions);
  }

  timing(name: string, ms: number, dimensions?: Record<string, string>): void {
    this.collector.add('timing', name, Math.max(0, ms), dimensions);
  }

  flush(): void {
    const series = this.collector.drain();
    if (series.length === 0) return;
    const byDimensions = new Map<string, CollectedSeries[]>();
    for (const s of series) {
      const key = dimensionsKey(s.dimensions);
      byDimensions.set(key, [...(byDimensions.get(key) ?? []), s]);
    }
    for (const group of byDimensions.values()) {
      try {
        this.publish(group);
      } catch (error) {
        this.metrics.clearMetrics();
        this.metrics.clearDimensions();
        this.onError(error as Error);
      }
    }
  }

  /** The documents of series sharing their dimension values: with the roll-up, and those without it. */
  private publish(group: CollectedSeries[]): void {
    const dimensioned = Object.keys(group[0]!.dimensions).length > 0;
    const bare = (s: CollectedSeries) => dimensioned && METRICS_WITHOUT_ROLL_UP.includes(s.name);
    const rolledUp = group.filter((s) => !bare(s));
    const dimensionedOnly = group.filter(bare);
    if (rolledUp.length) this.publishDocuments(rolledUp, true);
    if (dimensionedOnly.length) this.publishDocuments(dimensionedOnly, false);
  }

  /** One or more EMF documents for series sharing their dimension values. */
  private publishDocuments(group: CollectedSeries[], rollUp: boolean): void {
    const dimensions = group[0]!.dimensions;
    // Split values over documents: each document holds ≤ 100 metrics with ≤ 100 values each.
    const chunks: Array<Array<{ series: CollectedSeries; values: number[] }>> = [[]];
    for (const s of group) {
      for (let i = 0; i < s.values.length; i += MAX_VALUES_PER_METRIC) {
        let chunk = chunks.find(
          (c) => c.length < MAX_METRICS_PER_DOCUMENT && !c.some((entry) => entry.series === s),
        );
        if (!chunk) {
          chunk = [];
          chunks.push(chunk);
        }
        chunk.push({ series: s, values: s.values.slice(i, i + MAX_VALUES_PER_METRIC) });
      }
    }
    for (const chunk of chunks) {
      if (chunk.length === 0) continue;
      if (rollUp) this.metrics.addDimensions({});
      if (Object.keys(dimensions).length > 0) this.metrics.addDimensions(dimensions);
      for (const { series, values } of chunk) {
        const unit = series.kind === 'count' ? MetricUnit.Count : MetricUnit.Milliseconds;
        for (const value of values) this.metrics.addMetric(series.name, unit, value);
      }
      this.metrics.publishStoredMetrics();
    }
  }
}
