import { accessSync, chmodSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { PROJECT_ROOT } from '../../infra/bundling';

/** The first executable `name` on `path`. */
function onPath(name: string, path: string): string {
  for (const dir of path.split(delimiter)) {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      // Not in this directory.
    }
  }
  throw new Error(`${name} is not on the PATH`);
}

/** `value` as one word of a POSIX shell command. */
const quoted = (value: string) => `'${value.replaceAll("'", "'\\''")}'`;

/**
 * Runs `synth` (a synth that bundles the functions) with `npx --no-install esbuild …` answered by the
 * project's esbuild itself: in an npm project aws-cdk-lib's NodejsFunction runs esbuild through npx, and
 * each npx start loads npm, about 1 s of CPU once per function, where esbuild's own bundling costs 0.2 s.
 * Same esbuild binary (the one npx would run, node_modules/.bin), same arguments, so the same bundles; any
 * other npx command goes to the real npx. The PATH is changed only while `synth` runs (synchronously).
 */
export function withEsbuildWithoutNpx<T>(synth: () => T): T {
  const path = process.env.PATH ?? '';
  const npx = onPath('npx', path);
  const esbuild = join(PROJECT_ROOT, 'node_modules', '.bin', 'esbuild');
  const dir = mkdtempSync(join(tmpdir(), 'relay-npx-'));
  const shim = join(dir, 'npx');
  writeFileSync(
    shim,
    [
      '#!/bin/sh',
      `if [ "$1" = --no-install ] && [ "$2" = esbuild ]; then shift 2; exec ${quoted(esbuild)} "$@"; fi`,
      `exec ${quoted(npx)} "$@"`,
      '',
    ].join('\n'),
  );
  chmodSync(shim, 0o755);
  process.env.PATH = `${dir}${delimiter}${path}`;
  try {
    return synth();
  } finally {
    process.env.PATH = path;
    rmSync(dir, { recursive: true, force: true });
  }
}
