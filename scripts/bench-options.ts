/** The options of `npm run bench`, parsed by scripts/bench.ts and read by scripts/bench-run.ts. */
export interface BenchOptions {
  callbacks: string;
  concurrency: string;
  rounds: string;
  'publish-during': boolean;
  only?: string;
  'no-results': boolean;
  rows: string;
}

let parsed: BenchOptions | undefined;

export function setBenchOptions(options: BenchOptions): void {
  parsed = options;
}

/** The options scripts/bench.ts parsed; thrown when this module is loaded some other way. */
export function benchOptions(): BenchOptions {
  if (!parsed) throw new Error('scripts/bench-run.ts is run through scripts/bench.ts (npm run bench)');
  return parsed;
}
