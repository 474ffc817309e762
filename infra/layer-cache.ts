import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let root: string | undefined;

/**
 * Where this process builds the layers it hands to `Code.fromAsset` (the tracing layer, the config
 * layer). A directory of its own, made by mkdtemp (a name nobody can compute, mode 0700), never a shared
 * folder under the system temp directory whose name anyone can compute: a file planted there would be
 * reused unchecked and deployed into every function, which hold the table and the secrets. Built once
 * per process, then reused within it.
 */
export function layerCacheRoot(): string {
  if (root === undefined) {
    const made = mkdtempSync(join(tmpdir(), 'mobile-money-relay-layers-'));
    // Synth copies each asset into the cloud assembly: nothing needs the directory after the process.
    process.once('exit', () => rmSync(made, { recursive: true, force: true }));
    root = made;
  }
  return root;
}
