import type { RelayLogger } from '../shared/app/ports';

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 } as const;
type Level = keyof typeof LEVELS;

function formatValue(value: unknown): string {
  if (value instanceof Error) return JSON.stringify(value.message);
  if (typeof value === 'string') return /[\s="]/.test(value) ? JSON.stringify(value) : value;
  return JSON.stringify(value);
}

/**
 * One readable line per log call for `npm start` (the Lambda functions log JSON through Powertools).
 * The same rule applies: callers never pass secrets or full MSISDNs.
 */
export class ConsoleLogger implements RelayLogger {
  private readonly threshold: number;

  constructor(
    level: string = process.env.LOG_LEVEL ?? 'info',
    private readonly write: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
  ) {
    this.threshold =
      LEVELS[(level.toLowerCase() as Level) in LEVELS ? (level.toLowerCase() as Level) : 'info'];
  }

  private log(level: Level, message: string, extra: Record<string, unknown>[]): void {
    if (LEVELS[level] < this.threshold) return;
    const fields = Object.assign({}, ...extra) as Record<string, unknown>;
    const rendered = Object.entries(fields)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}=${formatValue(v)}`)
      .join(' ');
    const time = new Date().toISOString().slice(11, 19);
    this.write(`${time} ${level.toUpperCase().padEnd(5)} ${message}${rendered ? `  ${rendered}` : ''}`);
  }

  debug(message: string, ...extra: Record<string, unknown>[]) {
    this.log('debug', message, extra);
  }
  info(message: string, ...extra: Record<string, unknown>[]) {
    this.log('info', message, extra);
  }
  warn(message: string, ...extra: Record<string, unknown>[]) {
    this.log('warn', message, extra);
  }
  error(message: string, ...extra: Record<string, unknown>[]) {
    this.log('error', message, extra);
  }
}
