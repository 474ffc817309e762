/**
 * `--help` and option errors for the scripts in package.json: every one answers `--help` with its usage and
 * exit code 0 before it does anything (starts a server, writes files), and a wrong option is a one-line
 * message and the usage, never a stack trace (test/e2e/scripts-help.test.ts runs them all).
 * Imports only node: scripts/build-console.ts uses it and ships in the packed construct library.
 */
import { writeSync } from 'node:fs';
import { userInfo } from 'node:os';
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** `--help` or `-h` among the arguments before a `--`. */
export function helpRequested(args: readonly string[] = process.argv.slice(2)): boolean {
  const end = args.indexOf('--');
  return (end < 0 ? args : args.slice(0, end)).some((a) => a === '--help' || a === '-h');
}

/** Written synchronously: a piped stdout would otherwise lose what process.exit() cuts short. */
function print(fd: 1 | 2, text: string): void {
  writeSync(fd, text.endsWith('\n') ? text : `${text}\n`);
}

/** On `--help`: prints `usage` and exits 0. */
export function answerHelp(usage: string, args?: readonly string[]): void {
  if (!helpRequested(args)) return;
  print(1, usage);
  process.exit(0);
}

/**
 * node:util's parseArgs, after `--help` is answered; an unknown option or a missing value exits 2 with the
 * message, the option meant when the name is a typo of one, and the usage, instead of a stack trace. A usage
 * longer than a screen is cut to its first line: the message stays in sight, `--help` has the rest.
 */
export function parseCli<T extends ParseArgsConfig>(
  usage: string,
  config: T,
): ReturnType<typeof parseArgs<T>> {
  answerHelp(usage, config.args);
  if (config.args === undefined) refuseOptionsGivenToNpm(usage, config);
  try {
    return parseArgs(config);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (!code.startsWith('ERR_PARSE_ARGS_')) throw error;
    print(
      2,
      `✖ ${cliErrorMessage(error as Error, Object.keys(config.options ?? {}))}\n\n${shortUsage(usage)}`,
    );
    process.exit(2);
  }
}

/**
 * `npm start --simulator` or `npm run sim momo pay --fault drop` (no `--`): npm keeps the options for itself
 * (npm_config_simulator, npm_config_fault) and runs the script without them, or with their values as
 * stray arguments. Refused with the command meant, exit 2.
 */
function refuseOptionsGivenToNpm(usage: string, config: ParseArgsConfig, env = process.env): void {
  const script = env.npm_lifecycle_event;
  if (!script) return;
  const options = config.options ?? {};
  const given = Object.keys(options).filter(
    (option) => option !== 'help' && env[`npm_config_${option.replaceAll('-', '_')}`] !== undefined,
  );
  if (given.length === 0) return;
  const first = given[0]!;
  const example = `--${first}${options[first]!.type === 'string' ? ' <value>' : ''}`;
  const command = script === 'start' ? 'npm start' : `npm run ${script}`;
  print(
    2,
    `✖ npm took ${given.map((o) => `--${o}`).join(' ')} for itself: the script's options go after \`--\`, as in ${command} -- ${example}\n\n${shortUsage(usage)}`,
  );
  process.exit(2);
}

const SCREEN_LINES = 24;

function shortUsage(usage: string): string {
  const lines = usage.trimEnd().split('\n');
  if (lines.length <= SCREEN_LINES) return usage;
  const command = /^Usage: (npm (?:start|run [\w:-]+))/.exec(lines[0]!)?.[1];
  return `${lines[0]}\n(every option: ${command ? `${command} -- --help` : '--help'})`;
}

/**
 * parseArgs' message without its advice about positionals starting with '-', which is about a case nobody
 * here has, plus the option meant when the unknown one is a typo of it (`--fualt` → `--fault`).
 */
export function cliErrorMessage(error: Error, options: readonly string[]): string {
  const unknown = /^Unknown option '(-{1,2}[^']+)'/.exec(error.message)?.[1];
  if (unknown === undefined) return error.message;
  const meant = closest(unknown.replace(/^-+/, '').split('=')[0]!, options);
  return `Unknown option '${unknown}'${meant ? `; did you mean --${meant}?` : ''}`;
}

/**
 * An option whose value must be one of `allowed` (`npm run bench -- --only bundle`): anything else exits 2
 * with the values, and the one meant when it is a typo, instead of running what the value would not
 * have chosen.
 */
export function requireOneOf(
  usage: string,
  option: string,
  value: string | undefined,
  allowed: readonly string[],
): void {
  if (value === undefined || allowed.includes(value)) return;
  const meant = closest(value, allowed);
  print(
    2,
    `✖ --${option} ${value} is not one of ${allowed.join(', ')}${meant ? `; did you mean --${option} ${meant}?` : ''}\n\n${shortUsage(usage)}`,
  );
  process.exit(2);
}

/** The option at most two edits away (the nearest), if any. */
function closest(word: string, options: readonly string[]): string | undefined {
  let best: { option: string; distance: number } | undefined;
  for (const option of options) {
    const distance = editDistance(word.toLowerCase(), option);
    if (distance <= 2 && (!best || distance < best.distance)) best = { option, distance };
  }
  return best?.option;
}

/** Levenshtein distance, with a swap of neighbours counting as one edit (`fualt` → `fault`). */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  return d[a.length]![b.length]!;
}

/**
 * Who runs a script's manual action (a close, an import) when `--by` does not say: the login name. A container user with no passwd entry has
 * none to look up (userInfo throws), so the environment's name comes first, then a plain label that still
 * says the close was a person's, run from this machine.
 */
export function loginName(env: NodeJS.ProcessEnv = process.env): string {
  const named = env.USER?.trim() || env.LOGNAME?.trim();
  if (named) return named;
  try {
    return userInfo().username || 'local operator';
  } catch {
    return 'local operator';
  }
}
