import { Console } from 'node:console';
import { deepMerge } from '@aws-lambda-powertools/commons/utils/deep-merge';
import { getStringFromEnv, getXRayTraceIdFromEnv, isDevMode } from '@aws-lambda-powertools/commons/utils/env';
import type { LogAttributes, UnformattedAttributes } from '@aws-lambda-powertools/logger/types';
import type { Context } from 'aws-lambda';
// The package's own formatter base (timestamps, error formatting), unchanged: the relay's RelayLogFormatter
// extends it, so a line's fields are built by the same code in the bundles as in the tests.
import { LogFormatter } from '../../node_modules/@aws-lambda-powertools/logger/lib/esm/formatter/LogFormatter.js';
// The package's levels, reserved keys and indentation: the same values the class below is checked against.
import {
  LogJsonIndent,
  LogLevelThreshold,
  ReservedKeys,
} from '../../node_modules/@aws-lambda-powertools/logger/lib/esm/constants.js';

/**
 * Bundled in place of `@aws-lambda-powertools/logger` in every Lambda function (esbuild alias,
 * infra/bundling.ts BUNDLE_OPTIONS.alias): Powertools Logger as the relay uses it (a service name, a level,
 * the relay's formatter, shared/runtime/log-format.ts; `debug`/`info`/`warn`/`error` with extra attributes;
 * the Lambda context added per invocation by `injectLambdaContext`) and nothing more: no log buffering,
 * debug sampling (POWERTOOLS_LOGGER_SAMPLE_RATE), event logging (POWERTOOLS_LOGGER_LOG_EVENT: a raw
 * callback holds phone numbers), correlation ids, child loggers, persistent keys or decorators (~20 KB of
 * each bundle, 5% of the callback's). Same line: the package's LogFormatter and LogItem merge, the same
 * attributes handed to the formatter, the same JSON replacer (errors formatted, bigints as strings, circular
 * references dropped), reserved keys dropped with the same warning, the same writer (stdout, stderr for
 * warnings and errors; the global console and indented JSON with POWERTOOLS_DEV), the same level
 * (AWS_LAMBDA_LOG_LEVEL, then the constructor's, then POWERTOOLS_LOG_LEVEL or LOG_LEVEL, else INFO) and
 * cold start (the first context of an on-demand instance).
 * test/unit/infra/powertools-logger-shim.test.ts drives both with the same calls and compares what they
 * write; local runs and tests keep the package. Should the code call another method, add it here and a case
 * to that test: the type check sees the package's class, so only the bundles would fail, at run time
 * (test/integration/callback-bundle.test.ts runs the callback's logging).
 */

export { LogFormatter };

type Level = keyof typeof LogLevelThreshold;
type Attributes = Record<string, unknown>;

/** The package's LogItem: attributes deep-merged in, empty values dropped before printing. */
export class LogItem {
  private attributes: Attributes;

  constructor(params: { attributes: Attributes }) {
    this.attributes = params.attributes;
  }

  addAttributes(attributes: Attributes): this {
    deepMerge(this.attributes, attributes);
    return this;
  }

  getAttributes(): Attributes {
    return this.attributes;
  }

  prepareForPrint(): void {
    const kept: Attributes = {};
    for (const key in this.attributes) {
      const value = this.attributes[key];
      if (value !== undefined && value !== '' && value !== null) kept[key] = value;
    }
    this.attributes = kept;
  }

  setAttributes(attributes: Attributes): void {
    this.attributes = attributes;
  }
}

interface Formatter {
  formatAttributes(attributes: UnformattedAttributes, additional: LogAttributes): LogItem;
  formatError(error: Error): Attributes;
}

interface LoggerOptions {
  serviceName?: string;
  logLevel?: string;
  logFormatter?: Formatter;
}

type LambdaContext = UnformattedAttributes['lambdaContext'];

const isLevel = (level: unknown): level is Level => typeof level === 'string' && level in LogLevelThreshold;

function levelName(threshold: number): Level {
  return (Object.keys(LogLevelThreshold) as Level[]).find((name) => LogLevelThreshold[name] === threshold)!;
}

export class Logger {
  private readonly console: Console;
  private readonly formatter: Formatter;
  private readonly indentation: number;
  private readonly logData: { awsRegion: string; environment: string; serviceName: string };
  private readonly alcLevel: Level | undefined;
  private readonly threshold: number;
  private readonly warnedOnce = new Set<string>();
  private temporaryKeys: Attributes = {};
  private lambdaContext: LambdaContext;
  private coldStart = process.env.AWS_LAMBDA_INITIALIZATION_TYPE?.trim() === 'on-demand';

  constructor(options: LoggerOptions = {}) {
    this.logData = {
      awsRegion: getStringFromEnv({ key: 'AWS_REGION', defaultValue: '' }),
      environment: getStringFromEnv({ key: 'ENVIRONMENT', defaultValue: '' }),
      serviceName:
        options.serviceName ||
        getStringFromEnv({ key: 'POWERTOOLS_SERVICE_NAME', defaultValue: '' }) ||
        'service_undefined',
    };
    const lambdaLevel = getStringFromEnv({ key: 'AWS_LAMBDA_LOG_LEVEL', defaultValue: '' });
    const alc = lambdaLevel === 'FATAL' ? 'CRITICAL' : lambdaLevel;
    this.alcLevel = isLevel(alc) ? alc : undefined;
    const asked = options.logLevel?.toUpperCase();
    const fromEnv =
      getStringFromEnv({ key: 'POWERTOOLS_LOG_LEVEL', defaultValue: '' }) ||
      getStringFromEnv({ key: 'LOG_LEVEL', defaultValue: '' });
    const level = this.alcLevel ?? (isLevel(asked) ? asked : isLevel(fromEnv) ? fromEnv : 'INFO');
    this.threshold = LogLevelThreshold[level];
    if (!options.logFormatter)
      throw new Error('the relay logs through its own formatter (shared/runtime/log-format.ts)');
    this.formatter = options.logFormatter;
    const dev = isDevMode();
    this.console = dev ? console : new Console({ stdout: process.stdout, stderr: process.stderr });
    this.indentation = dev ? LogJsonIndent.PRETTY : LogJsonIndent.COMPACT;
    if (this.alcLevel && isLevel(asked) && LogLevelThreshold[this.alcLevel] > LogLevelThreshold[asked])
      this.warnOnce(
        `Current log level (${asked}) does not match AWS Lambda Advanced Logging Controls minimum log level (${this.alcLevel}). This can lead to data loss, consider adjusting them.`,
      );
  }

  trace(input: string | Attributes, ...extra: unknown[]): void {
    this.log(LogLevelThreshold.TRACE, input, extra);
  }

  debug(input: string | Attributes, ...extra: unknown[]): void {
    this.log(LogLevelThreshold.DEBUG, input, extra);
  }

  info(input: string | Attributes, ...extra: unknown[]): void {
    this.log(LogLevelThreshold.INFO, input, extra);
  }

  warn(input: string | Attributes, ...extra: unknown[]): void {
    this.log(LogLevelThreshold.WARN, input, extra);
  }

  error(input: string | Attributes, ...extra: unknown[]): void {
    this.log(LogLevelThreshold.ERROR, input, extra);
  }

  critical(input: string | Attributes, ...extra: unknown[]): void {
    this.log(LogLevelThreshold.CRITICAL, input, extra);
  }

  /** The invocation's context, as the package's `addContext` keeps it (cold start on the first only). */
  addContext(context: Context): void {
    const coldStart = this.coldStart;
    this.coldStart = false;
    this.lambdaContext = {
      invokedFunctionArn: context.invokedFunctionArn,
      coldStart,
      awsRequestId: context.awsRequestId,
      memoryLimitInMB: context.memoryLimitInMB,
      functionName: context.functionName,
      functionVersion: context.functionVersion,
      tenantId: (context as { tenantId?: string }).tenantId,
    } as LambdaContext;
  }

  appendKeys(attributes: Attributes): void {
    Object.assign(this.temporaryKeys, this.withoutReserved(attributes));
  }

  resetKeys(): void {
    this.temporaryKeys = {};
  }

  private log(threshold: number, input: string | Attributes, extra: unknown[]): void {
    if (threshold < this.threshold) return;
    const additional: Attributes = { ...this.temporaryKeys };
    let message = input;
    if (typeof input !== 'string') {
      const { message: text, ...rest } = input;
      message = text as string;
      Object.assign(additional, this.withoutReserved(rest));
    }
    for (const item of extra) {
      if (item === null || item === undefined) continue;
      if (item instanceof Error) additional.error = item;
      else if (typeof item === 'string') additional.extra = item;
      else Object.assign(additional, this.withoutReserved(item as Attributes));
    }
    const item = this.formatter.formatAttributes(
      {
        logLevel: levelName(threshold),
        timestamp: new Date(),
        xRayTraceId: getXRayTraceIdFromEnv(),
        ...this.logData,
        sampleRateValue: 0,
        ...(this.lambdaContext ? { lambdaContext: this.lambdaContext } : {}),
        message: message as string,
      } as UnformattedAttributes,
      additional as LogAttributes,
    );
    item.prepareForPrint();
    const method = threshold === LogLevelThreshold.CRITICAL ? 'error' : levelName(threshold).toLowerCase();
    const write = method === 'trace' ? this.console.log : this.console[method as 'info'];
    write.call(this.console, JSON.stringify(item.getAttributes(), this.replacer(), this.indentation));
  }

  /** The package's replacer: errors through the formatter, bigints as strings, circular references dropped. */
  private replacer() {
    const ancestors: unknown[] = [];
    const formatter = this.formatter;
    return function (this: unknown, _key: string, value: unknown) {
      let replaced = value;
      if (replaced instanceof Error) replaced = formatter.formatError(replaced);
      if (typeof replaced === 'bigint') return replaced.toString();
      if (typeof replaced === 'object' && replaced !== null) {
        while (ancestors.length > 0 && ancestors.at(-1) !== this) ancestors.pop();
        if (ancestors.includes(replaced)) return undefined;
        ancestors.push(replaced);
      }
      return replaced;
    };
  }

  private withoutReserved(attributes: Attributes): Attributes {
    const kept: Attributes = {};
    for (const [key, value] of Object.entries(attributes)) {
      if ((ReservedKeys as readonly string[]).includes(key))
        this.warn(`The key "${key}" is a reserved key and will be dropped.`);
      else kept[key] = value;
    }
    return kept;
  }

  private warnOnce(message: string): void {
    if (this.warnedOnce.has(message)) return;
    this.warnedOnce.add(message);
    this.warn(message);
  }
}
