/**
 * The one results file (docs/results.md) that `npm run bench` writes: each section the run measured
 * replaces that section's latest numbers, and one line per run is added to its history. Numbers live here,
 * not in the reference pages' prose (docs/development.md says what is measured and how).
 *
 * The file is plain markdown with comment markers around each section; what sits outside the markers
 * (the header, notes from before the bench wrote this file) is kept as is.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';

/** Every section the bench can write, in the file's order; an id not listed here is refused. */
export const RESULT_SECTIONS = [
  { id: 'callbacks', title: 'Callback throughput, units and item sizes' },
  { id: 'reconciliation', title: 'Reconciliation' },
  { id: 'poller', title: 'Poller under load' },
  { id: 'consoles', title: 'Acks with consoles open' },
  { id: 'outage', title: 'Store outage (ingress buffer)' },
  { id: 'statements', title: 'Statement import' },
  { id: 'deliveries', title: 'Webhook deliveries' },
  { id: 'bundles', title: 'Lambda bundles and cold init' },
] as const;
export type ResultSectionId = (typeof RESULT_SECTIONS)[number]['id'];

/** Runs kept in a section's history: the oldest go first. */
export const HISTORY_ROWS = 30;

export interface BenchRun {
  /** ISO time of the run. */
  readonly at: string;
  readonly commit: string;
  /** e.g. "2 cores, load 0.4, Node v20.19.0". */
  readonly machine: string;
  /** The options the bench ran with, as typed. */
  readonly options: string;
}

/** What the bench printed for one section, line by line (markdown tables and notes). */
export interface SectionOutput {
  readonly id: ResultSectionId;
  readonly lines: readonly string[];
}

const HEADER = `# Results

Written by \`npm run bench\` (\`scripts/bench-results.ts\`); do not edit between the markers. Each section holds
the latest run that measured it and one line per run in its history (its first rows, newest last). What
each number means, its target and how it is measured: [development.md](development.md#performance).
\`npm run bench -- --no-results\` prints without writing this file.
`;

const begin = (id: string) => `<!-- bench:${id} -->`;
const end = (id: string) => `<!-- /bench:${id} -->`;

/** The measure/value pairs of a section's first table rows: its history line. */
export function summarize(lines: readonly string[], rows = 4): string {
  const cells = lines
    .filter((line) => line.startsWith('|') && !/^\|\s*-/.test(line) && !/^\|\s*measure\s*\|/i.test(line))
    .slice(0, rows)
    .map((line) => line.split('|').map((cell) => cell.trim()))
    .map((cell) => `${cell[1]}: ${cell[2]}`);
  return cells.join('; ').replaceAll('|', '/');
}

function sectionBody(
  id: ResultSectionId,
  output: SectionOutput | undefined,
  previous: string | undefined,
  run: BenchRun,
): string {
  const title = RESULT_SECTIONS.find((s) => s.id === id)!.title;
  const history = previous
    ? [...previous.matchAll(/^\| \d{4}-\d\d-\d\d[^\n]*$/gm)]
        .map((m) => m[0])
        .filter((row) => !row.includes('---'))
    : [];
  if (!output) return previous ?? '';
  const latest = output.lines.join('\n').trim();
  history.push(
    `| ${run.at.slice(0, 16).replace('T', ' ')} | ${run.commit} | ${run.machine} | ${run.options || '(defaults)'} | ${summarize(output.lines)} |`,
  );
  return [
    begin(id),
    `## ${title}`,
    '',
    `Latest: ${run.at.slice(0, 16).replace('T', ' ')} UTC, commit ${run.commit}, ${run.machine}, options ${run.options || '(defaults)'}.`,
    '',
    latest,
    '',
    'History:',
    '',
    '| run (UTC) | commit | machine | options | first rows |',
    '| --- | --- | --- | --- | --- |',
    ...history.slice(-HISTORY_ROWS),
    end(id),
  ].join('\n');
}

/**
 * The results file after a run: the measured sections replaced (their history extended), the others and
 * everything outside the markers kept. Pure, so a test can check it without running the bench.
 */
export function mergeResults(
  existing: string | undefined,
  outputs: readonly SectionOutput[],
  run: BenchRun,
): string {
  const text = existing && existing.trim() ? existing : HEADER;
  const found = new Map<string, string>();
  for (const { id } of RESULT_SECTIONS) {
    const at = text.indexOf(begin(id));
    const stop = text.indexOf(end(id));
    if (at >= 0 && stop > at) found.set(id, text.slice(at, stop + end(id).length));
  }
  // Everything outside the markers, with each section's place remembered by its first marker.
  let outside = text;
  for (const [, block] of found) outside = outside.replace(block, '');
  outside = outside.replace(/\n{3,}/g, '\n\n').trimEnd();
  const blocks = RESULT_SECTIONS.map(({ id }) =>
    sectionBody(
      id,
      outputs.find((o) => o.id === id),
      found.get(id),
      run,
    ),
  ).filter(Boolean);
  return `${outside}\n\n${blocks.join('\n\n')}\n`;
}

export function currentRun(options: readonly string[], root: string): BenchRun {
  let commit = 'uncommitted';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], {
      cwd: root,
      encoding: 'utf8',
    }).trim();
    if (dirty) commit += '+changes';
  } catch {
    // Not a git checkout (a packed copy): the run is still recorded.
  }
  return {
    at: new Date().toISOString(),
    commit,
    machine: `${cpus().length} cores, load ${loadavg()[0]!.toFixed(1)}, Node ${process.version}`,
    options: options.join(' '),
  };
}

/**
 * Collects what the bench prints, by section: `out` writes to stdout and, while a section is open, into
 * it. `write(file)` merges the collected sections into the results file.
 */
export class ResultsRecorder {
  private readonly outputs: Array<{ id: ResultSectionId; lines: string[] }> = [];
  private current: { id: ResultSectionId; lines: string[] } | undefined;

  readonly out = (line = ''): void => {
    process.stdout.write(`${line}\n`);
    this.current?.lines.push(line);
  };

  /** The lines printed from now on belong to `id` (until the next section). */
  section(id: ResultSectionId): void {
    this.current = { id, lines: [] };
    this.outputs.push(this.current);
  }

  get measured(): readonly SectionOutput[] {
    return this.outputs.filter((o) => o.lines.some((line) => line.trim()));
  }

  write(file: string, run: BenchRun): void {
    const existing = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
    writeFileSync(file, mergeResults(existing, this.measured, run));
  }
}
