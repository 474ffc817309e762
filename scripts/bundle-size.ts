/**
 * Builds every Lambda handler (RELAY_FUNCTIONS) exactly as the CDK construct does (infra/bundling.ts) and reports,
 * per bundle: minified size, gzip size, the biggest contributors, and cold module init — the time a
 * fresh `node` process takes to import the bundle with the deployed environment (dummy values).
 *
 *   npx tsx scripts/bundle-size.ts [--runs 7] [--json] [--check] [--verbose] [--only callback] [--metafile DIR]
 *
 * --verbose also lists our own files (shared/, functions/, infra/) by output bytes, biggest first;
 * --only measures one bundle; --metafile writes each bundle's esbuild metafile to DIR/<function>.meta.json
 * (inputs with bytesInOutput: what each module costs).
 * --check exits 1 when a bundle breaks its budget (infra/bundling.ts BUNDLE_MAX_BYTES, ≤ 500 KB; ≤ 150 ms
 * median init).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';
import {
  BUNDLE_BUDGET,
  BUNDLE_MAX_BYTES,
  BUNDLE_OPTIONS,
  CALLBACK_BUNDLE_TARGET_BYTES,
  PROJECT_ROOT,
  RELAY_FUNCTIONS,
  type RelayFunctionId,
  relayBuildOptions,
} from '../infra/bundling';
import { runtimeConfigJson } from '../infra/runtime-config';
import { buildTracingLayer, TRACING_LAYER_MODULE } from '../infra/tracing-layer';

const run = promisify(execFile);

interface BundleReport {
  name: RelayFunctionId;
  bytes: number;
  gzipBytes: number;
  top: Array<{ module: string; bytes: number }>;
  /** Our own files by output bytes (--verbose). */
  files?: Array<{ module: string; bytes: number }>;
  initMs: number[];
  medianInitMs: number;
  /** Cold init as deployed with tracing on: the tracing layer loaded through NODE_PATH. */
  tracedMedianInitMs: number;
  /** This function's size budget (BUNDLE_MAX_BYTES). */
  maxBytes: number;
  withinBudget: boolean;
}

function option(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index === -1 ? undefined : process.argv[index + 1];
}

async function bundle(name: RelayFunctionId, outdir: string): Promise<{ file: string; metafile: Metafile }> {
  const file = join(outdir, name, `index${BUNDLE_OPTIONS.outExtension}`);
  const result = await build(relayBuildOptions(name, file));
  return { file, metafile: result.metafile as Metafile };
}

/** Output bytes grouped by npm package (or by top-level repo folder for our own code). */
function contributors(metafile: Metafile): Array<{ module: string; bytes: number }> {
  const output = Object.values(metafile.outputs).find((o) => o.entryPoint);
  const byModule = new Map<string, number>();
  for (const [path, input] of Object.entries(output?.inputs ?? {})) {
    const pkg = path.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)?.[1];
    const module = pkg ?? path.split('/').slice(0, 2).join('/');
    byModule.set(module, (byModule.get(module) ?? 0) + input.bytesInOutput);
  }
  return [...byModule.entries()]
    .map(([module, bytes]) => ({ module, bytes }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, 6);
}

/** Our own source files (outside node_modules) by output bytes, biggest first. */
function ownFiles(metafile: Metafile): Array<{ module: string; bytes: number }> {
  const output = Object.values(metafile.outputs).find((o) => o.entryPoint);
  return Object.entries(output?.inputs ?? {})
    .filter(([path]) => !path.includes('node_modules/'))
    .map(([module, input]) => ({ module, bytes: input.bytesInOutput }))
    .sort((a, b) => b.bytes - a.bytes);
}

const IMPORT_TIMER =
  'const t = performance.now(); const m = await import(process.argv[1]); ' +
  "if (typeof m.handler !== 'function') throw new Error('no handler export'); " +
  'process.stdout.write(String(performance.now() - t));';

/** One fresh process per sample: module init only (process start-up excluded), as Lambda's INIT. */
async function coldInit(file: string, env: Record<string, string>, runs: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const { stdout } = await run(
      process.execPath,
      ['--enable-source-maps', '--no-warnings', '--input-type=module', '-e', IMPORT_TIMER, file],
      { env: { PATH: process.env.PATH ?? '', ...env }, cwd: tmpdir(), timeout: 30_000 },
    );
    samples.push(Number(stdout));
  }
  return samples;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

async function main(): Promise<void> {
  const runs = Number(option('--runs') ?? 7);
  const json = process.argv.includes('--json');
  const check = process.argv.includes('--check');
  const verbose = process.argv.includes('--verbose');
  const only = option('--only');
  const metafileDir = option('--metafile');
  const config = JSON.parse(readFileSync(join(PROJECT_ROOT, 'infra/example-config.json'), 'utf8'));
  // The cold init measured must not call Secrets Manager: the example's secret references become inline
  // values of the same shape (what a function holds once its secrets are read).
  for (const byId of Object.values(
    config.accounts as Record<string, Record<string, Record<string, unknown>>>,
  ))
    for (const account of Object.values(byId)) {
      if (!account.callbackSecretId) continue;
      delete account.callbackSecretId;
      account.pathSecret = 'bench-path-secret-0123456789';
      if (account.hashMode) account.callbackKey = 'bench-airtel-callback-key';
    }
  const env = {
    AWS_REGION: 'eu-west-1',
    TABLE_NAME: 'relay-bench',
    EVENT_BUS_NAME: 'relay-bench',
    EVENT_SOURCE: 'mobile-money.relay',
    RELAY_CONFIG_JSON: runtimeConfigJson(config),
    LOG_LEVEL: 'INFO',
    POWERTOOLS_METRICS_NAMESPACE: 'MobileMoneyRelay',
  };
  const outdir = mkdtempSync(join(tmpdir(), 'relay-bundles-'));
  const layerDir = buildTracingLayer();
  const layerFile = join(layerDir, 'nodejs', 'node_modules', TRACING_LAYER_MODULE, 'index.js');
  const traced = {
    NODE_PATH: join(layerDir, 'nodejs', 'node_modules'),
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
  };
  const reports: BundleReport[] = [];
  try {
    const names = (Object.keys(RELAY_FUNCTIONS) as RelayFunctionId[]).filter((n) => !only || n === only);
    if (names.length === 0) throw new Error(`--only ${only}: no such function`);
    for (const name of names) {
      const { file, metafile } = await bundle(name, outdir);
      if (metafileDir) {
        mkdirSync(metafileDir, { recursive: true });
        writeFileSync(join(metafileDir, `${name}.meta.json`), JSON.stringify(metafile));
      }
      const bytes = statSync(file).size;
      const initMs = await coldInit(
        file,
        { ...env, POWERTOOLS_SERVICE_NAME: RELAY_FUNCTIONS[name].serviceName },
        runs,
      );
      const medianInitMs = median(initMs);
      const tracedInitMs = await coldInit(
        file,
        {
          ...env,
          ...traced,
          POWERTOOLS_SERVICE_NAME: RELAY_FUNCTIONS[name].serviceName,
          AWS_LAMBDA_FUNCTION_NAME: name,
        },
        runs,
      );
      reports.push({
        name,
        bytes,
        gzipBytes: gzipSync(readFileSync(file)).length,
        top: contributors(metafile),
        ...(verbose ? { files: ownFiles(metafile) } : {}),
        initMs,
        medianInitMs,
        tracedMedianInitMs: median(tracedInitMs),
        maxBytes: BUNDLE_MAX_BYTES[name],
        withinBudget: bytes <= BUNDLE_MAX_BYTES[name] && medianInitMs <= BUNDLE_BUDGET.maxColdInitMs,
      });
    }
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }

  if (json) {
    process.stdout.write(
      `${JSON.stringify({ budget: { ...BUNDLE_BUDGET, maxBytesByFunction: BUNDLE_MAX_BYTES }, runs, tracingLayerBytes: statSync(layerFile).size, bundles: reports }, null, 2)}\n`,
    );
  } else {
    const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
    console.log(
      `Lambda bundles (budget ≤ ${kb(BUNDLE_BUDGET.maxBytes)} minified, the callback ≤ ${kb(BUNDLE_MAX_BYTES.callback)}, target ${kb(CALLBACK_BUNDLE_TARGET_BYTES)}; ≤ ${BUNDLE_BUDGET.maxColdInitMs} ms median cold init; ${runs} runs)`,
    );
    for (const r of reports) {
      const init = `init median ${r.medianInitMs.toFixed(0)} ms (min ${Math.min(...r.initMs).toFixed(0)}, max ${Math.max(...r.initMs).toFixed(0)}); with tracing ${r.tracedMedianInitMs.toFixed(0)} ms`;
      console.log(
        `${r.withinBudget ? 'ok  ' : 'OVER'} ${r.name.padEnd(22)} ${kb(r.bytes).padStart(9)} (gzip ${kb(r.gzipBytes)})  ${init}`,
      );
      console.log(`     biggest: ${r.top.map((t) => `${t.module} ${kb(t.bytes)}`).join(', ')}`);
      for (const f of r.files ?? []) console.log(`       ${kb(f.bytes).padStart(9)}  ${f.module}`);
    }
    console.log(
      `tracing layer (${TRACING_LAYER_MODULE}: Powertools Tracer + X-Ray SDK, shared by every function, loaded only in Lambda): ${kb(statSync(layerFile).size)}`,
    );
  }
  if (check && reports.some((r) => !r.withinBudget)) process.exitCode = 1;
}

await main();
