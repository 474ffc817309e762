/**
 * `npm pack` runs this (`prepack`): builds what an installed copy of the package needs to synthesize,
 * since npm packs neither the sources' package-lock.json nor (by `files`) the TypeScript sources.
 *
 *   dist/assets/functions/<id>/index.mjs   each function bundled as the construct bundles it (relayBuildOptions)
 *   dist/assets/tracing-layer/             the tracing layer (infra/tracing-layer.ts)
 *   dist/assets/console/                   the operator console's static files (infra/relay/console.ts)
 *   dist/assets/manifest.json              what is there (infra/prebuilt-assets.ts reads it)
 *   dist/infra/index.js                    the library: infra/index.ts as one ES module, peers external
 *   dist/infra/index.cjs                   the same as one CommonJS module (for `require`)
 *   dist/types/                            its declarations (scripts/declarations.ts), read as CommonJS-format
 *
 *   npx tsx scripts/prebuild-assets.ts [--out DIR]   (default: dist)
 */
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build, type BuildOptions } from 'esbuild';
import {
  PREBUILT_MANIFEST,
  PROJECT_ROOT,
  type PrebuiltManifest,
  RELAY_FUNCTIONS,
  type RelayFunctionId,
  relayBuildOptions,
} from '../infra/bundling';
import { buildTracingLayer } from '../infra/tracing-layer';
import { buildConsoleInto } from './build-console';
import { parseCli } from './cli';
import { emitPackageDeclarations } from './declarations';

/**
 * Left to the consuming app (peerDependencies), so its constructs and the relay's are the same classes;
 * esbuild only for building a layer from sources, which the packed library never does.
 */
export const LIBRARY_EXTERNALS = [
  'aws-cdk-lib',
  'constructs',
  'cdk-nag',
  'cdk-monitoring-constructs',
  'esbuild',
];

const USAGE = `Usage: npx tsx scripts/prebuild-assets.ts [--out <dir>]   (npm pack runs it as prepack)

Builds what an installed copy of the package needs to synthesize into <dir> (default dist): each function
bundled, the tracing layer, the operator console, the library as one ES module and its declarations.`;
const { values } = parseCli(USAGE, { options: { out: { type: 'string', default: 'dist' } } });
const out = resolve(PROJECT_ROOT, values.out ?? 'dist');
const assets = join(out, 'assets');

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'types'), { recursive: true });
/**
 * The functions whose bundles have the same options (all but the entry point and output file), each set
 * built by one esbuild run with an entry point per function: esbuild parses the modules they share (the
 * AWS SDK, the relay's sources) once per run instead of once per function, and writes each bundle byte
 * for byte as a run of its own would.
 */
function bundleGroups(): BuildOptions[] {
  const groups = new Map<string, { options: BuildOptions; entryPoints: Record<string, string> }>();
  for (const id of Object.keys(RELAY_FUNCTIONS) as RelayFunctionId[]) {
    const { metafile: _metafile, entryPoints, outfile: _outfile, ...options } = relayBuildOptions(id, '');
    const key = JSON.stringify(options);
    const group = groups.get(key) ?? {
      options: { ...options, outdir: join(assets, 'functions') },
      entryPoints: {} as Record<string, string>,
    };
    group.entryPoints[`${id}/index`] = entryPoints[0]!;
    groups.set(key, group);
  }
  // relayBuildOptions' outfile ends in .mjs: with an outdir, the extension is esbuild's outExtension.
  return [...groups.values()].map(({ options, entryPoints }) => ({
    ...options,
    entryPoints,
    outExtension: { '.js': '.mjs' },
  }));
}
const bundles = Promise.all(bundleGroups().map((options) => build(options)));
// The declarations, file by file without a type-check (about a second), while esbuild bundles in its process.
emitPackageDeclarations(PROJECT_ROOT, join(out, 'types'));
await bundles;
const functions = Object.fromEntries(
  Object.keys(RELAY_FUNCTIONS).map((id) => [id, `functions/${id}`]),
) as Record<RelayFunctionId, string>;
cpSync(buildTracingLayer(), join(assets, 'tracing-layer'), { recursive: true });
// The operator console's static files (infra/relay/console.ts deploys them when the `console` prop is set).
buildConsoleInto(join(assets, 'console'));
const manifest: PrebuiltManifest = { functions, tracingLayer: 'tracing-layer' };
writeFileSync(join(assets, PREBUILT_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);

const library = {
  absWorkingDir: PROJECT_ROOT,
  entryPoints: [join(PROJECT_ROOT, 'infra', 'index.ts')],
  bundle: true,
  platform: 'node',
  target: 'node20',
  // zod and the shared sources the construct validates the config with are bundled: the library needs
  // nothing installed but its peers.
  external: LIBRARY_EXTERNALS.flatMap((name) => [name, `${name}/*`]),
  tsconfig: join(PROJECT_ROOT, 'tsconfig.json'),
  legalComments: 'none',
  logLevel: 'warning',
} satisfies BuildOptions;
await Promise.all([
  build({ ...library, outfile: join(out, 'infra', 'index.js'), format: 'esm' }),
  // The same library for `require` (exports' "require" condition): a `cdk init app --language typescript`
  // app is CommonJS. Beside the ES module, so `import.meta` (asset paths relative to this file) becomes
  // this file's URL, directory and name.
  build({
    ...library,
    outfile: join(out, 'infra', 'index.cjs'),
    format: 'cjs',
    define: {
      'import.meta.url': '__relayModuleUrl',
      'import.meta.dirname': '__dirname',
      'import.meta.filename': '__filename',
    },
    // Any other import.meta member would be undefined in CommonJS: fail the build, not the user's synth.
    logOverride: { 'empty-import-meta': 'error' },
    banner: { js: "const __relayModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
  }),
]);
// The declarations import each other without file extensions (the sources do): as CommonJS-format
// declarations, TypeScript resolves them under every moduleResolution, NodeNext included.
writeFileSync(join(out, 'types', 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
console.log(
  `prebuilt ${Object.keys(functions).length} functions, the tracing layer and the library in ${out}`,
);
