/**
 * `npm run ledger:day -- [options]`: a day of simulated traffic with faults, closed from the simulator's
 * statement and the pull; prints the auto-match rate and every break with the injected fault that explains
 * it. Exit 0 when every break is explained (and the verdicts balance), 1 otherwise. docs/statements.md#proof.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { ScenarioError } from './sim/core';
import { hasControlCharacters } from '../shared/util/text';
import { parseCli } from './cli';
import { DEFAULT_PLAN } from './ledger/plan';
import type { DayRunResult } from './ledger/day';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const HELP = `Usage: npm run ledger:day -- [options]

Starts DynamoDB Local, the relay and the simulator (as npm start -- --simulator), sets the simulator's
statement faults, drives the ledger's traffic (npm run ledger) and C2B payments, pulls (the first pull fails
inside a 200), imports the simulator's statement as an operator, closes every business day it touched on a
clock past the day's SLA, and explains every break by the injected fault behind it.

Options:
  --transactions <n>   ledger transactions (default 200)
  --c2b <n>            C2B payments into the short code (default 40)
  --drop <p>           probability a final callback / C2B confirmation is dropped (default 0.3)
  --duplicate <p>      probability a callback is sent 2 or 3 times (default 0.2)
  --status-5xx <p>     probability the first status calls answer 5xx (default 0.1)
  --missing-every <n>  every Nth statement/pull row left out (default 13)
  --duplicate-every <n> every Nth row served twice (default 7)
  --late-every <n>     every Nth row dated past the next midnight (default 11)
  --fee-percent <p>    fee row on every payment in, percent (default 1)
  --balance-every <s>  seconds between two balance snapshots, provider time (default 300: every
                       6 s at the simulator's time scale, so the balance is checked while money moves)
  --seed <n>           random seed (default: random, printed)
  --write <file>       write the measured numbers into this file's ledger:day section (docs/results.md)
  --by <name>          the person recorded as closing the days (default: your login name)
  --data-dir <dir>     keep DynamoDB Local's data in <dir>: \`npm start -- --simulator --data-dir <dir>\`
                       then shows the closed days in the console (Statements, daraja/demo)
`;

function fail(message: string): never {
  process.stderr.write(`✖ ${message}\n`);
  process.exit(1);
}

function whole(name: string, raw: string | undefined, fallback: number, zero = false): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(n) || n < (zero ? 0 : 1))
    fail(`--${name} must be a ${zero ? 'whole number' : 'positive whole number'}, got "${raw}"`);
  return n;
}

function probability(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (raw.trim() === '' || !(n >= 0 && n <= 1)) fail(`--${name} must be between 0 and 1, got "${raw}"`);
  return n;
}

function percent(raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (raw.trim() === '' || !(n >= 0 && n <= 100))
    fail(`--fee-percent must be between 0 and 100, got "${raw}"`);
  return n;
}

function closer(raw: string): string {
  const name = raw.trim();
  if (!name || name.length > 128 || hasControlCharacters(name))
    fail(`--by must name a person (1 to 128 printable characters), got "${raw}"`);
  return name;
}

const BEGIN = '<!-- ledger:day begin (written by npm run ledger:day -- --write docs/results.md) -->';
const END = '<!-- ledger:day end -->';

/** The section of the results file this run owns, replaced in place (other sections are left as they are). */
export function writeSection(file: string, result: DayRunResult, command: string, seed: number): void {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    text = '# Measured results\n\nEach section is written by the command it names; none is typed by hand.\n';
  }
  const pct = (r: number | null) => (r === null ? 'n/a' : `${(r * 100).toFixed(2)} %`);
  const section = [
    BEGIN,
    '## A day that adds up (`npm run ledger:day`)',
    '',
    `Command: \`${command}\` (seed ${seed}).`,
    '',
    '| Measure | Value |',
    '| --- | --- |',
    `| Auto-match rate | ${pct(result.matchRate.rate)} (${result.matchRate.matched} of ${result.matchRate.toMatch}) |`,
    `| Business days closed | ${result.days.length} |`,
    `| Breaks | ${result.breaks.length} |`,
    `| Explained by an injected fault | ${result.breaks.length - result.unexplained} |`,
    `| Unexplained | ${result.unexplained} |`,
    `| Verdicts balance (npm run ledger's own check) | ${result.verdictsBalanced ? 'yes' : 'no'} |`,
    `| Breaks unexplained, by category | ${
      [...new Set(result.breaks.filter((b) => !b.fault).map((b) => b.category))].join(', ') || 'none'
    } |`,
    '',
    '| Injected fault | Injected | Breaks it explains |',
    '| --- | --- | --- |',
    ...Object.entries(result.faults).map(([k, v]) => `| ${k} | ${v.injected} | ${v.breaks} |`),
    END,
  ].join('\n');
  const start = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  const next =
    start >= 0 && end > start
      ? text.slice(0, start) + section + text.slice(end + END.length)
      : `${text.trimEnd()}\n\n${section}\n`;
  writeFileSync(file, next);
}

async function main(): Promise<void> {
  const { values } = parseCli(HELP, {
    options: {
      transactions: { type: 'string' },
      c2b: { type: 'string' },
      drop: { type: 'string' },
      duplicate: { type: 'string' },
      'status-5xx': { type: 'string' },
      'missing-every': { type: 'string' },
      'duplicate-every': { type: 'string' },
      'late-every': { type: 'string' },
      'fee-percent': { type: 'string' },
      seed: { type: 'string' },
      'balance-every': { type: 'string' },
      write: { type: 'string' },
      by: { type: 'string' },
      'data-dir': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const seed = whole('seed', values.seed, Math.floor(Math.random() * 2 ** 31), true);
  const out = (line: string) => process.stdout.write(`${line}\n`);
  // Loaded once the options are known: `--help` and a mistyped option answer without loading the relay.
  const { runLedgerDay } = await import('./ledger/day');
  const result = await runLedgerDay({
    transactions: whole('transactions', values.transactions, 200),
    c2b: whole('c2b', values.c2b, 40, true),
    drop: probability('drop', values.drop, 0.3),
    duplicate: probability('duplicate', values.duplicate, 0.2),
    status5xx: probability('status-5xx', values['status-5xx'], 0.1),
    neverFinal: DEFAULT_PLAN.neverFinal,
    failure: DEFAULT_PLAN.failure,
    expiresInSeconds: DEFAULT_PLAN.expiresInSeconds,
    books: {
      missingEvery: whole('missing-every', values['missing-every'], 13),
      duplicateEvery: whole('duplicate-every', values['duplicate-every'], 7),
      lateEvery: whole('late-every', values['late-every'], 11),
      feePercent: percent(values['fee-percent'], 1),
    },
    balanceIntervalSeconds: whole('balance-every', values['balance-every'], 300),
    concurrency: 10,
    seed,
    maxWaitMs: 600_000,
    marginMs: 15_000,
    lingerMs: 3000,
    adminToken: 'demo-admin-token',
    ...(values.by !== undefined ? { closedBy: closer(values.by) } : {}),
    ...(values['data-dir'] ? { dataDir: values['data-dir'] } : {}),
    onNote: out,
    onProgress: (line) => out(`  ${line}`),
  });
  out(`(seed ${seed})`);
  out(result.text);
  if (values.write) {
    const args = process.argv.slice(2).filter((a, i, all) => a !== '--write' && all[i - 1] !== '--write');
    writeSection(values.write, result, `npm run ledger:day -- ${args.join(' ')}`.trim(), seed);
    out(`\nwritten to ${values.write}`);
  }
  process.exitCode = result.unexplained === 0 && result.verdictsBalanced ? 0 : 1;
}

main().catch((error) => {
  if (error instanceof ScenarioError) fail(error.message);
  fail((error as Error).stack ?? String(error));
});
