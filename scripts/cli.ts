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
 * message and the usage instead of a stack trace.
 */
export function parseCli<T extends ParseArgsConfig>(
  usage: string,
  config: T,
): ReturnType<typeof parseArgs<T>> {
  answerHelp(usage, config.args);
  try {
    return parseArgs(config);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (!code.startsWith('ERR_PARSE_ARGS_')) throw error;
    print(2, `✖ ${(error as Error).message}\n\n${usage}`);
    process.exit(2);
  }
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
