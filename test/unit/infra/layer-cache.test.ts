import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { layerCacheRoot } from '../../../infra/layer-cache';
import { writeRuntimeConfigLayer } from '../../../infra/runtime-config';

describe('the layers built for deployment', () => {
  it('are built in a directory of the process’s own (mode 0700), not under a name anyone can compute', () => {
    // Act
    const root = layerCacheRoot();

    // Assess
    expect(root).not.toBe(join(tmpdir(), 'mobile-money-relay-layers'));
    expect(statSync(root).mode & 0o777).toBe(0o700);
    expect(layerCacheRoot()).toBe(root);
  });

  it('never deploy a config file planted where the old shared cache put it', () => {
    // Prepare: an attacker who can write the system temp directory plants the layer the old code reused.
    const json = JSON.stringify({ accounts: {}, planted: false });
    const hash = createHash('sha256').update(json).digest('hex').slice(0, 16);
    const planted = join(tmpdir(), 'mobile-money-relay-layers', `config-${hash}`, 'relay');
    mkdirSync(planted, { recursive: true });
    writeFileSync(join(planted, 'config.json'), '{"planted":true}');

    // Act
    const dir = writeRuntimeConfigLayer(json);
    rmSync(join(planted, '..'), { recursive: true, force: true });

    // Assess
    expect(readFileSync(join(dir, 'relay', 'config.json'), 'utf8')).toBe(json);
    expect(dir.startsWith(layerCacheRoot())).toBe(true);
  });
});
