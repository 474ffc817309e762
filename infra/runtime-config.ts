import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { layerCacheRoot } from './layer-cache';

/**
 * Where the functions read the config: a file of the config layer (Lambda extracts layers under /opt),
 * named by RELAY_CONFIG. The config travels with the code, not in the environment: Lambda's 4 KB
 * environment limit no longer caps the number of accounts, and nothing of it is in the template.
 */
export const RUNTIME_CONFIG_PATH = '/opt/relay/config.json';

/**
 * What the functions read: the config as written, minus what only the local server uses (`local`,
 * `management.bearerToken`), as compact JSON. Secrets are not in it (cdk synth refuses them inline,
 * infra/relay/validate.ts), only the ids of the Secrets Manager secrets that hold them.
 * No aws-cdk-lib import: scripts/bundle-size.ts uses it too.
 */
export function runtimeConfigJson(input: unknown): string {
  const {
    local: _local,
    management,
    ...rest
  } = input as Record<string, unknown> & {
    management?: Record<string, unknown>;
  };
  const { bearerToken: _token, ...managementRest } = management ?? {};
  return JSON.stringify({ ...rest, management: managementRest });
}

/**
 * Writes the config layer's content (`relay/config.json`, at RUNTIME_CONFIG_PATH once deployed) into a
 * directory named by the content's hash, and returns it for `Code.fromAsset`: the asset hash follows
 * the config, so a changed config publishes a new layer version and updates the functions.
 */
export function writeRuntimeConfigLayer(json: string, outRoot = layerCacheRoot()): string {
  const hash = createHash('sha256').update(json).digest('hex').slice(0, 16);
  const dir = join(outRoot, `config-${hash}`);
  if (existsSync(join(dir, 'relay', 'config.json'))) return dir;
  // Written beside, then renamed: a concurrent synth never sees a half-written layer.
  const staging = `${dir}.${process.pid}.${Date.now()}`;
  mkdirSync(join(staging, 'relay'), { recursive: true });
  writeFileSync(join(staging, 'relay', 'config.json'), json);
  try {
    renameSync(staging, dir);
  } catch {
    rmSync(staging, { recursive: true, force: true });
  }
  return dir;
}
