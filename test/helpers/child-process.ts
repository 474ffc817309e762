import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');

export interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

const running: ChildProcess[] = [];

/**
 * Runs a TypeScript entry point as `npm start` does (`node --import tsx`, one process), in its own
 * process group so that killChildren() also ends anything it spawned (DynamoDB Local's JVM).
 * Not through the tsx CLI: that is a parent process which relays a signal to the real one and
 * SIGKILLs it unless it answers within 30 ms, so on a busy machine SIGTERM skipped the shutdown.
 */
export function runTs(script: string, args: string[] = [], env: NodeJS.ProcessEnv = {}): Started {
  return runNode(['--import', 'tsx', script, ...args], env);
}

/** A bundle standing for a script (test/helpers/bundled-script.ts), run as runTs runs the script. */
export function runBundle(bundle: string, args: string[] = [], env: NodeJS.ProcessEnv = {}): Started {
  return runNode([bundle, ...args], env);
}

function runNode(args: string[], env: NodeJS.ProcessEnv): Started {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  let text = '';
  child.stdout?.on('data', (c) => (text += c));
  child.stderr?.on('data', (c) => (text += c));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { child, output: () => text, exited };
}

/** For afterEach: a failed assertion must not leave a relay, a simulator or a JVM running. */
export function killChildren(): void {
  for (const child of running.splice(0)) {
    if (child.exitCode === null && child.pid) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}

export async function waitFor(predicate: () => boolean, ms: number, output: () => string): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (predicate()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting; output so far:\n${output()}`);
}
