import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { PROJECT_ROOT } from './bundling';
import { layerCacheRoot } from './layer-cache';
import { prebuiltTracingLayer } from './prebuilt-assets';

/** The layer's module name: functions load it through NODE_PATH (shared/adapters/tracing/xray.ts). */
export const TRACING_LAYER_MODULE = 'relay-tracing';

/**
 * Builds the tracing layer's content once per lockfile: Powertools Tracer, its middy middleware and
 * the X-Ray SDK, bundled and minified as one CommonJS module at
 * `nodejs/node_modules/relay-tracing/index.js` (the layout Lambda puts on NODE_PATH). The versions are
 * the package-lock's, the same the tests ran. Returns the directory to hand to `Code.fromAsset`.
 */
export function buildTracingLayer(outRoot = layerCacheRoot()): string {
  // The packed library ships the layer built (no package-lock.json, sources or esbuild there).
  const prebuilt = prebuiltTracingLayer();
  if (prebuilt !== undefined) return prebuilt;
  const { buildSync } = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
  const lock = readFileSync(join(PROJECT_ROOT, 'package-lock.json'));
  const entry = join(PROJECT_ROOT, 'infra', 'lambda-shims', 'relay-tracing.ts');
  const hash = createHash('sha256').update(lock).update(readFileSync(entry)).digest('hex').slice(0, 16);
  const dir = join(outRoot, `tracing-${hash}`);
  const moduleDir = join(dir, 'nodejs', 'node_modules', TRACING_LAYER_MODULE);
  if (existsSync(join(moduleDir, 'index.js'))) return dir;
  // Built beside, then renamed: a concurrent synth never sees a half-written layer.
  const staging = `${dir}.${process.pid}.${Date.now()}`;
  const stagingModule = join(staging, 'nodejs', 'node_modules', TRACING_LAYER_MODULE);
  mkdirSync(stagingModule, { recursive: true });
  buildSync({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    platform: 'node',
    target: 'node22',
    format: 'cjs',
    outfile: join(stagingModule, 'index.js'),
    legalComments: 'none',
    logLevel: 'warning',
  });
  writeFileSync(
    join(stagingModule, 'package.json'),
    `${JSON.stringify({ name: TRACING_LAYER_MODULE, private: true, main: 'index.js' }, null, 2)}\n`,
  );
  try {
    renameSync(staging, dir);
  } catch {
    // Another process finished first: its copy is identical.
    rmSync(staging, { recursive: true, force: true });
  }
  return dir;
}
