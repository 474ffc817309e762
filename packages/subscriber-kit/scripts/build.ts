/**
 * Builds the package (`npm run build` here, `npm run kit:build` from the repository root, and `npm pack`'s
 * prepack): src/ bundled by esbuild into dist/esm/index.js (ESM) and dist/cjs/index.cjs (CommonJS), and the
 * declarations emitted by TypeScript twice, as .d.ts beside the ESM build and as .d.cts beside the CommonJS
 * one, so that TypeScript's node16/nodenext resolution finds types of the right module kind for `import`
 * and for `require`. Both tools come from the repository's devDependencies: nothing ships at run time.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { parseCli } from '../../../scripts/cli';

const KIT = resolve(import.meta.dirname, '..');
const DIST = join(KIT, 'dist');

// esbuild and TypeScript are loaded once the options are known: `--help` and a mistyped option answer
// without loading TypeScript's compiler (1.4 s of CPU before, bundled; 0.2 s now).
async function bundles(): Promise<void> {
  const { build } = await import('esbuild');
  const common = {
    entryPoints: [join(KIT, 'src/index.ts')],
    bundle: true,
    platform: 'node' as const,
    target: 'node20',
    logLevel: 'warning' as const,
  };
  await build({ ...common, format: 'esm', outfile: join(DIST, 'esm/index.js') });
  await build({ ...common, format: 'cjs', outfile: join(DIST, 'cjs/index.cjs') });
}

async function declarations(): Promise<void> {
  const { default: ts } = await import('typescript');
  const parsed = ts.getParsedCommandLineOfConfigFile(
    join(KIT, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  )!;
  const program = ts.createProgram(parsed.fileNames, parsed.options);
  const emitted = new Map<string, string>();
  const result = program.emit(undefined, (file, text) => emitted.set(file, text), undefined, true);
  const problems = [...ts.getPreEmitDiagnostics(program), ...result.diagnostics];
  if (problems.length)
    throw new Error(
      ts.formatDiagnostics(problems, { ...ts.sys, getCanonicalFileName: (f) => f, getNewLine: () => '\n' }),
    );
  const outDir = parsed.options.outDir!;
  for (const [file, text] of emitted) {
    const name = relative(outDir, file).replace(/\.d\.ts$/, '');
    await mkdir(dirname(join(DIST, 'esm', name)), { recursive: true });
    await mkdir(dirname(join(DIST, 'cjs', name)), { recursive: true });
    await writeFile(join(DIST, 'esm', `${name}.d.ts`), text);
    // './verify.js' names verify.d.ts beside the ESM build; beside the CommonJS one it is verify.d.cts.
    await writeFile(
      join(DIST, 'cjs', `${name}.d.cts`),
      text.replace(/(from '\.{1,2}\/[^']+)\.js'/g, "$1.cjs'"),
    );
  }
}

const USAGE = `Usage: npm run kit:build

Builds the subscriber kit (packages/subscriber-kit/README.md) into packages/subscriber-kit/dist: ESM and
CommonJS bundles and their declarations. npm pack in packages/subscriber-kit runs it first. No options.`;

parseCli(USAGE, { options: {} });
await rm(DIST, { recursive: true, force: true });
await bundles();
await declarations();
// stderr: `npm pack --json` prints its answer on stdout, after what prepack prints.
console.error(`built ${relative(process.cwd(), DIST) || '.'}`);
