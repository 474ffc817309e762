/**
 * Builds the operator console (console/) with the project's esbuild: one minified ES module, its
 * stylesheet and the page. `npm start` serves the files from memory (local/console-site.ts); the CDK
 * construct writes them to a directory it deploys (infra/relay/console.ts). Run by hand to look at the
 * output: `npx tsx scripts/build-console.ts [outdir]` (default .relay/console).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import type { BuildOptions } from 'esbuild';
import { parseCli } from './cli';

/**
 * esbuild is loaded when a build runs, not when this module is: the packed construct library imports
 * this file and ships the console built (scripts/prebuild-assets.ts), without esbuild.
 */
const esbuild = () => createRequire(import.meta.url)('esbuild') as typeof import('esbuild');

const CONSOLE_DIR = resolve(import.meta.dirname, '../console');

export interface ConsoleFile {
  contentType: string;
  body: Buffer;
}

const OPTIONS: BuildOptions = {
  entryPoints: [join(CONSOLE_DIR, 'main.ts')],
  bundle: true,
  minify: true,
  format: 'esm',
  target: 'es2022',
  platform: 'browser',
  write: false,
  legalComments: 'none',
  outfile: 'console.js',
  tsconfig: join(CONSOLE_DIR, 'tsconfig.json'),
  logLevel: 'silent',
};

function staticFiles(script: Uint8Array): Map<string, ConsoleFile> {
  return new Map([
    [
      'index.html',
      { contentType: 'text/html; charset=utf-8', body: readFileSync(join(CONSOLE_DIR, 'index.html')) },
    ],
    [
      'console.css',
      { contentType: 'text/css; charset=utf-8', body: readFileSync(join(CONSOLE_DIR, 'console.css')) },
    ],
    ['console.js', { contentType: 'text/javascript; charset=utf-8', body: Buffer.from(script) }],
  ]);
}

/** The console's files by name (index.html, console.js, console.css), built in memory. */
export async function buildConsole(): Promise<Map<string, ConsoleFile>> {
  const result = await esbuild().build(OPTIONS);
  return staticFiles(result.outputFiles![0]!.contents);
}

/** The same, written to `outdir` (synchronous: CDK synthesis is). Returns `outdir`. */
export function buildConsoleInto(outdir: string): string {
  const result = esbuild().buildSync(OPTIONS);
  mkdirSync(outdir, { recursive: true });
  for (const [name, file] of staticFiles(result.outputFiles![0]!.contents))
    writeFileSync(join(outdir, name), file.body);
  return outdir;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const { positionals } = parseCli(
    [
      'Usage: npm run console:build [-- <outdir>]',
      '',
      'Builds the operator console (console/) into <outdir> (default .relay/console): one minified ES module,',
      'its stylesheet and the page. npm start serves the same files from memory (docs/console.md).',
    ].join('\n'),
    { options: {}, allowPositionals: true },
  );
  const outdir = buildConsoleInto(resolve(positionals[0] ?? '.relay/console'));
  const files = staticFiles(readFileSync(join(outdir, 'console.js')));
  const total = [...files.values()].reduce((sum, f) => sum + f.body.length, 0);
  process.stdout.write(`console built into ${outdir}: ${(total / 1024).toFixed(1)} KB\n`);
}
