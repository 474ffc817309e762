import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import {
  PREBUILT_ASSETS_DIR,
  PREBUILT_MANIFEST,
  type PrebuiltManifest,
  type RelayFunctionId,
} from './bundling';

/**
 * The packed library's bundles (`npm pack` builds them: scripts/prebuild-assets.ts), or undefined when
 * the construct runs from this repository's sources, which NodejsFunction bundles at synth time.
 * An installed package has neither the sources nor the package-lock.json that bundling needs.
 */
function prebuiltManifest(): PrebuiltManifest | undefined {
  const path = join(PREBUILT_ASSETS_DIR, PREBUILT_MANIFEST);
  if (!existsSync(path)) return undefined;
  return JSON.parse(readFileSync(path, 'utf8')) as PrebuiltManifest;
}

/**
 * NodejsFunction props that deploy a prebuilt bundle instead of bundling (`code` makes it skip entry,
 * lockfile and bundling options); none from the sources.
 */
export function prebuiltFunctionCode(id: RelayFunctionId): { code?: lambda.Code; handler?: string } {
  const manifest = prebuiltManifest();
  if (manifest === undefined) return {};
  const dir = manifest.functions[id];
  if (dir === undefined) {
    throw new Error(
      `prebuilt assets: no bundle for the ${id} function in ${PREBUILT_ASSETS_DIR} (rebuild the package)`,
    );
  }
  return { code: lambda.Code.fromAsset(join(PREBUILT_ASSETS_DIR, dir)), handler: 'index.handler' };
}

/** The packed library's tracing layer directory (for `Code.fromAsset`), or undefined from the sources. */
export function prebuiltTracingLayer(): string | undefined {
  const manifest = prebuiltManifest();
  return manifest === undefined ? undefined : join(PREBUILT_ASSETS_DIR, manifest.tracingLayer);
}
