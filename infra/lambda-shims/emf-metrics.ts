import { Console } from 'node:console';
import {
  getBooleanFromEnv,
  getServiceName,
  getStringFromEnv,
  isDevMode,
} from '@aws-lambda-powertools/commons/utils/env';
import { isNumber, isString, isStringUndefinedNullEmpty } from '@aws-lambda-powertools/commons/typeutils';
import {
  DEFAULT_NAMESPACE,
  MAX_DIMENSION_COUNT,
  MAX_METRIC_NAME_LENGTH,
  MAX_METRIC_VALUES_SIZE,
  MAX_METRICS_SIZE,
  MetricUnit,
  MIN_METRIC_NAME_LENGTH,
  // The package's constants (units, limits): the same values the class below is checked against.
} from '../../node_modules/@aws-lambda-powertools/metrics/lib/esm/constants.js';

/**
 * Bundled in place of `@aws-lambda-powertools/metrics` in every Lambda function (esbuild alias,
 * infra/bundling.ts BUNDLE_OPTIONS.alias): Powertools Metrics as the relay's EMF adapter uses it
 * (shared/adapters/metrics/powertools-metrics.ts: standard-resolution metrics in dimension sets, published
 * by hand, the default `service` dimension cleared) and nothing more: no decorators, middleware, cold-start
 * metric, metadata, timestamps or high resolution (~6-9 KB of each bundle). Same EMF document,
 * same checks and errors, same limits (a publish at 100 metrics or 100 values), same environment
 * (POWERTOOLS_METRICS_NAMESPACE, POWERTOOLS_SERVICE_NAME, POWERTOOLS_METRICS_DISABLED, POWERTOOLS_DEV),
 * same stdout writer. The package's stores are per invocation for Lambda's multi-concurrency mode; these
 * are per instance, which is what every function (one invocation per instance at a time) gets either way.
 * test/unit/infra/emf-metrics-shim.test.ts drives both with the same calls and compares what they write;
 * local runs and tests keep the package. Should the adapter call another method, add it here and a case
 * to that test: the type check sees the package's class, so only the bundles would fail, at run time
 * (test/integration/callback-bundle.test.ts runs the callback's metrics flush).
 */

export { MetricUnit };

type Unit = (typeof MetricUnit)[keyof typeof MetricUnit];
type Dimensions = Record<string, string>;
interface Stored {
  name: string;
  unit: Unit;
  value: number | number[];
}

interface MetricsOptions {
  namespace?: string;
  serviceName?: string;
}

export class Metrics {
  private readonly console: Console;
  private readonly namespace: string;
  private readonly disabled: boolean;
  private defaultDimensions: Dimensions;
  private dimensionSets: Dimensions[] = [];
  private stored: Record<string, Stored> = {};

  constructor(options: MetricsOptions = {}) {
    const devMode = isDevMode();
    this.console = devMode ? console : new Console({ stdout: process.stdout, stderr: process.stderr });
    this.disabled =
      process.env.POWERTOOLS_METRICS_DISABLED !== undefined
        ? getBooleanFromEnv({
            key: 'POWERTOOLS_METRICS_DISABLED',
            defaultValue: false,
            extendedParsing: true,
          })
        : devMode;
    this.namespace =
      options.namespace || getStringFromEnv({ key: 'POWERTOOLS_METRICS_NAMESPACE', defaultValue: '' });
    const service = options.serviceName || getServiceName() || 'service_undefined';
    this.defaultDimensions = { service };
  }

  clearDefaultDimensions(): void {
    this.defaultDimensions = {};
  }

  clearDimensions(): void {
    this.dimensionSets = [];
  }

  clearMetrics(): void {
    this.stored = {};
  }

  addDimensions(dimensions: Dimensions): this {
    const added = this.sanitize(dimensions);
    if (new Set([...Object.keys(this.defaultDimensions), ...Object.keys(added)]).size > MAX_DIMENSION_COUNT)
      throw new RangeError(`The number of metric dimensions must be lower than ${MAX_DIMENSION_COUNT}`);
    this.dimensionSets.push({ ...added });
    return this;
  }

  addMetric(name: string, unit: Unit, value: number): this {
    if (!isString(name)) throw new Error(`${name} is not a valid string`);
    if (name.length < MIN_METRIC_NAME_LENGTH || name.length > MAX_METRIC_NAME_LENGTH)
      throw new RangeError(
        `The metric name should be between ${MIN_METRIC_NAME_LENGTH} and ${MAX_METRIC_NAME_LENGTH} characters`,
      );
    if (!isNumber(value)) throw new RangeError(`${value} is not a valid number`);
    if (!Object.values(MetricUnit).includes(unit))
      throw new RangeError(
        `Invalid metric unit '${unit}', expected either option: ${Object.values(MetricUnit).join(',')}`,
      );
    if (Object.keys(this.stored).length >= MAX_METRICS_SIZE) this.publishStoredMetrics();
    const existing = this.stored[name];
    if (!existing) {
      this.stored[name] = { name, unit, value };
      return this;
    }
    if (existing.unit !== unit)
      throw new Error(
        `Metric "${name}" has already been added with unit "${existing.unit}", but we received unit "${unit}". Did you mean to use metric unit "${existing.unit}"?`,
      );
    existing.value = [...(Array.isArray(existing.value) ? existing.value : [existing.value]), value];
    if (existing.value.length === MAX_METRIC_VALUES_SIZE) this.publishStoredMetrics();
    return this;
  }

  publishStoredMetrics(): this {
    const hasMetrics = Object.keys(this.stored).length > 0;
    if (!hasMetrics)
      this.console.warn(
        'No application metrics to publish. The cold-start metric may be published if enabled. ' +
          'If application metrics should never be empty, consider using `throwOnEmptyMetrics`',
      );
    try {
      if (!this.disabled) {
        const document = this.serializeMetrics();
        if (hasMetrics) this.console.log(JSON.stringify(document));
      }
    } finally {
      this.clearMetrics();
      this.clearDimensions();
    }
    return this;
  }

  /** The EMF document, as the package builds it for metrics in dimension sets. */
  serializeMetrics() {
    const metrics = Object.values(this.stored);
    if (!this.namespace) this.console.warn('Namespace should be defined, default used');
    const values = Object.fromEntries(metrics.map(({ name, value }) => [name, value]));
    const defaults = Object.keys(this.defaultDimensions);
    const names = this.dimensionSets.map((set) => [...new Set([...defaults, ...Object.keys(set)])]);
    if (names.length === 0 && defaults.length > 0) names.push(defaults);
    const dimensionValues: Dimensions = { ...this.defaultDimensions };
    for (const set of this.dimensionSets) Object.assign(dimensionValues, set);
    this.checkKeyCollisions(values);
    return {
      _aws: {
        Timestamp: Date.now(),
        CloudWatchMetrics: [
          {
            Namespace: this.namespace || DEFAULT_NAMESPACE,
            Dimensions: names,
            Metrics: metrics.map(({ name, unit }) => ({ Name: name, Unit: unit })),
          },
        ],
      },
      ...dimensionValues,
      ...values,
    };
  }

  /** A key both a dimension and a metric is an error, a dimension given twice a warning (as the package's). */
  private checkKeyCollisions(values: Record<string, unknown>): void {
    const seen = new Map<string, string>();
    const sources: Array<[Dimensions, string]> = [
      [this.defaultDimensions, 'default dimension'],
      ...this.dimensionSets.map((set): [Dimensions, string] => [set, 'dimension set']),
    ];
    for (const [dimensions, source] of sources)
      for (const key of Object.keys(dimensions)) {
        const existing = seen.get(key);
        if (existing !== undefined)
          this.console.warn(
            `EMF key "${key}" is defined as both a ${existing} and ${source}; the ${source} value will take precedence in the serialized output`,
          );
        seen.set(key, source);
      }
    for (const name of Object.keys(values)) {
      const source = seen.get(name);
      if (source !== undefined)
        throw new Error(
          `EMF key collision on "${name}": registered as both a metric (number) and a ${source} (string)`,
        );
    }
  }

  /** Non-empty names and values only (the package warns and leaves the others out). */
  private sanitize(dimensions: Dimensions): Dimensions {
    const kept: Dimensions = {};
    for (const [key, value] of Object.entries(dimensions)) {
      if (isStringUndefinedNullEmpty(key) || isStringUndefinedNullEmpty(value)) {
        this.console.warn(
          `The dimension ${key} doesn't meet the requirements and won't be added. Ensure the dimension name and value are non empty strings`,
        );
        continue;
      }
      if (Object.hasOwn(this.defaultDimensions, key) || Object.hasOwn(kept, key))
        this.console.warn(
          `Dimension "${key}" has already been added. The previous value will be overwritten.`,
        );
      kept[key] = value;
    }
    return kept;
  }
}
